"""``SessionConfig``: how the runtime paces and reports the turns of each room."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, model_validator

from band.config.env import env_value

__all__ = ["PLATFORM_WORKING_STATE_TTL_SECONDS", "SessionConfig"]

#: How long the platform shows an agent working after its last ``working: true`` report: a
#: keep-alive comes within half of it, so one late report still lands in time.
PLATFORM_WORKING_STATE_TTL_SECONDS: float = 10.0


class SessionConfig(BaseModel):
    """Per-room execution settings (context, retries, resync pacing, failure reports).

    A field not given is read from the environment variable of its name, in any case (an empty
    value counts as unset), as band-sdk's ``SessionConfig`` (a settings model) does:
    ``MAX_CONTEXT_MESSAGES=20`` in a deployment's environment sets ``max_context_messages``.
    An unknown keyword is refused, and the working-state timings are checked together
    (``validate_timing``).
    """

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
    #: How often a long turn's "working" report is repeated (below half the platform's TTL).
    working_keep_alive_seconds: float = 3.0
    #: Each activity report's timeout (below ``working_keep_alive_seconds``); band-sdk's is an
    #: int, a float is taken too.
    working_request_timeout_seconds: float = 2
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

    @model_validator(mode="before")
    @classmethod
    def _from_environment(cls, data: Any) -> Any:
        """Fill the fields not given from the environment (given values win)."""
        if not isinstance(data, dict):
            return data
        found = {}
        for name in cls.model_fields:
            if name not in data:
                value = env_value(name)
                if value is not None:
                    found[name] = value
        return {**found, **data} if found else data

    @model_validator(mode="after")
    def validate_timing(self) -> SessionConfig:
        """Refuse timings that cannot work: a keep-alive of 0 would report in a busy loop."""
        if self.enable_working_state:
            half = PLATFORM_WORKING_STATE_TTL_SECONDS / 2
            keep = self.working_keep_alive_seconds
            if not 0 < keep < half:
                raise ValueError(
                    f"working_keep_alive_seconds must be above 0 and below {half:g} (half the "
                    f"platform's {PLATFORM_WORKING_STATE_TTL_SECONDS:g} s working-state TTL, so "
                    f"a late report still lands in time); got {keep:g}"
                )
            timeout = self.working_request_timeout_seconds
            if not 0 < timeout < keep:
                raise ValueError(
                    f"working_request_timeout_seconds must be above 0 and below "
                    f"working_keep_alive_seconds ({keep:g}), so a slow report ends before the "
                    f"next; got {timeout:g}"
                )
            _positive_or_none("max_working_state_seconds", self.max_working_state_seconds)
        _positive_or_none("max_cycle_seconds", self.max_cycle_seconds)
        return self


def _positive_or_none(name: str, value: float | None) -> None:
    """Refuse a bound set to 0 or less (None: no bound)."""
    if value is not None and value <= 0:
        raise ValueError(f"{name} must be above 0 when set (None: no bound); got {value:g}")
