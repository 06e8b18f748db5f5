"""Every public name of the official band-sdk 6.0.1 against ours (issue 55).

``surface.py --walk`` runs under the official venv and lists each module of ``band`` whose
path has no ``_`` part and that declares ``__all__``, with the facts of each name. Here the
same modules are described on our side and compared: a name is missing, or its call (a
function's parameters, a class's constructor) is incompatible for a caller that passes
arguments by name or position. Class members are compared by ``test_surface.py``.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from bandtest.process import run_ok

from .compare import _params_diff
from .surface import describe_module

SURFACE = Path(__file__).with_name("surface.py")


def official_modules(python: Path) -> dict[str, Any]:
    """The official package's public modules and their names' facts, from its own venv."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = run_ok([python, "-I", SURFACE, "--walk"], env=env, timeout=300)
    facts: dict[str, Any] = json.loads(out.stdout)
    return facts


def name_differences(official: dict[str, Any]) -> list[str]:
    """``module:Name (why)`` for each official name we lack or whose call differs."""
    out: list[str] = []
    for module, info in sorted(official.items()):
        names = info.get("names", {})
        mine = describe_module(module, names).get("names", {})
        for name, theirs in sorted(names.items()):
            key = f"{module}:{name}"
            other = mine.get(name)
            if other is None:
                out.append(f"{key} (missing)")
                continue
            if theirs["kind"] == "unimportable" or other["kind"] == "unimportable":
                continue
            if theirs["kind"] == "function":
                out += _params_diff(key, theirs.get("params"), other.get("params"))
            elif theirs["kind"] in ("class", "exception") and other["kind"] != "function":
                out += _params_diff(key, theirs.get("init"), other.get("init"))
    return out


def missing(diffs: list[str]) -> list[str]:
    """The ``module:Name`` keys of the missing names among ``diffs``."""
    return [d.split(" (", 1)[0] for d in diffs if d.endswith("(missing)")]
