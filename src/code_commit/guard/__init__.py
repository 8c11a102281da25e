"""The write guard: which paths an answer may write."""
