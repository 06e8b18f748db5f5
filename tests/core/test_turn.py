"""TurnLedger, band_tool_effects, no_reply_tool, missing_reply_message (spec §13)."""

from __future__ import annotations

import copy
import pickle
import re
from types import ModuleType

import pytest

from band_sdk_core import TurnEffect, TurnVerdict

EXPECTED_EFFECTS = [
    ("band_get_participants", "observe"),
    ("band_lookup_peers", "observe"),
    ("band_list_contacts", "observe"),
    ("band_list_contact_requests", "observe"),
    ("band_list_memories", "observe"),
    ("band_get_memory", "observe"),
    ("band_list_room_files", "observe"),
    ("band_read_room_file", "observe"),
    ("band_list_tasks", "observe"),
    ("band_get_task", "observe"),
    ("band_get_task_history", "observe"),
    ("band_get_board", "observe"),
    ("band_send_event", "observe"),
    ("band_add_participant", "act"),
    ("band_remove_participant", "act"),
    ("band_create_chatroom", "act"),
    ("band_add_contact", "act"),
    ("band_remove_contact", "act"),
    ("band_respond_contact_request", "act"),
    ("band_store_memory", "act"),
    ("band_supersede_memory", "act"),
    ("band_archive_memory", "act"),
    ("band_create_task", "act"),
    ("band_update_task", "act"),
    ("band_set_board", "act"),
    ("band_send_message", "reply"),
    ("band_send_room_file", "reply"),
    ("band_no_reply", "decline"),
    ("band_get_room_activity", "observe"),
]

DESCRIPTION = (
    "End this turn without posting anything to the room.\n\n"
    "Consider every current input message together, in context. Call this instead of "
    "band_send_message only when the turn as a whole needs no answer from you: the inputs "
    "were addressed to someone else, are FYIs or acknowledgements, or another participant "
    "already answered them. An FYI or acknowledgement does not cancel another input's "
    "outstanding request, and a correction or cancellation is read in context. It ends the "
    "whole turn, never just one input, and is not called after you have sent a reply. A "
    "single reply may address several inputs. It is a complete turn, not an error; do not "
    "also send a message."
)


def test_fresh_ledger(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    assert ledger.verdict() is TurnVerdict.MissingReply
    assert ledger.reply_settled() is False


def test_observe_only_is_missing_reply(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    ledger.record(TurnEffect.Observe)
    ledger.record(TurnEffect.Observe)
    assert ledger.verdict() is TurnVerdict.MissingReply
    assert ledger.reply_settled() is False


def test_act_completes_without_reply(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    assert ledger.record(TurnEffect.Act) is None
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.reply_settled() is False


@pytest.mark.parametrize("effect", [TurnEffect.Reply, TurnEffect.Decline])
def test_reply_and_decline_settle(turn_impl: ModuleType, effect: TurnEffect) -> None:
    ledger = turn_impl.TurnLedger()
    ledger.record(effect=effect)
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.reply_settled() is True
    ledger.record(TurnEffect.Observe)
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.reply_settled() is True


@pytest.mark.parametrize("method", ["settle", "note_reported"])
def test_settle_and_note_reported(turn_impl: ModuleType, method: str) -> None:
    ledger = turn_impl.TurnLedger()
    assert getattr(ledger, method)() is None
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.reply_settled() is False


def test_readme_example(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    ledger.record(turn_impl.band_tool_effects()["band_send_event"])
    assert ledger.verdict() == TurnVerdict.MissingReply
    ledger.record(TurnEffect.Reply)
    assert ledger.verdict() == TurnVerdict.Complete
    assert ledger.reply_settled()


@pytest.mark.parametrize("value", ["reply", 2, None, TurnVerdict.Complete, object()])
def test_record_rejects_non_effects(turn_impl: ModuleType, value: object) -> None:
    ledger = turn_impl.TurnLedger()
    with pytest.raises(TypeError):
        ledger.record(value)
    assert ledger.verdict() is TurnVerdict.MissingReply


def test_record_messages(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    with pytest.raises(TypeError, match=r"^'str' object is not an instance of 'TurnEffect'$"):
        ledger.record("reply")
    with pytest.raises(TypeError, match=r"^'None' is not an instance of 'TurnEffect'$"):
        ledger.record(None)


def test_ledger_class_rules(turn_impl: ModuleType) -> None:
    cls = turn_impl.TurnLedger
    ledger = cls()
    assert cls.__module__ == "band_sdk_core"
    assert repr(ledger).startswith("<band_sdk_core.TurnLedger object at 0x")
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (cls,), {})
    with pytest.raises(
        TypeError, match=re.escape("cannot pickle 'band_sdk_core.TurnLedger' object")
    ):
        pickle.dumps(ledger)
    with pytest.raises(TypeError):
        copy.copy(ledger)
    with pytest.raises(AttributeError):
        ledger.extra = 1
    with pytest.raises(
        AttributeError, match=r"^'band_sdk_core.TurnLedger' object has no attribute '_complete'$"
    ):
        ledger._complete = True
    with pytest.raises(
        AttributeError, match=r"^'band_sdk_core.TurnLedger' object attribute 'record' is read-only$"
    ):
        ledger.record = None
    with pytest.raises(TypeError):
        cls(1)


def test_band_tool_effects(turn_impl: ModuleType) -> None:
    effects = turn_impl.band_tool_effects()
    assert type(effects) is dict
    assert [(k, v.wire_name) for k, v in effects.items()] == EXPECTED_EFFECTS
    assert all(type(v) is TurnEffect for v in effects.values())
    assert effects["band_no_reply"] is TurnEffect.Decline
    effects.clear()
    assert len(turn_impl.band_tool_effects()) == 29
    assert turn_impl.band_tool_effects() is not turn_impl.band_tool_effects()


def test_no_reply_tool(turn_impl: ModuleType) -> None:
    spec = turn_impl.no_reply_tool()
    assert spec == {
        "name": "band_no_reply",
        "description": DESCRIPTION,
        "parameters": [
            {
                "name": "reason",
                "description": "Short note on why no reply is needed (kept in local logs only)",
                "required": False,
            }
        ],
    }
    assert list(spec) == ["name", "description", "parameters"]
    assert list(spec["parameters"][0]) == ["name", "description", "required"]
    assert spec["description"].count("\n") == 2
    spec["parameters"].clear()
    assert len(turn_impl.no_reply_tool()["parameters"]) == 1


def test_missing_reply_message(turn_impl: ModuleType) -> None:
    assert turn_impl.missing_reply_message() == (
        "The agent ended its turn without replying or calling band_no_reply, "
        "so nothing reached the room."
    )


def test_second_init_keeps_the_ledger(turn_impl: ModuleType) -> None:
    ledger = turn_impl.TurnLedger()
    ledger.record(TurnEffect.Reply)
    ledger.__init__()  # the reference ignores a second call
    assert ledger.verdict() is TurnVerdict.Complete
    assert ledger.reply_settled() is True
