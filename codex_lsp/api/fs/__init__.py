"""`fs/*`: files on absolute host paths, and watching them."""
