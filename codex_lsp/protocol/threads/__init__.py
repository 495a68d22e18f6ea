"""`thread/*`: threads, their lifecycle, read state, and the notifications a thread sends."""
