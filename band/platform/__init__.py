"""Platform event types, at the import paths agent code written for band-sdk uses."""
