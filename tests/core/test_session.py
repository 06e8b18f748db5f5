"""Session, SessionPolicy and SessionOutcome (spec §11)."""

from __future__ import annotations

import copy
import math
import pickle
import re
from decimal import Decimal
from fractions import Fraction
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import SESSION_POLICY as DEFAULTS
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from band_sdk_core import DeadReason, SessionState, StaleReason

NAN = float("nan")
INF = float("inf")

KEYS = list(DEFAULTS)


def policy(impl: ModuleType, **overrides: Any) -> Any:
    """Build a policy from the defaults with some keys replaced."""
    return impl.SessionPolicy({**DEFAULTS, **overrides})


def session(impl: ModuleType, **overrides: Any) -> Any:
    """Build a session over a policy from the defaults with some keys replaced."""
    return impl.Session(policy(impl, **overrides))


def view(outcome: Any) -> tuple[Any, Any, Any, Any]:
    """Return an outcome as a tuple."""
    return (outcome.state, outcome.retry_after_s, outcome.dead_reason, outcome.stale_reason)


#: a policy's keys that switch the rapid-disconnect rules off (plain backoff only)
NO_RAPID_RULES: dict[str, Any] = {
    "rapid_disconnect_uptime_s": 0.0,
    "rapid_first_min_delay_s": 0.0,
    "rapid_second_min_delay_s": 0.0,
    "rapid_cooldown_base_s": 0.0,
    "rapid_cooldown_step_s": 0.0,
    "rapid_cooldown_max_s": 0.0,
    "rapid_threshold": 1000,
}

#: the views of a session that is dead for good, by reason
DEAD_CLASSIFIED = (SessionState.Dead, None, DeadReason.Classified, None)
DEAD_RAPID = (SessionState.Dead, None, DeadReason.RapidDisconnect, None)


# --------------------------------------------------------------------------- SessionPolicy


def test_default_policy(session_impl: ModuleType) -> None:
    p = session_impl.SessionPolicy.default()
    assert type(p) is session_impl.SessionPolicy
    assert p.heartbeat_interval_s == 30.0 and type(p.heartbeat_interval_s) is float
    assert p.dead_threshold_s == 60.0
    assert p.default() is not p


def test_policy_properties_are_floats(session_impl: ModuleType) -> None:
    p = policy(session_impl, heartbeat_interval_s=3, dead_threshold_s=7)
    assert p.heartbeat_interval_s == 3.0 and type(p.heartbeat_interval_s) is float
    assert p.dead_threshold_s == 7.0 and type(p.dead_threshold_s) is float


def test_policy_extra_keys_ignored_and_keywords(session_impl: ModuleType) -> None:
    p = session_impl.SessionPolicy(config={**DEFAULTS, "other": "x"}, trace_context=None)
    assert p.heartbeat_interval_s == 30.0


def test_policy_accepts_number_like_values(session_impl: ModuleType) -> None:
    class MyInt(int):
        pass

    class MyFloat(float):
        pass

    p = policy(session_impl, base_delay_s=MyInt(1), factor=MyFloat(2), max_delay_s=Decimal(30))
    assert p.heartbeat_interval_s == 30.0
    assert policy(session_impl, rapid_threshold=10.0) is not None
    assert policy(session_impl, rapid_threshold=4294967295) is not None
    assert policy(session_impl, base_delay_s=-0.0) is not None


@pytest.mark.parametrize("key", KEYS)
def test_policy_missing_key(session_impl: ModuleType, key: str) -> None:
    config = {k: v for k, v in DEFAULTS.items() if k != key}
    with pytest.raises(TypeError) as info:
        session_impl.SessionPolicy(config)
    assert str(info.value) == f"SessionPolicy config is missing `{key}`"


@pytest.mark.parametrize("config", [None, [1, 2], 5, "text"])
def test_policy_unreadable_config(session_impl: ModuleType, config: object) -> None:
    with pytest.raises(TypeError, match=r"^SessionPolicy config is missing `base_delay_s`$"):
        session_impl.SessionPolicy(config)


def test_policy_getitem_error_is_missing(session_impl: ModuleType) -> None:
    class Broken:
        def __getitem__(self, key: str) -> float:
            raise RuntimeError(key)

    with pytest.raises(TypeError, match=r"^SessionPolicy config is missing `base_delay_s`$"):
        session_impl.SessionPolicy(Broken())


@pytest.mark.parametrize("key", KEYS)
def test_policy_bool_rejected(session_impl: ModuleType, key: str) -> None:
    with pytest.raises(TypeError) as info:
        policy(session_impl, **{key: True})
    assert str(info.value) == f"SessionPolicy config `{key}` must be a number, not bool"


@pytest.mark.parametrize("value", ["1", None, [1], 2**2000, object()])
def test_policy_not_a_number(session_impl: ModuleType, value: object) -> None:
    with pytest.raises(TypeError) as info:
        policy(session_impl, max_delay_s=value)
    assert str(info.value) == "SessionPolicy config `max_delay_s` must be a number"


def test_policy_first_failure_wins(session_impl: ModuleType) -> None:
    config = {**DEFAULTS, "base_delay_s": "x"}
    del config["factor"]
    with pytest.raises(TypeError, match="`base_delay_s` must be a number"):
        session_impl.SessionPolicy(config)


