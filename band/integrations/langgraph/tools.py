"""The Band tools as LangChain tools (the adapter's own), and a compiled graph as a tool."""

from __future__ import annotations

import dataclasses
import json
import logging
import uuid
import warnings
from collections.abc import Callable, Mapping
from typing import Any

from langchain_core.runnables import RunnableConfig
from langchain_core.tools import BaseTool, StructuredTool
from pydantic import Field, create_model

from band.adapters.langgraph import band_langchain_tools
from band.core.protocols import AgentToolsProtocol
from band.core.types import AdapterFeatures
from band.runtime.capabilities import Capability

__all__ = ["agent_tools_to_langchain", "graph_as_tool"]

log = logging.getLogger("band.integrations.langgraph")


def agent_tools_to_langchain(
    tools: AgentToolsProtocol,
    *,
    features: AdapterFeatures | None = None,
    include_memory_tools: bool | None = None,
    include_contacts: bool | None = None,
) -> list[Any]:
    """The room's Band tools as LangChain tools: the platform tools ``features`` selects
    (capabilities, then the tool and category filters; contacts always in the hub room), as
    ``LangGraphAdapter`` gives them to its graph. Each call runs on ``tools``: with
    ``Emit.TOOL_CALLS`` it posts its ``tool_call``/``tool_result`` events, a failure comes
    back as error text. ``include_memory_tools``/``include_contacts`` (deprecated) force the
    memory or contacts group on or off."""
    features = features or AdapterFeatures()
    capabilities = features.capabilities
    for flag, capability, name in (
        (include_memory_tools, Capability.MEMORY, "include_memory_tools"),
        (include_contacts, Capability.CONTACTS, "include_contacts"),
    ):
        if flag is None:
            continue
        warnings.warn(
            f"{name} is deprecated: pass features=AdapterFeatures(capabilities=...)",
            DeprecationWarning,
            stacklevel=2,
        )
        capabilities = capabilities | {capability} if flag else capabilities - {capability}
    if capabilities != features.capabilities:
        features = dataclasses.replace(features, capabilities=frozenset(capabilities))
    return list(band_langchain_tools(tools, features))


def graph_as_tool(
    graph: Any,
    name: str,
    description: str,
    input_schema: dict[str, Any],
    result_formatter: Callable[[dict[str, Any]], Any] | None = None,
    isolate_thread: bool = True,
) -> BaseTool:
    """A compiled LangGraph graph as a LangChain tool another agent's model can call.

    ``input_schema`` maps each argument (a key of the graph's state) to its description;
    the call's arguments are the graph's input. ``result_formatter`` turns the final state
    into the tool's answer (a dict or list as JSON, anything else as text; without it the
    state's text). ``isolate_thread`` True runs each call in a thread of its own
    (``subgraph:<name>:<caller's thread>:<8 hex>``, no memory between calls); False runs it
    in the caller's thread, so the graph's checkpointer keeps the conversation across calls
    in the room. The graph's errors propagate to the caller.
    """
    if not name:
        raise ValueError("graph_as_tool needs a name")
    if not description:
        raise ValueError("graph_as_tool needs a description")
    if not input_schema:
        raise ValueError("graph_as_tool needs an input_schema (argument -> description)")
    fields: dict[str, Any] = {
        arg: (Any, Field(description=str(text))) for arg, text in input_schema.items()
    }
    args_model = create_model(f"{name.title().replace('_', '')}Input", **fields)
    listing = "\n".join(f"  - {arg}: {text}" for arg, text in input_schema.items())

    async def run_graph(config: RunnableConfig, **arguments: Any) -> str:
        caller = _thread_id(config)
        thread = f"subgraph:{name}:{caller}:{uuid.uuid4().hex[:8]}" if isolate_thread else caller
        log.debug("%s: running the graph in thread %s", name, thread)
        sub: RunnableConfig = {"configurable": {"thread_id": thread}}
        if config.get("callbacks") is not None:
            sub["callbacks"] = config["callbacks"]  # the caller's tracing and telemetry
        state = await graph.ainvoke(arguments, sub)
        if result_formatter is None:
            return str(state)
        answer = result_formatter(state)
        return json.dumps(answer, indent=2) if isinstance(answer, dict | list) else str(answer)

    return StructuredTool.from_function(
        coroutine=run_graph,
        name=name,
        description=f"{description}\n\nArguments:\n{listing}",
        args_schema=args_model,
    )


def _thread_id(config: RunnableConfig) -> str | None:
    """The caller's thread (its room, under ``LangGraphAdapter``)."""
    configurable: Mapping[str, Any] = config.get("configurable") or {}
    thread = configurable.get("thread_id")
    return None if thread is None else str(thread)
