"""`turn/*` and `review/start`: turns, their items and editor tasks."""
