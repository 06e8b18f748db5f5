"""ACPClientAdapter end to end: scripted ACP agent processes, the adapter's Band MCP server,
real ``AgentTools`` and the real local platform.

``Harness.message`` drives one turn the way the runtime does (one ``AgentTools`` per turn,
``on_message``, then the turn-outcome verdict), so each test can inspect the turn's ledger;
test_acp_agent.py runs the same adapter inside a real ``Agent``.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx
import pytest
from acp_helpers import agent_command, calls, run
from bandtest.platform import Live, live_platform, room_with, say
from pydantic import BaseModel, Field

from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.client import RestClient
from band.core.exceptions import BandConfigError
from band.core.turn import (
    MISSING_REPLY,
    TURN_FAILURE_PROVIDER,
    AgentFailure,
    TurnEffect,
    failure_event,
)
from band.core.types import HistoryProvider, PlatformMessage
from band.integrations.acp.narration import SESSION_EVENT
from band.runtime.tools import AgentTools
from band.runtime.tools.custom import declares_turn_effect
from band.workspaces import create_room_workspace_resolver

#: the platform's mention prefix on posted messages
MENTION = re.compile(r"^(@\[\[[^\]]+\]\]\s*)+")


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One local platform for this module's tests (each registers its own agent and room)."""
    yield from live_platform()


class Harness:
    """An agent in a room, the adapter, and the runtime's part of a turn."""

    def __init__(
        self, plat: Live, rest: RestClient, adapter: ACPClientAdapter, agent_id: str, room: str
    ):
        self.plat, self.rest, self.adapter, self.agent_id, self.room = (
            plat,
            rest,
            adapter,
            agent_id,
            room,
        )
        me = plat.human("GET", "/api/v1/me/profile").json()["data"]
        self.person_id, self.person_name = me["id"], me.get("first_name") or me["handle"]
        self.last_tools: AgentTools | None = None

    def post(self, text: str) -> str:
        """The person posts ``text`` mentioning the agent; returns the message id."""
        return say(self.plat, self.room, text, self.agent_id)

    async def message(
        self, script: str, *, room: str | None = None, again: str | None = None
    ) -> AgentTools:
        """One turn for ``[[script]]``, judged like the runtime judges it; ``again`` runs the
        posted message of that id once more (as the runtime re-runs a failed one)."""
        room = room or self.room
        text = f"[[{script}]]"
        mid = again or (self.post(text) if room == self.room else "m-other")
        tools = AgentTools(room, self.rest, agent_id=self.agent_id)
        self.last_tools = tools
        msg = PlatformMessage(
            mid, room, text, self.person_id, "User", self.person_name, "text", {}, datetime.now(UTC)
        )
        await self.adapter.on_message(
            msg, tools, HistoryProvider([]), None, None, is_session_bootstrap=False, room_id=room
        )
        if tools.turn.posts_missing_reply:  # the runtime's verdict after the adapter returns
            # posted as the runtime posts it, leaving the turn's verdict for the test to read
            failure = AgentFailure(TURN_FAILURE_PROVIDER, MISSING_REPLY, "missing_reply")
            content, metadata = failure_event(failure)
            await tools.send_event(content, "error", metadata)
        return tools

    async def unreplied(self, script: str) -> list[tuple[str, str]]:
        """One turn for ``[[script]]`` that must end without a reply: not complete, and the
        missing-reply card posted last. The room's events."""
        tools = await self.message(script)
        assert not tools.turn.complete
        events = self.events()
        assert events[-1] == ("error", MISSING_REPLY)
        return events

    def events(self, room: str | None = None) -> list[tuple[str, str]]:
        """The room's messages and events after the person's prompts, oldest first."""
        r = self.plat.human(
            "GET", f"/api/v1/me/chats/{room or self.room}/messages", params={"page_size": 100}
        )
        rows = sorted(r.json()["data"], key=lambda m: (m["inserted_at"], m["id"]))
        return [
            (
                m["message_type"],
                MENTION.sub("", m["content"]) if m["message_type"] == "text" else m["content"],
            )
            for m in rows
            if not (m["message_type"] == "text" and m["sender_id"] == self.person_id)
        ]

    def rows(self) -> list[dict[str, Any]]:
        r = self.plat.human(
            "GET", f"/api/v1/me/chats/{self.room}/messages", params={"page_size": 100}
        )
        return sorted(r.json()["data"], key=lambda m: (m["inserted_at"], m["id"]))

    @property
    def workspace(self) -> str:
        return self.adapter.rooms.room(self.room).workspace


