"""Tools the model can call: their specs, and the handlers that run them."""
