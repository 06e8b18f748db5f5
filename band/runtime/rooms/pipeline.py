"""The delivery pipeline: one message, in one form (``Inbound``), from the wire to its settlement.

Every message of a room, pushed or served by ``/next``, takes the same steps, in this order:

1. **gate**: text messages with an id only; the one self-echo check; the claim registry's
   guarded claim (completed, in flight, settlement pending, retries exhausted);
2. **claim**: the attempt is counted and the turn's trace begins;
3. **processing mark**: the platform opens (or rejoins) the attempt, or refuses it;
4. **already answered**: a replay whose earlier turn's reply landed is settled, not run;
5. **turn**: the preprocessor and the adapter (``TurnRunner``);
6. **settlement**: the processed or failed intent is recorded, then posted (fenced);
7. **trace**: the turn's timeline is finished with its outcome.

A contact event of the hub room (``submit_synthetic``) is a turn only: no claim, mark or verdict.
The room's worker (``RoomExecution``) feeds messages in one at a time; the pipeline tells it,
through ``RoomLink``, when the room owes an answer, should drain again or was stopped.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from time import monotonic
from typing import Protocol

from band.client.errors import BandError
from band.client.rest import path
from band.runtime.contacts.hub import SYNTHETIC_SENDER_TYPE, is_contact_hub_turn
from band.runtime.rooms.answered import (
    answered_in_attempt,
    attempt_error,
    attempt_started,
    failure_reported,
    reply_landed,
)
from band.runtime.rooms.messages import Inbound, delivery_status
from band.runtime.rooms.settlement import Delivery, RoomStopped
from band.runtime.rooms.turn import INTERRUPTED, TurnRunner
from band.runtime.trace import TurnRecorder, TurnTrace
from band_sdk_core import is_self_echo

__all__ = ["DeliveryPipeline", "RoomLink", "is_synthetic"]

log = logging.getLogger("band.runtime.rooms.execution")

#: Messages per room whose cut-off turn's posts are remembered (oldest forgotten first).
MAX_UNSURE = 64
#: The failed mark's error of a message whose earlier failure the room was told (not rerun).
REPORTED_EARLIER = "failed earlier; its error card is in the room (not run again)"
#: Failed marks whose message is never run again, read back from the platform's attempt after a
#: restart: the person interrupted it (band-sdk consumes such a message; it stays failed here),
#: or an earlier restart already found its error card.
FINAL_FAILURES = frozenset({INTERRUPTED, REPORTED_EARLIER})


class RoomLink(Protocol):
    """What the pipeline tells the room's worker (``RoomExecution``)."""

    stopped: bool

    def owe(self) -> None:
        """A platform call failed for now: the room owes an answer and re-checks ``/next``."""

    def request_drain(self) -> None:
        """Queue a ``/next`` drain (a failed message is served again)."""


def is_synthetic(item: Inbound) -> bool:
    """Whether ``item`` is a contact event of the hub room (it exists only in this process)."""
    row = item.row
    return is_contact_hub_turn(sender_type=row.sender_type, sender_id=row.sender_id)


