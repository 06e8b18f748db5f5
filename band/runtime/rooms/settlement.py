"""The platform side of one delivery: processing mark, then fenced processed/failed settlement.

A terminal intent is first recorded in the ``ClaimRegistry`` (with a token), then posted;
only a confirmed post settles it, so an intent that could not reach the platform (network,
restart) is re-posted later and the adapter never runs twice for it.
"""

from __future__ import annotations

import logging

from band.client.errors import BandAPIError, BandConnectionError, NotFoundError
from band.client.rest import RestClient, path, transient
from band.core.wire import MessageStatusResponse
from band_sdk_core import ClaimRegistry, ParkedReason, RetryTracker

__all__ = ["Delivery", "RoomStopped"]

log = logging.getLogger("band.runtime.rooms.settlement")

MSG = "/agent/chats/{}/messages/{}"


class RoomStopped(Exception):
    """The platform answered 204: the agent's execution in the room is stopped."""


class Delivery:
    """Marks for one agent's messages, shared by its rooms (one claim registry per agent)."""

    def __init__(self, rest: RestClient, claims: ClaimRegistry, retries: RetryTracker) -> None:
        self.rest = rest
        self.claims = claims
        self.retries = retries
        #: Whether the last ``flush`` found the platform unavailable (read right after it).
        self.unavailable = False

    async def mark_processing(self, room_id: str, message_id: str) -> bool:
        """Open (or rejoin) the processing attempt; False when the platform did not accept it."""
        resp = await self.rest.request(
            "POST", path(MSG + "/processing", room_id, message_id), retries=2
        )
        if resp.status_code == 204:
            raise RoomStopped(room_id)
        answer = resp.data_as(MessageStatusResponse)
        return resp.status_code == 200 and (answer is None or answer.success is not False)

    def record_processed(self, room_id: str, message_id: str) -> None:
        """Record the intent to mark ``message_id`` processed."""
        self.claims.record_processed_settlement(room_id, message_id)

    def record_failed(self, room_id: str, message_id: str, error: str, *, retry: bool) -> None:
        """Record the intent to mark ``message_id`` failed (``retry``: it may run again)."""
        error = error.strip() or "Unknown error"
        self.claims.record_failed_settlement(room_id, message_id, error, self.retries, retry)

    async def flush(self, room_id: str, message_id: str) -> bool:
        """Post the recorded intent; True once it is settled (confirmed or parked for good)."""
        pending = self.claims.pending_settlement(room_id, message_id)
        if pending is None:
            return True
        token = str(pending["token"])
        status = pending["status"]
        body: dict[str, str] | None = None
        if status == "failed":
            body = {"error": str(pending.get("error") or "Unknown error")}
        self.unavailable = False
        try:
            resp = await self.rest.request(
                "POST", path(MSG + "/" + status, room_id, message_id), json=body, retries=0
            )
        except NotFoundError:
            return self._park(room_id, message_id, token, ParkedReason.NotFound)
        except BandAPIError as exc:
            if exc.status_code == 422 and "/processing_attempt" in exc.details:
                return self._park(room_id, message_id, token, ParkedReason.Rejected)
            log.warning("marking %s %s failed: %s", message_id, status, exc)
            self.unavailable = transient(exc)
            return False
        except BandConnectionError as exc:
            log.info("marking %s %s postponed: %s", message_id, status, exc)
            self.unavailable = True
            return False
        if resp.status_code == 204:
            log.info("room %s is stopped: %s stays %s-pending", room_id, message_id, status)
            return False
        self.claims.confirm_settlement(room_id, message_id, token, self.retries)
        log.debug("message %s marked %s", message_id, status)
        return True

    async def flush_room(self, room_id: str) -> None:
        """Re-post every unsettled intent of the room."""
        self.claims.unpark_acks(room_id)
        for message_id in self.claims.pending_ack_ids(room_id):
            await self.flush(room_id, message_id)

    def _park(self, room_id: str, message_id: str, token: str, reason: ParkedReason) -> bool:
        """The platform will never take this mark: settle locally so the message is not rerun."""
        log.warning("platform refused the mark of %s (%s)", message_id, reason.wire_name)
        self.claims.park_settlement(room_id, message_id, token, reason)
        self.claims.confirm_settlement(room_id, message_id, token, self.retries)
        return True
