"""band-sdk 6.0.1's graceful-shutdown helper: answer messages until SIGTERM, then exit.

Prints ``ready`` once started and ``stopped <on_signal number>`` at the end.
Env: AID, AKEY, BAND_REST_URL, BAND_WS_URL.
"""

import asyncio
import os
import signal

from band import Agent, run_with_graceful_shutdown
from band.core.simple_adapter import SimpleAdapter


class Echo(SimpleAdapter):
    async def on_started(self, agent_name, agent_description):
        print("ready", flush=True)

    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):
        await tools.send_message("echo: " + msg.content, mentions=[msg.sender_id])


async def main():
    seen = []
    agent = Agent.create(adapter=Echo(), agent_id=os.environ["AID"], api_key=os.environ["AKEY"])
    await run_with_graceful_shutdown(agent, timeout=5.0, on_signal=seen.append)
    print("stopped", [signal.Signals(s).name for s in seen], agent.is_running, flush=True)


asyncio.run(main())
