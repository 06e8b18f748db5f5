# cython: annotation_typing=False
"""Pure-Python Session, SessionPolicy, SessionOutcome and the close/upgrade classifiers."""

from __future__ import annotations

import operator
import sys
from collections.abc import Mapping
from typing import Any

from ._base import (
    check_bool,
    refuse_copy,
    refuse_create,
    refuse_new,
    refuse_setattr,
    refuse_subclasses,
)
from ._enums import DeadReason, SessionState, StaleReason, not_instance_message
from ._errors import Issue, check_trace_context, format_number, validation_error

__all__ = ["Session", "SessionOutcome", "SessionPolicy", "classify_close", "classify_upgrade"]

#: True when this source runs compiled as ``_session_c`` (C attributes are set directly there).
_COMPILED = __name__ != "band_sdk_core._session_py"

_INF = float("inf")
_DBL_MAX = sys.float_info.max
_I64_MIN = -(2**63)
_I64_MAX = 2**63 - 1
_U32_MAX = 4294967295
_NANOS = 1_000_000_000
_TWO_64 = 18446744073709551616.0
# Rust's Duration::MAX in nanoseconds
_MAX_NS = (2**64 - 1) * _NANOS + 999_999_999

_KEYS = (
    "base_delay_s",
    "factor",
    "max_delay_s",
    "stable_reset_s",
    "rapid_disconnect_uptime_s",
    "rapid_window_s",
    "rapid_first_min_delay_s",
    "rapid_second_min_delay_s",
    "rapid_cooldown_base_s",
    "rapid_cooldown_step_s",
    "rapid_cooldown_max_s",
    "rapid_threshold",
    "heartbeat_interval_s",
    "dead_threshold_s",
)

_DEFAULTS: dict[str, float] = {
    "base_delay_s": 1.0,
    "factor": 2.0,
    "max_delay_s": 30.0,
    "stable_reset_s": 60.0,
    "rapid_disconnect_uptime_s": 10.0,
    "rapid_window_s": 300.0,
    "rapid_first_min_delay_s": 1.0,
    "rapid_second_min_delay_s": 5.0,
    "rapid_cooldown_base_s": 10.0,
    "rapid_cooldown_step_s": 10.0,
    "rapid_cooldown_max_s": 60.0,
    "rapid_threshold": 10.0,
    "heartbeat_interval_s": 30.0,
    "dead_threshold_s": 60.0,
}


def _to_float(value: Any) -> float:
    """Convert a float argument the way the reference does (``__float__`` or ``__index__``)."""
    if type(value) is float:
        return value
    tp = type(value)
    if hasattr(tp, "__float__"):
        return float(value)
    if hasattr(tp, "__index__"):
        return float(operator.index(value))
    raise TypeError(f"must be real number, not {tp.__name__}")


def _to_i64(value: Any) -> int:
    """Convert an integer argument to a signed 64-bit value."""
    number = value if type(value) is int else operator.index(value)
    if number < _I64_MIN or number > _I64_MAX:
        raise OverflowError("Python int too large to convert to C long")
    return number


def _bad_number(x: float) -> bool:
    """Return True for NaN, an infinity or a negative number."""
    return x != x or x == _INF or x < 0.0


def _check_now(now_s: float) -> None:
    """Validate a ``now_s`` argument."""
    if _bad_number(now_s):
        raise ValueError(
            f"`now_s` must be a finite, non-negative number, got {format_number(now_s)}"
        )


def _check_epoch(epoch: int) -> None:
    """Validate an ``epoch`` argument."""
    if epoch < 0:
        raise ValueError(f"`epoch` must be a non-negative integer, got {epoch}")


def _check_code(code: int, what: str) -> None:
    """Validate a close code or an HTTP status."""
    if code < 0 or code > 65535:
        raise ValueError(f"`{what}` must be an integer between 0 and 65535, got {code}")


def _check_retry_after(retry_after_s: float | None) -> None:
    """Validate an optional ``retry_after_s`` argument."""
    if retry_after_s is not None and _bad_number(retry_after_s):
        raise ValueError(
            "`retry_after_s` must be a finite, non-negative number, "
            f"got {format_number(retry_after_s)}"
        )


