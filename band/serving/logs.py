"""Quiet logs under load: asyncio's accept() resource error once per minute, not per accept."""

from __future__ import annotations

import logging
import time

ACCEPT_ERROR = "socket.accept() out of system resource"
#: seconds between two reports of the accept() error
WINDOW = 60.0


class AcceptErrorOnce(logging.Filter):
    """Let one ``socket.accept() out of system resource`` record through per :data:`WINDOW`.

    When a process runs out of descriptors, asyncio's selector loop retries accept() up to its
    backlog times per wakeup and logs a traceback for each failure: about 130,000 records in
    seconds. The first one passes, shortened to one line that says what to do.
    """

    def __init__(self) -> None:
        super().__init__()
        self._last = -WINDOW

    def filter(self, record: logging.LogRecord) -> bool:
        """Drop repeats within the window; rewrite the first as one actionable line."""
        if not isinstance(record.msg, str) or not record.msg.startswith(ACCEPT_ERROR):
            return True
        now = time.monotonic()
        if now - self._last < WINDOW:
            return False
        self._last = now
        error = record.exc_info[1] if record.exc_info else None
        record.msg = (
            "%s (%s): the process is out of file descriptors; raise its limit (ulimit -n) or "
            "lower the connection cap. Further occurrences in the next %ds are not logged."
        )
        record.args = (ACCEPT_ERROR, error, int(WINDOW))
        record.exc_info = None
        record.exc_text = None
        return True


def install_accept_filter() -> None:
    """Attach :class:`AcceptErrorOnce` to the ``asyncio`` logger (idempotent)."""
    logger = logging.getLogger("asyncio")
    if not any(isinstance(f, AcceptErrorOnce) for f in logger.filters):
        logger.addFilter(AcceptErrorOnce())
