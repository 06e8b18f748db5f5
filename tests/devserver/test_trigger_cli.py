"""``band-trigger`` (band-sdk's automation command) as installed, on band dev: a room with the
target, the message to it, the room's id on stdout; beside band-sdk 6.0.1's own command."""

from __future__ import annotations

import asyncio
import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bandtest.agents import fast_agent, plain, wait_for
from bandtest.platform import Live
from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

from band.core import SimpleAdapter

OURS = Path(sys.executable).with_name("band-trigger")


class Echo(SimpleAdapter[Any]):
    """Answers ``echo: <text>``."""

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):  # type: ignore[no-untyped-def]
        await tools.send_message(f"echo: {plain(msg.content)}", mentions=[msg.sender_id])


def trigger(command: Path, key: str, live: Live, *args: str) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with ``key`` and the platform in its environment (nothing else)."""
    env = {"PATH": os.environ.get("PATH", ""), "BAND_API_KEY": key, "BAND_REST_URL": live.rest}
    return subprocess.run(
        [str(command), *args], capture_output=True, text=True, timeout=120, env=env, cwd="/"
    )


def room_of(live: Live, key: str, room: str) -> tuple[list[tuple[str, str]], list[Any]]:
    """The room's participants (name, role) and its messages (text, mentioned handles)."""
    base = f"/api/v1/agent/chats/{room}"
    people = live.agent(key, "GET", f"{base}/participants").json()["data"]
    rows = live.agent(key, "GET", f"{base}/messages", params={"status": "all"}).json()["data"]
    said = [(plain(m["content"]), [x["handle"] for x in m["metadata"]["mentions"]]) for m in rows]
    return sorted((p["name"], p["role"]) for p in people), said


def answers(live: Live, key: str, room: str) -> list[str]:
    """What the agent with ``key`` said in the room (its ``/context`` rows of its own)."""
    me = live.agent(key, "GET", "/api/v1/agent/me").json()["data"]["id"]
    rows = live.agent(key, "GET", f"/api/v1/agent/chats/{room}/context").json()["data"]
    return [plain(r["content"]) for r in rows if r["sender_id"] == me]


def test_a_trigger_opens_a_room_the_target_answers_in(live: Live) -> None:
    """As the agent and as the person: the room's id on stdout, the target added, the
    message mentioning it, and the target (a running agent) answers it there."""
    _, _, caller_key = live.register("Caller")
    target, handle, target_key = live.register("Target")

    rooms: list[str] = []

    async def scenario() -> None:
        async with fast_agent(live, Echo(), target, target_key):
            for key, mode in ((caller_key, "agent"), (live.user_key, "user")):
                done = await asyncio.to_thread(
                    trigger, OURS, key, live, "--auth-mode", mode,
                    "--target-handle", handle.upper(), "--message", f"report as {mode}",
                )  # fmt: skip
                assert done.returncode == 0, done.stderr
                room = done.stdout.strip()
                assert done.stdout == room + "\n"  # the id alone: the logs went to stderr
                rooms.append(room)
                said = functools.partial(asyncio.to_thread, answers, live, target_key, room)
                await wait_for(said)
                assert await said() == [f"echo: report as {mode}"]

    asyncio.run(scenario())
    as_agent, as_person = (room_of(live, target_key, room) for room in rooms)
    assert as_agent[0] == [("Caller", "owner"), ("Target", "member")]
    assert ("Target", "member") in as_person[0] and len(as_person[0]) == 2
    assert as_agent[1][0] == ("report as agent", [handle])


def test_a_trigger_that_cannot_finish_says_why_on_stderr(live: Live) -> None:
    _, _, key = live.register("Caller")
    for args, error in (
        (("--target-handle", "@nobody/x", "--message", "hi"), "Error: no peer with the handle"),
        (("--target-handle", "@local/x"), "Error: --message is required (or set BAND_MESSAGE)"),
    ):
        done = trigger(OURS, key, live, *args)
        assert done.returncode == 1 and done.stdout == ""
        assert done.stderr.strip().splitlines()[-1].startswith(error), done.stderr
    refused = trigger(OURS, "not-a-key", live, "--target-handle", "@a/b", "--message", "hi")
    assert refused.returncode == 1 and refused.stdout == ""
    assert "Error: could not list the peers" in refused.stderr
    assert "not-a-key" not in refused.stderr  # the key is never printed


@requires_refsdk
def test_ours_leaves_the_room_band_sdk_leaves(live: Live) -> None:
    """The same trigger by both commands: the same participants and message, the same exit
    codes and streams on success and for an unknown handle."""
    _, _, key = live.register("Caller")
    _, handle, target_key = live.register("Target")
    theirs = Path(REFSDK_PYTHON).with_name("band-trigger")
    rooms = []
    for command in (OURS, theirs):
        done = trigger(command, key, live, "--target-handle", handle, "--message", "daily run")
        assert done.returncode == 0, done.stderr
        rooms.append(room_of(live, target_key, done.stdout.strip()))
        missing = trigger(command, key, live, "--target-handle", "@no/one", "--message", "x")
        assert missing.returncode == 1 and missing.stdout == "" and "Error: " in missing.stderr
    assert rooms[0] == rooms[1]
    assert rooms[0][1] == [("daily run", [handle])]
