"""validate_event_payload (spec §3), against every implementation."""

from __future__ import annotations

import copy
from types import ModuleType
from typing import Any, cast

import pytest
from bandtest.core_cases import MESSAGE, validation_issues
from bandtest.core_cases import VALID_PAYLOADS as VALID
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from band_sdk_core import EventType as _EventType

EventType: Any = _EventType

# (event, field, kind, required) in schema order
SCHEMAS: dict[str, list[tuple[str, str, str]]] = {
    "message_created": [
        ("id", "nes", "req"),
        ("content", "s", "req"),
        ("message_type", "s", "req"),
        ("sender_type", "s", "req"),
        ("sender_id", "nes", "req"),
        ("inserted_at", "s", "req"),
        ("updated_at", "s", "req"),
        ("sender_name", "sn", "opt"),
    ],
    "room_added": [
        ("id", "nes", "req"),
        ("inserted_at", "s", "req"),
        ("updated_at", "s", "req"),
        ("title", "sn", "opt"),
        ("task_id", "sn", "opt"),
    ],
    "room_deleted": [("id", "nes", "req")],
    "participant_added": [
        ("id", "nes", "req"),
        ("type", "s", "req"),
        ("name", "s", "req"),
        ("handle", "s", "opt"),
        ("description", "sn", "opt"),
        ("is_remote", "bn", "opt"),
        ("is_external", "bn", "opt"),
    ],
    "contact_request_received": [
        ("id", "nes", "req"),
        ("status", "s", "req"),
        ("inserted_at", "s", "req"),
        ("from_handle", "sn", "drop"),
        ("from_name", "sn", "drop"),
        ("message", "sn", "drop"),
    ],
    "contact_request_updated": [("id", "nes", "req"), ("status", "s", "req")],
    "contact_added": [
        ("id", "nes", "req"),
        ("type", "s", "req"),
        ("inserted_at", "s", "req"),
        ("handle", "sn", "req"),
        ("name", "sn", "req"),
        ("description", "s", "opt"),
        ("listed_in_directory", "b", "opt"),
        ("tags", "a", "opt"),
        ("is_remote", "bn", "opt"),
        ("is_external", "bn", "opt"),
    ],
    "contact_removed": [("id", "nes", "req")],
    "supersede": [("reason", "s", "req"), ("message", "s", "req"), ("correlation_id", "sn", "req")],
    "agent.control": [
        ("mode", "s", "req"),
        ("scope", "s", "req"),
        ("agent_id", "nes", "req"),
        ("correlation_id", "s", "req"),
        ("execution_id", "nesn", "req"),
        ("room_id", "nesn", "req"),
        ("reason", "s", "opt"),
        ("type", "s", "opt"),
    ],
}
SCHEMAS["message_updated"] = SCHEMAS["message_created"]
SCHEMAS["room_removed"] = SCHEMAS["room_added"]
SCHEMAS["participant_removed"] = SCHEMAS["participant_added"]
FIELD_CASES = [
    (event, field, kind, req) for event, fields in SCHEMAS.items() for field, kind, req in fields
]
NOUN = {"s": "a string", "nes": "a string", "sn": "a string", "nesn": "a string"}
NOUN.update({"b": "a boolean", "bn": "a boolean", "a": "an array"})


def issues_of(impl: ModuleType, event: str, raw: Any, tc: str | None = None) -> tuple[Any, ...]:
    return validation_issues(lambda: impl.validate_event_payload(event, raw, tc), tc)


def wrong_value(kind: str) -> Any:
    return 5 if kind in ("b", "bn", "a") else True


