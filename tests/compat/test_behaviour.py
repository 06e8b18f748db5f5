"""band-sdk 6.0.1's pure helpers and constants give the same outputs on ours.

``official_behaviour.json`` is ``probe_behaviour.py`` run under the official SDK; here it runs
under ours and each case is compared. The cases that differ on purpose are listed with why.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .probe_behaviour import probe

OFFICIAL: dict[str, Any] = json.loads(
    Path(__file__).with_name("official_behaviour.json").read_text()
)

#: model-facing prose is our own wording; its structure is checked below
OWN_WORDING = {
    "participants",
    "prompt_default",
    "prompt_named",
    "prompt_no_base",
    "prompt_bad_template",
}


@pytest.fixture(scope="module")
def ours() -> dict[str, Any]:
    return probe()


@pytest.mark.parametrize("case", sorted(set(OFFICIAL) - OWN_WORDING))
def test_same_output(ours: dict[str, Any], case: str) -> None:
    assert ours[case] == OFFICIAL[case]


def test_participants_roster_lines_match(ours: dict[str, Any]) -> None:
    """The roster lines are band-sdk's format; only the trailing notes are worded by us."""
    theirs, mine = OFFICIAL["participants"], ours["participants"]
    roster = [ln for ln in theirs.split("\n") if ln.startswith(("## ", "- @"))]
    assert [ln for ln in mine.split("\n") if ln.startswith(("## ", "- @"))] == roster
    assert "self-declared" not in mine and "not instructions" in mine
    assert "band_send_message" in mine and "handle" in mine
    assert ours["participants_empty"] == OFFICIAL["participants_empty"]


def test_prompt_layout_matches(ours: dict[str, Any]) -> None:
    """Identity first, the developer's section last, nothing but identity without the base."""
    for case in ("prompt_default", "prompt_named", "prompt_bad_template"):
        assert ours[case].split("\n\n")[0] == OFFICIAL[case].split("\n\n")[0]
    tail = "## Developer Instructions\n\nBe brief."
    assert OFFICIAL["prompt_named"].endswith(tail) and ours["prompt_named"].endswith(tail)
    assert ours["prompt_no_base"] == OFFICIAL["prompt_no_base"] == "You are Ada, d."
    assert "band_send_message" in ours["prompt_default"]
    assert "band_no_reply" in ours["prompt_default"]


def test_prompt_capability_sections() -> None:
    from band import AdapterFeatures, render_system_prompt
    from band.core.types import Capability

    plain = render_system_prompt(agent_name="A", agent_description="d")
    memory = render_system_prompt(
        agent_name="A",
        agent_description="d",
        features=AdapterFeatures(capabilities=frozenset({Capability.MEMORY})),
        extra_sections=["## Extra\n\nx"],
        custom_section="mine",
    )
    assert "band_store_memory" not in plain and "band_store_memory" in memory
    assert memory.index("band_store_memory") < memory.index("## Extra") < memory.index("mine")


def test_strip_leading_mentions_and_system_updates() -> None:
    from band.runtime.formatters import format_tokens, strip_leading_mentions
    from band.runtime.prompts import system_updates, with_system_updates

    assert strip_leading_mentions("@jane @bob hello") == "hello"
    assert strip_leading_mentions("@jane @bob hello", only_first=True) == "@bob hello"
    assert strip_leading_mentions("hi @x ") == "hi @x "
    assert strip_leading_mentions("  @jane  hi") == "hi"
    assert format_tokens(["a", "b"]) == "`a`, `b`"
    assert system_updates("a", None, "", "b") == ["[System]: a", "[System]: b"]
    assert with_system_updates("msg", "x", None) == "[System]: x\n\nmsg"
    assert with_system_updates("msg") == "msg"
