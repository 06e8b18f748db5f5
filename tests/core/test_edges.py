"""Conformance edges of band-sdk-core 6.1.1, probed on the reference, against both implementations.

* values coming out of the core are plain ``str``, never a caller's ``str`` subclass;
* constructors convert every integer argument before range-checking any of them;
* what ``validate_event_payload`` returns is never the caller's object (except the
  ``None``/``bool`` singletons, and small ints the interpreter caches).
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import MESSAGE as CORE_MESSAGE
from bandtest.core_cases import SESSION_POLICY as _POLICY
from bandtest.core_cases import VALID_PAYLOADS


class Text(str):
    """A caller's str subclass."""


def _plain(value: object) -> bool:
    return type(value) is str


# -- plain str out ------------------------------------------------------------------


def test_roster_list_returns_plain_str(roster_impl: ModuleType) -> None:
    roster = roster_impl.ParticipantRoster()
    fields = ("id", "name", "type", "handle", "description")
    roster.add({key: Text(f"{key}-1") for key in fields})
    roster.set_all(
        [
            {"id": Text("id-1"), "name": Text("renamed")},  # merged into the existing record
            {key: Text(f"{key}-2") for key in fields},
        ]
    )
    roster.add({"id": Text("id-2"), "handle": Text("new-handle")})
    listing = roster.list()
    assert [row["id"] for row in listing] == ["id-1", "id-2"]
    assert listing[0]["name"] == "renamed" and listing[1]["handle"] == "new-handle"
    for row in listing:
        assert all(_plain(value) for value in row.values()), row
    roster.mark_sent()
    assert not roster.changed()
    assert roster.remove(Text("id-1")) and [row["id"] for row in roster.list()] == ["id-2"]


def _trace(call: Any) -> object:
    with pytest.raises(ValueError) as info:
        call()
    return info.value.trace_context  # type: ignore[attr-defined]


def _assert_plain_trace(call: Any) -> None:
    trace = _trace(call)
    assert trace == "tc" and _plain(trace)


def test_payload_errors_carry_plain_trace_context(payload_impl: ModuleType) -> None:
    _assert_plain_trace(lambda: payload_impl.validate_event_payload("room_deleted", [], Text("tc")))
    _assert_plain_trace(lambda: payload_impl.validate_event_payload("nope", {}, Text("tc")))
    _assert_plain_trace(
        lambda: payload_impl.validate_memory_type_for_system("sensory", "episodic", Text("tc"))
    )


def test_delivery_errors_carry_plain_trace_context(delivery_impl: ModuleType) -> None:
    _assert_plain_trace(
        lambda: delivery_impl.evaluate_delivery_event(
            "message_created", None, {"id": "m"}, "agent", Text("tc")
        )
    )
    _assert_plain_trace(
        lambda: delivery_impl.evaluate_delivery_event("room_deleted", None, {}, "a", Text("tc"))
    )


def test_activity_errors_carry_plain_trace_context(activity_impl: ModuleType) -> None:
    _assert_plain_trace(
        lambda: activity_impl.normalize_room_activity_snapshot({}, "agent", Text("tc"))
    )


def test_roster_errors_carry_plain_trace_context(roster_impl: ModuleType) -> None:
    twice = [{"id": "a"}, {"id": "a"}]
    _assert_plain_trace(lambda: roster_impl.ParticipantRoster().set_all(twice, Text("tc")))
    roster = roster_impl.ParticipantRoster(trace_context_provider=lambda: Text("tc"))
    _assert_plain_trace(lambda: roster.set_all(twice))


def test_claims_errors_carry_plain_trace_context(
    claims_impl: ModuleType, retry_impl: ModuleType
) -> None:
    import band_sdk_core

    claims = claims_impl.ClaimRegistry()
    claims.remember_failed_ack_pending("r", "m", "boom")
    _assert_plain_trace(lambda: claims.remember_failed_ack_pending("r", "m", "other", Text("tc")))
    _assert_plain_trace(lambda: claims.record_processed_settlement("r", "m", Text("tc")))
    tracker = band_sdk_core.RetryTracker()
    _assert_plain_trace(
        lambda: claims.record_failed_settlement("r", "m", "other", tracker, True, Text("tc"))
    )


def test_session_policy_errors_carry_plain_trace_context(session_impl: ModuleType) -> None:
    config = dict(_POLICY, factor=0.5)
    _assert_plain_trace(lambda: session_impl.SessionPolicy(config, Text("tc")))


# -- constructor argument order ---------------------------------------------------------

INTEGER_ERROR = "'float' object cannot be interpreted as an integer"


@pytest.mark.parametrize(
    ("args", "kwargs", "error"),
    [
        ((-1,), {"max_tracked": 1.5}, TypeError),  # the float, not the -1
        ((1.5,), {"max_tracked": -1}, TypeError),
        ((-1,), {"max_tracked": "x"}, TypeError),
        ((2**40,), {"max_tracked": None}, TypeError),
        ((-1,), {"max_tracked": 0}, ValueError),  # both convert: the first range error
        ((1,), {"max_tracked": 0}, ValueError),
    ],
)
def test_retry_tracker_converts_before_range_checks(
    retry_impl: ModuleType, args: tuple[Any, ...], kwargs: dict[str, Any], error: type
) -> None:
    with pytest.raises(error) as info:
        retry_impl.RetryTracker(*args, **kwargs)
    if isinstance(args[0], int) and args[0] < 0 and error is ValueError:
        assert "`max_retries`" in str(info.value)


