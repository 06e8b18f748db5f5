"""How ``band demo`` prints room rows: names for mention tokens and ids, one line each."""

from __future__ import annotations

from band.core.wire import MessageRow
from band.demo.watch import MAX_LINE, render

NAMES = {"u1": "Ada", "a1": "Demo Agent"}


def row(kind: str, content: str, sender: str = "a1", **meta: object) -> MessageRow:
    return MessageRow(
        sender_id=sender,
        sender_name=NAMES[sender],
        message_type=kind,
        content=content,
        metadata=dict(meta),
    )


def test_text_shows_mention_tokens_as_names() -> None:
    assert render(row("text", "@[[u1]] hi there", "a1"), NAMES) == "Demo Agent: @Ada hi there"
    assert render(row("text", "@[[zz]] who?", "u1"), NAMES) == "Ada: @zz who?"


def test_tool_call_shows_the_tool_and_its_arguments_with_names_for_ids() -> None:
    args = {"content": "hello", "mentions": ["u1"]}
    line = render(row("tool_call", "{}", name="band_send_message", args=args), NAMES)
    assert line == (
        'Demo Agent (tool call): band_send_message {"content": "hello", "mentions": ["@Ada"]}'
    )


def test_tool_result_shows_status_and_output() -> None:
    ok = row("tool_result", "x", name="band_send_message", output="sent", is_error=False)
    failed = row("tool_result", "x", name="band_send_message", output="no", is_error=True)
    assert render(ok, NAMES) == "Demo Agent (tool result): band_send_message -> ok: sent"
    assert render(failed, NAMES) == "Demo Agent (tool result): band_send_message -> failed: no"


def test_events_without_tool_metadata_show_their_kind_and_text() -> None:
    assert render(row("thought", "hmm\nwell"), NAMES) == "Demo Agent (thought): hmm well"
    assert render(row("error", "boom"), NAMES) == "Demo Agent (error): boom"


def test_long_rows_are_cut_to_one_line() -> None:
    line = render(row("text", "x" * 1000), NAMES)
    assert len(line) == MAX_LINE and line.endswith("…")
