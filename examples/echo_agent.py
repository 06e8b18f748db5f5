"""An echo agent: answers every mention with its text. Credentials: agent_config.yaml."""

import asyncio
import logging

from band import Agent
from band.core import SimpleAdapter


class Echo(SimpleAdapter[object]):
    async def on_message(
        self, msg, tools, history, participants_msg, contacts_msg, *, is_session_bootstrap, room_id
    ):
        await tools.send_message(f"echo: {msg.content}", mentions=[msg.sender_id])


if __name__ == "__main__":
    logging.basicConfig(level=logging.INFO)
    asyncio.run(Agent.from_config("my_agent", adapter=Echo()).run())
