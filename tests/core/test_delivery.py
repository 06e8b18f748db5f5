"""One-shot delivery decisions (spec §12), against every implementation."""

from __future__ import annotations

import collections
from types import ModuleType
from typing import Any

import pytest
from bandtest.core_cases import MESSAGE, validation_issues

from band_sdk_core import EventType as _EventType

EventType: Any = _EventType

MISSING = ("room_id", "missing", "room_id is missing from both the envelope and the payload")


def issues_of(call: Any, tc: str | None = None) -> Any:
    return validation_issues(call, tc)


def test_invocation_and_skip_self(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_delivery_event
    out = evaluate("message_created", "r", MESSAGE, "a1")
    assert out == {
        "decision": "invocation",
        "room_id": "r",
        "message_id": "m1",
        "sender_id": "u1",
        "sender_type": "User",
    }
    assert list(out) == ["decision", "room_id", "message_id", "sender_id", "sender_type"]
    own = {**MESSAGE, "sender_type": "Agent", "sender_id": "a1"}
    out = evaluate("message_created", "r", own, "a1")
    assert out == {"decision": "skip_self", "room_id": "r", "message_id": "m1"}
    assert list(out) == ["decision", "room_id", "message_id"]
    # exact, case-sensitive comparison
    assert (
        evaluate("message_created", "r", {**own, "sender_type": "agent"}, "a1")["decision"]
        == "invocation"
    )
    assert evaluate("message_created", "r", own, "A1")["decision"] == "invocation"
    assert (
        evaluate("message_created", "r", {**MESSAGE, "sender_id": "a1"}, "a1")["decision"]
        == "invocation"
    )


def test_message_room_resolution(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_delivery_event
    with_room = {**MESSAGE, "chat_room_id": "p"}
    assert evaluate("message_created", "r", with_room, "a")["room_id"] == "r"
    assert evaluate("message_created", None, with_room, "a")["room_id"] == "p"
    assert evaluate("message_created", "", with_room, "a")["room_id"] == "p"
    for payload in (MESSAGE, {**MESSAGE, "chat_room_id": None}, {**MESSAGE, "chat_room_id": ""}):
        assert issues_of(lambda p=payload: evaluate("message_created", None, p, "a")) == (MISSING,)
    wrong = ("room_id", "wrong_type", "payload.chat_room_id must be a string to serve as room_id")
    values: list[Any] = [5, [], {}, True]
    for value in values:
        bad: dict[str, Any] = {**MESSAGE, "chat_room_id": value}
        assert issues_of(lambda p=bad: evaluate("message_created", "", p, "a", "tc"), "tc") == (
            wrong,
        )
    with pytest.raises(ValueError) as info:
        evaluate("message_created", None, MESSAGE, "a")
    assert str(info.value) == (
        "1 validation issue(s): room_id is missing from both the envelope and the payload (room_id)"
    )


def test_message_validation_propagates(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_delivery_event
    issues = issues_of(lambda: evaluate("message_created", None, {"id": 5}, "a", "t"), "t")
    assert issues[0] == ("id", "wrong_type", "`id` must be a string")
    assert len(issues) == 7
    assert issues_of(lambda: evaluate("message_created", "r", {**MESSAGE, "id": ""}, "a")) == (
        ("id", "invalid_value", "`id` must be a non-empty string"),
    )
    assert issues_of(lambda: evaluate("message_created", "r", [], "a")) == (
        ("", "wrong_type", "payload must be a JSON object"),
    )


@pytest.mark.parametrize("event", ["room_removed", "room_deleted"])
def test_cleanup(delivery_impl: ModuleType, event: str) -> None:
    evaluate = delivery_impl.evaluate_delivery_event
    assert evaluate(event, "r", {}, "a") == {"decision": "cleanup", "room_id": "r"}
    assert evaluate(event, "r", "anything", "a") == {"decision": "cleanup", "room_id": "r"}
    assert evaluate(event, None, {"id": "x"}, "a") == {"decision": "cleanup", "room_id": "x"}
    assert evaluate(event, "", {"id": "x"}, "a") == {"decision": "cleanup", "room_id": "x"}
    payloads: list[Any] = [{}, {"id": None}, {"id": ""}, [], "s", None]
    for payload in payloads:
        assert issues_of(lambda p=payload: evaluate(event, None, p, "a")) == (MISSING,)
    wrong = ("room_id", "wrong_type", "payload.id must be a string to serve as room_id")
    assert issues_of(lambda: evaluate(event, None, {"id": 5}, "a", "tc"), "tc") == (wrong,)


@pytest.mark.parametrize(
    "event",
    [
        t.wire_name
        for t in EventType._members
        if t.wire_name not in ("message_created", "room_removed", "room_deleted")
    ]
    + ["nope", "", "Message_created"],
)
def test_ignored(delivery_impl: ModuleType, event: str) -> None:
    out = delivery_impl.evaluate_delivery_event(event, None, {"bad": []}, "a")
    assert out == {"decision": "ignored", "event_type": event}
    assert list(out) == ["decision", "event_type"]


def test_delivery_argument_checks(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_delivery_event
    with pytest.raises(TypeError, match=r"^'EventType' object is not an instance of 'str'$"):
        evaluate(EventType.RoomDeleted, "r", {}, "a")
    arg_sets: list[tuple[Any, ...]] = [
        (1, "r", {}, "a"),
        ("x", 1, {}, "a"),
        ("x", "r", {}, 1),
        ("x", "r", {}, "a", 1),
    ]
    for args in arg_sets:
        with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
            evaluate(*args)
    # the payload is converted even for ignored events
    with pytest.raises(TypeError, match=r"^unsupported type object$"):
        evaluate("nope", "r", {"x": object()}, "a")
    with pytest.raises(TypeError, match=r"^JSON number out of range$"):
        evaluate("room_deleted", "r", [2**64], "a")


def test_next_message(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_next_message
    assert evaluate("m", None) == {"decision": "no_pending"}
    assert evaluate("m", "m") == {"decision": "ready_to_claim"}
    assert evaluate("", "") == {"decision": "ready_to_claim"}
    out = evaluate("m", "n")
    assert out == {"decision": "already_processed", "next_open_id": "n"}
    assert list(out) == ["decision", "next_open_id"]
    assert evaluate("m", "") == {"decision": "already_processed", "next_open_id": ""}
    for args in ((1, None), ("a", 1), (None, "a")):
        with pytest.raises(TypeError):
            evaluate(*args)


def cand(id_: Any = "m", sender_id: Any = "u", sender_type: Any = "User") -> dict[str, Any]:
    return {"id": id_, "sender_id": sender_id, "sender_type": sender_type}


def test_drain_decisions(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_drain_candidate
    assert evaluate(None, [], "a") == {"decision": "no_candidate"}
    assert evaluate(cand(), ["m"], "a") == {"decision": "drain", "message_id": "m"}
    assert evaluate(cand(), ["x"], "a") == {"decision": "out_of_snapshot", "message_id": "m"}
    echo = cand(sender_id="a", sender_type="Agent")
    assert evaluate(echo, [], "a") == {"decision": "self_echo", "message_id": "m"}
    assert evaluate(echo, ["m"], "a") == {"decision": "self_echo", "message_id": "m"}
    assert evaluate(cand("", "", ""), [""], "") == {"decision": "drain", "message_id": ""}
    assert evaluate({**cand(), "extra": 1}, ["m"], "a")["decision"] == "drain"
    mapping = collections.UserDict(cand())
    assert evaluate(mapping, ["m"], "a")["decision"] == "drain"


# factories: a one-shot iterator must be fresh for each implementation
@pytest.mark.parametrize(
    "make_seen",
    [
        lambda: ["m"],
        lambda: ("m",),
        lambda: {"m"},
        lambda: frozenset({"m"}),
        lambda: {"m": 1}.keys(),
        lambda: iter(["m"]),
        lambda: (x for x in ["m"]),
    ],
    ids=["list", "tuple", "set", "frozenset", "keys", "iterator", "generator"],
)
def test_drain_seen_iterables(delivery_impl: ModuleType, make_seen: Any) -> None:
    assert delivery_impl.evaluate_drain_candidate(cand(), make_seen(), "a")["decision"] == "drain"


def test_drain_validation(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_drain_candidate
    for bad, field in (
        (cand(id_=1), "id"),
        (cand(sender_id=None), "sender_id"),
        (cand(sender_type=b"x"), "sender_type"),
        ({"sender_id": "u", "sender_type": "User"}, "id"),
        ({"id": "m", "sender_type": 1}, "sender_id"),
        (5, "id"),
        ("m", "id"),
    ):
        with pytest.raises(TypeError) as info:
            evaluate(bad, 5, "a")
        assert str(info.value) == f"candidate.{field} must be a string"
    with pytest.raises(TypeError, match=r"^`seen_ids` must be an iterable of str, not a str$"):
        evaluate(cand(), "abc", "a")
    with pytest.raises(TypeError, match=r"^'NoneType' object is not iterable$"):
        evaluate(None, None, "a")
    with pytest.raises(TypeError, match=r"^'int' object is not iterable$"):
        evaluate(cand(), 5, "a")
    # the agent id is checked first
    with pytest.raises(TypeError, match=r"^'float' object is not an instance of 'str'$"):
        evaluate({"id": 1}, 5, 1.5)
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        evaluate(cand(), ["m", 1], "a")
    with pytest.raises(TypeError, match=r"^'bytes' object is not an instance of 'str'$"):
        evaluate(None, [b"m"], "a")
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'str'$"):
        evaluate(None, [], 1)


def test_adapter_result(delivery_impl: ModuleType) -> None:
    evaluate = delivery_impl.evaluate_adapter_result
    out = evaluate("r", "m", True)
    assert out == {"decision": "processed", "room_id": "r", "message_id": "m"}
    assert list(out) == ["decision", "room_id", "message_id"]
    assert evaluate("r", "m", False) == {"decision": "failed", "room_id": "r", "message_id": "m"}
    with pytest.raises(TypeError, match=r"^'int' object is not an instance of 'bool'$"):
        evaluate("r", "m", 1)
    for args in (("r", "m", None), (1, "m", True), ("r", None, True), ("r", "m", 0)):
        with pytest.raises(TypeError):
            evaluate(*args)


def test_is_self_echo(delivery_impl: ModuleType) -> None:
    echo = delivery_impl.is_self_echo
    assert echo("a", "Agent", "a") is True
    assert echo("a", "agent", "a") is False
    assert echo("a", "User", "a") is False
    assert echo("b", "Agent", "a") is False
    assert echo("", "Agent", "") is True
    for args in ((1, "Agent", "a"), ("a", None, "a"), ("a", "Agent", 1)):
        with pytest.raises(TypeError):
            echo(*args)


def test_results_are_fresh(delivery_impl: ModuleType) -> None:
    first = delivery_impl.evaluate_next_message("m", None)
    first["x"] = 1
    assert delivery_impl.evaluate_next_message("m", None) == {"decision": "no_pending"}


class _Sub(str):
    def __str__(self) -> str:
        return "OVERRIDDEN"


def test_str_subclass_outputs_are_plain(delivery_impl: ModuleType) -> None:
    outs = [
        delivery_impl.evaluate_delivery_event(_Sub("nope"), None, {}, "a"),
        delivery_impl.evaluate_delivery_event("room_deleted", _Sub("r"), {}, "a"),
        delivery_impl.evaluate_adapter_result(_Sub("r"), _Sub("m"), True),
        delivery_impl.evaluate_next_message(_Sub("m"), _Sub("n")),
        delivery_impl.evaluate_drain_candidate(
            {"id": _Sub("m"), "sender_id": "u", "sender_type": "U"}, [], "a"
        ),
    ]
    for out in outs:
        assert all(type(value) is str for value in out.values()), out
    assert outs[0]["event_type"] == "nope"
    assert outs[1]["room_id"] == "r"
