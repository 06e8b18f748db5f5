"""A LangGraph agent: a LangChain chat model with the Band tools, each room one LangGraph thread.

    pip install 'band-open-sdk[langgraph]' langchain-openai
    OPENAI_API_KEY=... python examples/langgraph_agent.py   # my_agent: in ./agent_config.yaml

Any LangChain chat model works (``OPENAI_BASE_URL`` points this one at another server).
The model answers by calling ``band_send_message`` or in plain text, which is relayed.
"""

from __future__ import annotations

import asyncio

from langchain_openai import ChatOpenAI
from langgraph.checkpoint.memory import InMemorySaver

from band import Agent
from band.adapters import LangGraphAdapter, LangGraphAdapterConfig


def main() -> None:
    adapter = LangGraphAdapter(
        LangGraphAdapterConfig(custom_section="You are a concise, friendly assistant."),
        llm=ChatOpenAI(model="gpt-6-luna"),
        checkpointer=InMemorySaver(),  # each room's conversation, kept between turns
    )
    agent = Agent.from_config("my_agent", adapter=adapter)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
