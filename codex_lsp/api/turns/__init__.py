"""`turn/*` and `review/start` on a loaded thread."""
