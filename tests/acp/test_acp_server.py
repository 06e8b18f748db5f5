"""The ACP server side (issue 55): an editor, here the official ACP Python SDK's client, talks
to a Band agent served over stdio; its prompts reach a peer agent in a Band room on band dev
and the peer's answers stream back as agent message chunks."""

from __future__ import annotations

import asyncio
import subprocess
import sys
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from acp import PROTOCOL_VERSION, spawn_agent_process, text_block
from acp.exceptions import RequestError
from bandtest.agents import agent_process_env, fast_agent, plain
from bandtest.platform import Live

from band.core import SimpleAdapter
from band.integrations.acp import ACPServer, BandACPServerAdapter, run_acp_server

AGENT = Path(__file__).with_name("acp_server_agent.py")


class Peer(SimpleAdapter[Any]):
    """The Band agent that answers the editor: two messages per prompt."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        text = plain(msg.content)
        await tools.send_message(f"thinking about {text}", mentions=[msg.sender_id])
        await tools.send_message(f"answer: {text.upper()}", mentions=[msg.sender_id])


class Editor:
    """The ACP client side: collects the agent's message chunks per session."""

    def __init__(self) -> None:
        self.chunks: dict[str, list[str]] = {}

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        if getattr(update, "session_update", None) == "agent_message_chunk":
            self.chunks.setdefault(session_id, []).append(update.content.text)

    async def request_permission(self, **kwargs: Any) -> Any:
        raise RequestError.method_not_found("session/request_permission")


def test_an_editor_prompts_a_band_agent_over_acp(live: Live, tmp_path: Path) -> None:
    peer_id, _, peer_key = live.register("Peer")
    desk_id, _, desk_key = live.register("Desk")
    env = agent_process_env(live, desk_id, desk_key, PEER_ID=peer_id)

    async def scenario() -> None:
        editor = Editor()
        async with (
            fast_agent(live, Peer(), peer_id, peer_key),
            spawn_agent_process(editor, sys.executable, "-I", str(AGENT), env=env) as (conn, _),
        ):
            init = await conn.initialize(protocol_version=PROTOCOL_VERSION)
            assert init.agent_info is not None and init.agent_info.name == "band-agent"
            assert init.agent_capabilities.prompt_capabilities.embedded_context
            session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
            done = await asyncio.wait_for(
                conn.prompt(session_id=session.session_id, prompt=[text_block("hello")]), 30
            )
            assert done.stop_reason == "end_turn"
            said = [plain(c) for c in editor.chunks[session.session_id]]
            assert said == ["thinking about hello", "answer: HELLO"]
            # the session is a Band room the peer is in: the exchange is there too
            rooms = live.agent(desk_key, "GET", "/api/v1/agent/chats").json()["data"]
            assert len(rooms) == 1
            messages = live.agent(
                desk_key,
                "GET",
                f"/api/v1/agent/chats/{rooms[0]['id']}/messages",
                params={"status": "all"},
            ).json()["data"]
            assert "answer: HELLO" in [plain(m["content"]) for m in messages]
            # a prompt for a session that does not exist is the client's error
            with pytest.raises(RequestError):
                await conn.prompt(session_id="nope", prompt=[text_block("x")])

    asyncio.run(scenario())


def test_run_acp_server_keeps_the_protocol_flags_its_own() -> None:
    server = ACPServer(BandACPServerAdapter())
    with pytest.raises(TypeError, match="use_unstable_protocol"):
        asyncio.run(run_acp_server(server, use_unstable_protocol=True))


#: band-sdk's console script, installed beside this interpreter
BAND_ACP = Path(sys.executable).with_name("band-acp")


def test_band_acp_serves_an_editor_with_its_peers(live: Live, tmp_path: Path) -> None:
    """The ``band-acp`` command as an editor launches it: the agent's id and key from the
    environment, a ``--peer``; the peer answers the prompt, and stdout carries the protocol
    alone (the log line goes to stderr)."""
    (script,) = entry_points(group="console_scripts", name="band-acp")
    assert script.value == "band.integrations.acp.cli:entry_point"
    peer_id, _, peer_key = live.register("Peer")
    desk_id, _, desk_key = live.register("Desk")
    env = agent_process_env(live, desk_id, desk_key, BAND_AGENT_ID=desk_id, BAND_API_KEY=desk_key)
    stderr = tmp_path / "stderr.log"

    async def scenario() -> None:
        editor = Editor()
        with stderr.open("w") as errors:
            async with (
                fast_agent(live, Peer(), peer_id, peer_key),
                spawn_agent_process(
                    editor,
                    str(BAND_ACP),
                    "--peer",
                    peer_id,
                    env=env,
                    transport_kwargs={"stderr": errors.fileno()},
                ) as (conn, _),
            ):
                await conn.initialize(protocol_version=PROTOCOL_VERSION)
                session = await conn.new_session(cwd=str(tmp_path), mcp_servers=[])
                done = await asyncio.wait_for(
                    conn.prompt(session_id=session.session_id, prompt=[text_block("hi")]), 30
                )
                assert done.stop_reason == "end_turn"
                said = [plain(c) for c in editor.chunks[session.session_id]]
                assert said == ["thinking about hi", "answer: HI"]

    asyncio.run(scenario())
    assert f"serving agent {desk_id} over ACP on stdio" in stderr.read_text()


def test_band_acp_without_an_agent_id_says_what_to_pass(live: Live) -> None:
    done = subprocess.run(
        [str(BAND_ACP), "--api-key", "k", "--rest-url", live.rest],
        capture_output=True,
        text=True,
        timeout=60,
        env={"PATH": ""},
        check=False,
    )
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.strip().splitlines()[-1] == (
        "band-acp: error: no agent id: pass --agent-id or set BAND_AGENT_ID"
    )
