"""Platform event types, at the import paths agent code written for band-sdk uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["BandLink", "PlatformEvent", "SettlementResult"]

if TYPE_CHECKING:
    from band.platform.event import PlatformEvent
    from band.platform.link import BandLink
    from band.platform.settlement import SettlementResult


def __getattr__(name: str) -> Any:
    # resolved on first use: band.platform.event and .link import the runtime's event types
    if name == "PlatformEvent":
        from band.platform.event import PlatformEvent

        return PlatformEvent
    if name == "BandLink":
        from band.platform.link import BandLink

        return BandLink
    if name == "SettlementResult":
        from band.platform.settlement import SettlementResult

        return SettlementResult
    raise AttributeError(f"module 'band.platform' has no attribute {name!r}")
