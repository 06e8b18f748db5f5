"""Facade: room activity snapshot normalisation.

Only the pure-Python implementation exists for now; the compiled twin joins later.
"""

from __future__ import annotations

from ._activity_py import normalize_room_activity_snapshot

__all__ = ["normalize_room_activity_snapshot"]
