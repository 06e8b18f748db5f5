"""Public facade of room activity normalisation: the compiled twin when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._activity_py import normalize_room_activity_snapshot
else:
    from ._activity_c import normalize_room_activity_snapshot

__all__ = ["normalize_room_activity_snapshot"]
