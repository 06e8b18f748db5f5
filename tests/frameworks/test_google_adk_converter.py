"""``GoogleADKHistoryConverter`` on a real room's history (in the venv ``make test-google-adk``
builds): the contents validate as google-genai ``Content`` (ADK's message type) and the
transcript an ADK session opens with shows the room in order."""

from __future__ import annotations

from adapters.framework_helpers import recorded_history
from google.genai import types

import band.converters
from band.testing import LocalBand

CALLS = [
    ("call_0", "band_get_participants", {}),
    ("call_1", "band_send_message", {"mentions": ["@local"]}),
    ("call_2", "band_send_message", {"content": "2 of us here", "mentions": ["@local"]}),
]


def test_the_contents_and_transcript_of_a_real_room(band_platform: LocalBand) -> None:
    rows, name = recorded_history(band_platform)
    converter = band.converters.GoogleADKHistoryConverter(agent_name=name)
    out = converter.convert(rows)
    contents = [types.Content.model_validate(c) for c in out]
    assert [c.role for c in contents] == ["user"] + ["model", "user"] * 3
    calls = [p.function_call for c in contents for p in c.parts or [] if p.function_call]
    assert [(c.id, c.name, c.args) for c in calls] == CALLS
    replies = [p.function_response for c in contents for p in c.parts or [] if p.function_response]
    assert [(r.id, r.name) for r in replies] == [(c[0], c[1]) for c in CALLS]

    lines = converter.format_transcript(out).splitlines()
    assert lines[0].startswith("[Local Person]: ") and lines[0].endswith("who is here?")
    assert lines[1] == "[Tool Call] band_get_participants ({})"
    head = "[Tool Result] band_get_participants: "
    assert lines[2].startswith(head + "[{") and lines[2].endswith("...")
    assert len(lines[2]) == len(head) + 200 + 3  # a long output is cut to its first 200
    assert lines[4] == (
        "[Tool Result] band_send_message: Invalid arguments for band_send_message: "
        "content: Field required"
    )
    assert lines[5] == (
        '[Tool Call] band_send_message ({"content": "2 of us here", "mentions": ["@local"]})'
    )
    assert lines[-1].startswith("[Peer]: ") and lines[-1].endswith("me too")
    assert len(lines) == 8 and sum("2 of us here" in line for line in lines) == 1
