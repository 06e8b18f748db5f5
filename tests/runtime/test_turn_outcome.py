"""band.core.turn.Turn: the turn-outcome rule as adapters see it."""

from __future__ import annotations

import pytest

import band_sdk_core
from band.core.turn import MISSING_REPLY, TOOL_EFFECTS, Turn, TurnEffect


def test_fresh_turn_owes_a_reply() -> None:
    turn = Turn()
    assert not turn.complete and not turn.replied and turn.posts_missing_reply
    assert MISSING_REPLY == (
        "The agent ended its turn without replying or calling band_no_reply, "
        "so nothing reached the room."
    )


@pytest.mark.parametrize(
    ("effect", "complete", "replied"),
    [
        (TurnEffect.OBSERVE, False, False),
        (TurnEffect.ACT, True, False),
        (TurnEffect.REPLY, True, True),
        (TurnEffect.DECLINE, True, True),
    ],
)
def test_effects(effect: TurnEffect, complete: bool, replied: bool) -> None:
    turn = Turn()
    turn.record(effect)
    assert (turn.complete, turn.replied) == (complete, replied)


def test_core_members_and_wrong_types() -> None:
    turn = Turn()
    turn.record(band_sdk_core.TurnEffect.Act)
    assert turn.complete
    with pytest.raises(TypeError):
        turn.record("act")  # type: ignore[arg-type]


def test_tool_effects_follow_the_core_table() -> None:
    assert TOOL_EFFECTS["band_send_message"] is TurnEffect.REPLY
    assert TOOL_EFFECTS["band_no_reply"] is TurnEffect.DECLINE
    assert TOOL_EFFECTS["band_add_participant"] is TurnEffect.ACT
    assert TOOL_EFFECTS["band_send_event"] is TurnEffect.OBSERVE
    turn = Turn()
    turn.record_tool("band_get_participants")
    turn.record_tool("not_a_band_tool")
    assert not turn.complete
    turn.record_tool("band_create_task")
    assert turn.complete and not turn.replied


def test_settle_report_and_detach() -> None:
    settled, reported, detached = Turn(), Turn(), Turn()
    settled.settle()
    reported.note_reported()
    detached.detach()
    assert settled.complete and reported.complete
    assert detached.detached and not detached.complete
