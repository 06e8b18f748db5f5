"""History converters: a room's platform history in a model provider's message format."""

from typing import TYPE_CHECKING

from band._lazy import lazy_exports

# loaded on first use: a converter needs its adapter's extra
_CONVERTERS = {
    "ACPServerHistoryConverter": "band.converters.acp_server",
}

__all__ = sorted(_CONVERTERS)

__getattr__ = lazy_exports(globals(), _CONVERTERS)

if TYPE_CHECKING:
    from band.converters.acp_server import ACPServerHistoryConverter as ACPServerHistoryConverter
