"""The core's twins are honest: one logic for both, compiled-only helpers named as such.

Read from the source tree (``band_sdk_core`` beside this checkout's ``setup.py``): each compiled
module is either a ``_<topic>_py.py`` compiled as ``_<topic>_c`` or a hand-written ``.pyx``
whose docstring says it is compiled-only; a ``_COMPILED`` branch appears only where
CONTRIBUTING.md allows it (a read-only object's field stores).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "band_sdk_core"

#: The hand-written Cython sources, which have no pure twin (README and CONTRIBUTING list them).
COMPILED_ONLY = {"_strmap_c", "_ordered_c", "_typename_c"}
#: Modules whose ``_COMPILED`` branches store or read a read-only object's private fields.
FIELD_STORES = {"_decisions_py", "_session_py", "_subscriptions_py", "_turn_py"}
#: The calls such a branch may make: constructors and the fields' own setters and getters.
FIELD_CALLS = ("__new__", "_allocate", "object.__setattr__", "hasattr", "_has_core")


def _accelerated() -> dict[str, str]:
    """setup.py's ``ACCELERATED``: compiled module -> its source file."""
    tree = ast.parse((ROOT / "setup.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and ast.unparse(node.targets[0]) == "ACCELERATED":
            value = ast.literal_eval(node.value)
            assert isinstance(value, dict)
            return value
    raise AssertionError("setup.py defines no ACCELERATED")


ACCELERATED = _accelerated()


def test_every_compiled_module_is_a_twin_or_named_compiled_only() -> None:
    hand_written = {name for name, src in ACCELERATED.items() if src.endswith(".pyx")}
    assert hand_written == COMPILED_ONLY
    for name, src in ACCELERATED.items():
        if name in COMPILED_ONLY:
            continue
        assert src == name.removesuffix("_c") + "_py.py", (name, src)
        assert (CORE / src).is_file()


@pytest.mark.parametrize("name", sorted(COMPILED_ONLY))
def test_compiled_only_helpers_say_so(name: str) -> None:
    source = (CORE / f"{name}.pyx").read_text(encoding="utf-8")
    head = [line for line in source.splitlines() if not line.startswith("#")]
    assert head[0].startswith('"""Compiled-only'), name  # Cython, not Python: read as text
    for text in ("README.md", "CONTRIBUTING.md"):
        assert f"{name}.pyx" in (ROOT / text).read_text(encoding="utf-8"), (text, name)


def _compiled_branches(tree: ast.Module) -> list[ast.If]:
    return [
        node
        for node in ast.walk(tree)
        if isinstance(node, ast.If) and "_COMPILED" in ast.unparse(node.test)
    ]


@pytest.mark.parametrize("path", sorted(CORE.glob("_*_py.py")), ids=lambda p: p.stem)
def test_compiled_branches_only_where_allowed(path: Path) -> None:
    branches = _compiled_branches(ast.parse(path.read_text(encoding="utf-8")))
    if path.stem not in FIELD_STORES:
        assert not branches, f"{path.name}: `if _COMPILED:` in a pure twin's logic"
        return
    for branch in branches:
        # a field store or read, and nothing else: no call but a descriptor's or a constructor
        for node in ast.walk(branch):
            if isinstance(node, ast.Call):
                called = ast.unparse(node.func)
                assert called.endswith(FIELD_CALLS) or called.startswith(("_set_", "_get_")), (
                    f"{path.name}:{node.lineno}: {called}() in a _COMPILED branch"
                )
