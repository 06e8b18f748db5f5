"""A local Band platform: the Band wire protocol over HTTP and WebSocket, on SQLite."""
