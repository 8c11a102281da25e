"""Running build.sh: in the sandbox, with its output compacted, and the integrity check around it."""
