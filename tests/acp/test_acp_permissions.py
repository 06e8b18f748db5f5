"""band-sdk's ACP permission/elicitation helpers (band.integrations.acp.client_runtime)."""

from __future__ import annotations

from types import SimpleNamespace

from acp.schema import PermissionOption, RequestPermissionResponse

from band.integrations.acp import client_runtime as rt
from band.integrations.acp.client import default_permission_choice
from band.integrations.acp.process import STDERR_TAIL_LINES, STREAM_LIMIT


def _opt(option_id: str, kind: str) -> PermissionOption:
    return PermissionOption(option_id=option_id, name=option_id, kind=kind)  # type: ignore[arg-type]


def test_option_ids_and_kinds_are_read_from_objects_and_wire_dicts() -> None:
    objects = [
        _opt("no", "reject_once"),
        _opt("always", "allow_always"),
        _opt("once", "allow_once"),
    ]
    wire = [{"optionId": "no", "kind": "reject_once"}, {"option_id": "yes", "kind": "allow_always"}]
    assert rt.permission_option_ids(objects) == ("no", "always", "once")
    assert rt.permission_option_ids(wire) == ("no", "yes")
    assert rt.permission_option_ids("not a list") == ()
    assert rt.option_id_of_kind(objects, "allow_always") == "always"
    assert rt.option_id_of_kind(wire, "allow_once") is None
    assert rt.option_id_of_kind(None, "allow_once") is None


def test_the_allow_choice_is_least_privilege_and_is_what_our_client_answers() -> None:
    both = [_opt("always", rt.ALLOW_ALWAYS_KIND), _opt("once", "allow_once")]
    assert rt.select_allow_option_id(both) == "once"
    assert rt.select_allow_option_id(both[:1]) == "always"
    assert rt.select_allow_option_id([_opt("no", "reject_always")]) is None
    for options in (both, both[:1], [_opt("no", "reject_once")]):
        assert default_permission_choice(options) == rt.select_allow_option_id(options)


def test_permission_answers_are_valid_acp_responses() -> None:
    allowed = RequestPermissionResponse.model_validate(rt.allow_permission("once"))
    assert allowed.outcome.outcome == "selected" and allowed.outcome.option_id == "once"  # type: ignore[union-attr]
    cancelled = RequestPermissionResponse.model_validate(rt.cancel_permission())
    assert cancelled.outcome.outcome == "cancelled"


def test_elicitation_fields_come_from_the_mode_or_either_spelling() -> None:
    mode = SimpleNamespace(session_id="s1", requested_schema={"type": "object"})
    assert rt.elicitation_session_id(mode, {"sessionId": "other"}) == "s1"
    assert rt.elicitation_session_id(None, {"sessionId": "s2"}) == "s2"
    assert rt.elicitation_session_id(None, {"session_id": "s3"}) == "s3"
    assert rt.elicitation_session_id(None, {}) == ""
    assert rt.elicitation_requested_schema(mode, {}) == {"type": "object"}
    assert rt.elicitation_requested_schema(None, {"requestedSchema": {"a": 1}}) == {"a": 1}
    assert rt.elicitation_requested_schema(None, {}) is None


def test_the_runtime_constants_are_the_ones_our_agent_process_uses() -> None:
    assert rt.ACP_STDIO_LIMIT_BYTES == STREAM_LIMIT == 16 * 1024 * 1024
    assert rt.STDERR_TAIL_LINES == STDERR_TAIL_LINES == 20