@pytest.mark.parametrize(("event", "field", "kind", "req"), FIELD_CASES)
def test_field_rules(payload_impl: ModuleType, event: str, field: str, kind: str, req: str) -> None:
    validate = payload_impl.validate_event_payload
    base = {k: v for k, v in VALID[event].items() if k != field}
    # absence
    if req == "req":
        assert issues_of(payload_impl, event, base) == (
            (field, "missing", f"required field `{field}` is missing"),
        )
    else:
        assert field not in validate(event, base)
    # wrong type
    bad = {**base, field: wrong_value(kind)}
    assert issues_of(payload_impl, event, bad) == (
        (field, "wrong_type", f"`{field}` must be {NOUN[kind]}"),
    )
    # null
    nulled = {**base, field: None}
    if kind in ("sn", "bn", "nesn"):
        out = validate(event, nulled)
        if req == "drop":
            assert field not in out
        else:
            assert out[field] is None
    else:
        assert issues_of(payload_impl, event, nulled) == (
            (field, "wrong_type", f"`{field}` must be {NOUN[kind]}"),
        )
    # empty string
    if kind in ("s", "sn", "nes", "nesn"):
        empty = {**base, field: ""}
        if field in ("mode", "scope"):
            return
        if kind in ("nes", "nesn"):
            assert issues_of(payload_impl, event, empty) == (
                (field, "invalid_value", f"`{field}` must be a non-empty string"),
            )
        else:
            assert validate(event, empty)[field] == ""
        assert validate(event, {**base, field: "  "})[field] == "  "


@pytest.mark.parametrize("event", sorted(VALID))
def test_valid_minimal_and_unknown_fields_kept(payload_impl: ModuleType, event: str) -> None:
    raw = {**VALID[event], "zz_extra": {"b": 1, "a": [1, 2]}, "AA": None}
    before = copy.deepcopy(raw)
    out = payload_impl.validate_event_payload(event, raw)
    assert raw == before
    assert out is not raw
    assert out["zz_extra"] == {"a": [1, 2], "b": 1}
    assert list(out["zz_extra"]) == ["a", "b"]
    assert out["AA"] is None
    assert list(out) == sorted(out)


@pytest.mark.parametrize("event", sorted(VALID))
def test_event_type_member_accepted(payload_impl: ModuleType, event: str) -> None:
    member = EventType.from_wire_name(event)
    assert payload_impl.validate_event_payload(member, VALID[event]) == (
        payload_impl.validate_event_payload(event, VALID[event])
    )


@pytest.mark.parametrize("event", sorted(VALID))
@pytest.mark.parametrize("raw", [[], "x", 1, None, True, 1.5])
def test_non_object_payload(payload_impl: ModuleType, event: str, raw: Any) -> None:
    assert issues_of(payload_impl, event, raw) == (
        ("", "wrong_type", "payload must be a JSON object"),
    )


def test_non_object_message_text(payload_impl: ModuleType) -> None:
    with pytest.raises(ValueError) as info:
        payload_impl.validate_event_payload("room_deleted", [])
    assert str(info.value) == "1 validation issue(s): payload must be a JSON object ()"


def test_message_all_missing(payload_impl: ModuleType) -> None:
    issues = issues_of(payload_impl, "message_created", {})
    assert [i[0] for i in issues] == [
        "id",
        "content",
        "message_type",
        "sender_type",
        "sender_id",
        "inserted_at",
        "updated_at",
    ]
    assert {i[1] for i in issues} == {"missing"}
    with pytest.raises(
        ValueError, match=r"^7 validation issue\(s\): required field `id` is missing \(id\)$"
    ):
        payload_impl.validate_event_payload("message_created", {})


def test_message_minimal_output(payload_impl: ModuleType) -> None:
    out = payload_impl.validate_event_payload("message_created", MESSAGE)
    assert out == {**MESSAGE, "attachments": [], "metadata": {"mentions": []}}
    assert list(out) == sorted(out)


@pytest.mark.parametrize("event", ["message_created", "message_updated"])
def test_message_metadata_and_attachments(payload_impl: ModuleType, event: str) -> None:
    validate = payload_impl.validate_event_payload
    assert validate(event, {**MESSAGE, "metadata": None})["metadata"] == {"mentions": []}
    assert validate(event, {**MESSAGE, "attachments": None})["attachments"] == []
    kept = validate(event, {**MESSAGE, "attachments": [1, "x", {"b": 2, "a": 1}]})
    assert kept["attachments"] == [1, "x", {"a": 1, "b": 2}]
    meta = validate(event, {**MESSAGE, "metadata": {"z": 1, "a": 2}})["metadata"]
    assert meta == {"a": 2, "mentions": [], "z": 1}
    assert list(meta) == ["a", "mentions", "z"]
    assert validate(event, {**MESSAGE, "metadata": {"mentions": None}})["metadata"] == {
        "mentions": []
    }
    mention = {"id": "u", "handle": None, "name": None, "extra": 1}
    out = validate(event, {**MESSAGE, "metadata": {"mentions": [mention, {"id": "v"}]}})
    assert out["metadata"]["mentions"] == [mention, {"id": "v"}]
    assert issues_of(payload_impl, event, {**MESSAGE, "metadata": "x"}) == (
        ("metadata", "wrong_type", "`metadata` must be an object"),
    )
    assert issues_of(payload_impl, event, {**MESSAGE, "metadata": {"mentions": {}}}) == (
        ("metadata.mentions", "wrong_type", "`metadata.mentions` must be an array"),
    )
    assert issues_of(payload_impl, event, {**MESSAGE, "attachments": {}}) == (
        ("attachments", "wrong_type", "`attachments` must be an array"),
    )


