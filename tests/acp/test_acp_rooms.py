"""The per-room ACP process and session, driven directly with real scripted-agent processes.

Each test runs real agent processes over stdio and posts to the real local platform; the
Band MCP server and the runtime come in through the adapter tests.
"""

from __future__ import annotations

import asyncio
import json
import os
from collections.abc import Awaitable, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from acp.transports import DEFAULT_INHERITED_ENV_VARS
from acp_helpers import (
    PlatformSink,
    acp_rooms,
    agent_command,
    calls,
    room_events,
    room_rows,
    room_with,
    run,
)
from bandtest.platform import Live, live_platform

from band.client import RestClient
from band.integrations.acp.config import ACPClientAdapterConfig, ACPPermissionRequest
from band.integrations.acp.narration import INTERRUPTED_NOTE, SESSION_EVENT
from band.integrations.acp.rooms import ACPRooms, TurnRequest

Scenario = Callable[[ACPRooms, "Room"], Awaitable[None]]


@pytest.fixture(scope="module")
def live() -> Iterator[Live]:
    """One local platform for this module (each test registers its own agent and room)."""
    yield from live_platform()


class Room:
    """A room with the agent in it, and a sink per turn."""

    def __init__(self, live: Live, rest: RestClient, room_id: str, rooms: ACPRooms) -> None:
        self.live, self.rest, self.id, self.rooms = live, rest, room_id, rooms
        self.sinks: list[PlatformSink] = []

    async def turn(self, script: str, **request: Any) -> PlatformSink:
        sink = PlatformSink(self.rest, self.id)
        self.sinks.append(sink)
        await self.rooms.run_turn(self.id, sink, TurnRequest(f"[human]: [[{script}]]", **request))
        return sink

    @property
    def workspace(self) -> str:
        return self.rooms.room(self.id).workspace

    def events(self) -> list[tuple[str, str]]:
        return room_events(self.live, self.id)


def scenario(
    live: Live,
    tmp_path: Path,
    body: Scenario,
    *flags: str,
    rooms_kw: dict[str, Any] | None = None,
    **cfg: Any,
) -> None:
    """Run ``body`` with an agent registered in a fresh room and ACPRooms for its agent."""
    agent_id, _, key = live.register("Coder")
    room_id = room_with(live, agent_id)
    config = ACPClientAdapterConfig(command=agent_command(*flags), **cfg)

    async def main() -> None:
        rooms = acp_rooms(config, tmp_path, servers=config.mcp_servers, **(rooms_kw or {}))
        async with RestClient(key, live.rest) as rest:
            try:
                await body(rooms, Room(live, rest, room_id, rooms))
            finally:
                await rooms.close_all()

    run(main())


def session_event_ids(room: Room) -> list[str]:
    return [
        r["metadata"]["acp_client_session_id"]
        for r in room_rows(room.live, room.id)
        if r["message_type"] == "task" and r["content"] == SESSION_EVENT
    ]


# -- output mapping --------------------------------------------------------------------------


