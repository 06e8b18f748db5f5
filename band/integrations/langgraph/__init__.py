"""LangGraph helpers of band-sdk 6.0.1: the Band tools as LangChain tools, a compiled graph as
a tool, and the formatter that turns a platform message into a graph's input.

``agent_tools_to_langchain`` hands out the same tools ``LangGraphAdapter`` gives its graph
(one path: each call posts its events and counts in the turn as the adapter's do). Needs the
[langgraph] extra.
"""

from __future__ import annotations

from band._extras import require_module

require_module("langgraph", "band.integrations.langgraph")  # optional: say how to get it

from .formatters import MessageFormatter, default_messages_state_formatter  # noqa: E402
from .tools import agent_tools_to_langchain, graph_as_tool  # noqa: E402

__all__ = [
    "MessageFormatter",
    "agent_tools_to_langchain",
    "default_messages_state_formatter",
    "graph_as_tool",
]
