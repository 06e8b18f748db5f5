"""A Google ADK agent in Band rooms: one ADK runner and session per room, Gemini as its model.

    pip install 'band-open-sdk[google-adk]'
    GOOGLE_API_KEY=... python examples/google_adk_agent.py   # my_agent: in agent_config.yaml

``GOOGLE_GEMINI_BASE_URL`` points the Gemini client at another server, as the example's test
does with band.testing's ScriptedModel. ``wordcount`` is a custom ``(InputModel, handler)``
tool beside the Band tools; it declares no turn effect, so the model still replies.
"""

from __future__ import annotations

import asyncio
import logging
import os

from pydantic import BaseModel

from band import Agent
from band.adapters import GoogleADKAdapter, GoogleADKAdapterConfig


class WordCountInput(BaseModel):
    """Count the words of a text."""

    text: str


def word_count(args: WordCountInput) -> str:
    return str(len(args.text.split()))


def main() -> None:
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    adapter = GoogleADKAdapter(
        GoogleADKAdapterConfig(
            model=os.environ.get("GEMINI_MODEL", "gemini-3.8-flash"),
            custom_section="You count words when asked.",
        ),
        additional_tools=[(WordCountInput, word_count)],
    )
    asyncio.run(Agent.from_config("my_agent", adapter=adapter).run())


if __name__ == "__main__":
    main()
