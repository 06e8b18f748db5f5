"""Every numeric parameter of the public API at the word-size boundaries, on both twins.

2**31, 2**32 and 2**53 (and their neighbours) are where a 32-bit target's C types end (a
``Py_ssize_t`` or ``long`` there is 32 bits), where the reference's u32 limits end, and where a
double stops holding every integer. Each value goes in as an int and, where the parameter takes
floats, as a float. The expected results are written out where the spec fixes them; everywhere
the compiled twin must also give exactly what the pure twin gives (its ``_py`` module, the
oracle). ``make test-cross`` runs this on i386, armv7l and the 64-bit targets (tests/cross).
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import SESSION_POLICY as POLICY

from band_sdk_core import SessionState

U32_MAX = 2**32 - 1
BOUNDARIES = sorted({edge + step for edge in (2**31, 2**32, 2**53) for step in (-1, 0, 1)})
NUMBERS = [*BOUNDARIES, *(float(value) for value in BOUNDARIES)]


def oracle(impl: ModuleType) -> ModuleType:
    """The pure twin of ``impl`` (itself for the pure twin)."""
    return importlib.import_module(impl.__name__.removesuffix("_c").removesuffix("_py") + "_py")


def outcome(call: Callable[[], Any]) -> tuple[str, Any]:
    """``("ok", result)`` or the exception's type name and message."""
    try:
        return ("ok", call())
    except Exception as exc:  # the twins must fail alike, whatever the error
        return (type(exc).__name__, str(exc))


def u32_message(name: str, low: int, value: int) -> str:
    """The range error of a u32 limit (the reference's wording)."""
    return f"`{name}` must be an integer between {low} and {U32_MAX}, got {value}"


def refused_over_u32(cls: Callable[..., object], name: str, low: int, value: int) -> bool:
    """Above the u32 range, ``cls(name=value)`` must fail with the range error; True if it did."""
    if value <= U32_MAX:
        return False
    with pytest.raises(ValueError) as info:
        cls(**{name: value})
    assert str(info.value) == u32_message(name, low, value)
    return True


# ------------------------------------------------------------------------- u32 limits


@pytest.mark.parametrize("value", BOUNDARIES)
def test_claim_registry_max_completed(claims_impl: ModuleType, value: int) -> None:
    if refused_over_u32(claims_impl.ClaimRegistry, "max_completed", 1, value):
        return
    registry = claims_impl.ClaimRegistry(max_completed=value)
    assert registry.max_completed == value
    for message_id in ("m1", "m2", "m3"):
        registry.remember_completed("r", message_id)
    # a bound that wrapped to a small or negative number would have evicted the first ids
    assert registry.completed_ids("r") == ["m1", "m2", "m3"]
    assert claims_impl.ClaimRegistry(value).max_completed == value


@pytest.mark.parametrize("value", [float(value) for value in BOUNDARIES])
def test_claim_registry_max_completed_float(claims_impl: ModuleType, value: float) -> None:
    with pytest.raises(TypeError):
        claims_impl.ClaimRegistry(max_completed=value)


@pytest.mark.parametrize("value", BOUNDARIES)
def test_retry_tracker_max_retries(retry_impl: ModuleType, value: int) -> None:
    if refused_over_u32(retry_impl.RetryTracker, "max_retries", 0, value):
        return
    tracker = retry_impl.RetryTracker(max_retries=value)
    assert tracker.max_retries == value
    assert [tracker.record_attempt("m") for _ in range(3)] == [(1, False), (2, False), (3, False)]
    assert not tracker.is_permanently_failed("m")


@pytest.mark.parametrize("value", BOUNDARIES)
def test_retry_tracker_max_tracked(retry_impl: ModuleType, value: int) -> None:
    if refused_over_u32(retry_impl.RetryTracker, "max_tracked", 1, value):
        return
    tracker = retry_impl.RetryTracker(max_retries=5, max_tracked=value)
    for message_id in ("m1", "m2", "m3"):
        tracker.record_attempt(message_id)
    # every id still tracked: a second attempt counts 2, not 1 as for an evicted id
    assert [tracker.record_attempt(m)[0] for m in ("m1", "m2", "m3")] == [2, 2, 2]


@pytest.mark.parametrize("value", [float(value) for value in BOUNDARIES])
@pytest.mark.parametrize("name", ["max_retries", "max_tracked"])
def test_retry_tracker_limits_float(retry_impl: ModuleType, name: str, value: float) -> None:
    with pytest.raises(TypeError):
        retry_impl.RetryTracker(**{name: value})


@pytest.mark.parametrize("value", BOUNDARIES)
def test_decision_registry_max_pending(decisions_impl: ModuleType, value: int) -> None:
    if refused_over_u32(decisions_impl.DecisionRegistry, "max_pending", 1, value):
        return
    registry = decisions_impl.DecisionRegistry(max_pending=value, seed=1)
    assert registry.max_pending == value
    tokens = [registry.register_minted("r") for _ in range(3)]
    assert None not in tokens  # under the limit: nothing refused
    assert registry.unclaimed_count() == 3