def _check_jitter(jitter_sample: float) -> None:
    """Validate a ``jitter_sample`` argument."""
    if not (0.0 <= jitter_sample <= 1.0):
        raise ValueError(
            "`jitter_sample` must be a finite number between 0.0 and 1.0, "
            f"got {format_number(jitter_sample)}"
        )


def _powi(base: float, exponent: int) -> float:
    """Raise ``base`` (>= 1.0) to a non-negative integer power by squaring, like Rust's ``powi``.

    A product past the largest double is returned as infinity by a test, not left to the
    multiply: i386's x87 FPU keeps an overflowed product finite in its 80-bit registers.
    """
    result = 1.0
    while True:
        if exponent & 1:
            result *= base
            if result > _DBL_MAX:
                return _INF
        exponent >>= 1
        if exponent == 0:
            return result
        base *= base


def _to_nanos(seconds: float) -> int:
    """Convert seconds to whole nanoseconds like Rust's ``Duration::try_from_secs_f64``.

    Rounds half-even on the exact binary value; returns -1 when the value does not fit
    (NaN, negative or too large).
    """
    if seconds != seconds or seconds < 0.0:
        return -1
    if seconds >= _TWO_64:
        return -1
    num, den = seconds.as_integer_ratio()
    q, r = divmod(num * _NANOS, den)
    twice = 2 * r
    if twice > den or (twice == den and q % 2):  # not q & 1: its Cython helper sign-compares
        q += 1
    if q > _MAX_NS:
        return -1
    return q


def _sat_nanos(seconds: float) -> int:
    """Convert seconds to nanoseconds, saturating at ``Duration::MAX``."""
    q = _to_nanos(seconds)
    return _MAX_NS if q < 0 else q


def _secs(nanos: int) -> float:
    """Convert nanoseconds back to seconds like ``Duration::as_secs_f64``."""
    secs, rest = divmod(nanos, _NANOS)
    return secs + rest / 1e9


def _delay_secs(delay: float, fallback: float) -> float:
    """Round ``delay`` to whole nanoseconds; return its seconds (``fallback`` if too big).

    Fast path: the fractional nanoseconds are computed in f64 (error far below 1e-4 ns), so
    the rounding is exact unless the value lies within 1e-4 of a tie; ties and huge or odd
    values take the exact integer path.
    """
    if 0.0 <= delay < 9.0e9:
        frac = delay % 1.0
        x = frac * 1e9
        part = x % 1.0
        if part < 0.4999:
            return (delay - frac) + (x - part) / 1e9
        if part > 0.5001:
            return (delay - frac) + (x - part + 1.0) / 1e9
    nanos = _to_nanos(delay)
    return fallback if nanos < 0 else _secs(nanos)


def classify_close(close_code: int | None) -> tuple[bool, tuple[float, float] | None]:
    """Classify a WebSocket close code as terminal or retryable."""
    if close_code is None:
        return (False, None)
    code = _to_i64(close_code)
    _check_code(code, "close_code")
    return (code == 1008, None)


def classify_upgrade(status: int) -> tuple[bool, tuple[float, float] | None]:
    """Classify an HTTP upgrade-rejection status as terminal or retryable."""
    code = _to_i64(status)
    _check_code(code, "status")
    return (code == 400 or code == 403 or code == 409, None)


