"""Platform event types, at the import paths agent code written for band-sdk uses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["PlatformEvent"]

if TYPE_CHECKING:
    from band.platform.event import PlatformEvent


def __getattr__(name: str) -> Any:
    # resolved on first use: band.platform.event imports the runtime's event types
    if name == "PlatformEvent":
        from band.platform.event import PlatformEvent

        return PlatformEvent
    raise AttributeError(f"module 'band.platform' has no attribute {name!r}")
