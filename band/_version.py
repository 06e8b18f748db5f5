"""The SDK's version, in a module of its own so any layer can read it without importing ``band``."""

__version__ = "0.1.0"
