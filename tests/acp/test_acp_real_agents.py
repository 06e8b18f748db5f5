"""The real coding agents in a room: Claude Code (``claude-code-acp``) and Gemini CLI
(``gemini --experimental-acp``), npm-installed by ``make acp-agents``, each run through
``ACPClientAdapter`` inside a real ``Agent`` against band dev, with ``band.testing.ScriptedModel``
following the script in each message (agent_script.py) to drive them to call the Band MCP tools.

One room per agent goes through every scenario in order (each agent process takes seconds to
start): a reply, a second turn in the same session, a tool that needs permission, a text-only
turn, an interrupt, the ACP process killed between turns, and an adapter restart that loads
the session. One band dev and one model server serve the module.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Iterator
from contextlib import AsyncExitStack
from pathlib import Path
from typing import Any

import pytest
from acp_helpers import run
from agent_script import AgentScript
from bandtest.agents import Human, fast_agent, plain, wait_for
from bandtest.platform import Live, live_platform, room_with
from real_agents import RealAgent, claude_code, gemini_cli, unavailable

from band import Agent
from band.adapters import ACPClientAdapter, ACPClientAdapterConfig
from band.core.turn import MISSING_REPLY, TURN_FAILURE_PROVIDER
from band.integrations.acp.config import ACPRetentionConfig
from band.integrations.acp.narration import INTERRUPTED_NOTE, SESSION_EVENT
from band.testing import ScriptedModel
from band.workspaces import create_room_workspace_resolver

WHY_NOT = unavailable()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=f"real ACP agents: {WHY_NOT}")

#: Real agents start in seconds, not milliseconds (node loads a large bundle).
TURN_S = 120.0


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One band dev for the module."""
    yield from live_platform()


@pytest.fixture(scope="module")
def model() -> Iterator[ScriptedModel]:
    """One scripted model API for the module (both agents)."""
    with ScriptedModel(respond=AgentScript()) as served:
        yield served


class Room:
    """The agent's room, its person, and the running ``Agent`` (restartable)."""

    def __init__(self, plat: Live, real: RealAgent, workspaces: Path) -> None:
        self.plat, self.real, self.workspaces = plat, real, workspaces
        self.aid, _, self.key = plat.register("Coder")
        self.id = room_with(plat, self.aid)
        self.person = Human(plat)
        self.adapter: ACPClientAdapter | None = None
        self._stack: AsyncExitStack | None = None

    async def start(self, **options: Any) -> ACPClientAdapter:
        """A fresh adapter (no state but the room's history) inside a fresh ``Agent``."""
        config = ACPClientAdapterConfig(
            command=self.real.command,
            env=self.real.env,
            turn_timeout_s=TURN_S,
            # a session start spawns Claude Code's CLI: tens of seconds on a busy machine
            retention=ACPRetentionConfig(transition_timeout_s=TURN_S),
            **options,
        )
        self.adapter = ACPClientAdapter(
            config, workspace_for_room=create_room_workspace_resolver(self.workspaces)
        )
        self._stack = AsyncExitStack()
        agent: Agent = fast_agent(self.plat, self.adapter, self.aid, self.key)
        await self._stack.enter_async_context(agent)
        return self.adapter

    async def stop(self) -> None:
        if self._stack is not None:
            await self._stack.aclose()
            self._stack = None

    async def rows(self) -> list[dict[str, Any]]:
        """The agent's messages and events, oldest first."""
        return [m for m in await self.person.messages(self.id) if m["sender_id"] == self.aid]

    async def turn(self, script: str, until: str = SESSION_EVENT) -> list[dict[str, Any]]:
        """Send ``[[script]]``; the agent's rows since, once a row with content ``until`` follows
        every row the turn must show (the reply of a ``reply`` step)."""
        before = len(await self.rows())
        replies = [s.strip()[len("reply ") :] for s in script.split(";") if "reply " in s]
        await self.person.send(self.id, self.aid, f"[[{script}]]")

        async def done() -> list[dict[str, Any]] | None:
            rows = (await self.rows())[before:]
            texts = [plain(r["content"]) for r in rows]
            if not all(reply in texts for reply in replies):
                return None
            start = max((texts.index(reply) for reply in replies), default=0)
            return rows if until in [r["content"] for r in rows[start:]] else None

        rows: list[dict[str, Any]] = await wait_for(done, timeout=TURN_S)
        return rows

    async def turn_or_load_refused(self, script: str) -> list[dict[str, Any]] | None:
        """A turn that must load the room's session on a new process. Claude Code loads it.
        Gemini CLI 0.61.0 may not: its ``session/load`` starts the session's new recording
        (which empties the session file) before it reads that file, a race it sometimes loses
        ("No previous sessions found for this project."). While the adapter runs, it then
        fails the turn with the agent's error and opens no other session (the seed's rule):
        None. (After a restart it opens a new session with the room's messages instead.)"""
        before = len(await self.rows())
        turn = asyncio.ensure_future(self.turn(script))

        async def refused() -> list[dict[str, Any]] | None:
            rows = (await self.rows())[before:]
            errors = [r for r in rows if r["message_type"] == "error"]
            return rows if any(e["content"] == "Internal error" for e in errors) else None

        check = asyncio.ensure_future(wait_for(refused, timeout=TURN_S))
        await asyncio.wait({turn, check}, return_when=asyncio.FIRST_COMPLETED)
        if turn.done():
            check.cancel()
            return turn.result()
        turn.cancel()
        assert self.real.name == "gemini", "only Gemini CLI's load may be refused"
        rows = check.result()
        assert not self.session_ids(rows)  # no new session replaced the room's
        return None

    async def refused(self, script: str) -> list[dict[str, Any]]:
        """Send ``[[script]]`` to a room whose agent refuses the load: the rows of the failed
        turn, Gemini CLI's ``Internal error`` card."""
        before = len(await self.rows())
        await self.person.send(self.id, self.aid, f"[[{script}]]")

        async def failed() -> list[dict[str, Any]] | None:
            rows = (await self.rows())[before:]
            errors = [r for r in rows if r["message_type"] == "error"]
            return rows if any(e["content"] == "Internal error" for e in errors) else None

        rows: list[dict[str, Any]] = await wait_for(failed, timeout=TURN_S)
        return rows

    def session_ids(self, rows: list[dict[str, Any]]) -> list[str]:
        return [
            r["metadata"]["acp_client_session_id"]
            for r in rows
            if r["message_type"] == "task" and r["content"] == SESSION_EVENT
        ]


