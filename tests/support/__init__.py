"""Test support shared by every suite (the scripted model server, its script builders, ...)."""
