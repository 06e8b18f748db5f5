"""History converters: a room's platform history in a model provider's message format, or
(``ACPServerHistoryConverter``) the records an adapter keeps in its rooms."""

from .acp_server import ACPServerHistoryConverter

__all__ = ["ACPServerHistoryConverter"]
