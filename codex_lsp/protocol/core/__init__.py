"""Core Submission and Event Queue types: the ops a client submits to the engine and the events
it answers with."""
