"""The handler's helpers: ``strip_mentions``, ``band.testing.message``, the fake tools'
positional assertions, and the README's agent and its unit test, run and type-checked."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from bandtest.process import run_ok

from band import strip_mentions
from band.testing import FakeAgentTools, message

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: the testing tutorial of the docs site (the README's "Testing your agent" moved there)
TESTING = (ROOT / "docs" / "tutorials" / "testing.md").read_text(encoding="utf-8")


def _snippet(heading: str, marker: str, text: str = README) -> str:
    """The first python block under ``heading`` in ``text`` that contains ``marker``."""
    section = text.split(heading, 1)[1]
    blocks = [b.split("```", 1)[0] for b in section.split("```python\n")[1:]]
    return next(b for b in blocks if marker in b)


def test_strip_mentions_leaves_what_the_person_wrote() -> None:
    assert strip_mentions("@[[a1]] @[[b2]] hi there") == "hi there"
    assert strip_mentions("@[[a1]]hi @[[b2]] you") == "hi you"
    assert strip_mentions("@echo @local/helper  what now?") == "what now?"
    assert strip_mentions("mail me@example.com") == "mail me@example.com"


def test_message_builds_what_on_message_receives() -> None:
    first, second = message(), message("hey", mentions=["x1", "x2"], sender="Bob", room_id="r")
    assert first.content == "hello" and first.sender_type == "User" and first.id != second.id
    assert second.content == "@[[x1]] @[[x2]] hey" and strip_mentions(second.content) == "hey"
    assert (second.sender_name, second.room_id, second.message_type) == ("Bob", "r", "text")
    assert second.created_at.tzinfo is not None


def test_the_fake_tools_assertions_take_the_text_positionally() -> None:
    import asyncio

    tools = FakeAgentTools()
    asyncio.run(tools.send_message("done", mentions=["p1"]))
    asyncio.run(tools.send_event("thinking", "thought"))
    tools.assert_message_sent("done")
    tools.assert_message_sent("done", mentions=["p1"], count=1)
    tools.assert_message_sent(content="done")  # band-sdk's keyword still works
    tools.assert_event_sent("thought", count=1)
    with pytest.raises(AssertionError, match="No message with content 'other'"):
        tools.assert_message_sent("other")


@pytest.fixture(scope="module")
def readme_project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's echo.py and test_echo.py, as a user copies them."""
    where = tmp_path_factory.mktemp("readme")
    (where / "echo.py").write_text(_snippet("## A 20-line agent", "class Echo"))
    test = _snippet("# Testing your agent", "from echo import", TESTING)
    (where / "test_echo.py").write_text(test)
    return where


def test_the_readme_unit_test_passes(readme_project: Path) -> None:
    argv = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_echo.py"]
    done = run_ok(argv, cwd=readme_project, timeout=300)
    assert "1 passed" in done.stdout, done.stdout


def test_the_readme_snippets_pass_mypy_strict(readme_project: Path) -> None:
    argv = [sys.executable, "-m", "mypy", "--strict", "--no-incremental", "echo.py", "test_echo.py"]
    run_ok(argv, cwd=readme_project, timeout=600)
