"""The agent runtime: rooms, delivery, and the platform tools adapters call."""
