"""The e2e bench's agent: one echo agent, the same script under our SDK and the official one.

Both SDKs expose ``band.Agent`` and ``band.core.SimpleAdapter``; the harness starts this file
with the interpreter under test and passes the credentials in the environment.
"""

import asyncio
import os

from band import Agent
from band.core import SimpleAdapter


class Echo(SimpleAdapter):  # type: ignore[type-arg]
    """Answers every mention with its text, mentioning the sender."""

    async def on_message(  # type: ignore[no-untyped-def]
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


if __name__ == "__main__":
    agent = Agent.create(
        adapter=Echo(),
        agent_id=os.environ["BAND_E2E_AGENT_ID"],
        api_key=os.environ["BAND_E2E_AGENT_KEY"],
    )
    asyncio.run(agent.run())
