"""What the agent-framework adapters (LangGraph, Pydantic AI) share: their config base, the
Band tools as (name, description, JSON schema) specs, the turn's failure report and the
tool events of a framework's own tools.

A framework adapter hands the framework the platform tools (and the ``(InputModel, handler)``
custom tools) in the framework's native tool form; each call runs through
:func:`band.adapters._model.run_tool_call`, so the turn-outcome rule sees what it did, and
the framework's loop does the rest. Tools the framework brings itself are observed: their
calls are posted as events, and a native tool records no turn effect unless the adapter
can see one.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict

from band.core.protocols import AgentToolsProtocol
from band.core.turn import AgentFailure
from band.core.types import AdapterFeatures, Emit
from band.core.wire import JsonObject
from band.runtime.tools.custom import CustomToolDef, custom_tools_to_schemas

from ._model import GENERIC_PROVIDER_FAILURE_MESSAGE

__all__ = [
    "FrameworkConfig",
    "ToolSpec",
    "post_tool_event",
    "report_failure",
    "result_text",
    "tool_specs",
]

log = logging.getLogger("band.adapters.framework")


class FrameworkConfig(BaseModel):
    """The base of a framework adapter's config: frozen, and an unknown field is an error."""

    model_config = ConfigDict(frozen=True, extra="forbid")


@dataclass(frozen=True)
class ToolSpec:
    """One Band tool as a framework sees it: its name, description and argument schema."""

    name: str
    description: str
    parameters: JsonObject


def tool_specs(
    tools: AgentToolsProtocol, features: AdapterFeatures, custom: Sequence[CustomToolDef]
) -> list[ToolSpec]:
    """The platform tools the adapter's ``capabilities`` select, then the custom tools."""
    schemas = list(tools.get_openai_tool_schemas(capabilities=features.capabilities))
    schemas.extend(custom_tools_to_schemas(custom, "openai"))
    out = []
    for schema in schemas:
        fn = schema["function"]
        params = fn.get("parameters") or {"type": "object", "properties": {}}
        out.append(ToolSpec(fn["name"], fn.get("description") or "", dict(params)))
    return out


async def report_failure(tools: AgentToolsProtocol, provider: str) -> None:
    """Report a broken turn as the framework's failure, with the generic text only: the
    exception (paths, keys, bodies) stays in the agent log."""
    await tools.send_failure(AgentFailure(provider, GENERIC_PROVIDER_FAILURE_MESSAGE))


def result_text(value: object) -> str:
    """A tool's output as text for a ``tool_result`` event: a string as it is, content
    blocks' text joined, anything else as JSON (never a framework object's repr)."""
    content = getattr(value, "content", value)  # a framework's tool message: its content
    if isinstance(content, str):
        return content
    if isinstance(content, list) and all(isinstance(b, dict) for b in content):
        texts = [str(b["text"]) for b in content if b.get("type") == "text" and "text" in b]
        if texts:
            return "\n".join(texts)
    if isinstance(content, BaseModel):
        return content.model_dump_json()
    return json.dumps(content, default=str)


async def post_tool_event(
    tools: AgentToolsProtocol, features: AdapterFeatures, kind: str, body: dict[str, Any]
) -> None:
    """With ``Emit.TOOL_CALLS``, post a ``tool_call`` / ``tool_result`` event for a tool the
    framework ran itself; telemetry never breaks the turn."""
    if Emit.TOOL_CALLS not in features.emit:
        return
    try:
        await tools.send_event(json.dumps(body, default=str), kind, body)
    except Exception as exc:
        log.warning("could not post the %s event: %s", kind, exc)
