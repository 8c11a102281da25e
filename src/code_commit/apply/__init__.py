"""Writing a checked plan all or nothing: the transaction and its journal of originals."""
