"""An agent loads only what it uses: no httpx, YAML reader or pydantic-settings for an agent
given its credentials, talking to a plain-HTTP platform (issue 54: idle agent memory)."""

from __future__ import annotations

import subprocess

from bandtest.platform import Live, room_with, say
from bandtest.process import python_ok, script_talk

#: Started on the live platform in a fresh interpreter (-I: the installed package); it answers
#: one message, then prints which of the modules it must not need were imported.
AGENT = """
import asyncio, sys
from band import Agent
from band.core import SimpleAdapter

class Echo(SimpleAdapter):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])
        answered.set()

async def main():
    global answered
    answered = asyncio.Event()
    agent = Agent.create(adapter=Echo(), agent_id=sys.argv[1], api_key=sys.argv[2],
                         rest_url=sys.argv[3], ws_url=sys.argv[4])
    async with agent:
        print("started", flush=True)
        await asyncio.wait_for(answered.wait(), 60)
        me = await agent.runtime.rest.request("GET", "/agent/me")
    unneeded = {"httpx", "yaml", "pydantic_settings", "dotenv"} & set(sys.modules)
    print(me.status_code, sorted(unneeded))

asyncio.run(main())
"""


def test_an_echo_agent_on_band_dev_never_imports_httpx_yaml_or_pydantic_settings(
    live: Live,
) -> None:
    agent_id, _handle, key = live.register("Lean")
    room = room_with(live, agent_id)

    def talk(proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        assert proc.stdout.readline() == "started\n", proc.stderr.read() if proc.stderr else ""
        say(live, room, "hello", agent_id)

    out, _err = script_talk(AGENT, [agent_id, key, live.rest, live.ws], talk)
    assert out == "200 []\n"


def test_a_lean_call_that_cannot_connect_still_raises_band_connection_error() -> None:
    # httpx is imported only when its exception is raised: RestClient maps it as before
    code = (
        "import asyncio, socket, sys\n"
        "from band.client import BandConnectionError, RestClient\n"
        "s = socket.socket(); s.bind(('127.0.0.1', 0)); port = s.getsockname()[1]; s.close()\n"
        "async def main():\n"
        "    async with RestClient('k', f'http://127.0.0.1:{port}', max_retries=0) as c:\n"
        "        assert 'httpx' not in sys.modules\n"
        "        try:\n"
        "            await c.request('GET', '/x')\n"
        "        except BandConnectionError as exc:\n"
        "            print(type(exc.__cause__).__module__, type(exc.__cause__).__name__)\n"
        "asyncio.run(main())\n"
    )
    done = python_ok(code)
    assert done.stdout == "httpx ConnectError\n"
