"""Asking git: the environment of code-commit's own git calls, what git ignores and its layout, diffs."""
