"""`python -m bench repair`: code-commit end to end on a corpus of broken builds (bench/repair/vendor/)."""
