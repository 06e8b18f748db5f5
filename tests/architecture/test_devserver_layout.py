"""``band dev`` is a package of packages that import one way: the store at the bottom, the wire
contract and the authorization model on it, the socket, the HTTP API, the web view, the app on top.

Read from the source with ``ast`` like ``test_layers`` (every import counts, lazy and
``TYPE_CHECKING`` ones too): a subpackage may import its own layer's modules and lower layers'.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import band.devserver

ROOT = Path(band.devserver.__file__).parent

#: layer of each part of band dev (a subpackage, or a top-level module)
PARTS: dict[str, int] = {
    "logs": 0,  # redaction of keys in log lines: used by every server part
    "store": 0,  # SQLite persistence, its rows, and who a key belongs to
    "contract": 1,  # the wire: request bodies and queries, answer shapes, OpenAPI
    "access": 1,  # the authorization model (AUTHORIZATION.md)
    "socket": 2,  # the Phoenix channel endpoint and the fan-out of pushes
    "api": 3,  # the REST routes, each declared once (api.operations), and their plumbing
    "web": 4,  # the web room view: its pages (declared like the API's), static/ and vendor/
    "app": 5,  # the Starlette app built from all of the above
    "thread": 5,  # serving from a daemon thread
}


def _part(module: list[str]) -> str:
    """The part of band dev a dotted path below ``band.devserver`` belongs to."""
    return module[0]


def _imports(path: Path) -> set[str]:
    """The band dev parts ``path`` imports."""
    rel = path.relative_to(ROOT).with_suffix("").parts
    package = ["band", "devserver", *rel[:-1]]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = [*base, *(node.module.split(".") if node.module else [])]
            else:
                module = (node.module or "").split(".")
            if module[:2] != ["band", "devserver"]:
                continue
            below = module[2:]
            found.update(_part(below) if below else alias.name for alias in node.names)
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[:2] == ["band", "devserver"] and len(parts) > 2:
                    found.add(parts[2])
    return found


FILES = sorted(p for p in ROOT.rglob("*.py") if p.relative_to(ROOT).parts != ("__init__.py",))


def test_every_part_has_a_layer() -> None:
    parts = {p.relative_to(ROOT).with_suffix("").parts[0] for p in FILES}
    assert parts == set(PARTS), "a new part of band dev needs a layer here"


@pytest.mark.parametrize("path", FILES, ids=lambda p: str(p.relative_to(ROOT)))
def test_parts_import_downward(path: Path) -> None:
    mine = path.relative_to(ROOT).with_suffix("").parts[0]
    upward = sorted(t for t in _imports(path) if t != mine and PARTS[t] >= PARTS[mine])
    assert not upward, f"{path.relative_to(ROOT)} ({mine}, layer {PARTS[mine]}) imports {upward}"


def test_the_imports_are_read() -> None:
    # the check above means something only if imports are found: spot-check known edges
    assert "store" in _imports(ROOT / "api" / "http.py")
    assert {"api", "socket", "web"} <= _imports(ROOT / "app.py")


def test_vendored_code_has_a_folder_of_its_own() -> None:
    own = {p.name for p in (ROOT / "web" / "static").iterdir()}
    vendored = {p.name for p in (ROOT / "web" / "vendor").iterdir()}
    assert {"marked.esm.js", "purify.es.js", "VENDOR.md"} <= vendored
    assert not own & vendored