@asynccontextmanager
async def harness(
    plat: Live, tmp_path: Path, *flags: str, adapter_kw: dict[str, Any] | None = None, **cfg: Any
) -> AsyncIterator[Harness]:
    agent_id, _, key = plat.register("Coder")
    room = room_with(plat, agent_id)
    config = ACPClientAdapterConfig(
        command=agent_command(*flags), turn_timeout_s=cfg.pop("turn_timeout_s", 20), **cfg
    )
    adapter = ACPClientAdapter(
        config,
        workspace_for_room=None
        if "cwd" in cfg
        else create_room_workspace_resolver(tmp_path / "ws"),
        **(adapter_kw or {}),
    )
    await adapter.startup("Coder", "Writes code in the room")
    async with RestClient(key, plat.rest) as rest:
        try:
            yield Harness(plat, rest, adapter, agent_id, room)
        finally:
            await adapter.cleanup_all()


@asynccontextmanager
async def restartable(
    plat: Live, tmp_path: Path, *flags: str
) -> AsyncIterator[tuple[Harness, str, Callable[[], Awaitable[None]]]]:
    """An agent in a room with an adapter, and ``restart()``: clean that adapter up as on a
    restart and put a new one over the same workspaces. Yields (harness, handle, restart)."""
    agent_id, handle, key = plat.register("Coder")
    room = room_with(plat, agent_id)
    config = ACPClientAdapterConfig(command=agent_command(*flags))
    resolver = create_room_workspace_resolver(tmp_path / "ws")
    async with RestClient(key, plat.rest) as rest:
        h = Harness(
            plat, rest, ACPClientAdapter(config, workspace_for_room=resolver), agent_id, room
        )

        async def restart() -> None:
            await h.adapter.cleanup_all()
            h.adapter = ACPClientAdapter(config, workspace_for_room=resolver)

        try:
            yield h, handle, restart
        finally:
            await h.adapter.cleanup_all()


@asynccontextmanager
async def after_restart(plat: Live, tmp_path: Path) -> AsyncIterator[tuple[Harness, str]]:
    """A room answered once, then, after a restart that does not load the session, once more;
    yields the harness and the agent's handle."""
    async with restartable(plat, tmp_path, "--no-load") as (h, handle, restart):
        await h.message("reply first answer")
        await restart()
        await h.message("reply second answer")
        yield h, handle


def tool_events(events: list[tuple[str, str]]) -> list[tuple[str, str, Any]]:
    """(type, tool name, output or args) of the tool events."""
    out = []
    for kind, content in events:
        if kind in ("tool_call", "tool_result"):
            payload = json.loads(content)
            out.append((kind, payload["name"], payload.get("output", payload.get("args"))))
    return out


# -- reply table ---------------------------------------------------------------------------------


