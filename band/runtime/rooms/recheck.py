"""``RecheckBackoff``: how long a room owing an answer waits before it asks ``/next`` again.

The delays come from band_sdk_core's ``Session`` (the socket's reconnect backoff): every
failed re-check is one short-lived "connection" that closed, so the next delay is the core's
capped exponential with jitter. The policy switches off what only makes sense for sockets:
no rapid-disconnect floors, no cool-downs, never dead.
"""

from __future__ import annotations

import random
import time

from band_sdk_core import Session, SessionPolicy

__all__ = ["RecheckBackoff"]

#: Larger than any run of failures: the series never resets by itself, only by ``reset()``.
_NEVER_S = 1e9


def _policy(base_s: float, max_s: float) -> SessionPolicy:
    return SessionPolicy(
        {
            "base_delay_s": min(base_s, max_s),
            "factor": 2.0,
            "max_delay_s": max_s,
            "stable_reset_s": _NEVER_S,
            "rapid_disconnect_uptime_s": 0.0,  # no re-check counts as a rapid disconnect
            "rapid_window_s": 0.0,
            "rapid_first_min_delay_s": 0.0,
            "rapid_second_min_delay_s": 0.0,
            "rapid_cooldown_base_s": 0.0,
            "rapid_cooldown_step_s": 0.0,
            "rapid_cooldown_max_s": 0.0,
            "rapid_threshold": 4294967295,
            "heartbeat_interval_s": 1.0,  # unused by the backoff; only has to be valid
            "dead_threshold_s": 2.0,
        }
    )


class RecheckBackoff:
    """Jittered delays from ``base_s`` doubling up to ``max_s``, until ``reset()``."""

    def __init__(self, base_s: float, max_s: float) -> None:
        # built on the first re-check: a thousand idle rooms never need their policy
        self._bounds = (base_s, max_s)
        self._session: Session | None = None

    def next_delay(self) -> float:
        """The delay before the next re-check (the series grows with each call)."""
        if self._session is None:
            self._session = Session(_policy(*self._bounds))
        now = time.monotonic()
        epoch = self._session.begin_attempt(now)
        assert epoch is not None  # a session with this policy never dies
        self._session.on_connected(epoch, now)
        # jitter over the upper half of the ceiling: never a burst of immediate re-checks
        outcome = self._session.on_socket_close(epoch, now, None, 0.5 + random.random() / 2)
        return float(outcome.retry_after_s or 0.0)

    def reset(self) -> None:
        """The platform answered: the next series starts again from ``base_s``."""
        self._session = None
