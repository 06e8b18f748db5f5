"""Every message on the error reference is still the code's: its fixed parts are in the source."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "reference" / "errors.md"
PLACEHOLDER = "…"


def _literals(path: Path) -> list[str]:
    """The string constants of a module, adjacent literals joined as Python joins them (an
    f-string's fixed parts are constants of their own)."""
    tree = ast.parse(path.read_text())
    return [
        n.value for n in ast.walk(tree) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


SOURCE = "\n".join(
    text
    for top in ("band", "band_sdk_core")
    for p in (ROOT / top).rglob("*.py")
    for text in _literals(p)
)


def messages() -> list[str]:
    """The backticked message in the first column of each table row."""
    return re.findall(r"^\| `([^`]+)` \|", PAGE.read_text(), re.M)


def test_the_page_lists_messages() -> None:
    assert len(messages()) >= 15


@pytest.mark.parametrize("message", messages())
def test_message_is_in_the_code(message: str) -> None:
    fragments = [f.strip() for f in message.split(PLACEHOLDER) if len(f.strip()) >= 4]
    assert fragments, message
    missing = [f for f in fragments if f not in SOURCE]
    assert missing == [], f"not found in the code: {missing}"