def test_replied_through_band_send_message_drops_held_text(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            tools = await h.message(
                "think Looking; say I will answer; reply Hello from ACP; say done"
            )
            assert tools.turn.replied and tools.turn.complete
            events = h.events()
            assert events[0] == ("thought", "Looking")
            assert (
                events[1][0] == "tool_call"
                and json.loads(events[1][1])["name"] == "band_send_message"
            )
            assert ("text", "Hello from ACP") in events  # posted by the tool itself
            assert events[-1] == ("task", SESSION_EVENT)
            # the held text was dropped: no thought with it, and never a message
            assert not any("I will answer" in c for _, c in events)
            assert not any(t == "error" for t, _ in events)
            # the call went through the official MCP client over streamable HTTP
            (mcp_call,) = [c for c in calls(h.workspace) if c["method"] == "mcp_call"]
            assert mcp_call["server"] == "HttpMcpServer" and mcp_call["url"].startswith(
                "http://127.0.0.1:"
            )

    run(main())


def test_declined_through_band_no_reply_posts_nothing(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            tools = await h.message("say not for me; decline not addressed to me")
            assert tools.turn.replied and tools.turn.complete
            events = h.events()
            assert [k for k, _ in events] == ["tool_call", "tool_result", "task"]
            assert not any(k == "text" or "not for me" in c for k, c in events)

    run(main())


def test_durable_side_effect_without_reply_completes_with_thought(
    plat: Live, tmp_path: Path
) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            tools = await h.message("tool band_create_chatroom {}; say Created a room")
            assert tools.turn.complete and not tools.turn.replied
            events = h.events()
            assert events[-2:] == [("thought", "Created a room"), ("task", SESSION_EVENT)]
            assert not any(k == "error" for k, _ in events)

    run(main())


def test_read_only_tools_end_as_missing_reply(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            events = await h.unreplied(
                "tool band_get_participants {}; say Here are the participants"
            )
            assert [k for k, _ in events] == [
                "tool_call",
                "tool_result",
                "thought",
                "task",
                "error",
            ]
            assert events[2] == ("thought", "Here are the participants")

    run(main())


def test_plain_text_answer_is_missing_reply(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            assert await h.unreplied("say The answer is 42") == [
                ("thought", "The answer is 42"),
                ("task", SESSION_EVENT),
                ("error", MISSING_REPLY),
            ]

    run(main())


def test_failed_tool_call_records_nothing(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            # no mentions: band_send_message fails, so the turn did not reply
            events = await h.unreplied('tool band_send_message {"content": "hi", "mentions": []}')
            (result,) = [e for e in tool_events(events) if e[0] == "tool_result"]
            assert result[1] == "band_send_message" and "mention is required" in result[2]

    run(main())


def test_last_completed_call_decides_reply_after_side_effect(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            tools = await h.message("tool band_create_chatroom {}; reply done it")
            assert tools.turn.replied
            assert ("text", "done it") in h.events()

    run(main())


# -- MCP server ------------------------------------------------------------------------------------


def test_band_mcp_server_lists_tools_without_room_field(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with harness(plat, tmp_path) as h:
            await h.message("reply warm up")
            url = h.adapter.mcp_server.room_http_url(h.room)
            async with streamable_http_client(url) as s, ClientSession(s[0], s[1]) as session:
                await session.initialize()
                tools = {t.name: t for t in (await session.list_tools()).tools}
            assert set(tools) >= {"band_send_message", "band_no_reply", "band_get_participants"}
            for tool in tools.values():
                props = tool.inputSchema.get("properties", {})
                assert "chat_id" not in props and "room_id" not in props
                assert "title" not in tool.inputSchema
            # the URL is room-bound and unguessable; others answer 404, a foreign Host 421
            key = url.split("/rooms/")[1].split("/")[0]
            assert len(key) >= 24
            async with httpx.AsyncClient() as client:
                base = url.split("/rooms/")[0]
                r = await client.post(f"{base}/rooms/{h.room}/mcp", json={})
                assert r.status_code == 404
                r = await client.post(url, json={}, headers={"Host": "evil.example:80"})
                assert r.status_code == 421

    run(main())


def test_two_rooms_get_their_own_urls_processes_and_workspaces(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            other = room_with(plat, h.agent_id)
            await h.message("reply in room one")
            await h.message("reply in room two", room=other)
            a, b = h.adapter.rooms.room(h.room), h.adapter.rooms.room(other)
            assert a.workspace != b.workspace and a.process is not b.process
            assert a.process and b.process and a.process.proc and b.process.proc
            assert a.process.proc.pid != b.process.proc.pid
            assert h.adapter.mcp_server.room_http_url(h.room) != h.adapter.mcp_server.room_http_url(
                other
            )
            assert ("text", "in room one") in h.events() and ("text", "in room two") in h.events(
                other
            )
            assert ("text", "in room two") not in h.events()

    run(main())


def _calls_after_reply(
    plat: Live, tmp_path: Path, flag: str, words: str, method: str
) -> list[dict[str, Any]]:
    """Have the agent started with ``flag`` reply ``words``; its ACP calls of ``method``."""

    async def main() -> list[dict[str, Any]]:
        async with harness(plat, tmp_path, flag) as h:
            tools = await h.message(f"reply {words}")
            assert tools.turn.replied and ("text", words) in h.events()
            return [c for c in calls(h.workspace) if c["method"] == method]

    return run(main())


def test_sse_only_agent_gets_sse_url(plat: Live, tmp_path: Path) -> None:
    (mcp_call,) = _calls_after_reply(plat, tmp_path, "--mcp=sse", "over sse", "mcp_call")
    assert mcp_call["server"] == "SseMcpServer" and mcp_call["url"].endswith("/sse")


def test_agent_without_mcp_transport_still_gets_http(plat: Live, tmp_path: Path) -> None:
    (new,) = _calls_after_reply(plat, tmp_path, "--mcp=none", "anyway", "new_session")
    assert [(s["type"], s["name"]) for s in new["mcp_servers"]] == [("http", "band")]


# -- additional tools and turn effects ---------------------------------------------------------


class TicketStatusInput(BaseModel):
    """Look up the status of a support ticket."""

    ticket_id: str = Field(description="Ticket ID, such as SUP-1234")


async def ticket_status(args: TicketStatusInput) -> dict[str, str]:
    return {"ticket_id": args.ticket_id, "status": "open"}


class CloseTicketInput(BaseModel):
    """Close a support ticket."""

    ticket_id: str


@declares_turn_effect(TurnEffect.ACT)
async def close_ticket(args: CloseTicketInput) -> dict[str, str]:
    return {"ticket_id": args.ticket_id, "status": "closed"}


def test_conflicting_custom_tool_names_are_refused() -> None:
    class SendMessageInput(BaseModel):
        """Shadows nothing: its name is sendmessage."""

    class Band_No_ReplyInput(BaseModel):
        """Collides with a platform tool."""

    cfg = ACPClientAdapterConfig(command=["x"])
    ACPClientAdapter(cfg, additional_tools=[(SendMessageInput, ticket_status)])
    with pytest.raises(ValueError, match="conflicts with a Band platform tool"):
        ACPClientAdapter(cfg, additional_tools=[(Band_No_ReplyInput, ticket_status)])
    with pytest.raises(ValueError, match="more than one tool"):
        ACPClientAdapter(cfg, additional_tools=[(TicketStatusInput, ticket_status)] * 2)


def test_additional_tool_is_served_and_observes_by_default(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        kw = {
            "additional_tools": [
                (TicketStatusInput, ticket_status),
                (CloseTicketInput, close_ticket),
            ]
        }
        async with harness(plat, tmp_path, adapter_kw=kw) as h:
            # an undeclared custom tool only observes
            events = await h.unreplied('tool ticketstatus {"ticket_id": "SUP-1"}')
            result = next(e for e in tool_events(events) if e[0] == "tool_result")
            assert json.loads(result[2]) == {"ticket_id": "SUP-1", "status": "open"}
            tools = await h.message('tool closeticket {"ticket_id": "SUP-1"}')
            assert tools.turn.complete and not tools.turn.replied  # declared ACT
            tools = await h.message("tool ticketstatus {}")  # invalid arguments: isError
            result = [e for e in tool_events(h.events()) if e[0] == "tool_result"][-1]
            assert result[2].startswith("Invalid arguments for ticketstatus: ticket_id")

    run(main())


# -- emit, errors, config ----------------------------------------------------------------------


def test_emit_other_kind_raises_band_config_error() -> None:
    cfg = ACPClientAdapterConfig(command=["x"])
    with pytest.raises(BandConfigError) as err:
        ACPClientAdapter(cfg, emit=["thoughts", "usage"])
    assert str(err.value) == (
        "ACPClientAdapter does not support emit kind(s): usage; "
        "supported: task_events, thoughts, tool_calls"
    )


def test_resolve_session_config_excludes_model_and_effort() -> None:
    async def choose(request: Any) -> dict[str, str]:
        return {}

    for kw in ({"model": "m"}, {"reasoning_effort": "high"}):
        with pytest.raises(ValueError) as err:
            ACPClientAdapter(
                ACPClientAdapterConfig(command=["x"], **kw), resolve_session_config=choose
            )
        assert (
            str(err.value)
            == "set either model/reasoning_effort or resolve_session_config, not both"
        )


def test_cwd_and_workspace_for_room_are_exclusive(tmp_path: Path) -> None:
    with pytest.raises(ValueError) as err:
        ACPClientAdapter(
            ACPClientAdapterConfig(command=["x"], cwd=str(tmp_path)),
            workspace_for_room=create_room_workspace_resolver(tmp_path),
        )
    assert str(err.value) == "set either cwd or workspace_for_room, not both"


def test_cwd_is_the_root_of_room_workspaces(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, cwd=str(tmp_path / "root")) as h:
            await h.message("reply here")
            assert h.workspace == str((tmp_path / "root" / h.room).resolve())
            assert calls(h.workspace)[1]["cwd"] == h.workspace

    run(main())


def test_emit_narrowed_to_tool_calls(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, adapter_kw={"emit": ["tool_calls"]}) as h:
            await h.message("think quietly; plan a|b; say held; reply visible")
            kinds = [k for k, _ in h.events()]
            assert kinds == ["tool_call", "text", "tool_result", "task"] or kinds == [
                "tool_call",
                "tool_result",
                "text",
                "task",
            ]
            assert h.events()[-1] == ("task", SESSION_EVENT)

    run(main())


def test_custom_section_and_system_context(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, custom_section="Always answer in French.") as h:
            await h.message("reply bonjour")
            await h.message("reply encore")
            prompts = [c["text"] for c in calls(h.workspace) if c["method"] == "prompt"]
            first, second = prompts
            assert first.startswith("[System Context]\nYou are Coder: Writes code in the room")
            assert "Always answer in French." in first and "band_send_message" in first
            assert f"Current requester id: {h.person_id}" in first
            assert "Current chat_id" not in first  # the injected server is room-bound
            assert second == f"[{h.person_name}]: [[reply encore]]"

    run(main())


def test_external_band_mcp_server_names_the_room_and_judges_from_stream(
    plat: Live, tmp_path: Path
) -> None:
    external = {"type": "http", "name": "band", "url": "http://127.0.0.1:9/mcp", "headers": []}

    async def main() -> None:
        async with harness(plat, tmp_path, inject_band_tools=False, mcp_servers=[external]) as h:
            tools = await h.message(
                'report band_send_message {"content": "via external"}; say held'
            )
            assert tools.turn.replied  # judged from the reported completed call
            prompt = next(c["text"] for c in calls(h.workspace) if c["method"] == "prompt")
            assert f"Current chat_id: {h.room}" in prompt
            (new,) = [c for c in calls(h.workspace) if c["method"] == "new_session"]
            assert [s["url"] for s in new["mcp_servers"]] == [external["url"]]  # no local server
            assert h.adapter.mcp_server.port is None
            assert not any(c == "held" for _, c in h.events())
            # a turn with only read-only reports is still a missing reply
            await h.unreplied("report band_get_participants {}")

    run(main())


def test_restart_loads_session_from_room_history(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with restartable(plat, tmp_path) as (h, _, restart):
            await h.message("reply first")
            session = h.adapter.rooms.room(h.room).session_id
            await restart()
            tools = await h.message("reply second")
            assert tools.turn.replied
            assert h.adapter.rooms.room(h.room).session_id == session
            methods = [c["method"] for c in calls(h.workspace)]
            assert methods.count("load_session") == 1 and methods.count("new_session") == 1
            # the loaded session's replayed chunks were not posted
            assert not any(c == "(replayed)" for _, c in h.events())
            assert ("text", "second") in h.events()

    run(main())


def test_failed_first_message_run_again_after_restart_loads_its_session(
    plat: Live, tmp_path: Path
) -> None:
    """The room's first message failed (its session event follows it); the runtime runs it
    again after a restart: the session it opened is loaded, not replaced by a new one."""

    async def main() -> None:
        async with restartable(plat, tmp_path) as (h, _, restart):
            tools = await h.message("say only text")
            assert not tools.turn.complete  # a missing reply: the runtime may run it again
            mid = next(r["id"] for r in h.rows() if r["sender_id"] == h.person_id)
            session = h.adapter.rooms.room(h.room).session_id
            await restart()
            tools = await h.message("reply now", again=mid)
            assert h.adapter.rooms.room(h.room).session_id == session
            methods = [c["method"] for c in calls(h.workspace)]
            assert methods.count("new_session") == 1 and methods.count("load_session") == 1

    run(main())


def test_gemini_mcp_call_is_one_tool_call_with_the_band_name_and_args(
    plat: Live, tmp_path: Path
) -> None:
    """Gemini CLI asks permission for an MCP call (title ``band_send_message (band MCP
    Server)``, params as text), then reports only its completion."""

    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            tools = await h.message('gemini-call band_send_message {"content": "Hi there"}')
            assert tools.turn.replied
            events = h.events()
            # announced by its completion (the request only named it): after the message
            assert [k for k, _ in events] == ["text", "tool_call", "tool_result", "task"]
            call, result = json.loads(events[1][1]), json.loads(events[2][1])
            assert call["name"] == result["name"] == "band_send_message"
            assert call["args"]["content"] == "Hi there"
            assert call["tool_call_id"] == result["tool_call_id"]

    run(main())


def test_new_session_after_restart_replays_earlier_messages(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with after_restart(plat, tmp_path) as (h, _):
            prompt = [c["text"] for c in calls(h.workspace) if c["method"] == "prompt"][-1]
            assert "[Conversation History]" in prompt
            history = prompt.split("[Conversation History]")[1]
            assert "[[reply first answer]]" in history and "[Coder]: " in history
            assert "first answer" in history.split("[Coder]: ")[1]
            assert prompt.rstrip().endswith(f"[{h.person_name}]: [[reply second answer]]")

    run(main())


def test_stop_turn_cancels_through_the_adapter(plat: Live, tmp_path: Path) -> None:
    import asyncio

    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            turn = asyncio.create_task(h.message("sleep 30; reply never"))
            while not (
                h.adapter.rooms.rooms.get(h.room) and h.adapter.rooms.room(h.room).running
            ) or not any(
                c["method"] == "prompt" for c in calls(h.adapter.rooms.room(h.room).workspace)
            ):
                await asyncio.sleep(0.05)
            await asyncio.sleep(0.2)
            await h.adapter.stop_turn(h.room)
            tools = await asyncio.wait_for(turn, 10)
            assert not tools.turn.replied
            assert calls(h.workspace)[-1]["method"] == "cancel"

    run(main())


def test_adapter_turn_timeout_message(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, turn_timeout_s=0.5) as h:
            tools = await h.message("sleep 30")
            assert tools.turn.complete  # the failure was reported: no second error
            assert h.events()[-1] == ("error", "ACP agent response timed out after 0.5s")
            assert h.adapter.rooms.room(h.room).process is None

    run(main())


def test_config_mcp_servers_follow_the_band_server(plat: Live, tmp_path: Path) -> None:
    extra = {"type": "sse", "name": "docs", "url": "http://127.0.0.1:9/sse", "headers": []}

    async def main() -> None:
        async with harness(plat, tmp_path, mcp_servers=[extra]) as h:
            await h.message("reply hi")
            (new,) = [c for c in calls(h.workspace) if c["method"] == "new_session"]
            assert [(s["name"], s["type"]) for s in new["mcp_servers"]] == [
                ("band", "http"),
                ("docs", "sse"),
            ]

    run(main())


def test_without_any_band_mcp_server_every_turn_is_missing_reply(
    plat: Live, tmp_path: Path
) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, inject_band_tools=False) as h:
            events = await h.unreplied("reply nobody hears this")
            assert not any(k == "text" for k, _ in events)

    run(main())


@pytest.mark.parametrize(
    ("reported", "canonical"),
    [
        ("band_send_message", "band_send_message"),
        ("mcp__band__band_send_message", "band_send_message"),  # Claude's spelling
        ("band-band_no_reply", "band_no_reply"),  # Copilot's spelling
        ("band.ticketstatus", "ticketstatus"),
        ("mcp__other__band_send_message", "mcp__other__band_send_message"),  # not our server
        ("mcp__band__not_ours", "mcp__band__not_ours"),
        ("Read file", "Read file"),
        ("band_send_message (band MCP Server)", "band_send_message"),  # Gemini CLI's title
        ("ticketstatus (band MCP Server)", "ticketstatus"),
        ("band_send_message (other MCP Server)", "band_send_message (other MCP Server)"),
    ],
)
def test_reported_tool_names_are_canonicalized(reported: str, canonical: str) -> None:
    adapter = ACPClientAdapter(
        ACPClientAdapterConfig(command=["x"]),
        additional_tools=[(TicketStatusInput, ticket_status)],
    )
    assert adapter._canonical(reported) == canonical


class PageOncallInput(BaseModel):
    """Page the on-call engineer; the page is the answer."""

    text: str


@declares_turn_effect(TurnEffect.REPLY)
async def page_oncall(args: PageOncallInput) -> str:
    return f"paged: {args.text}"


class IgnoreInput(BaseModel):
    """Ignore the message on purpose."""


@declares_turn_effect(TurnEffect.DECLINE)
async def ignore(args: IgnoreInput) -> dict[str, bool]:
    return {"ok": True}


class BrokenInput(BaseModel):
    """Always fails."""


@declares_turn_effect(TurnEffect.REPLY)
async def broken(args: BrokenInput) -> str:
    return "Error: backend down"


@pytest.mark.parametrize(
    ("script", "replied", "complete"),
    [
        ('tool pageoncall {"text": "db down"}; say held text', True, True),  # REPLY
        ("tool ignore {}; say held text", True, True),  # DECLINE
        ("tool broken {}; say held text", False, False),  # failed output records nothing
    ],
)
def test_custom_reply_and_decline_effects_drop_held_text(
    plat: Live, tmp_path: Path, script: str, replied: bool, complete: bool
) -> None:
    tools_kw = {
        "additional_tools": [
            (PageOncallInput, page_oncall),
            (IgnoreInput, ignore),
            (BrokenInput, broken),
        ]
    }

    async def main() -> None:
        async with harness(plat, tmp_path, adapter_kw=tools_kw) as h:
            tools = await h.message(script)
            assert tools.turn.replied is replied and tools.turn.complete is complete
            held = ("thought", "held text") in h.events()
            assert held is not replied  # dropped exactly when the turn replied or declined

    run(main())


def test_adapter_serves_again_after_stop_and_start(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            await h.message("reply before stop")
            first = h.adapter.mcp_server
            await h.adapter.cleanup_all()  # Agent.stop()
            assert h.adapter.rooms.rooms == {}
            await h.adapter.startup("Coder", "Writes code in the room")  # Agent.start() again
            tools = await h.message("reply after start")
            assert tools.turn.replied and ("text", "after start") in h.events()
            assert first.closed and h.adapter.mcp_server is not first

    run(main())


def test_workspace_resolver_errors_fail_the_turn(plat: Live, tmp_path: Path) -> None:
    shared = str(tmp_path / "shared")

    async def main() -> None:
        for resolver, expected in (
            (lambda room_id: "relative/dir", "workspace_for_room must return an absolute path"),
            (lambda room_id: shared, "workspace_for_room assigned"),
        ):
            agent_id, _, key = plat.register("Coder")
            rooms = [room_with(plat, agent_id), room_with(plat, agent_id)]
            adapter = ACPClientAdapter(
                ACPClientAdapterConfig(command=agent_command()), workspace_for_room=resolver
            )
            async with RestClient(key, plat.rest) as rest:
                h = Harness(plat, rest, adapter, agent_id, rooms[0])
                try:
                    if "assigned" in expected:
                        await h.message("reply first room")
                        h.room = rooms[1]
                    with pytest.raises(ValueError) as err:
                        await h.message("reply never")
                    assert str(err.value).startswith(expected)
                    if "assigned" in expected:
                        real = os.path.realpath(shared)
                        assert str(err.value) == (
                            f"workspace_for_room assigned '{real}' to both "
                            f"'{rooms[0]}' and '{rooms[1]}'"
                        )
                finally:
                    await adapter.cleanup_all()

    run(main())


def test_default_workspace_is_band_workspaces_under_the_launch_dir(
    plat: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)

    async def main() -> None:
        agent_id, _, key = plat.register("Coder")
        room = room_with(plat, agent_id)
        adapter = ACPClientAdapter(ACPClientAdapterConfig(command=agent_command()))
        async with RestClient(key, plat.rest) as rest:
            h = Harness(plat, rest, adapter, agent_id, room)
            try:
                await h.message("reply from the default workspace")
                expected = str(tmp_path.resolve() / ".band-workspaces" / room)
                assert h.workspace == expected
                assert calls(expected)[1]["cwd"] == expected  # process and session cwd
            finally:
                await adapter.cleanup_all()

    run(main())
