"""Per-room workspaces: layout, the three documented errors, and no escape from the root."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from band.workspaces import (
    DEFAULT_WORKSPACE_DIR,
    RoomWorkspaces,
    create_room_workspace_resolver,
    resolver_for,
)

HOSTILE = [
    "..",
    ".",
    "",
    "/",
    "/etc",
    "/tmp/elsewhere",
    "a/../../b",
    "../sibling",
    "a/b",
    "a\\..\\b",
    "room\0id",
    "x" * 300,
    "é" * 200,  # 400 bytes in UTF-8
]


def test_resolver_creates_one_directory_per_room(tmp_path: Path) -> None:
    resolve = create_room_workspace_resolver(tmp_path / "ws")
    a = resolve("room-a")
    assert a == str((tmp_path / "ws" / "room-a").resolve())
    assert Path(a).is_dir()
    assert resolve("room-a") == a  # stable
    assert resolve("550e8400-e29b-41d4-a716-446655440000").endswith("446655440000")


@pytest.mark.parametrize("room_id", HOSTILE)
def test_hostile_room_ids_never_leave_the_root(tmp_path: Path, room_id: str) -> None:
    root = tmp_path / "ws"
    resolve = create_room_workspace_resolver(root)
    with pytest.raises(ValueError, match=r"cannot name a workspace directory|non-empty"):
        resolve(room_id)
    # nothing was created anywhere: not in the root, not beside it
    assert sorted(p.name for p in tmp_path.iterdir()) == ["ws"] or not root.exists()
    assert not root.exists() or list(root.iterdir()) == []


def test_symlink_planted_under_root_does_not_redirect(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    root.mkdir()
    outside = tmp_path / "outside"
    outside.mkdir()
    (root / "evil").symlink_to(outside)
    with pytest.raises(ValueError):
        create_room_workspace_resolver(root)("evil")


def test_default_layout_is_band_workspaces_under_launch_dir(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    resolve = resolver_for(None, None)
    assert resolve("r1") == str(tmp_path.resolve() / DEFAULT_WORKSPACE_DIR / "r1")
    with pytest.raises(ValueError):
        resolve("../r1")


def test_cwd_is_the_root_of_room_directories(tmp_path: Path) -> None:
    assert resolver_for(str(tmp_path), None)("r1") == str(tmp_path.resolve() / "r1")


def test_cwd_and_workspace_for_room_are_exclusive(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        resolver_for(str(tmp_path), lambda room_id: str(tmp_path / room_id))
    assert str(err.value) == "set either cwd or workspace_for_room, not both"


def test_relative_path_from_resolver_is_refused(tmp_path: Path) -> None:
    claims = RoomWorkspaces(lambda room_id: f"relative/{room_id}")
    with pytest.raises(ValueError) as err:
        claims.claim("r1")
    assert str(err.value) == "workspace_for_room must return an absolute path"


def test_same_path_for_two_live_rooms_is_refused(tmp_path: Path) -> None:
    shared = str(tmp_path / "shared")
    claims = RoomWorkspaces(lambda room_id: shared)
    assert claims.claim("room-1") == os.path.realpath(shared)
    assert claims.claim("room-1") == os.path.realpath(shared)  # the same room again is fine
    with pytest.raises(ValueError) as err:
        claims.claim("room-2")
    real = os.path.realpath(shared)
    assert str(err.value) == f"workspace_for_room assigned '{real}' to both 'room-1' and 'room-2'"
    claims.release("room-1")  # once the first room left, the path is free again
    assert claims.claim("room-2") == real


def test_resolver_is_exported_from_band(tmp_path: Path) -> None:
    import band

    resolve = band.create_room_workspace_resolver(tmp_path)
    assert "create_room_workspace_resolver" in band.__all__
    assert resolve("room-1") == str((tmp_path / "room-1").resolve())
