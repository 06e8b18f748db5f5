"""An OpenAI agent: answers mentions through the Chat Completions API, with Band's tools.

    export OPENAI_API_KEY=sk-...                 # OPENAI_BASE_URL: another server
    python examples/openai_agent.py             # reads my_agent: in ./agent_config.yaml

Tested offline with ``band.testing.ScriptedModel`` (see the README, "Testing a model-backed
agent"). ``pip install 'band-open-sdk[openai]'``.
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from band import Agent, Emit
from band.adapters import OpenAIAdapter, OpenAIAdapterConfig


def build_adapter(model: str = "gpt-5-mini") -> OpenAIAdapter:
    """An OpenAI model with Band's tools; its tool calls and token usage posted as events."""
    config = OpenAIAdapterConfig(model=model, custom_section="Answer briefly and kindly.")
    return OpenAIAdapter(config, emit={Emit.TOOL_CALLS, Emit.USAGE})


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--name", default="my_agent", help="key of the agent in agent_config.yaml")
    parser.add_argument("--config", default=None, help="path of agent_config.yaml")
    args = parser.parse_args()
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    agent = Agent.from_config(args.name, adapter=build_adapter(), config_path=args.config)
    asyncio.run(agent.run())


if __name__ == "__main__":
    main()
