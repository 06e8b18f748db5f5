"""``SessionConfig``: how the runtime paces and reports the turns of each room."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

__all__ = ["SessionConfig"]


class SessionConfig(BaseModel):
    """Per-room execution settings (context, retries, resync pacing, failure reports)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    enable_context_cache: bool = True
    #: A room's context is read again after this long (from the page its last read ended on).
    context_cache_ttl_seconds: int = 300
    #: A turn's history holds the newest this many rows of the room's ``/context`` (0: all).
    max_context_messages: int = 100
    #: How many times one message may run the adapter before it is failed for good.
    max_message_retries: int = Field(default=1, ge=0)
    enable_context_hydration: bool = True
    #: An idle room polls ``/next`` this often (backing off to ``idle_resync_max_seconds``).
    idle_resync_seconds: float = Field(default=60.0, gt=0, allow_inf_nan=False)
    enable_working_state: bool = True
    #: The room's "working" indicator starts only once a turn has run this long (0: at once).
    #: A faster turn's reply is its own signal: it then costs no ``activity`` calls, only the
    #: processing mark, the reply and the processed mark. Stop detection does not depend on it
    #: (the ``agent.control`` push is the primary path); a long turn is still refreshed every
    #: ``working_keep_alive_seconds``.
    working_indicator_delay_s: float = Field(default=0.5, ge=0, allow_inf_nan=False)
    working_keep_alive_seconds: float = 3.0
    working_request_timeout_seconds: int = 2
    max_working_state_seconds: float | None = None
    max_cycle_seconds: float | None = None
    #: Post an ``error`` event to the room when a turn fails or ends without a reply.
    report_turn_failures_to_room: bool = True
    idle_resync_max_seconds: float = Field(default=120.0, gt=0, allow_inf_nan=False)
    stopped_resync_seconds: float | None = Field(default=None, gt=0, allow_inf_nan=False)
    #: A room owing an answer (a turn or a drain met an unreachable platform) re-checks
    #: ``/next`` after a jittered delay from this, doubling up to ``owed_recheck_max_seconds``.
    owed_recheck_seconds: float = Field(default=0.5, gt=0, allow_inf_nan=False)
    owed_recheck_max_seconds: float = Field(default=5.0, gt=0, allow_inf_nan=False)
