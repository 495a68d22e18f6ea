"""`feedback/save`: a local feedback bundle, secrets redacted."""
