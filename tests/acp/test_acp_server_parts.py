"""The ACP server's parts under band-sdk 6.0.1's names (issue 55): ``AgentRouter`` picks the
peer of a prompt, ``ACPPushHandler`` sends what a peer says unprompted, each session is
recorded in its room so ``ACPServerHistoryConverter`` gives it back to the agent started
again, and ``EventConverter`` turns each room message kind into its ACP update."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.schema import AgentMessageChunk, AgentPlanUpdate, AgentThoughtChunk, ToolCallStart
from bandtest.agents import agent_process_env, fast_agent, plain, wait_for
from bandtest.platform import Live

from band.converters import ACPServerHistoryConverter
from band.core import SimpleAdapter
from band.core.types import PlatformMessage
from band.integrations.acp import (
    AgentRouter,
    BandACPServerAdapter,
    BandACPServerAdapterConfig,
    EventConverter,
    PendingACPPrompt,
)
from band.runtime.formatters import format_history_for_llm

AGENT = Path(__file__).with_name("acp_server_agent.py")


class Peer(SimpleAdapter[Any]):
    """A Band agent that answers ``<its tag>: <text>``."""

    def __init__(self, tag: str) -> None:
        super().__init__()
        self.tag = tag

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        await tools.send_message(f"{self.tag}: {plain(msg.content)}", mentions=[msg.sender_id])


class Editor:
    """The ACP client side: every update it receives, per session."""

    def __init__(self) -> None:
        self.updates: dict[str, list[Any]] = {}

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.setdefault(session_id, []).append(update)

    def said(self, session_id: str) -> list[str]:
        return [
            plain(u.content.text)
            for u in self.updates.get(session_id, [])
            if getattr(u, "session_update", None) == "agent_message_chunk"
        ]


def test_the_router_picks_the_peer_and_the_push_handler_forwards_unprompted_words(
    live: Live, tmp_path: Path
) -> None:
    first_id, _, first_key = live.register("Firstpeer")
    second_id, _, second_key = live.register("Secondpeer")
    desk_id, _, desk_key = live.register("Routerdesk")
    env = agent_process_env(
        live,
        desk_id,
        desk_key,
        PEER_IDS=f"{first_id},{second_id}",
        ROUTES="second=Secondpeer",
        MODES="review=Secondpeer",
    )

    async def scenario() -> None:
        editor = Editor()
        async with (
            fast_agent(live, Peer("first"), first_id, first_key),
            fast_agent(live, Peer("second"), second_id, second_key),
            spawn_agent_process(editor, sys.executable, "-I", str(AGENT), env=env) as (conn, _),
        ):
            await conn.initialize(protocol_version=PROTOCOL_VERSION)
            session = (await conn.new_session(cwd=str(tmp_path), mcp_servers=[])).session_id
            sid = session

            async def ask(text: str) -> list[str]:
                before = len(editor.said(sid))
                done = await asyncio.wait_for(
                    conn.prompt(session_id=sid, prompt=[text_block(text)]), 30
                )
                assert done.stop_reason == "end_turn"
                return editor.said(sid)[before:]

            # no route: both peers are asked
            assert sorted(await ask("hello")) == ["first: hello", "second: hello"]
            # a slash command asks its peer only, without the command
            assert await ask("/second fix it") == ["second: fix it"]
            # the session's mode routes too
            await conn.set_session_mode(session_id=sid, mode_id="review")
            assert await ask("look") == ["second: look"]
            rooms = live.agent(desk_key, "GET", "/api/v1/agent/chats").json()["data"]
            [room] = [r["id"] for r in rooms]
            rows = live.agent(
                desk_key, "GET", f"/api/v1/agent/chats/{room}/context", params={"page_size": 100}
            ).json()["data"]
            said = {plain(m["content"]) for m in rows if m["message_type"] == "text"}
            # the routed prompts reached the second peer only (the first answers every mention)
            assert {"first: hello", "second: hello", "second: fix it", "second: look"} <= said
            assert not {"first: fix it", "first: look", "first: /second fix it"} & said
            # a peer speaking while no prompt waits still reaches the editor's session
            body = {"message": {"content": "by the way", "mentions": [{"id": desk_id}]}}
            r = live.agent(first_key, "POST", f"/api/v1/agent/chats/{room}/messages", json=body)
            assert r.status_code == 201, r.text
            await wait_for(lambda: "by the way" in editor.said(sid), timeout=20)

    asyncio.run(scenario())


def test_a_session_survives_the_agent_starting_again(live: Live) -> None:
    """The session's room records it; the agent started again takes it back from the history
    (ACPServerHistoryConverter) and pushes the room's messages to the editor's session."""
    peer_id, _, peer_key = live.register("Restpeer")
    desk_id, _, desk_key = live.register("Restdesk")
    config = BandACPServerAdapterConfig(peers=(peer_id,))
    servers = [{"type": "http", "name": "docs", "url": "http://127.0.0.1:9/mcp", "headers": []}]

    async def scenario() -> None:
        first = BandACPServerAdapter(config)
        async with fast_agent(live, first, desk_id, desk_key):
            sid = await first.create_session(cwd="/src/project", mcp_servers=servers)
            room = first.get_room_for_session(sid)
        assert room is not None
        rows = live.agent(desk_key, "GET", f"/api/v1/agent/chats/{room}/context").json()["data"]
        state = ACPServerHistoryConverter().convert(format_history_for_llm(rows))
        assert state.session_to_room == {sid: room}
        assert state.session_cwd == {sid: "/src/project"}
        assert state.session_mcp_servers == {sid: servers}

        again, editor = BandACPServerAdapter(config), Editor()
        again.set_acp_client(editor)  # type: ignore[arg-type]
        async with fast_agent(live, again, desk_id, desk_key):
            assert not again.has_session(sid)
            body = {"message": {"content": "still there?", "mentions": [{"id": desk_id}]}}
            r = live.agent(peer_key, "POST", f"/api/v1/agent/chats/{room}/messages", json=body)
            assert r.status_code == 201, r.text
            await wait_for(lambda: editor.said(sid) == ["still there?"], timeout=20)
            assert again.get_room_for_session(sid) == room
            assert again.get_session_cwd(sid) == "/src/project"

    asyncio.run(scenario())


def _msg(kind: str, content: str, metadata: Any = None) -> PlatformMessage:
    from datetime import UTC, datetime

    return PlatformMessage(
        "m1", "r1", content, "a1", "Agent", "Peer", kind, metadata or {}, datetime.now(UTC)
    )


def test_event_converter_gives_each_kind_its_update() -> None:
    convert = EventConverter.convert
    text = convert(_msg("text", "hi"))
    assert isinstance(text, AgentMessageChunk) and text.content.text == "hi"
    thought = convert(_msg("thought", "hmm"))
    assert isinstance(thought, AgentThoughtChunk) and thought.content.text == "hmm"
    call = convert(
        _msg("tool_call", json.dumps({"name": "grep", "args": {"q": "x"}, "tool_call_id": "c1"}))
    )
    assert isinstance(call, ToolCallStart)
    assert (call.tool_call_id, call.title, call.raw_input) == ("c1", "grep", {"q": "x"})
    done = convert(
        _msg(
            "tool_result",
            json.dumps(
                {"name": "grep", "output": "3 hits", "tool_call_id": "c1", "is_error": True}
            ),
        )
    )
    assert (done.session_update, done.tool_call_id, done.status, done.raw_output) == (
        "tool_call_update",
        "c1",
        "failed",
        "3 hits",
    )
    # a tool event whose JSON cannot be read is shown as text, not dropped
    assert convert(_msg("tool_call", "not json")).content.text == "not json"
    failure = {"failure": {"provider": "peer", "code": "rate_limited", "message": "slow down"}}
    error = convert(_msg("error", "slow down", failure))
    assert isinstance(error, AgentMessageChunk) and error.content.text == "[Error] slow down"
    assert error.field_meta is not None and "rate_limited" in json.dumps(error.field_meta)
    plan = convert(_msg("task", "indexing"))
    assert isinstance(plan, AgentPlanUpdate)
    assert [(e.content, e.status) for e in plan.entries] == [("indexing", "in_progress")]
    assert convert(_msg("usage", "{}")) is None


def test_agent_router_resolves_commands_then_modes() -> None:
    router = AgentRouter(mode_to_peer={"code": "Coder"}, slash_commands={"Ask": "Helper"})
    assert router.resolve("/ask what now") == ("what now", "Helper")
    assert router.resolve("/ASK") == ("", "Helper")
    assert router.resolve("/other x", "code") == ("/other x", "Coder")
    assert router.resolve("plain", "chat") == ("plain", None)
    assert AgentRouter().resolve("/ask x") == ("/ask x", None)


def test_pending_prompt_keeps_its_first_outcome() -> None:
    async def scenario() -> None:
        prompt = PendingACPPrompt("s1")
        timer = asyncio.create_task(asyncio.sleep(60))
        prompt.completion_task = timer
        prompt.finish("cancelled")
        prompt.finish("end_turn")
        assert prompt.done_event.is_set() and prompt.outcome == "cancelled"
        await asyncio.sleep(0)
        assert timer.cancelled()

    asyncio.run(scenario())
