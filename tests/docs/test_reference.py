"""The API reference is complete: every name in a public package's ``__all__`` is documented.

The public modules are ``band``, ``band_sdk_core`` and the packages and modules under them that
declare ``__all__`` (see :func:`public_packages`; a new one fails here until it has a page). A name
counts as documented when mkdocstrings put it in the site's inventory (``objects.inv``), which
it does for each object it rendered.
"""

from __future__ import annotations

import ast
import importlib
import re
import zlib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
REFERENCE = ROOT / "docs" / "reference"


def _declares_all(source: Path) -> bool:
    """Whether a module's source assigns ``__all__``."""
    for node in ast.parse(source.read_text()).body:
        targets = node.targets if isinstance(node, ast.Assign) else []
        if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
            return True
    return False


def _all_of(name: str, source: Path) -> list[str]:
    """A module's ``__all__``: imported, or read from its source when the module needs an
    extra this venv lacks (a framework tested in a venv of its own)."""
    try:
        return list(importlib.import_module(name).__all__)
    except ImportError:
        for node in ast.parse(source.read_text()).body:
            targets = node.targets if isinstance(node, ast.Assign) else []
            if any(isinstance(t, ast.Name) and t.id == "__all__" for t in targets):
                return list(ast.literal_eval(node.value))
        raise


def public_packages() -> dict[str, list[str]]:
    """Each public module's dotted name and its ``__all__``.

    Public: a package up to three levels deep (``band.runtime.tools``) or a module directly under
    ``band`` (``band.credentials``) that declares ``__all__``, with no part named ``_private``.
    """
    found: dict[str, list[str]] = {}
    for top in ("band", "band_sdk_core"):
        for path in sorted((ROOT / top).rglob("*.py")):
            parts = path.relative_to(ROOT).with_suffix("").parts
            if any(part.startswith("_") and part != "__init__" for part in parts):
                continue
            package = parts[-1] == "__init__"
            module = parts[:-1] if package else parts
            if (package and len(module) <= 3) or (not package and len(module) == 2):
                if _declares_all(path):
                    name = ".".join(module)
                    found[name] = _all_of(name, path)
    assert {"band", "band_sdk_core"} <= set(found)
    return found


def documented_modules() -> set[str]:
    """The modules the reference pages render (``::: module`` lines)."""
    pages = REFERENCE.glob("*.md")
    return {m for page in pages for m in re.findall(r"^::: ([\w.]+)", page.read_text(), re.M)}


def inventory(site: Path) -> set[str]:
    """The object names in the site's Sphinx-style inventory."""
    header, _, rest = (site / "objects.inv").read_bytes().partition(b"zlib.\n")
    assert b"Sphinx inventory version 2" in header
    return {line.split(" ", 1)[0] for line in zlib.decompress(rest).decode().splitlines()}


def test_every_public_package_has_a_reference_page() -> None:
    missing = sorted(set(public_packages()) - documented_modules())
    assert missing == [], f"public packages without a page in docs/reference: {missing}"


@pytest.mark.parametrize("package", sorted(public_packages()))
def test_every_public_name_is_documented(site: Path, package: str) -> None:
    names = inventory(site)
    # an underscore name in __all__ is there for band-sdk compatibility, not documented API
    wanted = [n for n in public_packages()[package] if not n.startswith("_")]
    assert wanted, f"{package}.__all__ is empty"
    undocumented = [n for n in wanted if f"{package}.{n}" not in names]
    assert undocumented == [], f"{package}: names in __all__ missing from the reference"


def test_reference_renders_signatures_and_docstrings(site: Path) -> None:
    page = (site / "reference" / "band_sdk_core" / "index.html").read_text()
    assert 'id="band_sdk_core.ClaimRegistry"' in page
    # a docstring's first line, rendered from the source
    assert "ClaimRegistry" in page and "doc-signature" in page