@pytest.mark.parametrize("value", BOUNDARIES)
def test_decision_registry_seed_and_tickets(decisions_impl: ModuleType, value: int) -> None:
    def script(impl: ModuleType) -> list[tuple[str, Any]]:
        registry = impl.DecisionRegistry(seed=value)
        token, ticket = registry.register_minted("r")
        return [
            ("minted", (token, ticket)),
            outcome(lambda: registry.try_claim(token, value)),
            outcome(lambda: registry.withdraw(token, value)),
            outcome(lambda: registry.forget(token, value)),
            outcome(lambda: registry.try_claim(token, float(value))),
            outcome(lambda: registry.try_claim(token, ticket)),
        ]

    # the seed's SplitMix64 stream and the ticket checks, bit for bit as the pure twin has them
    assert script(decisions_impl) == script(oracle(decisions_impl))


# ------------------------------------------------------------------------- Session


def policy_outcome(impl: ModuleType, key: str, value: float) -> tuple[str, Any]:
    """Build a policy with ``key`` set to ``value``; on success drive a session through it."""
    built = outcome(lambda: impl.SessionPolicy({**POLICY, key: value}))
    if built[0] != "ok":
        return built
    policy = built[1]
    session = impl.Session(policy)
    views = [policy.heartbeat_interval_s, policy.dead_threshold_s]
    now = 0.0
    for _ in range(12):  # past the default rapid threshold; backoff grows by factor each time
        epoch = session.begin_attempt(now)
        if epoch is None:
            break
        session.on_connected(epoch, now)
        now += 1.0
        done = session.on_socket_close(epoch, now, 1006, 1.0)
        views.append((done.state, done.retry_after_s, done.dead_reason, done.stale_reason))
    return ("ok", views)


@pytest.mark.parametrize("value", NUMBERS)
@pytest.mark.parametrize("key", list(POLICY))
def test_session_policy_numbers(session_impl: ModuleType, key: str, value: float) -> None:
    got = policy_outcome(session_impl, key, value)
    assert got == policy_outcome(oracle(session_impl), key, value)
    if key == "rapid_threshold":
        if value <= U32_MAX:
            assert got[0] == "ok"
            # a threshold this high never fires: every disconnect asks for a retry
            assert all(view[0] is SessionState.Reconnecting for view in got[1][2:])
        else:
            shown = int(float(value))  # the message shows the value as the float it became
            assert got == (
                "ValueError",
                "SessionPolicy config `rapid_threshold` must be a whole number between 0 and "
                f"4294967295, got {shown}",
            )
    elif key == "factor":
        # the second close's backoff is base * factor (n = 1): capped at max_delay_s (30 s, over
        # the rapid floor of 5 s); then factor**n overflows a double, and the cap holds
        # whatever precision the FPU computes in (i386's x87 kept 1e600 finite, the delay 0.0)
        assert got[0] == "ok"
        # (closes 2 to 5: the rapid floors, 5 to 30 s, stay at or under the cap)
        assert [view[1] for view in got[1][3:7]] == [30.0, 30.0, 30.0, 30.0]


@pytest.mark.parametrize("value", NUMBERS)
def test_session_call_numbers(session_impl: ModuleType, value: float) -> None:
    def script(impl: ModuleType) -> list[tuple[str, Any]]:
        def fresh() -> Any:
            return impl.Session(impl.SessionPolicy.default())

        def close_at(now: float, code: Any = 1006, jitter: Any = 0.5) -> Any:
            s = fresh()
            epoch = s.begin_attempt(0.0)
            s.on_connected(epoch, 0.0)
            out = s.on_socket_close(epoch, now, code, jitter)
            return (out.state, out.retry_after_s, out.dead_reason, out.stale_reason)

        def reject_at(status: Any, retry_after: Any) -> Any:
            s = fresh()
            epoch = s.begin_attempt(0.0)
            out = s.on_upgrade_rejected(epoch, 1.0, status, retry_after, 0.5)
            return (out.state, out.retry_after_s, out.dead_reason, out.stale_reason)

        def supersede(retry_after: Any) -> Any:
            s = fresh()
            epoch = s.begin_attempt(0.0)
            s.on_connected(epoch, 0.0)
            out = s.on_supersede(2.0, True, retry_after, 0.5)
            return (out.state, out.retry_after_s, out.dead_reason, out.stale_reason)

        def epoch_of(epoch: Any) -> Any:
            s = fresh()
            s.begin_attempt(0.0)
            out = s.on_connected(epoch, 1.0)
            return (out.state, out.retry_after_s, out.dead_reason, out.stale_reason)

        return [
            outcome(lambda: fresh().begin_attempt(value)),  # now_s
            outcome(lambda: close_at(value)),  # now_s of a close
            outcome(lambda: epoch_of(value)),  # epoch
            outcome(lambda: close_at(5.0, code=value)),  # close_code
            outcome(lambda: close_at(5.0, jitter=value)),  # jitter_sample
            outcome(lambda: reject_at(value, None)),  # status
            outcome(lambda: reject_at(503, value)),  # retry_after_s
            outcome(lambda: supersede(value)),  # retry_after_s of a supersede
            outcome(lambda: impl.classify_close(value)),
            outcome(lambda: impl.classify_upgrade(value)),
        ]

    got = script(session_impl)
    assert got == script(oracle(session_impl))
    # the spec's ranges: any number >= 0 is a time; a code (an int) stops at 65535; jitter at 1.0
    assert got[0] == ("ok", 0)
    code_error = "ValueError" if isinstance(value, int) else "TypeError"
    assert [got[i][0] for i in (3, 5, 8, 9)] == [code_error] * 4
    assert got[4][0] == "ValueError"
    assert got[6][0] == "ok"
    assert got[6][1][1] >= float(value)  # the server's Retry-After is honoured
