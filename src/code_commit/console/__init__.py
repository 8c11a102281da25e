"""What the user sees: console output (stderr), the terminal, text made printable, counts in words."""
