"""History converters: a room's platform history in a model provider's message format."""
