"""A CrewAI agent in Band rooms: each message is one task of a one-agent crew.

    pip install 'band-open-sdk[crewai]'
    OPENAI_API_KEY=... python examples/crewai_agent.py   # my_agent: in agent_config.yaml

CrewAI's ``LLM`` reads ``OPENAI_API_KEY`` and ``OPENAI_BASE_URL`` (the example's test points
it at band.testing's ScriptedModel). ``wordcount`` is a custom ``(InputModel, handler)`` tool
beside the Band tools; it declares no turn effect, so the agent still replies.
"""

from __future__ import annotations

import asyncio
import logging
import os

from pydantic import BaseModel

from band import Agent
from band.adapters import CrewAIAdapter, CrewAIAdapterConfig


class WordCountInput(BaseModel):
    """Count the words of a text."""

    text: str


def word_count(args: WordCountInput) -> str:
    return str(len(args.text.split()))


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    adapter = CrewAIAdapter(
        CrewAIAdapterConfig(
            model=os.environ.get("CREWAI_MODEL", "openai/gpt-5-mini"),
            role="Word counter",
            goal="Count words when asked",
        ),
        additional_tools=[(WordCountInput, word_count)],
    )
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())


if __name__ == "__main__":
    main()
