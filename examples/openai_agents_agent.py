"""An OpenAI Agents SDK agent in Band: a triage agent with a tool of its own and a handoff.

    pip install 'band-open-sdk[openai-agents]'
    export OPENAI_API_KEY=sk-...                 # OPENAI_BASE_URL: another server
    python examples/openai_agents_agent.py      # reads my_agent: in ./agent_config.yaml

Band's tools are added to both agents; the one that answers replies in the room. Tested
offline with ``band.testing.ScriptedModel`` (tests/demo/test_model_examples.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging

from agents import Agent as SDKAgent
from agents import function_tool

from band import Agent, Emit
from band.adapters import OpenAIAgentsAdapter, OpenAIAgentsAdapterConfig


@function_tool
def order_status(order_id: str) -> str:
    """The shipping status of an order."""
    return f"Order {order_id} ships tomorrow."


def build_adapter(model: str = "gpt-5-mini") -> OpenAIAgentsAdapter:
    """Triage (answers, looks up orders) hands invoice questions to Billing."""
    billing = SDKAgent(name="Billing", instructions="You answer invoice questions.")
    triage = SDKAgent(
        name="Triage",
        instructions="Answer, or hand invoice questions to Billing.",
        tools=[order_status],
        handoffs=[billing],
    )
    config = OpenAIAgentsAdapterConfig(model=model, custom_section="Answer briefly and kindly.")
    return OpenAIAgentsAdapter(config, agent=triage, emit={Emit.TOOL_CALLS, Emit.USAGE})


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
