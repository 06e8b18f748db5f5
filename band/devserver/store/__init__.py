"""band dev's persistence: the SQLite store, its typed rows, one module per domain's tables, and
who an API key belongs to. The bottom layer: it imports nothing else of band dev."""
