# cython: annotation_typing=False
"""Pure-Python turn outcome: TurnLedger, the Band tool effect map and band_no_reply."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._base import refuse_copy, refuse_setattr, refuse_subclasses
from ._enums import TurnEffect, TurnVerdict, not_instance_message

if TYPE_CHECKING:
    from ._types import ToolSpec

__all__ = ["TurnLedger", "band_tool_effects", "missing_reply_message", "no_reply_tool"]

_NO_REPLY_DESCRIPTION = (
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
_REASON_DESCRIPTION = "Short note on why no reply is needed (kept in local logs only)"
#: True when this source runs compiled as ``_turn_c`` (C attributes are set directly there).
_COMPILED = __name__ != "band_sdk_core._turn_py"

_MISSING_REPLY = (
    "The agent ended its turn without replying or calling band_no_reply, "
    "so nothing reached the room."
)

_OBSERVE = (
    "band_get_participants",
    "band_lookup_peers",
    "band_list_contacts",
    "band_list_contact_requests",
    "band_list_memories",
    "band_get_memory",
    "band_list_room_files",
    "band_read_room_file",
    "band_list_tasks",
    "band_get_task",
    "band_get_task_history",
    "band_get_board",
    "band_send_event",
)
_ACT = (
    "band_add_participant",
    "band_remove_participant",
    "band_create_chatroom",
    "band_add_contact",
    "band_remove_contact",
    "band_respond_contact_request",
    "band_store_memory",
    "band_supersede_memory",
    "band_archive_memory",
    "band_create_task",
    "band_update_task",
    "band_set_board",
)
_TOOL_EFFECTS: tuple[tuple[str, TurnEffect], ...] = (
    *((name, TurnEffect.Observe) for name in _OBSERVE),
    *((name, TurnEffect.Act) for name in _ACT),
    ("band_send_message", TurnEffect.Reply),
    ("band_send_room_file", TurnEffect.Reply),
    ("band_no_reply", TurnEffect.Decline),
    ("band_get_room_activity", TurnEffect.Observe),
)


# what TurnLedger compares against (module globals: C globals when compiled)
_EFFECT = TurnEffect
_EFFECT_OBSERVE = TurnEffect.Observe
_EFFECT_ACT = TurnEffect.Act
_VERDICT_COMPLETE = TurnVerdict.Complete
_VERDICT_MISSING = TurnVerdict.MissingReply


def band_tool_effects() -> dict[str, TurnEffect]:
    """Return every canonical Band tool name mapped to its TurnEffect (a new dict)."""
    return dict(_TOOL_EFFECTS)


def no_reply_tool() -> ToolSpec:
    """Return band_no_reply's definition as a ToolSpec dict (a new dict)."""
    return {
        "name": "band_no_reply",
        "description": _NO_REPLY_DESCRIPTION,
        "parameters": [{"name": "reason", "description": _REASON_DESCRIPTION, "required": False}],
    }


def missing_reply_message() -> str:
    """Return the text shown to the room on TurnVerdict.MissingReply."""
    return _MISSING_REPLY


class TurnLedger:
    """One agent turn's progress toward a reply."""

    __slots__ = ("_complete", "_replied")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    _complete: bool
    _replied: bool

    def __init__(self) -> None:
        """Start an empty ledger; calling it again changes nothing."""
        if not _COMPILED and not hasattr(self, "_complete"):
            object.__setattr__(self, "_complete", False)
            object.__setattr__(self, "_replied", False)

    def record(self, effect: TurnEffect) -> None:
        """Record the effect of one successful tool call."""
        if type(effect) is not _EFFECT:
            raise TypeError(not_instance_message(effect, "TurnEffect"))
        if effect is _EFFECT_OBSERVE:
            return
        if _COMPILED:
            self._complete = True
            if effect is not _EFFECT_ACT:
                self._replied = True
            return
        object.__setattr__(self, "_complete", True)
        if effect is not _EFFECT_ACT:
            object.__setattr__(self, "_replied", True)

    def settle(self) -> None:
        """Mark the turn complete because the SDK answered it itself."""
        if _COMPILED:
            self._complete = True
        else:
            object.__setattr__(self, "_complete", True)

    def note_reported(self) -> None:
        """Mark the turn complete because its failure was already reported."""
        if _COMPILED:
            self._complete = True
        else:
            object.__setattr__(self, "_complete", True)

    def reply_settled(self) -> bool:
        """Return True once a recorded call replied to the room or declined to."""
        return self._replied

    def verdict(self) -> TurnVerdict:
        """Judge the turn: Complete or MissingReply."""
        return _VERDICT_COMPLETE if self._complete else _VERDICT_MISSING

    # def, not a bound helper: only a def fills the compiled type's setattr slot
    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy
