"""A Strands Agents agent in Band rooms: the Band tools beside a Strands tool of its own.

    pip install 'band-open-sdk[strands]'
    OPENAI_API_KEY=... python examples/strands_agent.py   # reads my_agent: in agent_config.yaml

The model is Strands' ``OpenAIModel`` (``OPENAI_BASE_URL`` points it at any Chat Completions
server, as the example's test does with band.testing's ScriptedModel). ``word_count``
declares no turn effect, so it only observes: the turn still owes the room a reply, which the
model sends with ``band_send_message`` (or its closing text is relayed).
"""

from __future__ import annotations

import asyncio
import logging
import os

from strands import tool
from strands.models.openai import OpenAIModel

from band import Agent
from band.adapters import StrandsAdapter, StrandsAdapterConfig


@tool
def word_count(text: str) -> int:
    """Count the words of a text."""
    return len(text.split())


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    adapter = StrandsAdapter(
        StrandsAdapterConfig(custom_section="You count words when asked."),
        llm=OpenAIModel(model_id=os.environ.get("OPENAI_MODEL", "gpt-5-mini")),
        additional_tools=[word_count],
    )
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())


if __name__ == "__main__":
    main()
