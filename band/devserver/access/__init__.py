"""band dev's authorization model (``AUTHORIZATION.md``): the rules each operation names and the
WebSocket join check."""