def test_thoughts_plan_and_held_text_then_session_event(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think Let me; think  look.; plan read|write; say Done; say  here.")
        assert sink.failures == []
        assert room.events() == [
            ("thought", "Let me look."),  # consecutive chunks coalesce into one event
            ("task", "[pending] read\n[pending] write"),
            ("thought", "Done here."),  # held text, posted as a thought: no tool replied
            ("task", SESSION_EVENT),
        ]
        rows = room_rows(room.live, room.id)
        assert rows[1]["metadata"]["plan"][0] == {
            "content": "read",
            "status": "pending",
            "priority": "medium",
        }
        meta = rows[-1]["metadata"]
        assert meta["acp_client_session_id"] == rooms.room(room.id).session_id
        assert meta["acp_client_room_id"] == room.id
        assert not any(t == "text" for t, _ in room.events())  # never posted as a message

    scenario(live, tmp_path, body)


def test_emit_kinds_gate_narration_but_not_the_session_event(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hidden; plan a; report band_get_participants {}; say held")
        assert room.events() == [("task", SESSION_EVENT)]

    scenario(live, tmp_path, body, rooms_kw={"emit": ()})


def test_reported_tool_calls_become_json_tool_events(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn('report band_get_participants {"page": 1}')
        events = room.events()
        assert [t for t, _ in events] == ["tool_call", "tool_result", "task"]
        call, result = json.loads(events[0][1]), json.loads(events[1][1])
        assert call["name"] == "band_get_participants" and call["args"] == {"page": 1}
        assert result == {
            "name": "band_get_participants",
            "output": "ok",
            "tool_call_id": call["tool_call_id"],
            "is_error": False,
        }

    scenario(live, tmp_path, body)


# -- process: environment, stderr, workspace ---------------------------------------------------


def test_child_environment_is_the_allowlist_plus_env(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BAND_TEST_SECRET", "must-not-leak")
    monkeypatch.setenv("OPENAI_API_KEY", "must-not-leak")

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("env")
        names = set(json.loads(room.events()[0][1]))
        allowed = {n for n in DEFAULT_INHERITED_ENV_VARS if os.environ.get(n)}
        assert allowed == {
            n for n in ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER") if n in os.environ
        }
        # LC_CTYPE is added by the child's Python itself (PEP 538), not inherited
        assert names - {"LC_CTYPE"} == allowed | {"AGENT_TOKEN"}

    scenario(live, tmp_path, body, env={"AGENT_TOKEN": "t0k"})


def test_process_runs_in_the_room_workspace_and_stderr_is_drained(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        # 4 MB of stderr (half of it one line) would block an undrained pipe (64 KiB) long
        # before the turn ends
        sink = await room.turn("stderr 4000000; think survived")
        assert sink.failures == []
        assert room.events()[0] == ("thought", "survived")
        assert room.workspace == str((tmp_path / "ws" / room.id).resolve())
        assert [c["method"] for c in calls(room.workspace)][:2] == ["initialize", "new_session"]
        assert calls(room.workspace)[1]["cwd"] == room.workspace

    scenario(live, tmp_path, body)


def test_one_process_per_room_started_on_first_turn(live: Live, tmp_path: Path) -> None:
    agent_id, _, key = live.register("Coder")
    room_id = room_with(live, agent_id)
    config = ACPClientAdapterConfig(command=agent_command())

    async def main() -> None:
        rooms = acp_rooms(config, tmp_path)
        async with RestClient(key, live.rest) as rest:
            room = Room(live, rest, room_id, rooms)
            try:
                for script in ("think one", "think two"):
                    sink = PlatformSink(rest, room_id)
                    request = TurnRequest(f"[human]: [[{script}]]", system_context="SYSTEM CONTEXT")
                    if script == "think one":
                        assert rooms.rooms == {}
                    await rooms.run_turn(room_id, sink, request)
                    if script == "think one":
                        first = rooms.room(room_id).process
                        assert first is not None and first.alive
                assert rooms.room(room_id).process is first
                methods = [c["method"] for c in calls(room.workspace)]
                assert methods == ["initialize", "new_session", "prompt", "prompt"]
                prompts = [c["text"] for c in calls(room.workspace) if c["method"] == "prompt"]
                assert prompts[0].startswith("SYSTEM CONTEXT")
                assert "SYSTEM CONTEXT" not in prompts[1]
            finally:
                await rooms.close_all()
        assert first.proc is not None and first.proc.returncode is not None  # stopped

    run(main())


# -- timeout, errors, crash, busy --------------------------------------------------------------


def test_turn_timeout_posts_error_stops_process_and_keeps_session(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think first")
        state = rooms.room(room.id)
        session, process = state.session_id, state.process
        assert process is not None
        sink = await room.turn("sleep 30")
        assert [f.message for f in sink.failures] == ["ACP agent response timed out after 0.5s"]
        assert room.events()[-1] == ("error", "ACP agent response timed out after 0.5s")
        assert process.proc is not None and process.proc.returncode is not None  # stopped
        assert state.process is None
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods[-1] == "cancel"  # session/cancel was sent before the stop
        # the next message starts a new process and loads exactly the kept session
        sink = await room.turn("think back")
        assert sink.failures == []
        assert state.session_id == session and state.process is not process
        loads = [c for c in calls(room.workspace) if c["method"] == "load_session"]
        assert [c["session_id"] for c in loads] == [session]
        assert room.events()[-2:] == [("thought", "back"), ("task", SESSION_EVENT)]

    scenario(live, tmp_path, body, turn_timeout_s=0.5)


def test_jsonrpc_error_is_posted_and_process_restarts(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hello")
        state = rooms.room(room.id)
        session = state.session_id
        sink = await room.turn("error -32603 Model exploded")
        assert [f.message for f in sink.failures] == ["Model exploded"]
        assert sink.turn.failure == "Model exploded"  # the runtime marks the message failed
        assert room.events()[-1] == ("error", "Model exploded")
        assert state.process is None  # stopped; the session id is kept
        await room.turn("think again")
        assert state.session_id == session
        assert [c["method"] for c in calls(room.workspace)].count("initialize") == 2

    scenario(live, tmp_path, body)


def test_crash_posts_generic_error_then_recovers(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hello")
        session = rooms.room(room.id).session_id
        before = len(room.events())
        sink = await room.turn("crash")
        assert [f.message for f in sink.failures] == [
            "Internal error while processing message; see agent logs."
        ]
        assert sink.turn.failure == sink.failures[0].message
        # the failed turn posts the error and no session event
        assert room.events()[before:] == [
            ("error", "Internal error while processing message; see agent logs.")
        ]
        assert rooms.room(room.id).process is None
        sink = await room.turn("think recovered")
        assert sink.failures == [] and rooms.room(room.id).session_id == session

    scenario(live, tmp_path, body)


def test_session_busy_is_retried_and_posts_nothing(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("busy-once t1; think finally")
        assert sink.failures == []
        assert room.events() == [("thought", "finally"), ("task", SESSION_EVENT)]
        prompts = [c for c in calls(room.workspace) if c["method"] == "prompt"]
        assert len(prompts) == 2  # refused once with -32003, accepted on the retry

    scenario(live, tmp_path, body)


def test_concurrent_prompt_from_elsewhere_is_busy_then_retried(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think warm")
        state = rooms.room(room.id)
        assert state.process is not None and state.session_id is not None
        conn, sid = state.process.conn, state.session_id
        # another client of the same agent session keeps it busy for a moment
        from acp import text_block

        other = asyncio.create_task(
            conn.prompt(session_id=sid, prompt=[text_block("[[sleep 0.6]]")])
        )
        await asyncio.sleep(0.2)
        sink = await room.turn("think after busy")
        await other
        assert sink.failures == []
        assert room.events()[-2:] == [("thought", "after busy"), ("task", SESSION_EVENT)]
        assert not any(t == "error" for t, _ in room.events())

    scenario(live, tmp_path, body)


# -- stop ----------------------------------------------------------------------------------------


def test_stop_turn_sends_session_cancel(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        turn = asyncio.create_task(room.turn("think working; sleep 30; think never"))
        while (
            not rooms.rooms
            or not rooms.room(room.id).running
            or not any(c["method"] == "prompt" for c in calls(room.workspace))
        ):
            await asyncio.sleep(0.05)
        await asyncio.sleep(0.2)
        await rooms.stop_turn(room.id)
        sink = await asyncio.wait_for(turn, 10)
        assert sink.failures == []  # a cancelled stop reason is no error
        assert calls(room.workspace)[-1]["method"] == "cancel"
        assert ("thought", "never") not in room.events()

    scenario(live, tmp_path, body)


def test_cancelled_turn_task_sends_session_cancel(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        turn = asyncio.create_task(room.turn("sleep 30"))
        while (
            not any(c["method"] == "prompt" for c in calls(room.workspace)) if rooms.rooms else True
        ):
            await asyncio.sleep(0.05)
        turn.cancel()
        with pytest.raises(asyncio.CancelledError):
            await turn
        await asyncio.sleep(0.2)
        assert calls(room.workspace)[-1]["method"] == "cancel"

    scenario(live, tmp_path, body)


# -- sessions: load after restart, refused load, no loadSession ---------------------------------


def test_restart_loads_the_session_named_in_room_history(live: Live, tmp_path: Path) -> None:
    agent_id, _, key = live.register("Coder")
    room_id = room_with(live, agent_id)
    config = ACPClientAdapterConfig(command=agent_command())

    def fresh() -> ACPRooms:
        return acp_rooms(config, tmp_path)

    async def main() -> None:
        async with RestClient(key, live.rest) as rest:
            first = fresh()
            room = Room(live, rest, room_id, first)
            await room.turn("think before restart")
            await first.close_all()
            session = session_event_ids(room)[-1]
            # a new adapter (a restart) finds the session in the room's last session event
            second = fresh()
            room = Room(live, rest, room_id, second)
            replay_asked = []

            async def replay() -> list[str]:
                replay_asked.append(True)
                return ["[human]: earlier"]

            sink = await room.turn("think after restart", resume_session_id=session, replay=replay)
            assert second.room(room_id).session_id == session
            await second.close_all()
        assert sink.failures == []
        assert replay_asked == []  # a loaded session needs no replay
        # the load replayed a user and an agent chunk: neither reached the room
        assert room.events()[-2:] == [("thought", "after restart"), ("task", SESSION_EVENT)]
        assert ("thought", "(replayed)") not in room.events()

    run(main())


def test_unknown_history_session_falls_back_to_new_session_with_replay(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        async def replay() -> list[str]:
            return ["[human]: [[crash]] earlier request", "[Coder]: earlier answer"]

        sink = await room.turn("think fresh", resume_session_id="sess-gone", replay=replay)
        assert sink.failures == []
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods == ["initialize", "load_session", "new_session", "prompt"]
        prompt = calls(room.workspace)[-1]["text"]
        assert "[Conversation History]" in prompt and "read-only background" in prompt
        marker = prompt.split("Answer the new message under ")[1].split(".")[0]
        assert marker.startswith("[New Message ")
        assert prompt.endswith(f"{marker}\n[human]: [[think fresh]]")

    scenario(live, tmp_path, body)


def test_refused_load_of_kept_session_fails_turn_without_new_session(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hello")
        session = rooms.room(room.id).session_id
        await room.turn("crash")
        Path(room.workspace, "sessions.json").write_text("{}")  # the agent forgot the session
        sink = await room.turn("think never")
        assert [f.message for f in sink.failures] == ["Resource not found"]
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods.count("new_session") == 1  # no silent new session
        assert rooms.room(room.id).session_id == session

    scenario(live, tmp_path, body)


def test_agent_without_load_session_gets_new_session_and_replay(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hello")
        await room.turn("crash")

        async def replay() -> list[str]:
            return ["[human]: hello"]

        sink = await room.turn("think again", replay=replay, resume_session_id="anything")
        assert sink.failures == []
        methods = [c["method"] for c in calls(room.workspace)]
        assert "load_session" not in methods and methods.count("new_session") == 2
        assert "[Conversation History]" in calls(room.workspace)[-1]["text"]

    scenario(live, tmp_path, body, "--no-load")


# -- authentication ------------------------------------------------------------------------------


def test_auth_method_authenticates_after_initialize(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think in")
        assert sink.failures == []
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods[:3] == ["initialize", "authenticate", "new_session"]
        assert calls(room.workspace)[1]["method_id"] == "cursor_login"

    scenario(live, tmp_path, body, "--auth=cursor_login", auth_method="cursor_login")


def test_missing_authentication_surfaces_the_agent_error(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think in")
        assert [f.message for f in sink.failures] == ["Authentication required"]
        assert room.events() == [("error", "Authentication required")]

    scenario(live, tmp_path, body, "--auth=cursor_login")


# -- permissions ---------------------------------------------------------------------------------


def test_default_permission_is_least_privilege_allow(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("permission")
        assert room.events()[0] == ("thought", "permission: once")  # allow_once before allow_always

    scenario(live, tmp_path, body)


def test_permission_without_allow_option_is_cancelled_with_a_pair(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("permission-deny")
        events = room.events()
        assert [t for t, _ in events] == ["tool_call", "tool_result", "thought", "task"]
        call, result = json.loads(events[0][1]), json.loads(events[1][1])
        assert call["name"] == "rm -rf build" and call["args"] == {"command": "rm -rf build"}
        assert result["output"] == "Permission cancelled" and result["is_error"] is True
        assert events[2] == ("thought", "permission: cancelled")

    scenario(live, tmp_path, body)


def test_resolve_permission_picks_an_offered_option(live: Live, tmp_path: Path) -> None:
    seen: list[ACPPermissionRequest] = []

    async def resolver(request: ACPPermissionRequest) -> str | None:
        seen.append(request)
        return "always"

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("permission")
        assert room.events()[0] == ("thought", "permission: always")
        (request,) = seen
        assert request.room_id == room.id and request.session_id == rooms.room(room.id).session_id
        assert [o.option_id for o in request.options] == ["always", "once", "reject"]
        assert request.tool_call.title == "rm -rf build"

    scenario(live, tmp_path, body, rooms_kw={"resolve_permission": resolver})


def test_resolve_permission_none_cancels(live: Live, tmp_path: Path) -> None:
    async def resolver(request: ACPPermissionRequest) -> str | None:
        return None

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("permission")
        events = room.events()
        assert json.loads(events[1][1])["output"] == "Permission cancelled"
        assert events[2] == ("thought", "permission: cancelled")

    scenario(live, tmp_path, body, rooms_kw={"resolve_permission": resolver})


def test_resolve_permission_unavailable_option_raises_value_error(
    live: Live, tmp_path: Path
) -> None:
    async def resolver(request: ACPPermissionRequest) -> str | None:
        return "yolo"

    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("permission")
        text = 'ACP permission resolver selected unavailable option "yolo".'
        assert [f.message for f in sink.failures] == [text]
        assert room.events()[-1] == ("error", text)

    scenario(live, tmp_path, body, rooms_kw={"resolve_permission": resolver})


# -- session configuration ----------------------------------------------------------------------


def test_model_then_reasoning_effort_are_set(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think configured")
        assert sink.failures == []
        sets = [
            (c["config_id"], c["value"])
            for c in calls(room.workspace)
            if c["method"] == "set_config_option"
        ]
        # "high" exists only once the model is "smart": the effort is found in the new catalog
        assert sets == [("model", "smart"), ("effort", "high")]

    scenario(live, tmp_path, body, model="smart", reasoning_effort="high")


@pytest.mark.parametrize(
    ("cfg", "needle"),
    [
        ({"model": "gpt-9"}, 'model "gpt-9" is not advertised; available: fast, smart, huge'),
        (
            {"model": "fast", "reasoning_effort": "max"},
            'reasoning effort "max" is not advertised for model "fast"; available: low',
        ),
    ],
)
def test_unoffered_value_fails_the_turn(
    live: Live, tmp_path: Path, cfg: dict[str, str], needle: str
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think never")
        (failure,) = sink.failures
        assert failure.message.startswith("ACP session configuration failed: ")
        assert needle in failure.message
        assert room.events() == [("error", failure.message)]
        assert not any(c["method"] == "prompt" for c in calls(room.workspace))

    scenario(live, tmp_path, body, **cfg)


def test_resolve_session_config_gets_the_catalog(live: Live, tmp_path: Path) -> None:
    from band.integrations.acp.config import ACPConfigRequest
    from band.integrations.acp.config_options import flatten_select_options

    seen: list[ACPConfigRequest] = []

    async def choose(request: ACPConfigRequest) -> dict[str, str | None]:
        seen.append(request)
        model = next(o for o in request.config_options if o.id == "model")
        values = [e.value for e in flatten_select_options(model.options)]  # type: ignore[union-attr]
        return {"model": values[-1], "effort": None}

    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think chosen")
        assert sink.failures == []
        (request,) = seen
        assert request.room_id == room.id and request.session_id == rooms.room(room.id).session_id
        sets = [
            (c["config_id"], c["value"])
            for c in calls(room.workspace)
            if c["method"] == "set_config_option"
        ]
        assert sets == [("model", "huge")]

    scenario(live, tmp_path, body, rooms_kw={"resolve_session_config": choose})


# -- bounds ---------------------------------------------------------------------------------------


def test_cancel_write_is_bounded(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """A cancel whose write never completes is abandoned after CANCEL_TIMEOUT_S."""
    import time

    from band.integrations.acp import process as process_mod
    from band.integrations.acp.client import RoomClient

    monkeypatch.setattr(process_mod, "CANCEL_TIMEOUT_S", 0.2)

    class StuckConn:
        async def cancel(self, session_id: str) -> None:
            await asyncio.sleep(3600)

    async def main() -> float:
        proc = process_mod.ACPRoomProcess(
            "r", agent_command(), client=RoomClient("r"), workspace=str(tmp_path)
        )
        await proc.start()
        try:
            real = proc.conn
            proc.conn = StuckConn()
            started = time.monotonic()
            await proc.cancel("s")
            elapsed = time.monotonic() - started
            proc.conn = real
        finally:
            await proc.stop()
        assert proc.proc is not None and proc.proc.returncode is not None
        return elapsed

    assert run(main()) < 2.0


def test_resolve_session_config_is_bounded(
    live: Live, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from band.integrations.acp import config_options

    monkeypatch.setattr(config_options, "CONFIG_TIMEOUT_S", 0.3)

    async def slow(request: Any) -> dict[str, str]:
        await asyncio.sleep(30)
        return {}

    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn("think never")
        (failure,) = sink.failures
        assert failure.message.startswith("ACP session configuration failed: ")
        assert "did not answer within 0.3s" in failure.message

    scenario(live, tmp_path, body, rooms_kw={"resolve_session_config": slow})


@pytest.mark.parametrize("reason", ["max_tokens", "max_turn_requests", "refusal"])
def test_other_stop_reasons_are_no_error(live: Live, tmp_path: Path, reason: str) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        sink = await room.turn(f"say partial; stop {reason}")
        assert sink.failures == []
        assert room.events() == [("thought", "partial"), ("task", SESSION_EVENT)]

    scenario(live, tmp_path, body)


def test_config_failure_on_a_loaded_session_keeps_it_for_a_fresh_process(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think configured")
        state = rooms.room(room.id)
        session = state.session_id
        await room.turn("crash")
        # a model the agent does not offer: the reload succeeds, the configuration fails
        rooms.config = rooms.config.model_copy(update={"model": "gone"})
        sink = await room.turn("think never")
        assert sink.failures[0].message.startswith("ACP session configuration failed: ")
        assert state.session_id == session and state.process is None
        rooms.config = rooms.config.model_copy(update={"model": "smart"})
        sink = await room.turn("think back")
        assert sink.failures == [] and state.session_id == session
        loads = [c["session_id"] for c in calls(room.workspace) if c["method"] == "load_session"]
        assert loads == [session, session]

    scenario(live, tmp_path, body, model="smart")


def test_stderr_tail_is_kept_for_the_failure_log(live: Live, tmp_path: Path) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("stderr 300000; think warm")
        process = rooms.room(room.id).process
        assert process is not None
        await asyncio.sleep(0.2)
        tail = list(process.stderr_tail)
        assert 0 < len(tail) <= 20 and set(tail[-1]) == {"y"}
        assert all(len(line) <= 2000 for line in tail)  # an endless line is cut, not kept whole

    scenario(live, tmp_path, body)


def test_stop_answers_a_pending_permission_request_cancelled(live: Live, tmp_path: Path) -> None:
    asked = asyncio.Event()

    async def undecided(request: ACPPermissionRequest) -> str | None:
        asked.set()
        await asyncio.sleep(3600)  # a person who never answers
        return "once"

    async def body(rooms: ACPRooms, room: Room) -> None:
        turn = asyncio.create_task(room.turn("permission; say after"))
        await asyncio.wait_for(asked.wait(), 30)
        await rooms.stop_turn(room.id)
        sink = await asyncio.wait_for(turn, 10)
        assert sink.failures == []
        events = room.events()
        assert ("thought", "permission: cancelled") in events
        assert json.loads(events[1][1])["output"] == "Permission cancelled"
        assert calls(room.workspace)[-1]["method"] == "cancel"

    scenario(live, tmp_path, body, rooms_kw={"resolve_permission": undecided})


# -- what the real agents showed (test_acp_real_agents.py), reproduced with the scripted agent --


def test_replay_sent_after_load_never_reaches_the_room(live: Live, tmp_path: Path) -> None:
    """Gemini CLI replays a loaded session after answering ``session/load``."""

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think first")
        state = rooms.room(room.id)
        assert state.process is not None and state.process.proc is not None
        state.process.proc.kill()  # the next turn starts a process and loads the session
        await state.process.proc.wait()
        await room.turn("think second")
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods.count("load_session") == 1
        assert room.events() == [
            ("thought", "first"),
            ("task", SESSION_EVENT),
            ("thought", "second"),  # no replayed thought, tool call or text
            ("task", SESSION_EVENT),
        ]

    scenario(live, tmp_path, body, "--replay-after-load")


def test_interrupt_cancels_once_and_posts_what_the_turn_streamed(
    live: Live, tmp_path: Path
) -> None:
    """The runtime cancels the turn task and calls ``on_interrupt``: one ``session/cancel``."""

    async def body(rooms: ACPRooms, room: Room) -> None:
        turn = asyncio.create_task(room.turn("think working; say partial; sleep 30; say never"))

        def streamed() -> bool:
            state = rooms.rooms.get(room.id)
            narrator = state.client.narrator if state and state.client else None
            return narrator is not None and narrator.held_text == "partial"

        while not streamed():
            await asyncio.sleep(0.02)
        turn.cancel()  # what the runtime's interrupt does, then the adapter's on_interrupt
        await rooms.stop_turn(room.id)
        with pytest.raises(asyncio.CancelledError):
            await turn
        assert room.events() == [
            ("thought", "working"),
            ("thought", "partial"),  # the held text, as a completed turn posts it
            ("task", INTERRUPTED_NOTE),
            ("task", SESSION_EVENT),
        ]
        await room.turn("think next")  # the agent reads in order: any second cancel came first
        assert [c["method"] for c in calls(room.workspace)].count("cancel") == 1

    scenario(live, tmp_path, body)


def test_a_second_announcement_of_a_call_completes_the_first(live: Live, tmp_path: Path) -> None:
    """Claude Code announces a call with ``{}`` and again, same id, with its input."""

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn('think go; announce-twice Bash {"command": "ls"}; say done')
        calls_posted = [json.loads(c) for k, c in room.events() if k == "tool_call"]
        assert [(c["name"], c["args"]) for c in calls_posted] == [("Bash", {"command": "ls"})]
        assert [k for k, _ in room.events()] == [
            "thought",
            "tool_call",
            "tool_result",
            "thought",
            "task",
        ]

    scenario(live, tmp_path, body)


async def _session_lost(rooms: ACPRooms, room: Room) -> str | None:
    """A turn, a crash of the process, and the agent forgetting the room's session."""
    await room.turn("think hello")
    session = rooms.room(room.id).session_id
    await room.turn("crash")
    Path(room.workspace, "sessions.json").write_text("{}")
    return session


def test_after_a_refused_load_every_later_turn_fails_by_default(live: Live, tmp_path: Path) -> None:
    """The seed's rule makes a dead room of an agent that lost its session: each later message
    tries the same load and fails (``new_session_on_refused_load`` is the way out)."""

    async def body(rooms: ACPRooms, room: Room) -> None:
        await _session_lost(rooms, room)
        for later in ("think first", "think second"):
            sink = await room.turn(later)
            assert [f.message for f in sink.failures] == ["Resource not found"]
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods.count("new_session") == 1
        assert ("thought", "second") not in room.events()

    scenario(live, tmp_path, body)


def test_opt_in_opens_a_new_session_with_the_replay_after_a_refused_load(
    live: Live, tmp_path: Path
) -> None:
    async def body(rooms: ACPRooms, room: Room) -> None:
        session = await _session_lost(rooms, room)

        async def replay() -> list[str]:
            return ["[human]: hello"]

        sink = await room.turn("think again", replay=replay)
        assert sink.failures == []
        assert rooms.room(room.id).session_id not in (None, session)
        methods = [c["method"] for c in calls(room.workspace)]
        assert methods.count("load_session") == 1 and methods.count("new_session") == 2
        prompt = calls(room.workspace)[-1]["text"]
        assert "[Conversation History]" in prompt and "[human]: hello" in prompt
        assert ("thought", "again") in room.events()
        later = await room.turn("think later")  # the room goes on in its new session
        assert later.failures == []

    scenario(live, tmp_path, body, new_session_on_refused_load=True)


def test_a_stopped_agent_gets_time_to_exit_on_its_own(live: Live, tmp_path: Path) -> None:
    """Stopping a room's process closes its stdin and waits before any signal: an agent that
    takes 3 s to save its sessions on the way out (past the ACP SDK's 2 s) exits on its own."""

    async def body(rooms: ACPRooms, room: Room) -> None:
        await room.turn("think hello")
        process, workspace = rooms.room(room.id).process, room.workspace
        assert process is not None and process.proc is not None
        await rooms.close_room(room.id)
        assert process.proc.returncode == 0  # not -15 (SIGTERM) or -9 (SIGKILL)
        assert Path(workspace, "exited.json").exists()

    scenario(live, tmp_path, body, "--slow-exit=3")


def test_session_state_from_the_rooms_history(live: Live, tmp_path: Path) -> None:
    """ACPClientSessionState read from the platform's rows (directly and by band-sdk's
    ACPClientHistoryConverter): the session event's room and session, and the text messages
    as replay lines."""
    from bandtest.platform import say

    from band.converters import ACPClientHistoryConverter
    from band.integrations.acp import ACPClientSessionState

    async def body(rooms: ACPRooms, room: Room) -> None:
        say(live, room.id, "hi there")
        await room.turn("say ok")
        rows = room_rows(room.live, room.id)
        state = ACPClientSessionState.from_history(rows, room.id)
        assert state.room_to_session == {room.id: rooms.room(room.id).session_id}
        (line,) = state.replay_messages
        assert line.endswith("]: hi there")
        # band-sdk's converter over the same rows gives the same state
        converted = ACPClientHistoryConverter().convert(rows)
        assert converted.room_to_session == state.room_to_session
        assert converted.replay_messages == state.replay_messages

    scenario(live, tmp_path, body)
