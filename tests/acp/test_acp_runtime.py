"""ACPRuntime, its collecting client and tcp_spawn_process, with real scripted-agent processes.

The runtime drives one agent by hand (the names band-sdk's ``client_runtime`` documents); one
test posts the collected chunks to a room of the real local platform as they complete.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from acp import RequestError
from acp_helpers import AGENT, agent_command, calls, room_events, room_with, run
from bandtest.platform import Live, live_platform

from band.client import RestClient, path
from band.core.model_catalog import ModelSelection, ModelSelectionError
from band.integrations.acp import BandACPClient, CollectedChunk
from band.integrations.acp.client_runtime import (
    ACPCollectingClient,
    ACPConnectionProtocol,
    ACPRuntime,
    allow_permission,
    select_allow_option_id,
    tcp_spawn_process,
)
from band.integrations.acp.model_selection import apply_model_selection, locate_model_options
from band.integrations.mcp.backends import BandMCPTransport


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    """One local platform for this module."""
    yield from live_platform()


def kinds(chunks: list[CollectedChunk]) -> list[tuple[str, str]]:
    return [(c.chunk_type, c.content) for c in chunks]


def test_prompt_collects_chunks_in_stream_order_and_posts_them(live: Live, tmp_path: Path) -> None:
    """Text runs, thoughts, a plan and a tool call with its result, as chunks; each goes to
    ``on_chunk`` as it completes (here: to a Band room)."""
    agent_id, _, key = live.register("Runner")
    room_id = room_with(live, agent_id)

    async def main() -> None:
        runtime = ACPRuntime(command=agent_command(), cwd=str(tmp_path))
        assert runtime.closed and runtime.client is None
        await runtime.start()
        try:
            assert not runtime.closed and isinstance(runtime.client, ACPCollectingClient)
            assert runtime.agent_mcp_transport is BandMCPTransport.HTTP
            conn: ACPConnectionProtocol = await runtime.ensure_connection()
            assert conn is not None
            sid = await runtime.create_session(cwd=str(tmp_path), mcp_servers=[])
            async with RestClient(key, live.rest) as rest:

                async def post(chunk: CollectedChunk) -> None:
                    body = {"event": {"content": chunk.content, "message_type": "thought"}}
                    await rest.request("POST", path("/agent/chats/{}/events", room_id), json=body)

                chunks = await runtime.prompt(
                    session_id=sid,
                    prompt_text="[[say Hello; say  there.; think hmm; plan a|b; "
                    'report band_lookup {"q": 1}; say Bye]]',
                    on_chunk=post,
                )
            assert kinds(chunks) == [
                ("text", "Hello there."),  # a run of deltas is one chunk
                ("thought", "hmm"),
                ("plan", "[pending] a\n[pending] b"),
                ("tool_call", "band_lookup"),
                ("tool_result", "ok"),
                ("text", "Bye"),  # the run left open at the end is flushed
            ]
            call, result = chunks[3], chunks[4]
            assert call.metadata["raw_input"] == {"q": 1} and call.tool is result.tool
            assert result.metadata == {
                "tool_call_id": call.metadata["tool_call_id"],
                "status": "completed",
            }
            assert result.tool is not None and result.tool.raw_output == {"ok": True}
            assert not result.from_raw  # the frame carried readable text
            assert chunks[2].metadata["plan"][1]["content"] == "b"
            assert runtime.get_collected_chunks(sid) == chunks
            assert runtime.client.get_collected_text(sid) == "Hello there.Bye"
            # the session's chunks accumulate until it is reset
            again = await runtime.prompt(session_id=sid, prompt_text="[[say more]]")
            assert kinds(again)[-1] == ("text", "more") and len(again) == 7
            runtime.reset_session(sid)
            assert runtime.get_collected_chunks(sid) == []
        finally:
            await runtime.stop()
        assert runtime.closed
        assert [m for m in calls(tmp_path) if m["method"] == "prompt"]

    run(main())
    assert [c for t, c in room_events(live, room_id) if t == "thought"] == [
        "Hello there.",
        "hmm",
        "[pending] a\n[pending] b",
        "band_lookup",
        "ok",
        "Bye",
    ]


def test_permissions_go_to_the_sessions_handler_else_are_cancelled(tmp_path: Path) -> None:
    async def main() -> None:
        runtime = ACPRuntime(
            command=agent_command(), cwd=str(tmp_path), client_factory=BandACPClient
        )
        await runtime.start()
        try:
            assert isinstance(runtime.client, BandACPClient)
            sid = await runtime.create_session(cwd=str(tmp_path), mcp_servers=[])
            chunks = await runtime.prompt(session_id=sid, prompt_text="[[permission]]")
            # no handler: cancelled, and the call shows as a failed result (it never ran)
            assert kinds(chunks) == [
                ("tool_call", "rm -rf build"),
                ("tool_result", "Permission cancelled"),
                ("thought", "permission: cancelled"),
            ]
            assert chunks[1].metadata["status"] == "failed"

            asked: list[dict[str, Any]] = []

            async def allow(**request: Any) -> dict[str, object]:
                asked.append(request)
                choice = select_allow_option_id(request["options"])
                assert choice is not None
                return allow_permission(choice)

            runtime.reset_session(sid)
            runtime.set_permission_handler(sid, allow)
            chunks = await runtime.prompt(session_id=sid, prompt_text="[[permission]]")
            assert kinds(chunks) == [("thought", "permission: once")]  # least privilege
            (request,) = asked
            assert request["session_id"] == sid and callable(request["narrate_permission"])
            assert request["tool_call"].title == "rm -rf build"
        finally:
            await runtime.stop()

    run(main())


def test_model_selection_through_the_runtime(tmp_path: Path) -> None:
    """apply_model_selection reads the runtime's live catalogue and sets through it."""

    async def main() -> None:
        runtime = ACPRuntime(command=agent_command(), cwd=str(tmp_path))
        await runtime.start()
        try:
            sid = await runtime.create_session(cwd=str(tmp_path), mcp_servers=[])
            found = locate_model_options(runtime.config_options(sid))
            assert found.current_selection() == ModelSelection(model="fast", reasoning_effort="low")

            async def set_option(session_id: str, config_id: str, value: str) -> object:
                return await runtime.set_config_option(
                    session_id=session_id, config_id=config_id, value=value
                )

            async def apply(selection: ModelSelection) -> None:
                await apply_model_selection(
                    session_id=sid,
                    catalog=lambda: runtime.config_options(sid),
                    selection=selection,
                    locate=locate_model_options,
                    set_option=set_option,
                )

            # "high" exists only for "smart": found in the catalogue the model's set returned
            await apply(ModelSelection(model="smart", reasoning_effort="high"))
            now = locate_model_options(runtime.config_options(sid)).current_selection()
            assert now == ModelSelection(model="smart", reasoning_effort="high")
            with pytest.raises(
                ModelSelectionError, match='"max" is not advertised for model "smart"'
            ):
                await apply(ModelSelection(reasoning_effort="max"))
            sets = [
                (c["config_id"], c["value"])
                for c in calls(tmp_path)
                if c["method"] == "set_config_option"
            ]
            assert sets == [("model", "smart"), ("effort", "high")]  # nothing sent for "max"
        finally:
            await runtime.stop()

    run(main())


