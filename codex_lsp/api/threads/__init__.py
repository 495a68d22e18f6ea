"""`thread/*`: loaded threads, the store's threads, and each thread's events as notifications."""
