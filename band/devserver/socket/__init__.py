"""band dev's WebSocket side: the Phoenix Channels V2 endpoint and the fan-out of pushes."""
