"""The seam between the REST side and the WebSocket side of the local platform.

The REST application (``band.devserver.app``) owns the database and decides
*what* happened; the WebSocket side (``band.devserver.socket``: ``channel`` and ``fanout``)
owns connections and decides *who is listening*. Both know a caller only as a
``Principal``; the REST side pushes through ``Fanout.push``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal


@dataclass(frozen=True, slots=True)
class Principal:
    """Who an API key belongs to."""

    kind: Literal["agent", "user"]
    id: str
    name: str
