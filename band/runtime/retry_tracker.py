"""``MessageRetryTracker``: how many times each message was run, and which ran out of tries.

band-sdk's public name for the runtime's retry budget, band_sdk_core's ``RetryTracker`` (the one
``Agent`` uses: a message runs at most ``max_retries`` times, then it is failed for good).
"""

from __future__ import annotations

import logging

from band_sdk_core import RetryTracker

__all__ = ["MessageRetryTracker"]

log = logging.getLogger("band.runtime.retry_tracker")


class MessageRetryTracker:
    """The runs of each message id, against a budget of ``max_retries`` runs."""

    def __init__(self, max_retries: int = 1, room_id: str = "") -> None:
        self.room_id = room_id  # for the log lines: the budget itself is per message id
        self._tracker = RetryTracker(max(1, max_retries))

    @property
    def max_retries(self) -> int:
        """How many runs a message gets."""
        return int(self._tracker.max_retries)

    def is_permanently_failed(self, msg_id: str) -> bool:
        """Whether ``msg_id`` used up its runs (or was marked failed for good)."""
        return bool(self._tracker.is_permanently_failed(msg_id))

    def record_attempt(self, msg_id: str) -> tuple[int, bool]:
        """Count one more run of ``msg_id``: ``(runs so far, whether the budget is exceeded)``."""
        attempts, exceeded = self._tracker.record_attempt(msg_id)
        if exceeded:
            log.error(
                "message %s in %s ran out of its %d runs",
                msg_id,
                self.room_id or "-",
                self.max_retries,
            )
        return int(attempts), bool(exceeded)

    def mark_success(self, msg_id: str) -> None:
        """``msg_id`` was handled: forget its runs."""
        self._tracker.mark_success(msg_id)

    def discard_attempt(self, msg_id: str) -> None:
        """Take back the last run of ``msg_id`` (it was interrupted on purpose, not failed)."""
        self._tracker.discard_attempt(msg_id)

    def mark_permanently_failed(self, msg_id: str) -> None:
        """Give up on ``msg_id`` whatever its runs."""
        self._tracker.mark_permanently_failed(msg_id)