class DeliveryPipeline:
    """The steps one message of one room goes through; ``deliver`` runs them."""

    def __init__(
        self,
        room: RoomLink,
        delivery: Delivery,
        runner: TurnRunner,
        recorder: TurnRecorder | None = None,
    ) -> None:
        self.room = room
        self.room_id = runner.room_id
        self.agent_id = runner.agent_id
        self.rest = runner.context.rest
        self.delivery = delivery
        self.runner = runner
        self.recorder = recorder
        # message id -> texts its cut-off or failed turn posted: a rerun first looks for them
        self._unsure: dict[str, list[str]] = {}
        self._ran: set[str] = set()  # messages whose turn ran in this process (bounded below)
        #: clear while a claimed message (or a contact event) is being handled
        self.idle = asyncio.Event()
        self.idle.set()

    async def deliver(self, item: Inbound) -> bool | None:
        """Take ``item`` through the pipeline.

        Returns whether a synthetic turn finished (False: stopped mid-turn, hold it for
        ``play``); None for a platform message.

        A fresh message's steps (claim, processing mark, turn, settlement) run here, in this
        one coroutine: each coroutine level between the worker and a platform call is resumed
        once per call it awaits, so the steps are not split into coroutines of their own; the
        rare branches (a replay, a message failed for good) are.
        """
        row = item.row
        # the sender type first: a platform message's costs no call
        if row.sender_type == SYNTHETIC_SENDER_TYPE and is_synthetic(item):
            return await self._synthetic(item)
        mid = row.id or ""
        if not mid or (row.message_type or "text") != "text":
            return None
        status = delivery_status(row, self.agent_id)  # read once: gate and checks share it
        # the gate: the claim registry's guarded claim (taken when the message may run)
        sender_id = row.sender_id or ""
        verdict = self.delivery.claims.guarded_claim(
            self.room_id,
            mid,
            self.delivery.retries,
            # only the agent's own id can be a self-echo: the check is skipped for any other
            self_echo=sender_id == self.agent_id
            and is_self_echo(sender_id, row.sender_type or "", self.agent_id),
            durably_processed=status == "processed",
        )
        if verdict != "runnable":
            await self._not_run(mid, verdict, status)
            return None
        self.idle.clear()
        delivery = self.delivery
        retries = delivery.retries
        room_id = self.room_id
        recorder = self.recorder
        trace = None
        try:
            # the claim: the attempt is counted and the turn's trace begins
            attempt, exhausted = retries.record_attempt(mid)
            if recorder is not None:
                trace = recorder.begin(room_id, mid, attempt, item.received)
            if exhausted:
                log.warning("room %s: message %s exhausted its retries", room_id, mid)
                self._finish(trace, "exhausted")
                return None
            # the processing mark
            try:
                accepted = await delivery.mark_processing(room_id, mid)
            except RoomStopped:
                self.room.stopped = True
                accepted = False
            except BaseException:
                retries.discard_attempt(mid)
                raise
            if trace is not None:
                trace.points.append(("processing_mark", monotonic(), {"accepted": accepted}))
            if not accepted:
                retries.discard_attempt(mid)
                refused = "stopped" if self.room.stopped else "processing mark refused"
                self._finish(trace, "not_run", refused)
                return None
            # an earlier attempt's answer or failure: settled without running the turn
            if (self._unsure or status == "processing" or status == "failed") and (
                await self._settled_earlier(item, mid, status, trace)
            ):
                return None
            # the turn
            runner = self.runner
            runner.posted = []
            ran = self._ran
            ran.add(mid)  # this process ran it (it knows what that turn posted)
            if len(ran) > 4 * MAX_UNSURE:
                ran.clear()  # old turns are settled; a forgotten one is checked by its row
            try:
                ok, error, retry = await runner.run(
                    item, final=attempt >= retries.max_retries, trace=trace
                )
            except BaseException:
                # hydration failed or the room is closing: the adapter's answer is still owed
                retries.discard_attempt(mid)
                self._remember_posts(mid)
                raise
            if ok is None or (not ok and retry):
                self._remember_posts(mid)  # the message runs again: what it said is looked for
            if ok is None:  # stopped or cut off mid-turn: the message stays processing for replay
                retries.discard_attempt(mid)
                self._finish(trace, "unfinished")
                return None
            # the settlement: the outcome is recorded, then posted (fenced)
            if runner.cut_off:  # an earlier turn of a message was cut off: forget this one's
                runner.settled(mid)
            if ok:
                delivery.record_processed(room_id, mid)
            else:
                delivery.record_failed(room_id, mid, error, retry=retry)
            confirmed = await delivery.flush(room_id, mid)
            if not confirmed and delivery.unavailable:
                self.room.owe()
            if runner.working is not None:  # shown (a slow turn): its end report went with the mark
                report = runner.end_report()
                if report is not None:
                    await report
            if trace is not None and recorder is not None:
                outcome, at = "processed" if ok else "failed", monotonic()
                trace.points.append(("settled", at, {"status": outcome, "confirmed": confirmed}))
                recorder.finish(trace, outcome, None if ok else error, end=at)  # ended there
            if not ok and retry and confirmed and not retries.is_permanently_failed(mid):
                self.room.request_drain()  # the failed message is served again by /next
        finally:
            if trace is not None and trace.outcome is None:
                self._finish(trace, "unfinished")  # left by an exception: it runs again later
            delivery.claims.release(room_id, mid)
            self.idle.set()
        return None

    async def _synthetic(self, item: Inbound) -> bool:
        """Run a contact event of the hub room: a turn only (no claim, mark or verdict)."""
        self.idle.clear()
        try:
            result = await self.runner.run(item, final=False, synthetic=True)
        finally:
            self.idle.set()
        return result.ok is not None

    # --- the steps ----------------------------------------------------------------------------

    async def _not_run(self, mid: str, verdict: str, status: str | None) -> None:
        """What the gate does with a message that may not run here now (``verdict``)."""
        if verdict == "pending":
            await self._flush(mid)
        elif verdict == "completed" and status == "processing":
            await self._close_reopened(mid)
        else:
            log.debug("room %s: message %s not run (%s)", self.room_id, mid, verdict)

    async def _settled_earlier(
        self, item: Inbound, mid: str, status: str | None, trace: TurnTrace | None
    ) -> bool:
        """Settle, without running it, a replay whose earlier attempt answered it or failed
        for good; False when the turn is to run.

        ``status``: the agent's delivery status on the row as served. The checks for an earlier
        attempt's answer or failure read the row's attempts: only a row served ``processing``
        or ``failed`` has one to read (a fresh message, most of them, never gets here).
        """
        retries = self.delivery.retries
        if await self._answered_already(item, mid) or (
            status == "processing" and await self._answered_earlier(item, mid)
        ):
            retries.discard_attempt(mid)
            self.delivery.record_processed(self.room_id, mid)
            await self._flush(mid)
            self._finish(trace, "processed", "answered by an earlier attempt")
            return True
        final = None
        if status == "failed":
            final = self._failed_for_good(item, mid)
            if final is None and await self._reported_earlier(item, mid):
                final = REPORTED_EARLIER
        if final is None:
            return False
        retries.discard_attempt(mid)
        self.delivery.record_failed(self.room_id, mid, final, retry=False)
        await self._flush(mid)
        self._finish(trace, "failed", final)
        return True

    def _finish(self, trace: TurnTrace | None, outcome: str, error: str | None = None) -> None:
        """The turn is over: its trace is told (once)."""
        if trace is not None and trace.outcome is None and self.recorder is not None:
            self.recorder.finish(trace, outcome, error)

    async def _flush(self, mid: str) -> bool:
        """Post the message's recorded mark; one the platform could not take is owed.

        True once the mark is settled (no longer pending: confirmed, or parked for good).
        """
        if await self.delivery.flush(self.room_id, mid):
            return True
        if self.delivery.unavailable:
            self.room.owe()
        return False

    async def _close_reopened(self, mid: str) -> None:
        """Mark processed again a message we answered that a stray processing mark re-opened.

        A processing mark that timed out on our side may reach the platform after the turn was
        answered and marked processed; re-marking re-opens the message, which would then stay
        ``processing`` forever (its turn is never run twice).
        """
        log.info(
            "room %s: answered message %s was re-opened; marking it processed", self.room_id, mid
        )
        with contextlib.suppress(BandError):
            await self.rest.request(
                "POST", path("/agent/chats/{}/messages/{}/processed", self.room_id, mid), retries=0
            )

    # --- already answered ---------------------------------------------------------------------

    def _remember_posts(self, mid: str) -> None:
        """Keep what the unfinished turn of ``mid`` posted, for its rerun to look for."""
        posted = self.runner.posted
        if posted:
            self._unsure[mid] = self._unsure.get(mid, []) + posted
            while len(self._unsure) > MAX_UNSURE:
                del self._unsure[next(iter(self._unsure))]
        self.runner.posted = []

    async def _answered_already(self, item: Inbound, mid: str) -> bool:
        """Whether an earlier, unfinished turn of ``mid`` already got its reply into the room.

        Its post may have been written while its answer was lost (the platform went away
        after the write); running the message again would answer it twice.
        """
        posted = self._unsure.pop(mid, None)
        if not posted:
            return False
        try:
            landed = await reply_landed(
                self.rest, self.room_id, self.agent_id, mid, posted, item.row.inserted_at
            )
        except BaseException:
            self._unsure[mid] = posted  # still unsure: look again on the next replay
            raise
        if landed:
            log.info(
                "room %s: message %s was answered already; not running it again", self.room_id, mid
            )
        return landed

    def _failed_for_good(self, item: Inbound, mid: str) -> str | None:
        """The failed mark to repeat, without running it, for a message re-served after a
        restart whose last attempt failed for good (``FINAL_FAILURES``); None otherwise.

        The platform serves a failed message again (failed is not terminal), and a new process
        has no memory of it: an interrupted turn would be run again at the next start.
        """
        if mid in self._ran:
            return None  # this process ran it: the claim registry decided whether it reruns
        error = attempt_error(item.row, self.agent_id)
        if error is None or error not in FINAL_FAILURES:
            return None
        log.info(
            "room %s: message %s failed earlier (%s); not running it again",
            self.room_id,
            mid,
            error,
        )
        return error

    async def _reported_earlier(self, item: Inbound, mid: str) -> bool:
        """Whether an earlier attempt of ``mid`` (before a restart) failed and told the room
        with an error card: the message is not run again (no second card), it stays failed.
        To try again, a person sends it again."""
        row = item.row
        if mid in self._ran:  # only called for a row served ``failed``
            return False
        since = attempt_started(row, self.agent_id, "failed")
        sent_at = row.inserted_at
        if not await failure_reported(self.rest, self.room_id, self.agent_id, mid, since, sent_at):
            return False
        log.info(
            "room %s: message %s failed earlier and said so; not running it again",
            self.room_id,
            mid,
        )
        return True

    async def _answered_earlier(self, item: Inbound, mid: str) -> bool:
        """Whether a turn of ``mid`` that another process (or this one before a restart) ran
        in the open ``processing`` attempt already posted its answer.

        Only for a message served with such an attempt and never run here: a turn run here is
        looked for by what it posted (``_answered_already``).
        """
        row = item.row
        if mid in self._ran:  # only called for a row served ``processing``
            return False
        since = attempt_started(row, self.agent_id)
        sent_at = row.inserted_at
        if not await answered_in_attempt(
            self.rest, self.room_id, self.agent_id, mid, since, sent_at
        ):
            return False
        log.info(
            "room %s: message %s was answered in its earlier attempt; settling it",
            self.room_id,
            mid,
        )
        return True
