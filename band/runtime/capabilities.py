"""``Capability``, defined in ``band.core.types`` (band-sdk's path); an alias module."""

from __future__ import annotations

from band.core.types import Capability

__all__ = ["Capability"]
