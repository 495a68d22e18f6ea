"""The `account/*` methods."""
