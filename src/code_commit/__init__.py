"""code-commit: an agentic build-repair tool."""

__version__ = "0.1.0"
