"""Placing an edit block's search text in a file: finding, resolving, and why it could not be placed."""
