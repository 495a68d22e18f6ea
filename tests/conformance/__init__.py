"""Side-by-side conformance tests against the real `codex app-server`."""
