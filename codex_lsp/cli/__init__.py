"""Command-line front doors: `exec`, `proto`, `serve`, `app-server`."""
