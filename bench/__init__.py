"""code-commit's benchmark suite: `python -m bench` runs every scenario side by side with its reference."""
