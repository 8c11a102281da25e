"""A tiny stock-keeping library: the project code-commit repairs in the end-to-end test."""
