"""`modelProvider/*`: the model providers a client can pick and configure."""
