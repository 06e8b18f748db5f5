"""An Agno agent in Band rooms: the Band tools beside an Agno tool of its own.

    pip install 'band-open-sdk[agno]'
    OPENAI_API_KEY=... python examples/agno_agent.py   # reads my_agent: in agent_config.yaml

The adapter takes the Agno agent over (its tools become per-room, the Band instructions go
ahead of its description). Agno's ``OpenAIChat`` reads ``OPENAI_BASE_URL`` and
``OPENAI_API_KEY``, which the example's test points at band.testing's ScriptedModel. Agno tools
count as observing: the turn still owes the room a reply, sent with ``band_send_message`` (or
the model's closing text is relayed).
"""

from __future__ import annotations

import asyncio
import logging
import os

from agno.agent import Agent as AgnoAgent
from agno.models.openai import OpenAIChat

from band import Agent
from band.adapters import AgnoAdapter


def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    agno_agent = AgnoAgent(
        model=OpenAIChat(id=os.environ.get("OPENAI_MODEL", "gpt-5-mini")),
        tools=[word_count],
        instructions="You count words when asked.",
    )
    adapter = AgnoAdapter(agent=agno_agent)
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())


if __name__ == "__main__":
    main()
