"""Wire types: the core SQ/EQ protocol (`Op`, `EventMsg`) and the app-server v2 types."""