@pytest.mark.parametrize(
    ("value", "shown"),
    [
        (-1, "-1"),
        (1.5, "1.5"),
        (NAN, "NaN"),
        (INF, "inf"),
        (-INF, "-inf"),
        (2**40, "1099511627776"),
        (4294967296, "4294967296"),
        (2**70, "1180591620717411300000"),
    ],
)
def test_policy_rapid_threshold_range(session_impl: ModuleType, value: Any, shown: str) -> None:
    with pytest.raises(ValueError) as info:
        policy(session_impl, rapid_threshold=value)
    assert str(info.value) == (
        "SessionPolicy config `rapid_threshold` must be a whole number between 0 and "
        f"4294967295, got {shown}"
    )
    assert not hasattr(info.value, "issues")


@pytest.mark.parametrize("key", [k for k in KEYS if k not in ("factor", "rapid_threshold")])
@pytest.mark.parametrize(
    ("value", "shown"), [(-1, "-1"), (-1e-7, "-0.0000001"), (NAN, "NaN"), (INF, "inf")]
)
def test_policy_duration_range(session_impl: ModuleType, key: str, value: Any, shown: str) -> None:
    with pytest.raises(ValueError) as info:
        policy(session_impl, **{key: value})
    assert str(info.value) == f"`{key}` must be a finite, non-negative number, got {shown}"
    assert not hasattr(info.value, "issues")


def test_policy_all_cross_field_issues(session_impl: ModuleType) -> None:
    config = {
        **DEFAULTS,
        "factor": 0.5,
        "base_delay_s": 50,
        "rapid_threshold": 0,
        "heartbeat_interval_s": 0,
        "dead_threshold_s": 0,
    }
    with pytest.raises(ValueError) as info:
        session_impl.SessionPolicy(config, "tc")
    error = info.value
    assert type(error) is ValueError
    assert error.issues == (  # type: ignore[attr-defined]
        ("factor", "invalid_value", "factor must be a finite number >= 1.0, got 0.5"),
        ("base_delay", "invalid_value", "base_delay must not exceed max_delay"),
        ("rapid_threshold", "invalid_value", "rapid_threshold must be at least 1"),
        ("heartbeat_interval", "invalid_value", "heartbeat_interval must be greater than zero"),
        ("dead_threshold", "invalid_value", "dead_threshold must exceed heartbeat_interval"),
    )
    assert error.trace_context == "tc"  # type: ignore[attr-defined]
    assert error.args == (
        "5 validation issue(s): factor must be a finite number >= 1.0, got 0.5 (factor)",
    )


@pytest.mark.parametrize(
    ("value", "shown"), [(NAN, "NaN"), (INF, "inf"), (-1, "-1"), (0.99, "0.99")]
)
def test_policy_factor(session_impl: ModuleType, value: float, shown: str) -> None:
    with pytest.raises(ValueError) as info:
        policy(session_impl, factor=value)
    assert info.value.issues == (  # type: ignore[attr-defined]
        ("factor", "invalid_value", f"factor must be a finite number >= 1.0, got {shown}"),
    )
    assert info.value.trace_context is None  # type: ignore[attr-defined]


def test_policy_single_cross_field_issues(session_impl: ModuleType) -> None:
    with pytest.raises(ValueError, match=r"^1 validation issue\(s\): dead_threshold must exceed "):
        policy(session_impl, dead_threshold_s=30.0)
    with pytest.raises(ValueError) as info:
        policy(session_impl, heartbeat_interval_s=-0.0, dead_threshold_s=0)
    assert [i[0] for i in info.value.issues] == [  # type: ignore[attr-defined]
        "heartbeat_interval",
        "dead_threshold",
    ]
    assert policy(session_impl, base_delay_s=30.0) is not None


def test_policy_compares_whole_nanoseconds(session_impl: ModuleType) -> None:
    # 4e-10 s is 0 ns, so it does not exceed a zero max_delay (as the reference behaves)
    assert policy(session_impl, base_delay_s=4e-10, max_delay_s=0.0) is not None
    with pytest.raises(ValueError, match="heartbeat_interval must be greater than zero"):
        policy(session_impl, heartbeat_interval_s=4e-10)
    with pytest.raises(ValueError, match="dead_threshold must exceed heartbeat_interval"):
        policy(session_impl, heartbeat_interval_s=0.1234567891234, dead_threshold_s=0.1234567891235)
    p = policy(session_impl, heartbeat_interval_s=0.1234567891234, dead_threshold_s=1e30)
    assert p.heartbeat_interval_s == 0.123456789
    assert p.dead_threshold_s == 1.8446744073709552e19


def test_policy_trace_context_type(session_impl: ModuleType) -> None:
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        session_impl.SessionPolicy(None, 5)