def kinds(rows: list[dict[str, Any]]) -> list[str]:
    return [r["message_type"] for r in rows]


def tool_calls(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [json.loads(r["content"]) for r in rows if r["message_type"] == "tool_call"]


def prompts_seen(model: ScriptedModel, room: Room, marker: str) -> list[Any]:
    """The room's model requests (its workspace path is in the agent's context) with ``marker``."""
    bodies = [json.dumps(r.body) for r in model.requests]
    return [body for body in bodies if room.id in body and marker in body]


def real_agent(name: str, model: ScriptedModel, home: Path) -> RealAgent:
    return (claude_code if name == "claude" else gemini_cli)(model.base_url, home, model.api_key)


@pytest.mark.parametrize("name", ["claude", "gemini"])
def test_real_agent_in_a_room(plat: Live, model: ScriptedModel, tmp_path: Path, name: str) -> None:
    real = real_agent(name, model, tmp_path / "home")
    room = Room(plat, real, tmp_path / "ws")

    async def main() -> None:
        adapter = await room.start()
        try:
            await scenarios(room, adapter, model)
        finally:
            await room.stop()
            await room.person.aclose()

    run(main(), timeout=900)


async def scenarios(room: Room, adapter: ACPClientAdapter, model: ScriptedModel) -> None:
    name = room.real.name
    # -- a reply: one tool_call per call, canonical name and full args, the message, its result
    rows = await room.turn(f"say Looking; reply Hello from {name}")
    assert [plain(r["content"]) for r in rows if r["message_type"] == "text"] == [
        f"Hello from {name}"
    ]
    [call] = tool_calls(rows)
    assert call["name"] == "band_send_message"
    assert call["args"]["content"] == f"Hello from {name}"
    assert kinds(rows)[-1] == "task" and "tool_result" in kinds(rows)
    assert not any(r["content"] == "Looking" for r in rows)  # held text dropped: it replied
    [session] = room.session_ids(rows)

    # -- a second turn, same session: the model sees the first turn again
    rows = await room.turn("reply Second answer")
    assert [plain(r["content"]) for r in rows if r["message_type"] == "text"] == ["Second answer"]
    assert room.session_ids(rows) == [session]
    assert prompts_seen(model, room, "Second answer") and all(
        f"Hello from {name}" in b for b in prompts_seen(model, room, "reply Second answer")
    )

    # -- the agent's own shell tool asks permission; the adapter allows it once; it runs
    rows = await room.turn("bash echo band-perm-ok; reply Ran it")
    results = [r["content"] for r in rows if r["message_type"] == "tool_result"]
    assert any("band-perm-ok" in r for r in results), rows
    assert [plain(r["content"]) for r in rows if r["message_type"] == "text"] == ["Ran it"]
    assert len(tool_calls(rows)) == 2  # the shell call and band_send_message, once each

    # -- a text-only turn: the text as a thought, then the missing-reply error (official shape)
    rows = await room.turn("say Only text here", until=MISSING_REPLY)
    assert [(r["message_type"], r["content"]) for r in rows] == [
        ("thought", "Only text here"),
        ("task", SESSION_EVENT),
        ("error", MISSING_REPLY),
    ]
    failure = rows[-1]["metadata"]["failure"]
    assert failure["provider"] == TURN_FAILURE_PROVIDER and failure["message"] == MISSING_REPLY

    # -- an interrupt: what the turn streamed, a note, and the session event reach the room
    before = len(await room.rows())
    # (the script names the agent: the model server hangs once per script)
    await room.person.send(room.id, room.aid, f"[[say Working on it ({name}); wait]]")

    def streaming() -> bool:
        state = adapter.rooms.rooms.get(room.id)
        narrator = state.client.narrator if state and state.client else None
        return narrator is not None and f"Working on it ({name})" in narrator.held_text

    await wait_for(streaming, timeout=TURN_S)
    await room.person.control(room.id, room.aid, "interrupt")

    async def interrupted() -> list[dict[str, Any]] | None:
        rows = (await room.rows())[before:]
        return rows if room.session_ids(rows) else None

    rows = await wait_for(interrupted, timeout=60)
    assert [(r["message_type"], r["content"]) for r in rows] == [
        ("thought", f"Working on it ({name})"),
        ("task", INTERRUPTED_NOTE),
        ("task", SESSION_EVENT),
    ]
    assert room.session_ids(rows) == [session]

    # -- the ACP process dies between turns: the next message starts one and loads the session
    state = adapter.rooms.room(room.id)
    assert state.process is not None and state.process.proc is not None
    state.process.proc.kill()
    await state.process.proc.wait()
    rows = await room.turn_or_load_refused("reply After the crash")
    if rows is not None:
        assert [plain(r["content"]) for r in rows if r["message_type"] == "text"] == [
            "After the crash"
        ]
        assert room.session_ids(rows) == [session]

    # -- the adapter restarts: the room's session event names the session it loads; no earlier
    # message runs again (the text-only one and a refused one told the room with an error card,
    # the interrupted one was interrupted by the person)
    await room.stop()
    adapter = await room.start()
    rows = await room.turn("reply After the restart")
    texts = [plain(r["content"]) for r in rows if r["message_type"] == "text"]
    assert texts == ["After the restart"]
    restored(room, model, rows, session, "reply After the restart", f"Hello from {name}")
    assert [c["args"].get("content") for c in tool_calls(rows)] == texts  # one call


def restored(
    room: Room,
    model: ScriptedModel,
    rows: list[dict[str, Any]],
    session: str,
    marker: str,
    *earlier: str,
) -> str:
    """The session the turn after an adapter restart ran in (its ``task`` event): the room's
    ``session``, loaded, for Claude Code always; for Gemini CLI 0.61.0 a load it refused
    sometimes (see ``turn_or_load_refused``), and then a new session given the room's messages
    as background. Either way the model saw ``earlier`` and no load replay reached the room."""
    (now,) = set(room.session_ids(rows))
    seen = prompts_seen(model, room, marker)
    assert seen
    if now != session:
        assert room.real.name == "gemini", "Claude Code loads its session after a restart"
        assert all("[Conversation History]" in b for b in seen)
    assert all(text in b for b in seen for text in earlier)
    return now


@pytest.mark.parametrize("name", ["claude", "gemini"])
def test_a_session_across_an_adapter_restart(
    plat: Live, model: ScriptedModel, tmp_path: Path, name: str
) -> None:
    """An adapter stopped the way ACP agents expect (stdin closed, time to exit, then a
    signal) and started again: Claude Code loads the room's session; Gemini CLI 0.61.0 loads it
    or refuses (its own race, the session file is written), and the room goes on."""
    real = real_agent(name, model, tmp_path / "home")
    room = Room(plat, real, tmp_path / "ws")

    async def main() -> None:
        await room.start()
        try:
            rows = await room.turn(f"reply Before the restart ({name})")
            [session] = room.session_ids(rows)
            await room.stop()
            await room.start()
            marker = f"reply After the restart ({name})"
            rows = await room.turn(marker)
            texts = [plain(r["content"]) for r in rows if r["message_type"] == "text"]
            assert texts == [f"After the restart ({name})"]
            now = restored(room, model, rows, session, marker, f"Before the restart ({name})")
            if name == "claude":
                assert now == session
        finally:
            await room.stop()
            await room.person.aclose()

    run(main(), timeout=900)


def forget_sessions(home: Path) -> list[Path]:
    """Delete Gemini CLI's recorded sessions under ``home`` (it then refuses their load)."""
    files = sorted((home / ".gemini" / "tmp").glob("*/chats/session-*"))
    for file in files:
        file.unlink()
    return files


@pytest.mark.parametrize("opt_in", [False, True], ids=["default", "new_session_on_refused_load"])
def test_gemini_refuses_a_lost_session(
    plat: Live, model: ScriptedModel, tmp_path: Path, opt_in: bool
) -> None:
    """Gemini CLI's process is killed and its session file is gone: it refuses the load
    ("No previous sessions found", JSON-RPC -32603). By default (the seed) the turn fails with
    its error and no new session, and so does every later message while the adapter runs; after
    a restart the room is answered in a new session given the room's messages. With
    ``new_session_on_refused_load`` that new session opens at once and the room goes on."""
    real = real_agent("gemini", model, tmp_path / "home")
    room = Room(plat, real, tmp_path / "ws")

    async def main() -> None:
        adapter = await room.start(new_session_on_refused_load=opt_in)
        try:
            rows = await room.turn("reply First answer")
            [session] = room.session_ids(rows)
            state = adapter.rooms.room(room.id)
            assert state.process is not None and state.process.proc is not None
            state.process.proc.kill()
            await state.process.proc.wait()
            assert forget_sessions(tmp_path / "home")
            if opt_in:
                rows = await room.turn("reply Second answer")
                [fresh] = room.session_ids(rows)
                assert fresh != session
                seen = prompts_seen(model, room, "reply Second answer")
                assert seen and all("[Conversation History]" in b for b in seen)
                assert all("First answer" in b for b in seen)
                rows = await room.turn("reply Third answer")  # the room goes on in it
                assert room.session_ids(rows) == [fresh]
                return
            for script in ("reply Second answer", "reply Third answer"):
                rows = await room.refused(script)
                assert not room.session_ids(rows)  # no new session replaced the room's
                assert not [r for r in rows if r["message_type"] == "text"]
            await room.stop()
            await room.start()
            rows = await room.turn("reply Fourth answer")
            texts = [plain(r["content"]) for r in rows if r["message_type"] == "text"]
            assert texts == ["Fourth answer"]  # the refused messages are not run again
            now = restored(room, model, rows, session, "reply Fourth answer", "First answer")
            assert now != session
        finally:
            await room.stop()
            await room.person.aclose()

    run(main(), timeout=900)


def test_claude_code_driven_by_acp_runtime(tmp_path: Path) -> None:
    """ACPRuntime with a real agent: Claude Code's text, its shell call and the call's output
    come back as collected chunks, in stream order."""
    from band.integrations.acp.client_runtime import ACPRuntime
    from band.testing import ModelRequest, ScriptedTurn, TextTurn, ToolTurn

    def respond(request: ModelRequest) -> ScriptedTurn:
        if "Bash" not in request.tool_names:
            return TextTurn("Band room")  # Claude Code's own side queries
        if any(role == "assistant" for role, _ in request.messages):
            return TextTurn("Done after the shell.")
        return ToolTurn(
            "Bash",
            {"command": "echo hi", "description": "Run a command"},
            text="Hello from the runtime.",
        )

    async def main(model: ScriptedModel) -> None:
        real = claude_code(model.base_url, tmp_path / "home", model.api_key)
        workspace = tmp_path / "ws"
        workspace.mkdir()
        runtime = ACPRuntime(command=real.command, env=real.env, cwd=str(workspace))
        await asyncio.wait_for(runtime.start(), TURN_S)
        try:
            sid = await runtime.create_session(cwd=str(workspace), mcp_servers=[])
            chunks = await asyncio.wait_for(
                runtime.prompt(session_id=sid, prompt_text="Run echo hi, please."), TURN_S
            )
        finally:
            await runtime.stop()
        kinds = [c.chunk_type for c in chunks]
        assert kinds == ["text", "tool_call", "tool_result", "text"], chunks
        text, call, result, last = chunks
        assert (text.content, last.content) == ("Hello from the runtime.", "Done after the shell.")
        assert call.metadata["raw_input"]["command"] == "echo hi"  # Claude Code's Bash input
        assert result.metadata["status"] == "completed" and result.content.strip() == "hi"
        assert (
            result.tool is call.tool and result.metadata["tool_call_id"] == call.tool.tool_call_id
        )

    with ScriptedModel(respond=respond) as model:
        run(main(model), timeout=3 * TURN_S)
