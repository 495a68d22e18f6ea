"""The byte streams under both front doors: the client's input read without blocking the
event loop, and messages written out in order with a bounded backlog."""