class SessionPolicy:
    """Reconnect backoff/jitter policy, plus the graduated rapid-disconnect cooldown ladder."""

    __slots__ = ("_settings",)
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    _settings: dict[str, float]

    def __new__(
        cls, config: Mapping[str, float | int], trace_context: str | None = None
    ) -> SessionPolicy:
        """Validate ``config`` and build the policy."""
        check_trace_context(trace_context)
        values: dict[str, float] = {}
        for key in _KEYS:
            try:
                raw = config[key]
            except Exception:
                raise TypeError(f"SessionPolicy config is missing `{key}`") from None
            if raw is True or raw is False:
                raise TypeError(f"SessionPolicy config `{key}` must be a number, not bool")
            try:
                x = _to_float(raw)
            except Exception:
                raise TypeError(f"SessionPolicy config `{key}` must be a number") from None
            if key == "rapid_threshold":
                # float with float only: compiled, ``x > _U32_MAX`` and ``x != int(x)`` compare a
                # float with an int, which Cython's limited-API helper gets wrong on 32-bit
                # targets between 2**31 and 2**53 (tests/cross/README.md)
                if x != x or x == _INF or x < 0.0 or x > 4294967295.0 or x % 1.0 != 0.0:
                    raise ValueError(
                        "SessionPolicy config `rapid_threshold` must be a whole number "
                        f"between 0 and 4294967295, got {format_number(x)}"
                    )
            elif key != "factor" and (x != x or x == _INF or x == -_INF or x < 0.0):
                raise ValueError(
                    f"`{key}` must be a finite, non-negative number, got {format_number(x)}"
                )
            values[key] = x
        # every *_s value becomes a Duration (whole nanoseconds, saturating) before use
        nanos = {key: _sat_nanos(x) for key, x in values.items() if key.endswith("_s")}
        factor, threshold = values["factor"], values["rapid_threshold"]
        issues: list[Issue] = []
        if factor != factor or factor == _INF or factor < 1.0:
            issues.append(
                (
                    "factor",
                    "invalid_value",
                    f"factor must be a finite number >= 1.0, got {format_number(factor)}",
                )
            )
        if nanos["base_delay_s"] > nanos["max_delay_s"]:
            issues.append(("base_delay", "invalid_value", "base_delay must not exceed max_delay"))
        if threshold == 0.0:
            issues.append(
                ("rapid_threshold", "invalid_value", "rapid_threshold must be at least 1")
            )
        if nanos["heartbeat_interval_s"] == 0:
            issues.append(
                (
                    "heartbeat_interval",
                    "invalid_value",
                    "heartbeat_interval must be greater than zero",
                )
            )
        if nanos["dead_threshold_s"] <= nanos["heartbeat_interval_s"]:
            issues.append(
                ("dead_threshold", "invalid_value", "dead_threshold must exceed heartbeat_interval")
            )
        if issues:
            raise validation_error(issues, trace_context)
        for key, ns in nanos.items():
            values[key] = _secs(ns)
        self = object.__new__(SessionPolicy)
        object.__setattr__(self, "_settings", values)
        return self

    @staticmethod
    def default() -> SessionPolicy:
        """Return the default policy (a recommended, not final, default)."""
        return SessionPolicy(_DEFAULTS)

    @property
    def heartbeat_interval_s(self) -> float:
        """Seconds between heartbeats."""
        return self._settings["heartbeat_interval_s"]

    @property
    def dead_threshold_s(self) -> float:
        """Seconds of silence after which the connection counts as dead."""
        return self._settings["dead_threshold_s"]

    __setattr__ = __delattr__ = refuse_setattr
    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy


class SessionOutcome:
    """The settled outcome of one Session call."""

    __slots__ = ("_dead_reason", "_retry_after_s", "_stale_reason", "_state")
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses
    __new__ = refuse_new  # compiled, Cython allocates past it (the C type is final)

    _state: SessionState
    _retry_after_s: float | None
    _dead_reason: DeadReason | None
    _stale_reason: StaleReason | None

    def __init__(self, *args: object, **kwargs: object) -> None:
        refuse_create(SessionOutcome)

    @property
    def state(self) -> SessionState:
        """The session state after the call."""
        return self._state

    @property
    def retry_after_s(self) -> float | None:
        """Seconds to wait before the next attempt, when one is due."""
        return self._retry_after_s

    @property
    def dead_reason(self) -> DeadReason | None:
        """Why the session is dead, if it is and a reason is known."""
        return self._dead_reason

    @property
    def stale_reason(self) -> StaleReason | None:
        """Why the call was ignored, if it was."""
        return self._stale_reason

    # def, not a bound helper: only a def fills the compiled type's setattr slot
    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy


if not _COMPILED:  # the slots' own descriptors: SessionOutcome.__setattr__ refuses every name
    _set_state = SessionOutcome.__dict__["_state"].__set__
    _set_retry = SessionOutcome.__dict__["_retry_after_s"].__set__
    _set_dead = SessionOutcome.__dict__["_dead_reason"].__set__
    _set_stale = SessionOutcome.__dict__["_stale_reason"].__set__


