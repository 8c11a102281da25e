"""A run: setup checks, the session, the model calls, the repair loop, the record."""
