"""The commands: the typer app, its flags, and each command's entry point."""