def _outcome(
    state: SessionState,
    retry_after_s: float | None,
    dead_reason: DeadReason | None,
    stale_reason: StaleReason | None,
) -> SessionOutcome:
    """Build a SessionOutcome without going through its refusing constructor."""
    if _COMPILED:
        out: SessionOutcome = SessionOutcome.__new__(SessionOutcome)
        out._state = state
        out._retry_after_s = retry_after_s
        out._dead_reason = dead_reason
        out._stale_reason = stale_reason
        return out
    out = object.__new__(SessionOutcome)
    _set_state(out, state)
    _set_retry(out, retry_after_s)
    _set_dead(out, dead_reason)
    _set_stale(out, stale_reason)
    return out


# the enum singletons the state machine hands out (module globals: C globals when compiled)
_DEAD = SessionState.Dead
_UP = SessionState.Up
_CONNECTING = SessionState.Connecting
_RECONNECTING = SessionState.Reconnecting
_WRONG_EPOCH = StaleReason.WrongEpoch
_DUPLICATE_CONNECTED = StaleReason.DuplicateConnected
_CLOCK_REGRESSION = StaleReason.ClockRegression
_SUPERSEDE_PREDATES = StaleReason.SupersedePredatesEpoch
_CLASSIFIED = DeadReason.Classified
_RAPID_DISCONNECT = DeadReason.RapidDisconnect