def test_mention_issues(payload_impl: ModuleType) -> None:
    raw = {**MESSAGE, "metadata": {"mentions": [{"id": "u"}, {"id": 2}, "s", {}]}}
    assert issues_of(payload_impl, "message_created", raw) == (
        ("metadata.mentions[1].id", "wrong_type", "`metadata.mentions[1].id` must be a string"),
        ("metadata.mentions[2]", "wrong_type", "`metadata.mentions[2]` must be an object"),
        (
            "metadata.mentions[3].id",
            "missing",
            "required field `metadata.mentions[3].id` is missing",
        ),
    )
    raw = {**MESSAGE, "metadata": {"mentions": [{"id": "", "handle": 1, "name": 2}]}}
    assert issues_of(payload_impl, "message_created", raw) == (
        (
            "metadata.mentions[0].id",
            "invalid_value",
            "`metadata.mentions[0].id` must be a non-empty string",
        ),
        (
            "metadata.mentions[0].handle",
            "wrong_type",
            "`metadata.mentions[0].handle` must be a string",
        ),
        ("metadata.mentions[0].name", "wrong_type", "`metadata.mentions[0].name` must be a string"),
    )


def test_issue_order_is_schema_order(payload_impl: ModuleType) -> None:
    raw = {"attachments": "y", "metadata": "x", "sender_name": 1}
    issues = issues_of(payload_impl, "message_created", raw)
    assert [i[0] for i in issues][-3:] == ["sender_name", "metadata", "attachments"]
    assert len(issues) == 10


def test_supersede_coercions(payload_impl: ModuleType) -> None:
    base = {"reason": "r", "message": "m", "correlation_id": "c"}
    validate = payload_impl.validate_event_payload
    assert validate("supersede", base) == {**base, "retryable": False}
    assert validate("supersede", {**base, "retryable": True})["retryable"] is True
    values: list[Any] = [None, False, 1, "true", {}, [True]]
    for value in values:
        assert validate("supersede", {**base, "retryable": value})["retryable"] is False
    assert "retry_after" not in validate("supersede", base)
    cases: list[tuple[Any, Any]] = [
        (5, 5),
        (-(2**63), -(2**63)),
        (2**63 - 1, 2**63 - 1),
        (2**63, None),
        (2**64 - 1, None),
        (3.0, 3),
        (-0.0, 0),
        (1e10, 10000000000),
        (1.5, None),
        (2.0**63, None),
        (-(2.0**63), -(2**63)),
        (True, None),
        ("3", None),
        (None, None),
        ([], None),
        ({}, None),
        (float("nan"), None),
        (float("inf"), None),
    ]
    for value, expected in cases:
        out = validate("supersede", {**base, "retry_after": value})["retry_after"]
        assert out == expected and type(out) is type(expected), value


def test_supersede_error_with_trace(payload_impl: ModuleType) -> None:
    with pytest.raises(ValueError) as info:
        payload_impl.validate_event_payload("supersede", {}, "tc")
    assert str(info.value) == "3 validation issue(s): required field `reason` is missing (reason)"
    assert cast(Any, info.value).trace_context == "tc"


@pytest.mark.parametrize(
    ("field", "allowed"), [("mode", ("interrupt", "stop", "play")), ("scope", ("agent", "room"))]
)
def test_agent_control_enums(
    payload_impl: ModuleType, field: str, allowed: tuple[str, ...]
) -> None:
    base = VALID["agent.control"]
    for value in allowed:
        assert (
            payload_impl.validate_event_payload("agent.control", {**base, field: value})[field]
            == value
        )
    message = f"`{field}` must be one of: {', '.join(allowed)}"
    for value in ("", "STOP", " stop", "x"):
        assert issues_of(payload_impl, "agent.control", {**base, field: value}) == (
            (field, "invalid_value", message),
        )


