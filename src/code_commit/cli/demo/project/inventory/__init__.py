"""A tiny stock-keeping library: the project `code-commit demo` repairs."""