class _SessionCore:
    """The mutable state and transition logic behind a Session."""

    __slots__ = (
        "attempt_start",
        "base_s",
        "connected",
        "connected_at",
        "cooldown_base",
        "cooldown_max",
        "cooldown_step",
        "dead_reason",
        "epoch",
        "ever_up",
        "factor",
        "has_epoch",
        "max_delay_s",
        "n",
        "next_epoch",
        "rapid",
        "rapid_first",
        "rapid_second",
        "rapid_uptime",
        "rapid_window",
        "stable_reset",
        "state",
        "threshold",
        "up_since",
    )

    def __init__(self, settings: dict[str, float]) -> None:
        """Copy the (already nanosecond-rounded) policy settings and reset the state."""
        self.base_s: float = settings["base_delay_s"]
        self.factor: float = settings["factor"]
        self.max_delay_s: float = settings["max_delay_s"]
        self.stable_reset: float = settings["stable_reset_s"]
        self.rapid_uptime: float = settings["rapid_disconnect_uptime_s"]
        self.rapid_window: float = settings["rapid_window_s"]
        self.rapid_first: float = settings["rapid_first_min_delay_s"]
        self.rapid_second: float = settings["rapid_second_min_delay_s"]
        self.cooldown_base: float = settings["rapid_cooldown_base_s"]
        self.cooldown_step: float = settings["rapid_cooldown_step_s"]
        self.cooldown_max: float = settings["rapid_cooldown_max_s"]
        self.threshold: int = int(settings["rapid_threshold"])
        self.state: SessionState = _CONNECTING
        self.next_epoch: int = 0
        self.has_epoch: bool = False
        self.epoch: int = 0
        self.attempt_start: float = 0.0
        self.connected: bool = False
        self.connected_at: float = 0.0
        self.up_since: float = 0.0
        self.ever_up: bool = False
        self.n: int = 0
        self.rapid: list[float] = []
        self.dead_reason: DeadReason | None = None

    def dead(self) -> SessionOutcome:
        """Report the dead state."""
        return _outcome(_DEAD, None, self.dead_reason, None)

    def stale(self, reason: StaleReason) -> SessionOutcome:
        """Report an ignored call."""
        return _outcome(self.state, None, None, reason)

    def begin_attempt(self, now_s: float) -> int | None:
        """Start a new connection attempt."""
        if self.state is _DEAD:
            return None
        epoch = self.next_epoch
        self.next_epoch = epoch + 1
        self.has_epoch = True
        self.epoch = epoch
        self.attempt_start = now_s
        self.connected = False
        return epoch

    def on_connected(self, epoch: int, now_s: float) -> SessionOutcome:
        """Record that the attempt ``epoch`` connected."""
        if self.state is _DEAD:
            return self.dead()
        if not self.has_epoch or epoch != self.epoch:
            return self.stale(_WRONG_EPOCH)
        if self.connected:
            return self.stale(_DUPLICATE_CONNECTED)
        self.connected = True
        self.connected_at = now_s
        self.up_since = now_s
        self.ever_up = True
        self.state = _UP
        return _outcome(_UP, None, None, None)

    def on_close(
        self,
        epoch: int,
        now_s: float,
        terminal: bool,
        retry_after_s: float | None,
        jitter_sample: float,
    ) -> SessionOutcome:
        """Handle a socket close or an upgrade rejection of attempt ``epoch``."""
        if self.state is _DEAD:
            return self.dead()
        if not self.has_epoch or epoch != self.epoch:
            return self.stale(_WRONG_EPOCH)
        if self.connected and now_s < self.connected_at:
            return self.stale(_CLOCK_REGRESSION)
        return self.disconnect(now_s, terminal, retry_after_s, jitter_sample)

    def on_supersede(
        self, now_s: float, retryable: bool, retry_after_s: float | None, jitter_sample: float
    ) -> SessionOutcome:
        """Handle a server-side supersede."""
        if self.state is _DEAD:
            return self.dead()
        if self.has_epoch and now_s < self.attempt_start:
            return self.stale(_SUPERSEDE_PREDATES)
        return self.disconnect(now_s, not retryable, retry_after_s, jitter_sample)

    def disconnect(
        self, now_s: float, terminal: bool, retry_after_s: float | None, jitter_sample: float
    ) -> SessionOutcome:
        """Apply an accepted disconnect: backoff, jitter and the rapid-disconnect ladder."""
        was_up = self.state is _UP
        uptime = now_s - self.up_since
        self.has_epoch = False
        self.connected = False
        if terminal:
            self.state = _DEAD
            self.dead_reason = _CLASSIFIED
            return _outcome(_DEAD, None, _CLASSIFIED, None)
        if was_up and uptime >= self.stable_reset:
            self.n = 0
        # policy durations were rounded to whole nanoseconds; the delay is computed in f64
        ceiling = self.base_s * _powi(self.factor, self.n)
        if not ceiling <= self.max_delay_s:  # also NaN / infinity
            ceiling = self.max_delay_s
        delay = jitter_sample * ceiling
        self.n += 1
        if not was_up or uptime < self.rapid_uptime:
            rapid = self.rapid
            t = now_s
            if rapid and rapid[len(rapid) - 1] > t:  # no negative index: compiled w/o wraparound
                t = rapid[len(rapid) - 1]
            rapid.append(t)
            drop = 0
            window = self.rapid_window
            while t - rapid[drop] > window:
                drop += 1
            if drop:
                del rapid[:drop]
            k = len(rapid)
            if k >= self.threshold:
                self.state = _DEAD
                self.dead_reason = _RAPID_DISCONNECT
                return _outcome(_DEAD, None, _RAPID_DISCONNECT, None)
            if k == 1:
                floor = self.rapid_first
            elif k == 2:
                floor = self.rapid_second
            else:
                floor = self.cooldown_base + self.cooldown_step * (k - 3)
                if floor > self.cooldown_max:
                    floor = self.cooldown_max
            if floor > delay:
                delay = floor
        if retry_after_s is not None and retry_after_s > delay:
            delay = retry_after_s
        # a delay too large for a Duration falls back to max_delay (as the reference does)
        result = _delay_secs(delay, self.max_delay_s)
        state = _RECONNECTING if self.ever_up else _CONNECTING
        self.state = state
        return _outcome(state, result, None, None)

    def end(self) -> SessionState:
        """Stop the session for good."""
        self.state = _DEAD
        return _DEAD


