"""What a client picks from: `model/list` and `skills/list`."""
