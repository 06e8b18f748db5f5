"""Answers the local platform never gives (empty data, unconfirmed receipts), scripted.

The local platform always returns complete bodies, so these paths are driven by a tiny HTTP
server that answers each request with a scripted body, over real HTTP.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any

import pytest
from bandtest.scripted import ScriptedServer, scripted_server

from band.client.rest import RestClient
from band.runtime.tools import AgentTools, MessagePostError, MessagePostKind, ToolContext, run_tool
from band.runtime.tools.ops import require_data

from .conftest import assert_tool_errors, run

PEOPLE = [{"id": "u1", "handle": "@ann", "name": "Ann", "type": "User"}]


@pytest.fixture
def server() -> Iterator[ScriptedServer]:
    yield from scripted_server()


def _rest(srv: ScriptedServer) -> RestClient:
    return RestClient("k", srv.url, max_retries=0)


@pytest.mark.parametrize(
    ("tool", "args", "what"),
    [
        ("band_add_contact", {"handle": "@x"}, "add contact"),
        ("band_remove_contact", {"handle": "@x"}, "remove contact"),
        (
            "band_respond_contact_request",
            {"action": "approve", "handle": "@x"},
            "respond to contact request",
        ),
        (
            "band_store_memory",
            {
                "content": "c",
                "system": "working",
                "type": "semantic",
                "segment": "user",
                "thought": "t",
                "scope": "agent",
            },
            "store memory",
        ),
        ("band_get_memory", {"memory_id": "m1"}, "get memory"),
        ("band_supersede_memory", {"memory_id": "m1"}, "supersede memory"),
        ("band_archive_memory", {"memory_id": "m1"}, "archive memory"),
        ("band_create_chatroom", {}, "create chat room"),
        ("band_create_task", {"subject": "s"}, "create task"),
        ("band_get_task", {"id": "1"}, "get task"),
        ("band_update_task", {"id": "1", "comment": "c"}, "update task"),
        ("band_get_board", {}, "get board"),
        ("band_set_board", {"goal_title": "g"}, "set board"),
    ],
)
def test_empty_response_data(
    server: ScriptedServer, tool: str, args: dict[str, Any], what: str
) -> None:
    async def go() -> None:
        async with _rest(server) as rest:
            tools = AgentTools("room-1", rest, PEOPLE)
            out = await tools.execute_tool_call_structured(tool, args)
            assert (
                out.error_message == f"Error executing {tool}: Failed to {what} - no response data"
            )
            assert tools.turn.verdict().wire_name == "missing_reply"

    run(go())


def test_require_data_accepts_real_data() -> None:
    from band.client.rest import RestResponse

    assert require_data(RestResponse(200, {"data": {"id": "x"}}), "x") == {"id": "x"}
    with pytest.raises(RuntimeError, match=r"^Failed to store memory - no response data$"):
        require_data(RestResponse(204, None), "store memory")


@pytest.mark.parametrize(
    ("answer", "detail"),
    [
        (
            {"data": {"id": "m9", "success": True, "recipients": [{"id": "u1"}]}},
            "message m9 was delivered; do not resend; the receipt does not confirm its recipients",
        ),
        (
            {"data": {"success": True}},
            "the platform accepted the message but its receipt is unreadable; do not resend",
        ),
    ],
)
def test_unconfirmed_recipient(server: ScriptedServer, answer: dict, detail: str) -> None:
    server.answer = answer

    async def go() -> None:
        async with _rest(server) as rest:
            tools = AgentTools("room-1", rest, PEOPLE)
            with pytest.raises(MessagePostError) as err:
                await tools.send_message("hello", ["@ann"])
            assert err.value.kind is MessagePostKind.UNCONFIRMED_RECIPIENT
            assert str(err.value) == f"unconfirmed_recipient: {detail}"
            assert not tools.turn.replied  # the runtime must not count it as a reply, nor resend

    run(go())


def test_participant_without_id(server: ScriptedServer) -> None:
    ghost = {"name": "Ghost", "handle": "@ghost", "type": "Agent"}
    by_path = {
        "/participants": {"data": [ghost]},
        "/peers": {"data": [{**ghost, "name": "Shade", "handle": "@shade"}]},
    }
    server.answer = lambda path: next(b for frag, b in by_path.items() if frag in path)

    async def go() -> None:
        async with _rest(server) as rest:
            tools = AgentTools("room-1", rest)
            await assert_tool_errors(
                tools,
                (
                    "band_remove_participant",
                    {"identifier": "@ghost"},
                    "Error executing band_remove_participant: Participant '@ghost' has no ID.",
                ),
                (
                    "band_add_participant",
                    {"identifier": "Shade"},
                    "Error executing band_add_participant: Participant 'Shade' has no ID.",
                ),
            )
            assert not tools.turn.complete

    run(go())


class Exploding(Mapping[str, Any]):
    """Arguments whose reading fails (not a validation refusal)."""

    def __getitem__(self, key: str) -> Any:
        raise RuntimeError("arguments stream broke")

    def __iter__(self) -> Iterator[str]:
        return iter(["include"])

    def __len__(self) -> int:
        return 1


def test_validation_crash_is_reported(server: ScriptedServer) -> None:
    async def go() -> None:
        async with _rest(server) as rest:
            out = await run_tool(ToolContext(rest, "room-1"), "band_get_board", Exploding())
            assert not out.ok
            assert out.error_message == (
                "Error validating band_get_board arguments: arguments stream broke"
            )

    run(go())
