"""`fuzzyFileSearch*`: fuzzy file search, one-shot and in sessions."""
