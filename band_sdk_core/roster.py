"""Public facade of ParticipantRoster: the compiled class when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._roster_py import ParticipantRoster
else:
    from ._roster_c import ParticipantRoster

__all__ = ["ParticipantRoster"]
