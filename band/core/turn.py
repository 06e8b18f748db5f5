"""The turn's ledger as adapters see it: ``tools.turn`` (a :class:`Turn`)."""

from __future__ import annotations

import enum
import logging

import band_sdk_core
from band_sdk_core import AgentFailure, TurnLedger, TurnVerdict, missing_reply_message

__all__ = [
    "MISSING_REPLY",
    "TOOL_EFFECTS",
    "TURN_FAILURE_PROVIDER",
    "AgentFailure",
    "Turn",
    "TurnEffect",
    "TurnLedger",
    "TurnVerdict",
    "failure_event",
]

log = logging.getLogger("band.turn")

#: The error event text posted when a turn ends without a reply, decline or work.
MISSING_REPLY = missing_reply_message()
#: ``provider`` of the runtime's own turn-failure events.
TURN_FAILURE_PROVIDER = "band-runtime"


def failure_event(failure: AgentFailure) -> tuple[str, dict[str, object]]:
    """The ``error`` event a failure is posted as, in band-sdk 6.0.1's shape: its message as
    the content, and ``{"failure": {provider, code, message, detail}}`` as the metadata."""
    message = failure.message.strip()
    # the platform refuses a blank event: the failure would vanish from the room
    content = message or f"{failure.provider} failed without an error message."
    return content, {"failure": failure.to_dict()}


class TurnEffect(enum.StrEnum):
    """What a successful tool call does to the turn (custom tools declare one of these).

    The one effect vocabulary of ``band``; its values are band_sdk_core's wire names, so
    :attr:`core` is a lookup, not a second table.
    """

    OBSERVE = "observe"
    ACT = "act"
    REPLY = "reply"
    DECLINE = "decline"

    @property
    def did_work(self) -> bool:
        """Whether the effect completes a turn on its own (anything but OBSERVE)."""
        return self is not TurnEffect.OBSERVE

    @property
    def core(self) -> band_sdk_core.TurnEffect:
        """The band_sdk_core member of the same wire name (what the ledger records)."""
        member = band_sdk_core.TurnEffect.from_wire_name(self.value)
        if member is None:  # every value is a core wire name: a mismatch is a packaging bug
            raise LookupError(f"band_sdk_core has no turn effect {self.value!r}")
        return member


#: Band tool name -> its effect, as band_sdk_core defines it.
TOOL_EFFECTS: dict[str, TurnEffect] = {
    name: TurnEffect(effect.wire_name) for name, effect in band_sdk_core.band_tool_effects().items()
}


class Turn:
    """One turn's outcome: what successful tool calls did, and how the adapter ended it."""

    __slots__ = ("_detached", "_failure", "_ledger", "_reported")

    def __init__(self) -> None:
        self._ledger = TurnLedger()
        self._detached = False
        self._failure: str | None = None
        self._reported = False

    def __repr__(self) -> str:
        verdict = self.verdict().wire_name
        return f"Turn(verdict={verdict}, replied={self.replied}, detached={self._detached})"

    def record(self, effect: TurnEffect | band_sdk_core.TurnEffect) -> None:
        """Record the effect of one successful tool call."""
        if isinstance(effect, TurnEffect):
            self._ledger.record(effect.core)
        elif isinstance(effect, band_sdk_core.TurnEffect):
            self._ledger.record(effect)
        else:
            raise TypeError(f"effect must be a TurnEffect, not {type(effect).__name__}")

    def record_tool(self, tool_name: str) -> None:
        """Record a successful call of the Band tool ``tool_name`` (unknown names observe)."""
        self.record(TOOL_EFFECTS.get(tool_name, TurnEffect.OBSERVE))

    def settle(self) -> None:
        """Mark a turn the adapter answered itself (e.g. a control reply): it is complete."""
        self._ledger.settle()

    def note_reported(self) -> None:
        """Mark a turn whose failure was already reported to the room: it is complete."""
        self._ledger.note_reported()
        self._reported = True

    @property
    def reported(self) -> bool:
        """True once a failure of this turn was reported to the room (``send_failure``)."""
        return self._reported

    def fail(self, reason: str) -> None:
        """End the turn as failed, its failure already reported: the delivery is marked failed.

        For adapters that know the turn broke (an ACP agent that crashed or timed out): the
        runtime records ``reason`` on the failed mark and does not run the message again.
        """
        self._failure = reason or "failed"

    @property
    def failure(self) -> str | None:
        """The reason given to :meth:`fail`, or None."""
        return self._failure

    def detach(self) -> None:
        """Release a turn parked on a human decision: the runtime does not judge it now."""
        self._detached = True

    @property
    def detached(self) -> bool:
        """True once :meth:`detach` was called."""
        return self._detached

    @property
    def replied(self) -> bool:
        """True once a recorded call posted to the room or declined to."""
        return self._ledger.reply_settled()

    @property
    def complete(self) -> bool:
        """True once the turn replied, declined, did work, was settled or reported."""
        return self._ledger.verdict() == TurnVerdict.Complete

    @property
    def posts_missing_reply(self) -> bool:
        """True while judging now would post the missing-reply error."""
        return not self.complete

    def verdict(self) -> TurnVerdict:
        """The turn-outcome rule's verdict so far."""
        return self._ledger.verdict()
