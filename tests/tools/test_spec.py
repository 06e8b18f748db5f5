"""The tool surface is declared once: every other surface agrees with the ``ToolSpec`` tables."""

from __future__ import annotations

import inspect
import re
from typing import Any

import pytest

import band_sdk_core
from band.core.protocols import AgentToolsProtocol
from band.core.turn import TurnEffect
from band.core.types import Capability
from band.mcp import human_tools
from band.mcp.agent_surface import AgentSurface
from band.mcp.config import TOOL_GROUPS
from band.runtime.contacts.tools import ContactTools
from band.runtime.tools import TOOLS, AgentTools, Surface, ToolSpec, select_tools
from band.runtime.tools.custom import (
    custom_tool_spec,
    custom_tools_to_schemas,
    declares_turn_effect,
)
from band.runtime.tools.inputs import SendEventInput

#: Parameters an official method signature leaves out of the tool's input model.
PROTOCOL_OMITS = {"send_message": {"attachment_ids"}}


def _params(func: Any) -> list[str]:
    return [p for p in inspect.signature(func).parameters if p != "self"]


@pytest.mark.parametrize("spec", list(TOOLS.values()), ids=list(TOOLS))
def test_agent_methods_take_the_input_model_fields(spec: ToolSpec[Any, Any]) -> None:
    method = spec.name.removeprefix("band_")
    fields = list(spec.input_model.model_fields)
    assert _params(getattr(AgentTools, method)) == fields
    omitted = PROTOCOL_OMITS.get(method, set())
    assert _params(getattr(AgentToolsProtocol, method)) == [f for f in fields if f not in omitted]


def test_contact_tools_are_the_contact_group() -> None:
    contact = [s for s in TOOLS.values() if s.group is Capability.CONTACTS]
    for spec in contact:
        method = getattr(ContactTools, spec.name.removeprefix("band_"))
        assert _params(method) == list(spec.input_model.model_fields)
    own = {n for n, v in vars(ContactTools).items() if inspect.iscoroutinefunction(v)}
    assert own - {"_run"} == {s.name.removeprefix("band_") for s in contact}


def test_effects_are_band_sdk_cores() -> None:
    core = band_sdk_core.band_tool_effects()
    for name, spec in TOOLS.items():
        assert spec.effect.core is core[name]
    assert [e.core.wire_name for e in TurnEffect] == [e.value for e in TurnEffect]
    assert [e.did_work for e in TurnEffect] == [False, True, True, True]


def test_one_group_enum_and_one_surface_enum() -> None:
    assert {s.group for s in TOOLS.values()} == {None, *Capability}
    assert {s.category for s in TOOLS.values()} == {"chat", *(c.value for c in Capability)}
    assert {s.group for s in human_tools.TOOLS.values()} == {None, *TOOL_GROUPS} - {
        Capability.TASKS
    }
    assert [s.value for s in Surface] == ["agent", "human"]
    assert {s.surface for s in TOOLS.values()} == {Surface.AGENT}
    assert {s.surface for s in human_tools.TOOLS.values()} == {Surface.HUMAN}


def test_room_binding_is_declared_with_the_tool() -> None:
    roomless = {n for n, s in TOOLS.items() if not s.room_bound}
    assert roomless == {
        "band_no_reply",
        "band_create_chatroom",
        *(s.name for s in TOOLS.values() if s.group in (Capability.CONTACTS, Capability.MEMORY)),
    }
    for spec in human_tools.TOOLS.values():
        assert spec.room_bound == ("chat_id" in spec.input_model.model_fields)


def test_schemas_come_from_the_spec() -> None:
    spec = TOOLS["band_get_task"]
    openai = spec.schema("openai")
    assert openai == {
        "type": "function",
        "function": {
            "name": "band_get_task",
            "description": spec.description,
            "parameters": spec.json_schema(),
        },
    }
    assert spec.anthropic_schema() == spec.schema("anthropic")
    message = "Invalid format: xml. Must be 'openai' or 'anthropic'"
    with pytest.raises(ValueError, match=f"^{re.escape(message)}$"):
        spec.schema("xml")


def test_band_mcp_serves_the_registry_specs() -> None:
    specs = AgentSurface(rest=None).specs(TOOL_GROUPS)  # type: ignore[arg-type]
    assert [s.name for s in specs] == [s.name for s in select_tools(TOOL_GROUPS)]
    send_event = next(s for s in specs if s.name == "band_send_event")
    # the one widened model: the same tool, handler and effect
    assert send_event.input_model is not SendEventInput
    assert issubclass(send_event.input_model, SendEventInput)
    assert send_event.run is TOOLS["band_send_event"].run
    assert send_event.effect is TOOLS["band_send_event"].effect
    others = [s for s in specs if s.name != "band_send_event"]
    assert all(s is TOOLS[s.name] for s in others)


def test_custom_tools_are_specs() -> None:
    from pydantic import BaseModel

    class FileTicketInput(BaseModel):
        """File a ticket."""

        title: str

    @declares_turn_effect(TurnEffect.ACT)
    def handler(args: FileTicketInput) -> str:
        return args.title

    spec = custom_tool_spec((FileTicketInput, handler))
    assert (spec.name, spec.effect, spec.group, spec.description) == (
        "fileticket",
        TurnEffect.ACT,
        None,
        "File a ticket.",
    )
    assert custom_tools_to_schemas([(FileTicketInput, handler)], "anthropic") == [
        spec.schema("anthropic")
    ]