@pytest.mark.parametrize(
    ("kwargs", "error", "fragment"),
    [
        ({"max_pending": 0, "seed": 1.5}, TypeError, INTEGER_ERROR),
        ({"max_pending": 1.5, "seed": -1}, TypeError, INTEGER_ERROR),
        ({"max_pending": 0, "seed": "x"}, TypeError, "'str' object"),
        ({"max_pending": 0, "seed": -1}, ValueError, "`max_pending`"),
        ({"max_pending": 1, "seed": -1}, ValueError, "`seed`"),
    ],
)
def test_decision_registry_converts_before_range_checks(
    decisions_impl: ModuleType, kwargs: dict[str, Any], error: type, fragment: str
) -> None:
    with pytest.raises(error, match=fragment.replace("(", r"\(")):
        decisions_impl.DecisionRegistry(**kwargs)


def test_claim_registry_single_argument(claims_impl: ModuleType) -> None:
    with pytest.raises(TypeError):
        claims_impl.ClaimRegistry(1.5)
    with pytest.raises(ValueError, match="`max_completed`"):
        claims_impl.ClaimRegistry(0)


@pytest.mark.parametrize(
    ("changes", "error", "message"),
    [
        # SessionPolicy is the exception: one pass over the keys, type and range per key
        (
            {"base_delay_s": -1.0, "rapid_threshold": "x"},
            ValueError,
            "`base_delay_s` must be a finite, non-negative number, got -1",
        ),
        (
            {"max_delay_s": -1.0, "factor": "x"},
            TypeError,
            "SessionPolicy config `factor` must be a number",
        ),
        (
            {"rapid_threshold": 1.5, "dead_threshold_s": "x"},
            ValueError,
            "SessionPolicy config `rapid_threshold` must be a whole number between 0 and "
            "4294967295, got 1.5",
        ),
    ],
)
def test_session_policy_checks_key_by_key(
    session_impl: ModuleType, changes: dict[str, Any], error: type, message: str
) -> None:
    with pytest.raises(error) as info:
        session_impl.SessionPolicy(dict(_POLICY, **changes))
    assert str(info.value) == message


# -- identity of validate_event_payload's result -----------------------------------------

MESSAGE = {
    **CORE_MESSAGE,
    "metadata": {"mentions": [{"id": "a"}]},
    "attachments": [{"id": "f"}],
}

#: every schema's payload, with containers inside a message and an event_created payload
VALID: dict[str, dict[str, Any]] = {
    **VALID_PAYLOADS,
    "message_created": MESSAGE,
    "message_updated": MESSAGE,
    "supersede": {**VALID_PAYLOADS["supersede"], "retryable": False},
    "event_created": {"tags": ["x"], "nested": {"k": [1]}},
}


@pytest.mark.parametrize("event_type", list(VALID))
def test_validated_payload_is_a_new_object(payload_impl: ModuleType, event_type: str) -> None:
    raw = VALID[event_type]
    out = payload_impl.validate_event_payload(event_type, raw)
    assert out is not raw
    for key, value in raw.items():  # containers inside are fresh too
        if isinstance(value, (dict, list)):
            assert out[key] is not value


def test_event_type_member_also_gives_a_new_object(payload_impl: ModuleType) -> None:
    from band_sdk_core import EventType

    raw = {"x": [1]}
    out = payload_impl.validate_event_payload(EventType.EventCreated, raw)
    assert out == raw and out is not raw and out["x"] is not raw["x"]


@pytest.mark.parametrize(
    "raw",
    [
        "a longer string",
        "é and more",
        Text("subclass"),
        1.5,
        -0.0,
        300,
        10**12,
        2**64 - 1,
        [1, 2],
        (1, 2),
    ],
    ids=repr,
)
def test_event_created_scalars_are_new_objects(payload_impl: ModuleType, raw: object) -> None:
    out = payload_impl.validate_event_payload("event_created", raw)
    assert out is not raw
    assert out == (list(raw) if isinstance(raw, tuple) else raw)
    assert type(out) is (list if isinstance(raw, tuple) else type(raw).__mro__[-2])
    if isinstance(raw, float):
        assert str(out) == str(raw)  # -0.0 keeps its sign


@pytest.mark.parametrize("raw", [None, True, False])
def test_event_created_singletons_stay(payload_impl: ModuleType, raw: object) -> None:
    assert payload_impl.validate_event_payload("event_created", raw) is raw


def test_claims_ids_out_are_plain_str(claims_impl: ModuleType) -> None:
    # the reference keeps an id's characters: what it lists back is a plain str, never the subclass
    claims = claims_impl.ClaimRegistry(max_completed=2)
    claims.remember_completed(Text("r"), Text("done"))
    assert claims.try_claim(Text("r"), Text("busy"))
    claims.remember_failed_ack_pending(Text("r"), Text("open"), Text("boom"))
    listed = [
        *claims.completed_ids("r"),
        *claims.inflight_ids("r"),
        *claims.pending_ack_ids("r"),
        claims.pending_ack("r", "open")["error"],
    ]
    assert listed == ["done", "busy", "open", "boom"]
    assert all(_plain(value) for value in listed)
    assert claims.is_completed(Text("r"), Text("done")) and claims.is_completed("r", "done")
