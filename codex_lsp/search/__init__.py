"""Fuzzy file search for a file picker: list a root's files as git sees them, rank matches."""