class Session:
    """One WebSocket session's state machine."""

    __slots__ = ("_core",)
    __module__ = "band_sdk_core"
    __init_subclass__ = refuse_subclasses

    _core: _SessionCore

    def __init__(self, policy: SessionPolicy) -> None:
        """Start a session in the Connecting state; calling it again changes nothing."""
        if _COMPILED:
            if self._core is not None:
                return
        elif _has_core(self):
            return
        if type(policy) is not SessionPolicy:
            raise TypeError(not_instance_message(policy, "SessionPolicy"))
        core = _SessionCore(policy._settings)
        if _COMPILED:
            self._core = core
        else:
            _set_core(self, core)

    @property
    def state(self) -> SessionState:
        """The current session state."""
        return _core_of(self).state

    def begin_attempt(self, now_s: float) -> int | None:
        """Start a connection attempt; return its epoch, or None once Dead."""
        now = _to_float(now_s)
        _check_now(now)
        return _core_of(self).begin_attempt(now)

    def on_connected(self, epoch: int, now_s: float) -> SessionOutcome:
        """Report that the attempt ``epoch`` connected."""
        e = _to_i64(epoch)
        now = _to_float(now_s)
        _check_epoch(e)
        _check_now(now)
        return _core_of(self).on_connected(e, now)

    def on_socket_close(
        self, epoch: int, now_s: float, close_code: int | None, jitter_sample: float
    ) -> SessionOutcome:
        """Report that the socket of attempt ``epoch`` closed."""
        e = _to_i64(epoch)
        now = _to_float(now_s)
        has_code = close_code is not None
        code = _to_i64(close_code) if has_code else 0
        jitter = _to_float(jitter_sample)
        _check_epoch(e)
        _check_now(now)
        if has_code:
            _check_code(code, "close_code")
        _check_jitter(jitter)
        return _core_of(self).on_close(e, now, has_code and code == 1008, None, jitter)

    def on_upgrade_rejected(
        self,
        epoch: int,
        now_s: float,
        status: int,
        retry_after_s: float | None,
        jitter_sample: float,
    ) -> SessionOutcome:
        """Report that the HTTP upgrade of attempt ``epoch`` was rejected."""
        e = _to_i64(epoch)
        now = _to_float(now_s)
        code = _to_i64(status)
        retry = None if retry_after_s is None else _to_float(retry_after_s)
        jitter = _to_float(jitter_sample)
        _check_epoch(e)
        _check_now(now)
        _check_code(code, "status")
        _check_retry_after(retry)
        _check_jitter(jitter)
        terminal = code == 400 or code == 403 or code == 409
        return _core_of(self).on_close(e, now, terminal, retry, jitter)

    def on_supersede(
        self, now_s: float, retryable: bool, retry_after_s: float | None, jitter_sample: float
    ) -> SessionOutcome:
        """Report that the server superseded this session."""
        now = _to_float(now_s)
        check_bool(retryable)
        retry = None if retry_after_s is None else _to_float(retry_after_s)
        jitter = _to_float(jitter_sample)
        _check_now(now)
        _check_retry_after(retry)
        _check_jitter(jitter)
        return _core_of(self).on_supersede(now, retryable, retry, jitter)

    def end(self) -> SessionState:
        """End the session; it stays Dead."""
        return _core_of(self).end()

    def __setattr__(self, name: str, value: object) -> None:
        refuse_setattr(self, name, value)

    def __delattr__(self, name: str) -> None:
        refuse_setattr(self, name)

    __reduce_ex__ = __reduce__ = __copy__ = __deepcopy__ = refuse_copy


def _core_of(session: Session) -> _SessionCore:
    """Return the session's state machine; refuse a Session whose constructor never ran."""
    if _COMPILED:
        core = session._core  # None after Session.__new__(Session) alone
    else:
        try:
            core = session._core
        except AttributeError:  # the same leaves the pure slot unset
            core = None
    if core is None:
        raise TypeError("'band_sdk_core.Session' object was never initialised")
    return core


def _has_core(session: Session) -> bool:
    """Tell whether the pure Session's ``_core`` slot is set (its constructor ran)."""
    try:
        _get_core(session)
    except AttributeError:
        return False
    return True


if not _COMPILED:  # the slot's own descriptor: Session.__setattr__ refuses every name
    _get_core = Session.__dict__["_core"].__get__
    _set_core = Session.__dict__["_core"].__set__
