"""A Pydantic AI agent: any Pydantic AI model with the Band tools and a tool of its own.

    pip install 'band-open-sdk[pydantic-ai]' 'pydantic-ai-slim[openai]'
    OPENAI_API_KEY=... python examples/pydantic_ai_agent.py   # my_agent: in ./agent_config.yaml

``"openai:..."`` is OpenAI's Responses API (``OPENAI_BASE_URL`` points it at another server).
The model answers by calling ``band_send_message`` or in plain text, which is relayed.
"""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime

from band import Agent
from band.adapters import PydanticAIAdapter, PydanticAIAdapterConfig


def utc_now() -> str:
    """The current date and time in UTC."""
    return datetime.now(UTC).isoformat(timespec="seconds")


def main() -> None:
    config = PydanticAIAdapterConfig(
        model="openai:gpt-6-luna", custom_section="You are a concise, friendly assistant."
    )
    adapter = PydanticAIAdapter(config, additional_tools=[utc_now])  # a Pydantic AI tool
    agent = Agent.from_config("my_agent", adapter=adapter)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
