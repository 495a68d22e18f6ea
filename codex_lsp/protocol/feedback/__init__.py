"""`feedback/save`: a local feedback bundle."""
