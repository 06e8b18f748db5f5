"""A Gemini agent: Google's Gen AI SDK with the Band tools and a tool of its own.

    pip install 'band-open-sdk[gemini]'
    GEMINI_API_KEY=... python examples/gemini_agent.py   # my_agent: in ./agent_config.yaml

``GOOGLE_GEMINI_BASE_URL`` points the client at another server. The model answers by calling
``band_send_message`` or in plain text, which is relayed.
"""

from __future__ import annotations

import asyncio
import random

from pydantic import BaseModel

from band import Agent
from band.adapters import GeminiAdapter, GeminiAdapterConfig


class RollDiceInput(BaseModel):
    """Roll a die with the given number of sides."""

    sides: int = 6


def roll_dice(args: RollDiceInput) -> str:
    return f"rolled {random.randint(1, args.sides)} of {args.sides}"


def main() -> None:
    config = GeminiAdapterConfig(custom_section="You are a concise, friendly assistant.")
    adapter = GeminiAdapter(config, additional_tools=[(RollDiceInput, roll_dice)])
    agent = Agent.from_config("my_agent", adapter=adapter)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
