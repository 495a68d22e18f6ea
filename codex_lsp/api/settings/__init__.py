"""Skills settings, hooks, experimental features and permission profiles."""
