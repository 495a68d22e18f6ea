"""The `initialize` handshake."""
