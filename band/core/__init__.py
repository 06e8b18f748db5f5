"""What adapters build on: the adapter base classes, tool protocol, message types and the turn."""
