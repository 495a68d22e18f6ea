"""The `initialize` handshake: who this server is."""
