"""The event loop an agent script runs on (``Agent.run_sync``): uvloop when installed, asyncio's
own loop with ``BAND_UVLOOP=0`` or without uvloop; on each, one message is answered once."""

from __future__ import annotations

import os

import pytest
from bandtest.agents import plain
from bandtest.platform import Live, room_with, say
from bandtest.process import script_talk

#: A script that runs an echo agent with ``Agent.run_sync()`` in a fresh interpreter; its turn
#: prints the running loop's module and asks the agent to stop. ``argv[5] == "hide"`` makes
#: uvloop unimportable first, as on an install without the extra.
AGENT = """
import asyncio, sys
if sys.argv[5] == "hide":
    sys.modules["uvloop"] = None  # import uvloop now raises ImportError
from band import Agent
from band.core import SimpleAdapter

class Echo(SimpleAdapter):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])
        print("loop", type(asyncio.get_running_loop()).__module__.split(".")[0], flush=True)
        agent.request_stop()

agent = Agent.create(adapter=Echo(), agent_id=sys.argv[1], api_key=sys.argv[2],
                     rest_url=sys.argv[3], ws_url=sys.argv[4])
agent.run_sync(shutdown_timeout=30)
print("stopped", flush=True)
"""


def _uvloop_installed() -> bool:
    try:
        import uvloop  # noqa: F401
    except ImportError:
        return False
    return True


@pytest.mark.parametrize(
    ("switch", "hide", "expected"),
    [
        pytest.param(None, False, "uvloop", id="uvloop-installed"),
        pytest.param("0", False, "asyncio", id="switched-off"),
        pytest.param(None, True, "asyncio", id="without-uvloop"),
    ],
)
def test_an_agent_run_sync_answers_once_on_the_loop_it_picked(
    live: Live, switch: str | None, hide: bool, expected: str
) -> None:
    if expected == "uvloop":
        # the dev install (make install) has the uvloop extra: its absence is a broken setup
        assert _uvloop_installed(), "uvloop is missing: pip install '.[uvloop]'"
    agent_id, _handle, key = live.register("Loop")
    room = room_with(live, agent_id)
    env = {k: v for k, v in os.environ.items() if k != "BAND_UVLOOP"}
    if switch is not None:
        env["BAND_UVLOOP"] = switch
    argv = [agent_id, key, live.rest, live.ws, "hide" if hide else "keep"]
    out, err = script_talk(AGENT, argv, lambda _proc: say(live, room, "hello", agent_id), env=env)
    assert out == f"loop {expected}\nstopped\n", err
    rows = live.human("GET", f"/api/v1/me/chats/{room}/messages").json()["data"]
    replies = [plain(m["content"]) for m in rows if m["sender_id"] == agent_id]
    assert replies == ["echo: hello"]
    # processed, so a restart would not answer it again
    (mine,) = [m for m in rows if m["sender_id"] != agent_id]
    assert mine["metadata"]["delivery_status"][agent_id]["status"] == "processed"
