"""`config/*`: reading, writing and reloading the user's configuration."""