def test_policy_class_rules(session_impl: ModuleType) -> None:
    cls = session_impl.SessionPolicy
    p = cls.default()
    assert cls.__module__ == "band_sdk_core"
    assert repr(p).startswith("<band_sdk_core.SessionPolicy object at 0x")
    with pytest.raises(TypeError, match=r"type 'band_sdk_core.SessionPolicy' is not an acceptable"):
        type("Sub", (cls,), {})
    with pytest.raises(
        TypeError, match=re.escape("cannot pickle 'band_sdk_core.SessionPolicy' object")
    ):
        pickle.dumps(p)
    with pytest.raises(TypeError):
        copy.deepcopy(p)
    with pytest.raises(AttributeError, match="attribute 'heartbeat_interval_s' of 'band_sdk_core"):
        p.heartbeat_interval_s = 1.0
    with pytest.raises(AttributeError):
        p.dead_threshold_s = 1.0
    with pytest.raises(AttributeError):
        p.other = 1
    with pytest.raises(TypeError):
        cls.default(1)


# --------------------------------------------------------------------------- SessionOutcome


def test_outcome_class_rules(session_impl: ModuleType) -> None:
    cls = session_impl.SessionOutcome
    with pytest.raises(
        TypeError, match=r"^cannot create 'band_sdk_core.SessionOutcome' instances$"
    ):
        cls()
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (cls,), {})
    outcome = session_impl.Session(session_impl.SessionPolicy.default()).on_connected(0, 0.0)
    assert type(outcome) is cls and cls.__module__ == "band_sdk_core"
    for name in ("state", "retry_after_s", "dead_reason", "stale_reason"):
        with pytest.raises(AttributeError, match=f"attribute '{name}' of 'band_sdk_core"):
            setattr(outcome, name, None)
    with pytest.raises(AttributeError):
        outcome.other = 1
    with pytest.raises(
        TypeError, match=re.escape("cannot pickle 'band_sdk_core.SessionOutcome' object")
    ):
        pickle.dumps(outcome)


# --------------------------------------------------------------------------- Session basics


def test_session_class_rules(session_impl: ModuleType) -> None:
    cls = session_impl.Session
    s = cls(policy=session_impl.SessionPolicy.default())
    assert cls.__module__ == "band_sdk_core"
    assert s.state is SessionState.Connecting
    with pytest.raises(TypeError, match="not an acceptable base type"):
        type("Sub", (cls,), {})
    with pytest.raises(TypeError, match=re.escape("cannot pickle 'band_sdk_core.Session' object")):
        pickle.dumps(s)
    with pytest.raises(TypeError):
        copy.copy(s)
    with pytest.raises(
        AttributeError, match=re.escape("attribute 'state' of 'band_sdk_core.Session'")
    ):
        s.state = SessionState.Up
    with pytest.raises(AttributeError):
        s.other = 1


def _session_objects(impl: ModuleType) -> dict[str, object]:
    s = impl.Session(impl.SessionPolicy.default())
    outcome = s.on_connected(s.begin_attempt(0.0), 0.0)
    return {"Session": s, "SessionOutcome": outcome, "SessionPolicy": impl.SessionPolicy.default()}


@pytest.mark.parametrize(
    ("cls_name", "name", "message"),
    [
        (
            "Session",
            "state",
            "attribute 'state' of 'band_sdk_core.Session' objects is not writable",
        ),
        ("Session", "end", "'band_sdk_core.Session' object attribute 'end' is read-only"),
        ("Session", "__doc__", "'band_sdk_core.Session' object attribute '__doc__' is read-only"),
        ("Session", "_core", "'band_sdk_core.Session' object has no attribute '_core'"),
        ("Session", "other", "'band_sdk_core.Session' object has no attribute 'other'"),
        (
            "SessionOutcome",
            "state",
            "attribute 'state' of 'band_sdk_core.SessionOutcome' objects is not writable",
        ),
        (
            "SessionOutcome",
            "_state",
            "'band_sdk_core.SessionOutcome' object has no attribute '_state'",
        ),
        (
            "SessionPolicy",
            "default",
            "'band_sdk_core.SessionPolicy' object attribute 'default' is read-only",
        ),
        (
            "SessionPolicy",
            "_settings",
            "'band_sdk_core.SessionPolicy' object has no attribute '_settings'",
        ),
    ],
)
def test_session_classes_refuse_assignment_with_the_reference_wording(
    session_impl: ModuleType, cls_name: str, name: str, message: str
) -> None:
    obj = _session_objects(session_impl)[cls_name]
    with pytest.raises(AttributeError, match=f"^{re.escape(message)}$"):
        setattr(obj, name, 1)
    with pytest.raises(AttributeError, match=f"^{re.escape(message)}$"):
        delattr(obj, name)


def test_outcome_new_is_refused_from_python(session_impl: ModuleType) -> None:
    cls = session_impl.SessionOutcome
    with pytest.raises(
        TypeError, match=r"^cannot create 'band_sdk_core.SessionOutcome' instances$"
    ):
        cls.__new__(cls)


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("x", "'str' object is not an instance of 'SessionPolicy'"),
        (None, "'None' is not an instance of 'SessionPolicy'"),
        ({}, "'dict' object is not an instance of 'SessionPolicy'"),
    ],
)
def test_session_policy_type(session_impl: ModuleType, value: object, message: str) -> None:
    with pytest.raises(TypeError) as info:
        session_impl.Session(value)
    assert str(info.value) == message


def test_readme_lifecycle(session_impl: ModuleType) -> None:
    s = session_impl.Session(session_impl.SessionPolicy.default())
    epoch = s.begin_attempt(0.0)
    assert epoch == 0
    connected = s.on_connected(epoch, 0.0)
    assert connected.state is SessionState.Up
    disconnected = s.on_socket_close(epoch, 5.0, 1006, 0.5)
    assert disconnected.state is SessionState.Reconnecting
    assert disconnected.retry_after_s is not None


