"""Files below the project root: confined operations that never follow a symlink, reads of regular
files only, owner-only files."""
