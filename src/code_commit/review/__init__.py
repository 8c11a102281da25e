"""A plan as hunks and diffs, and --review's interactive approval."""
