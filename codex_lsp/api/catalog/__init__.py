"""`model/list` and `skills/list`."""
