"""Platform handles in one spelling: with their ``@``."""

from __future__ import annotations

__all__ = ["normalize_handle"]


def normalize_handle(handle: str | None) -> str | None:
    """``handle`` with its leading ``@`` (added when missing); None for None or empty."""
    if not handle:
        return None
    return handle if handle.startswith("@") else "@" + handle