# --------------------------------------------------------------------------- argument checks


def _fresh(impl: ModuleType) -> Any:
    return impl.Session(impl.SessionPolicy.default())


@pytest.mark.parametrize(
    ("value", "shown"), [(-1, "-1"), (NAN, "NaN"), (INF, "inf"), (-0.5, "-0.5")]
)
def test_now_s_range(session_impl: ModuleType, value: float, shown: str) -> None:
    s = _fresh(session_impl)
    message = f"`now_s` must be a finite, non-negative number, got {shown}"
    calls = [
        lambda: s.begin_attempt(value),
        lambda: s.on_connected(0, value),
        lambda: s.on_socket_close(0, value, None, 0.0),
        lambda: s.on_upgrade_rejected(0, value, 500, None, 0.0),
        lambda: s.on_supersede(value, True, None, 0.0),
    ]
    for call in calls:
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message
        assert not hasattr(info.value, "issues")
    assert s.begin_attempt(-0.0) == 0


def test_epoch_range(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    message = "`epoch` must be a non-negative integer, got -1"
    with pytest.raises(ValueError, match=f"^{message}$"):
        s.on_connected(-1, 0)
    with pytest.raises(ValueError, match=f"^{message}$"):
        s.on_socket_close(-1, 0, None, 0)
    with pytest.raises(ValueError, match=f"^{message}$"):
        s.on_upgrade_rejected(-1, 0, 500, None, 0)
    with pytest.raises(OverflowError):
        s.on_connected(2**63, 0)
    with pytest.raises(OverflowError):
        s.on_connected(-(2**63) - 1, 0)


def test_code_ranges_in_session(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    with pytest.raises(ValueError, match=r"^`close_code` must be .* 65535, got 70000$"):
        s.on_socket_close(0, 0, 70000, 0)
    with pytest.raises(
        ValueError, match=r"^`status` must be an integer between 0 and 65535, got -1$"
    ):
        s.on_upgrade_rejected(0, 0, -1, None, 0)
    with pytest.raises(TypeError):
        s.on_upgrade_rejected(0, 0, None, None, 0)
    with pytest.raises(OverflowError):
        s.on_socket_close(0, 0, 2**70, 0)


@pytest.mark.parametrize(("value", "shown"), [(-1, "-1"), (INF, "inf"), (NAN, "NaN")])
def test_retry_after_range(session_impl: ModuleType, value: float, shown: str) -> None:
    s = _fresh(session_impl)
    message = f"`retry_after_s` must be a finite, non-negative number, got {shown}"
    with pytest.raises(ValueError) as info:
        s.on_upgrade_rejected(0, 0, 500, value, 0.0)
    assert str(info.value) == message
    with pytest.raises(ValueError) as info:
        s.on_supersede(0, True, value, 0.0)
    assert str(info.value) == message


@pytest.mark.parametrize(("value", "shown"), [(2, "2"), (1.5, "1.5"), (-0.1, "-0.1"), (NAN, "NaN")])
def test_jitter_range(session_impl: ModuleType, value: float, shown: str) -> None:
    s = _fresh(session_impl)
    message = f"`jitter_sample` must be a finite number between 0.0 and 1.0, got {shown}"
    for call in (
        lambda: s.on_socket_close(0, 0, None, value),
        lambda: s.on_upgrade_rejected(0, 0, 500, None, value),
        lambda: s.on_supersede(0, True, None, value),
    ):
        with pytest.raises(ValueError) as info:
            call()
        assert str(info.value) == message
    assert s.on_supersede(0, True, None, -0.0).retry_after_s == 1.0


def test_validation_order(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    with pytest.raises(ValueError, match="`epoch`"):
        s.on_socket_close(-1, -1, 70000, 2)
    with pytest.raises(ValueError, match="`now_s`"):
        s.on_socket_close(5, -1, 70000, 2)
    with pytest.raises(ValueError, match="`status`"):
        s.on_upgrade_rejected(5, 1, 70000, -1, 2)
    with pytest.raises(ValueError, match="`retry_after_s`"):
        s.on_upgrade_rejected(5, 1, 500, -1, 2)
    with pytest.raises(ValueError, match="`now_s`"):
        s.on_supersede(INF, True, None, NAN)
    # argument conversion (type errors) happens before any range check
    with pytest.raises(TypeError, match="'int' object is not an instance of 'bool'"):
        s.on_supersede(-1, 1, -1, 9)
    with pytest.raises(OverflowError):
        s.on_connected(2**63, -1)


@pytest.mark.parametrize("value", [1, 0, None, "yes"])
def test_retryable_must_be_bool(session_impl: ModuleType, value: object) -> None:
    with pytest.raises(TypeError):
        _fresh(session_impl).on_supersede(0, value, None, 0)


def test_argument_types(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    with pytest.raises(TypeError, match="must be real number, not str"):
        s.begin_attempt("1")
    with pytest.raises(TypeError):
        s.begin_attempt(None)
    with pytest.raises(TypeError, match="cannot be interpreted as an integer"):
        s.on_connected(1.0, 0)
    with pytest.raises(TypeError):
        s.on_upgrade_rejected(0, 0, 500, "1", 0)
    with pytest.raises(OverflowError):
        s.begin_attempt(2**2000)
    assert s.begin_attempt(True) == 0
    assert s.begin_attempt(Fraction(1, 2)) == 1
    assert s.begin_attempt(Decimal(1)) == 2


def test_validation_applies_when_dead(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    s.end()
    with pytest.raises(ValueError, match="`epoch`"):
        s.on_connected(-1, 0)
    with pytest.raises(ValueError, match="`now_s`"):
        s.begin_attempt(-1)


# --------------------------------------------------------------------------- transitions


def test_begin_attempt_epochs_and_state(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert [s.begin_attempt(t) for t in (5.0, 1.0, 0.0)] == [0, 1, 2]
    assert s.state is SessionState.Connecting
    assert view(s.on_connected(2, 0.0)) == (SessionState.Up, None, None, None)
    assert s.begin_attempt(0.0) == 3
    assert s.state is SessionState.Up  # begin_attempt keeps the state


def test_on_connected_rows(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert view(s.on_connected(0, 0)) == (
        SessionState.Connecting,
        None,
        None,
        StaleReason.WrongEpoch,
    )
    e = s.begin_attempt(10.0)
    assert view(s.on_connected(e + 1, 10)) == (
        SessionState.Connecting,
        None,
        None,
        StaleReason.WrongEpoch,
    )
    # a connect earlier than the attempt start is accepted
    assert view(s.on_connected(e, 5.0)) == (SessionState.Up, None, None, None)
    assert view(s.on_connected(e, 6.0)) == (
        SessionState.Up,
        None,
        None,
        StaleReason.DuplicateConnected,
    )
    assert s.state is SessionState.Up


def test_on_socket_close_rows(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    e = s.begin_attempt(0)
    s.on_connected(e, 4)
    assert view(s.on_socket_close(e + 1, 5, None, 0)) == (
        SessionState.Up,
        None,
        None,
        StaleReason.WrongEpoch,
    )
    assert view(s.on_socket_close(e, 3, None, 0)) == (
        SessionState.Up,
        None,
        None,
        StaleReason.ClockRegression,
    )
    assert view(s.on_upgrade_rejected(e, 3, 503, None, 0)) == (
        SessionState.Up,
        None,
        None,
        StaleReason.ClockRegression,
    )
    # uptime 1 s is rapid: first floor 1.0
    assert view(s.on_socket_close(e, 5, 1006, 0.0)) == (SessionState.Reconnecting, 1.0, None, None)
    # the epoch is invalidated
    assert view(s.on_socket_close(e, 6, 1006, 0.0)) == (
        SessionState.Reconnecting,
        None,
        None,
        StaleReason.WrongEpoch,
    )
    assert view(s.on_connected(e, 6)) == (
        SessionState.Reconnecting,
        None,
        None,
        StaleReason.WrongEpoch,
    )


def test_close_without_connect_has_no_clock_check(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    e = s.begin_attempt(100.0)
    assert view(s.on_socket_close(e, 1.0, None, 0.0)) == (SessionState.Connecting, 1.0, None, None)


def test_terminal_close_and_upgrade(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    e = s.begin_attempt(0)
    assert view(s.on_socket_close(e, 0, 1008, 0.5)) == DEAD_CLASSIFIED
    assert s.begin_attempt(1) is None
    assert view(s.on_connected(e, 0)) == DEAD_CLASSIFIED
    assert s.end() is SessionState.Dead
    assert view(s.on_supersede(0, True, None, 0)) == DEAD_CLASSIFIED
    for status in (400, 403, 409):
        s = _fresh(session_impl)
        e = s.begin_attempt(0)
        assert view(s.on_upgrade_rejected(e, 0, status, 5.0, 0.0)) == DEAD_CLASSIFIED


def test_upgrade_retry_after(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    e = s.begin_attempt(0)
    assert view(s.on_upgrade_rejected(e, 0, 503, 100.0, 0.0)) == (
        SessionState.Connecting,
        100.0,
        None,
        None,
    )
    s = _fresh(session_impl)
    e = s.begin_attempt(0)
    assert view(s.on_upgrade_rejected(e, 0, 403, None, 0.0)) == DEAD_CLASSIFIED


def test_supersede_rows(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    # no attempt at all: accepted
    assert view(s.on_supersede(0, True, None, 0.0)) == (SessionState.Connecting, 1.0, None, None)
    e = s.begin_attempt(10.0)
    assert view(s.on_supersede(9.0, True, None, 0.0)) == (
        SessionState.Connecting,
        None,
        None,
        StaleReason.SupersedePredatesEpoch,
    )
    s.on_connected(e, 20.0)
    # no clock-regression check: 15 < connected_at is accepted (uptime negative → rapid)
    assert view(s.on_supersede(15.0, True, None, 0.0)) == (
        SessionState.Reconnecting,
        5.0,
        None,
        None,
    )
    # the epoch was invalidated: no predates check any more
    assert view(s.on_supersede(0.0, True, 2.5, 0.0)).__getitem__(0) is SessionState.Reconnecting
    assert view(s.on_supersede(0.0, False, None, 0.0)) == DEAD_CLASSIFIED


def test_end(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert s.end() is SessionState.Dead
    assert s.state is SessionState.Dead
    assert s.begin_attempt(0) is None
    assert view(s.on_connected(0, 0)) == (SessionState.Dead, None, None, None)
    assert view(s.on_socket_close(0, 0, None, 0)) == (SessionState.Dead, None, None, None)
    assert view(s.on_upgrade_rejected(0, 0, 500, None, 0)) == (SessionState.Dead, None, None, None)
    assert view(s.on_supersede(0, True, None, 0)) == (SessionState.Dead, None, None, None)
    assert s.end() is SessionState.Dead


def test_end_keeps_rapid_reason(session_impl: ModuleType) -> None:
    s = session(session_impl, rapid_threshold=1)
    assert view(s.on_supersede(0, True, None, 0)) == DEAD_RAPID
    s.end()
    assert view(s.on_connected(0, 0)) == DEAD_RAPID


# --------------------------------------------------------------------------- worked examples


def test_worked_example_never_connected(session_impl: ModuleType) -> None:
    for jitter in (0.0, 0.3, 1.0):
        s = _fresh(session_impl)
        now = 0.0
        delays = []
        for _ in range(9):
            e = s.begin_attempt(now)
            outcome = s.on_socket_close(e, now, 1006, jitter)
            assert outcome.state is SessionState.Connecting
            delays.append(outcome.retry_after_s)
            now += outcome.retry_after_s
        assert delays == [1.0, 5.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 60.0]
        e = s.begin_attempt(now)
        assert view(s.on_socket_close(e, now, 1006, jitter)) == DEAD_RAPID
        assert s.begin_attempt(now) is None


def _connected_cycle(impl: ModuleType, uptime: float, jitter: float, count: int) -> list[float]:
    s = _fresh(impl)
    now = 0.0
    delays = []
    for _ in range(count):
        e = s.begin_attempt(now)
        s.on_connected(e, now)
        now += uptime
        outcome = s.on_socket_close(e, now, 1006, jitter)
        assert outcome.state is SessionState.Reconnecting
        delays.append(outcome.retry_after_s)
        now += outcome.retry_after_s
    return delays


def test_worked_example_short_connections(session_impl: ModuleType) -> None:
    assert _connected_cycle(session_impl, 10.0, 1.0, 8) == [1, 2, 4, 8, 16, 30, 30, 30]
    assert _connected_cycle(session_impl, 59.0, 0.5, 8) == [0.5, 1, 2, 4, 8, 15, 15, 15]


def test_worked_example_stable_connections(session_impl: ModuleType) -> None:
    assert _connected_cycle(session_impl, 60.0, 1.0, 6) == [1.0] * 6


def test_rapid_history_survives_stable_connection(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert s.on_supersede(0, True, None, 0).retry_after_s == 1.0
    e = s.begin_attempt(1)
    s.on_connected(e, 1)
    # non-rapid disconnect: does not touch the rapid history
    assert s.on_socket_close(e, 100, 1006, 0.0).retry_after_s == 0.0
    # second rapid event within 300 s of the first → second floor
    assert s.on_supersede(200, True, None, 0).retry_after_s == 5.0
    # exactly rapid_window old still counts
    assert s.on_supersede(300, True, None, 0).retry_after_s == 10.0
    # beyond the window the first two drop out
    assert s.on_supersede(500.5, True, None, 0).retry_after_s == 5.0


def test_rapid_event_times_are_monotonic(session_impl: ModuleType) -> None:
    s = session(session_impl, rapid_window_s=10.0)
    s.on_supersede(100, True, None, 0)
    # with no current epoch there is no predates check; the time is lifted to 100
    assert s.on_supersede(0, True, None, 0).retry_after_s == 5.0
    assert s.on_supersede(109, True, None, 0).retry_after_s == 10.0
    assert s.on_supersede(110.5, True, None, 0).retry_after_s == 5.0  # 100, 100 drop out
    assert s.on_supersede(200, True, None, 0).retry_after_s == 1.0


def test_factor_overflow_caps_at_max_delay(session_impl: ModuleType) -> None:
    s = session(
        session_impl,
        factor=1e300,
        base_delay_s=0.0,
        **NO_RAPID_RULES,
    )
    delays = [s.on_supersede(0, True, None, 1.0).retry_after_s for _ in range(4)]
    assert delays == [0.0, 0.0, 30.0, 30.0]


def test_retry_after_not_capped(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert s.on_supersede(0, True, 1234.5, 0.0).retry_after_s == 1234.5
    assert s.on_supersede(0, True, 0.5, 0.0).retry_after_s == 5.0


def test_nanosecond_rounding(session_impl: ModuleType) -> None:
    s = _fresh(session_impl)
    assert s.on_supersede(0, True, 0.15000000000000002, 0.0).retry_after_s == 1.0
    s = session(session_impl, rapid_first_min_delay_s=0.0)
    assert s.on_supersede(0, True, 0.15000000000000002, 0.0).retry_after_s == 0.15
    s = session(session_impl, rapid_first_min_delay_s=0.0)
    assert s.on_supersede(0, True, 3.8443359375000004, 0.0).retry_after_s == 3.844335938


def test_policy_durations_are_whole_nanoseconds(session_impl: ModuleType) -> None:
    # observed on the reference: policy durations are rounded to nanoseconds up front
    s = session(
        session_impl,
        base_delay_s=1.5e-9,
        max_delay_s=1.0,
        factor=3.0,
        **NO_RAPID_RULES,
    )
    delays = [s.on_supersede(0, True, None, 1.0).retry_after_s for _ in range(3)]
    assert delays == [1e-9, 3e-9, 9e-9]


def test_oversized_delay_falls_back_to_max_delay(session_impl: ModuleType) -> None:
    # observed on the reference: a delay beyond Duration's range becomes max_delay
    s = _fresh(session_impl)
    assert s.on_supersede(0, True, 1e30, 0.0).retry_after_s == 30.0
    s = session(session_impl, rapid_first_min_delay_s=1e30)
    assert s.on_supersede(0, True, None, 0.0).retry_after_s == 30.0
    s = session(session_impl, max_delay_s=1e300, rapid_first_min_delay_s=1e30)
    assert s.on_supersede(0, True, None, 0.0).retry_after_s == 1.8446744073709552e19
    s = session(session_impl, base_delay_s=1e30, max_delay_s=1e30)
    assert s.on_supersede(0, True, None, 0.5).retry_after_s == 9.223372036854776e18


# --------------------------------------------------------------------------- model check


def _ns(x: float) -> int | None:
    """Whole nanoseconds, half-even on the exact value; None when out of Duration range."""
    if x >= 2.0**64:
        return None
    return round(Fraction(x) * 10**9)


def _back(ns: int) -> float:
    return ns // 10**9 + (ns % 10**9) / 1e9


class Model:
    """A small independent model of §11.6/§11.7 (factors keep powers exact)."""

    def __init__(self, cfg: dict[str, Any]) -> None:
        self.p = {
            k: (v if k in ("factor", "rapid_threshold") else _back(_ns(v) or 0))
            for k, v in cfg.items()
        }
        self.state = "connecting"
        self.next_epoch = 0
        self.epoch: int | None = None
        self.start = 0.0
        self.connected = False
        self.connected_at = 0.0
        self.up_since = 0.0
        self.ever_up = False
        self.n = 0
        self.events: list[float] = []
        self.dead: str | None = None

    def out(
        self,
        state: str,
        retry: float | None = None,
        dead: str | None = None,
        stale: str | None = None,
    ) -> tuple[Any, ...]:
        return (state, retry, dead, stale)

    def begin(self, now: float) -> int | None:
        if self.state == "dead":
            return None
        self.epoch = self.next_epoch
        self.next_epoch += 1
        self.start = now
        self.connected = False
        return self.epoch

    def connect(self, e: int, now: float) -> tuple[Any, ...]:
        if self.state == "dead":
            return self.out("dead", dead=self.dead)
        if e != self.epoch:
            return self.out(self.state, stale="wrong_epoch")
        if self.connected:
            return self.out(self.state, stale="duplicate_connected")
        self.connected, self.connected_at, self.up_since = True, now, now
        self.ever_up, self.state = True, "up"
        return self.out("up")

    def close(
        self, e: int, now: float, terminal: bool, ra: float | None, j: float
    ) -> tuple[Any, ...]:
        if self.state == "dead":
            return self.out("dead", dead=self.dead)
        if e != self.epoch:
            return self.out(self.state, stale="wrong_epoch")
        if self.connected and now < self.connected_at:
            return self.out(self.state, stale="clock_regression")
        return self.drop(now, terminal, ra, j)

    def supersede(self, now: float, retryable: bool, ra: float | None, j: float) -> tuple[Any, ...]:
        if self.state == "dead":
            return self.out("dead", dead=self.dead)
        if self.epoch is not None and now < self.start:
            return self.out(self.state, stale="supersede_predates_epoch")
        return self.drop(now, not retryable, ra, j)

    def drop(self, now: float, terminal: bool, ra: float | None, j: float) -> tuple[Any, ...]:
        p = self.p
        uptime = now - self.up_since if self.state == "up" else None
        self.epoch, self.connected = None, False
        if terminal:
            self.state, self.dead = "dead", "classified"
            return self.out("dead", dead="classified")
        if uptime is not None and uptime >= p["stable_reset_s"]:
            self.n = 0
        delay = j * min(p["max_delay_s"], p["base_delay_s"] * p["factor"] ** self.n)
        self.n += 1
        if uptime is None or uptime < p["rapid_disconnect_uptime_s"]:
            t = max([now, *self.events[-1:]])
            self.events.append(t)
            self.events = [t0 for t0 in self.events if t - t0 <= p["rapid_window_s"]]
            k = len(self.events)
            if k >= p["rapid_threshold"]:
                self.state, self.dead = "dead", "rapid_disconnect"
                return self.out("dead", dead="rapid_disconnect")
            if k == 1:
                floor = p["rapid_first_min_delay_s"]
            elif k == 2:
                floor = p["rapid_second_min_delay_s"]
            else:
                floor = min(
                    p["rapid_cooldown_base_s"] + p["rapid_cooldown_step_s"] * (k - 3),
                    p["rapid_cooldown_max_s"],
                )
            delay = max(delay, floor)
        if ra is not None:
            delay = max(delay, ra)
        ns = _ns(delay)
        self.state = "reconnecting" if self.ever_up else "connecting"
        return self.out(self.state, p["max_delay_s"] if ns is None else _back(ns))


times = st.sampled_from([0.0, 0.1, 1.0, 5.0, 9.99, 10.0, 30.0, 59.9, 60.0, 61.0, 299.0, 300.0])
jitters = st.sampled_from([0.0, 0.25, 0.5, 1.0]) | st.floats(0.0, 1.0)
retries = st.none() | st.sampled_from([0.0, 2.5, 100.0]) | st.floats(0.0, 500.0)
calls = st.lists(
    st.one_of(
        st.tuples(st.just("begin"), times),
        st.tuples(st.just("connect"), st.integers(-1, 0), times),
        st.tuples(
            st.just("close"),
            st.integers(-1, 0),
            times,
            st.sampled_from([None, 1000, 1006, 1008]),
            jitters,
        ),
        st.tuples(
            st.just("reject"),
            st.integers(-1, 0),
            times,
            st.sampled_from([401, 429, 500, 503, 403]),
            retries,
            jitters,
        ),
        st.tuples(st.just("supersede"), times, st.booleans(), retries, jitters),
        st.tuples(st.just("end")),
    ),
    max_size=40,
)
configs = st.fixed_dictionaries(
    {
        "base_delay_s": st.sampled_from([0.0, 0.1, 1.0, 1.5e-9, 2.0]),
        "factor": st.sampled_from([1.0, 1.5, 2.0, 3.0]),
        "max_delay_s": st.sampled_from([2.0, 30.0, 1000.0]),
        "stable_reset_s": st.sampled_from([0.0, 30.0, 60.0]),
        "rapid_disconnect_uptime_s": st.sampled_from([0.0, 10.0, 60.0]),
        "rapid_window_s": st.sampled_from([0.0, 60.0, 300.0]),
        "rapid_first_min_delay_s": st.sampled_from([0.0, 1.0, 0.1234567891]),
        "rapid_second_min_delay_s": st.sampled_from([0.0, 5.0]),
        "rapid_cooldown_base_s": st.sampled_from([0.0, 10.0, 0.3]),
        "rapid_cooldown_step_s": st.sampled_from([0.0, 10.0, 0.1]),
        "rapid_cooldown_max_s": st.sampled_from([0.0, 60.0, 25.0]),
        "rapid_threshold": st.sampled_from([1, 2, 3, 10, 100]),
        "heartbeat_interval_s": st.just(30.0),
        "dead_threshold_s": st.just(60.0),
    }
)


def _tuple(outcome: Any) -> tuple[Any, ...]:
    return (
        outcome.state.value,
        outcome.retry_after_s,
        None if outcome.dead_reason is None else outcome.dead_reason.value,
        None if outcome.stale_reason is None else outcome.stale_reason.value,
    )


@settings(
    max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(cfg=configs, ops=calls)
def test_matches_model(session_impl: ModuleType, cfg: dict[str, Any], ops: list[Any]) -> None:
    if cfg["base_delay_s"] > cfg["max_delay_s"]:
        cfg["base_delay_s"] = cfg["max_delay_s"]
    real = session_impl.Session(session_impl.SessionPolicy(cfg))
    model = Model(cfg)
    now = 0.0
    last = 0
    for op in ops:
        kind = op[0]
        if kind == "begin":
            now += op[1]
            got = real.begin_attempt(now)
            assert got == model.begin(now)
            if got is not None:
                last = got
        elif kind == "connect":
            e, now = max(0, last + op[1]), now + op[2]
            assert _tuple(real.on_connected(e, now)) == model.connect(e, now)
        elif kind == "close":
            e, now = max(0, last + op[1]), now + op[2]
            got = _tuple(real.on_socket_close(e, now, op[3], op[4]))
            assert got == model.close(e, now, op[3] == 1008, None, op[4])
        elif kind == "reject":
            e, now = max(0, last + op[1]), now + op[2]
            got = _tuple(real.on_upgrade_rejected(e, now, op[3], op[4], op[5]))
            assert got == model.close(e, now, op[3] == 403, op[4], op[5])
        elif kind == "supersede":
            now += op[1]
            got = _tuple(real.on_supersede(now, op[2], op[3], op[4]))
            assert got == model.supersede(now, op[2], op[3], op[4])
        else:
            assert real.end() is SessionState.Dead
            model.state = "dead"
        assert real.state.value == model.state
        assert not math.isnan(now)


# --------------------------------------------------------------------------- construction


def test_second_init_keeps_the_session_state(session_impl: ModuleType) -> None:
    s = session(session_impl)
    epoch = s.begin_attempt(1.0)
    s.on_connected(epoch, 1.0)
    s.__init__(policy(session_impl, base_delay_s=2.0))  # the reference ignores a second call
    assert s.state is SessionState.Up
    assert s.begin_attempt(2.0) == epoch + 1


def test_session_never_initialised_is_refused_on_use(session_impl: ModuleType) -> None:
    s = session_impl.Session.__new__(session_impl.Session)
    with pytest.raises(
        TypeError, match=re.escape("'band_sdk_core.Session' object was never initialised")
    ):
        _ = s.state
    with pytest.raises(TypeError, match="was never initialised"):
        s.begin_attempt(1.0)