def test_agent_control_no_cross_field_rules(payload_impl: ModuleType) -> None:
    raw = {
        **VALID["agent.control"],
        "scope": "agent",
        "room_id": "r",
        "execution_id": "e",
        "mode": "play",
    }
    assert payload_impl.validate_event_payload("agent.control", raw) == raw


@pytest.mark.parametrize("raw", [[1, 2], "str", None, 5, {"b": {"d": 1, "c": 2}, "a": 1}])
def test_event_created_passthrough(payload_impl: ModuleType, raw: Any) -> None:
    out = payload_impl.validate_event_payload("event_created", raw)
    assert out == raw
    if isinstance(raw, dict):
        assert out is not raw and list(out) == ["a", "b"] and list(out["b"]) == ["c", "d"]


def test_event_type_checks(payload_impl: ModuleType) -> None:
    validate = payload_impl.validate_event_payload
    for bad in (1, None, b"x"):
        with pytest.raises(TypeError, match=r"^event_type must be a str$"):
            validate(bad, {})
    assert issues_of(payload_impl, "nope", {}) == (
        ("event_type", "invalid_value", "unknown event type `nope`"),
    )
    assert issues_of(payload_impl, "", {}) == (
        ("event_type", "invalid_value", "unknown event type ``"),
    )
    assert issues_of(payload_impl, "Supersede", {}, "t")[0][2] == "unknown event type `Supersede`"
    # the event name is checked before the payload is converted
    assert issues_of(payload_impl, "nope", object())[0][0] == "event_type"


def test_trace_context_checks(payload_impl: ModuleType) -> None:
    with pytest.raises(TypeError):
        payload_impl.validate_event_payload("room_deleted", {"id": "r"}, 1)
    assert issues_of(payload_impl, "room_deleted", {}, "")[0][0] == "id"
    out = payload_impl.validate_event_payload(
        event_type="room_deleted", raw={"id": "r"}, trace_context=None
    )
    assert out == {"id": "r"}


def test_conversion_errors_propagate(payload_impl: ModuleType) -> None:
    with pytest.raises(TypeError, match=r"^unsupported type object$"):
        payload_impl.validate_event_payload("room_deleted", {"id": object()})
    with pytest.raises(TypeError, match=r"^JSON number out of range$"):
        payload_impl.validate_event_payload("event_created", 2**64)


def test_str_subclass_event_type(payload_impl: ModuleType) -> None:
    class Name(str):
        pass

    assert payload_impl.validate_event_payload(Name("room_deleted"), {"id": "r"}) == {"id": "r"}


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**64), 2**65)
    | st.floats()
    | st.text(max_size=5)
    | st.sampled_from(["", "x", "stop", "agent", "room"]),
    lambda children: (
        st.lists(children, max_size=4)
        | st.dictionaries(st.text(max_size=4), children, max_size=4)
        | st.tuples(children)
    ),
    max_leaves=15,
)
FIELD_NAMES = sorted(
    {f for fields in SCHEMAS.values() for f, _, _ in fields}
    | {"metadata", "attachments", "retryable", "retry_after"}
)
PAYLOADS = st.dictionaries(st.sampled_from(FIELD_NAMES), JSONISH, max_size=12) | JSONISH


@pytest.mark.parametrize("event", [t.wire_name for t in EventType._members])
@settings(
    max_examples=40,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(raw=PAYLOADS, merge=st.booleans())
def test_fuzz_only_value_or_type_errors_and_no_mutation(
    payload_impl: ModuleType, event: str, raw: Any, merge: bool
) -> None:
    if merge and isinstance(raw, dict):
        raw = {**VALID.get(event, {}), **raw}
    before = repr(raw)
    try:
        out = payload_impl.validate_event_payload(event, raw)
    except ValueError as error:
        caught = cast(Any, error)
        assert type(error) is ValueError
        assert caught.issues
    except TypeError:
        pass
    else:
        assert out is not raw or raw is None or isinstance(raw, (str, int, float))
    assert repr(raw) == before


def test_trace_context_checked_before_event_type(payload_impl: ModuleType) -> None:
    with pytest.raises(TypeError, match=r"^'float' object is not an instance of 'str'$"):
        payload_impl.validate_event_payload(1, {}, 2.5)
