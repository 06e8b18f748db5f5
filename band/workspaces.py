"""Per-room working directories for room-owned local agents (one directory per room)."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

__all__ = [
    "DEFAULT_WORKSPACE_DIR",
    "RoomWorkspaces",
    "WorkspaceResolver",
    "create_room_workspace_resolver",
    "resolver_for",
]

#: Takes a room ID, returns the absolute directory that room's agent runs in.
WorkspaceResolver = Callable[[str], str]

#: Directory under the launch directory that holds the default per-room workspaces.
DEFAULT_WORKSPACE_DIR = ".band-workspaces"
#: Longest room ID usable as one directory name (common filesystems cap names at 255 bytes).
MAX_NAME_BYTES = 255


def _check_room_id(room_id: str) -> None:
    """Reject a room ID that is not exactly one plain directory name."""
    if not isinstance(room_id, str) or not room_id:
        raise ValueError("room ID must be a non-empty string to name a workspace")
    bad = room_id in (".", "..") or any(c in room_id for c in ("/", "\\", "\0"))
    if bad or len(room_id.encode("utf-8", "surrogatepass")) > MAX_NAME_BYTES:
        raise ValueError(f"room ID {room_id[:64]!r} cannot name a workspace directory")


def create_room_workspace_resolver(root: str | os.PathLike[str]) -> WorkspaceResolver:
    """A resolver that creates and returns ``<root>/<room_id>/`` (never outside ``root``)."""
    base = Path(root).expanduser().resolve()

    def workspace_for_room(room_id: str) -> str:
        _check_room_id(room_id)
        path = (base / room_id).resolve()
        # resolve() follows symlinks: a link planted under root must not lead elsewhere
        if path.parent != base:
            raise ValueError(f"room ID {room_id[:64]!r} cannot name a workspace directory")
        path.mkdir(parents=True, exist_ok=True)
        return str(path)

    return workspace_for_room


def resolver_for(
    cwd: str | None, workspace_for_room: WorkspaceResolver | None
) -> WorkspaceResolver:
    """The resolver an adapter uses: ``workspace_for_room``, ``<cwd>/<id>/`` or the default."""
    if cwd is not None and workspace_for_room is not None:
        raise ValueError("set either cwd or workspace_for_room, not both")
    if workspace_for_room is not None:
        return workspace_for_room
    if cwd is not None:
        return create_room_workspace_resolver(cwd)
    # resolved on first use, so the default follows the directory the agent runs from
    return lambda room_id: create_room_workspace_resolver(Path.cwd() / DEFAULT_WORKSPACE_DIR)(
        room_id
    )


class RoomWorkspaces:
    """Which live room owns which workspace: two live rooms never share one directory."""

    def __init__(self, resolver: WorkspaceResolver) -> None:
        self._resolver = resolver
        self._by_room: dict[str, str] = {}
        self._by_path: dict[str, str] = {}

    def claim(self, room_id: str) -> str:
        """The room's workspace (resolved and created once), claimed for this room."""
        path = self._by_room.get(room_id)
        if path is not None:
            return path
        raw = self._resolver(room_id)
        if not isinstance(raw, str | os.PathLike) or not os.path.isabs(raw):
            raise ValueError("workspace_for_room must return an absolute path")
        path = os.path.realpath(raw)
        owner = self._by_path.get(path)
        if owner is not None and owner != room_id:
            raise ValueError(
                f"workspace_for_room assigned {path!r} to both {owner!r} and {room_id!r}"
            )
        Path(path).mkdir(parents=True, exist_ok=True)
        self._by_room[room_id] = path
        self._by_path[path] = room_id
        return path

    def release(self, room_id: str) -> None:
        """Forget the room's claim (the room left); its directory stays on disk."""
        path = self._by_room.pop(room_id, None)
        if path is not None and self._by_path.get(path) == room_id:
            del self._by_path[path]

    def get(self, room_id: str) -> str | None:
        """The room's claimed workspace, if any."""
        return self._by_room.get(room_id)
