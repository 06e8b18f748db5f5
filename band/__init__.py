"""Band: an open-source Python SDK for the Band agent platform."""

__version__ = "0.1.0"