def test_sessions_load_on_a_new_process(tmp_path: Path) -> None:
    async def main() -> None:
        first = ACPRuntime(command=agent_command(), cwd=str(tmp_path))
        await first.start()
        try:
            sid = await first.create_session(cwd=str(tmp_path), mcp_servers=[])
            await first.prompt(session_id=sid, prompt_text="[[say remembered]]")
        finally:
            await first.stop()
        second = ACPRuntime(command=agent_command(), cwd=str(tmp_path))
        await second.start()
        try:
            assert await second.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
            assert (
                await second.load_session(cwd=str(tmp_path), session_id="nope", mcp_servers=[])
                is False
            )
            assert second.config_options(sid)  # the load's catalogue is recorded
            await second.close_session(sid)
            assert second.config_options(sid) == ()
        finally:
            await second.stop()
        third = ACPRuntime(command=agent_command("--no-load"), cwd=str(tmp_path))
        await third.start()
        try:  # not advertised: not even asked
            assert not await third.load_session(cwd=str(tmp_path), session_id=sid, mcp_servers=[])
        finally:
            await third.stop()
        loads = [c for c in calls(tmp_path) if c["method"] == "load_session"]
        assert [c["session_id"] for c in loads] == [sid, "nope"]

    run(main())


def test_tcp_spawn_process_connects_to_a_listening_agent(tmp_path: Path) -> None:
    async def main() -> None:
        agent = await asyncio.create_subprocess_exec(
            sys.executable, str(AGENT), "--tcp", cwd=tmp_path, stdout=asyncio.subprocess.PIPE
        )
        try:
            assert agent.stdout is not None
            line = (await agent.stdout.readline()).decode().split()
            assert line[0] == "PORT"
            runtime = ACPRuntime(
                command=[], spawn_process=tcp_spawn_process("127.0.0.1", int(line[1]))
            )
            await runtime.start()
            try:
                sid = await runtime.create_session(cwd=str(tmp_path), mcp_servers=[])
                chunks = await runtime.prompt(
                    session_id=sid, prompt_text="[[think over tcp; say ok]]"
                )
                assert kinds(chunks) == [("thought", "over tcp"), ("text", "ok")]
            finally:
                await runtime.stop()
            # the agent served its one client and exits once the connection is closed
            assert await asyncio.wait_for(agent.wait(), 30) == 0
        finally:
            if agent.returncode is None:
                agent.kill()
                await agent.wait()
        assert [c["method"] for c in calls(tmp_path)][:2] == ["initialize", "new_session"]

    run(main())


def test_a_second_start_is_refused_and_a_failed_start_leaves_nothing(tmp_path: Path) -> None:
    async def main() -> None:
        runtime = ACPRuntime(command=agent_command(), cwd=str(tmp_path))
        await runtime.start()
        try:
            with pytest.raises(RuntimeError, match="already started"):
                await runtime.start()
        finally:
            await runtime.stop()
        with pytest.raises(RuntimeError, match="not open"):
            await runtime.ensure_connection()
        refused = ACPRuntime(
            command=agent_command("--auth=token"), cwd=str(tmp_path), auth_method="wrong"
        )
        with pytest.raises(RequestError):
            await refused.start()
        assert refused.closed
        accepted = ACPRuntime(
            command=agent_command("--auth=token"), cwd=str(tmp_path), auth_method="token"
        )
        await accepted.start()
        try:
            assert await accepted.create_session(cwd=str(tmp_path), mcp_servers=[])
        finally:
            await accepted.stop()
        auths = [c["method_id"] for c in calls(tmp_path) if c["method"] == "authenticate"]
        assert auths == ["wrong", "token"]

    run(main())


def test_collected_chunk_fields() -> None:
    chunk = CollectedChunk("text", "hi")
    assert (chunk.metadata, chunk.from_raw, chunk.echo, chunk.tool) == ({}, False, None, None)
    assert json.dumps(chunk.metadata) == "{}"  # a fresh dict per chunk
    assert CollectedChunk("text", "x").metadata is not chunk.metadata
