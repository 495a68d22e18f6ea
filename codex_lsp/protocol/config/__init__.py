"""`config/*`: reading and writing the user's configuration."""
