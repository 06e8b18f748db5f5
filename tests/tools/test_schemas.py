"""Tool schemas: the seed's groups for every capability combination, valid in both formats."""

from __future__ import annotations

import itertools
import json
import re
from typing import Any

import anthropic.types
import jsonschema
import openai.types.chat
import openai.types.shared
import pytest
from bandtest.refsdk import requires_refsdk, run_refsdk
from bandtest.tool_names import CAPABILITY_TOOLS, CHAT_TOOLS
from pydantic import TypeAdapter

from band.client.rest import RestClient
from band.runtime.capabilities import Capability
from band.runtime.tools import (
    ALL_TOOL_NAMES,
    CHAT_TOOL_NAMES,
    CONTACT_TOOL_NAMES,
    FILE_TOOL_NAMES,
    MEMORY_TOOL_NAMES,
    TASK_TOOL_NAMES,
    TOOLS,
    AgentTools,
)
from band.runtime.tools.registry import select_tools

CHAT = CHAT_TOOLS
GROUPS = CAPABILITY_TOOLS
ALL_CAPS = list(Capability)
COMBOS = [
    frozenset(c) for n in range(len(ALL_CAPS) + 1) for c in itertools.combinations(ALL_CAPS, n)
]
NAME = re.compile(r"^[a-zA-Z0-9_-]{1,64}$")  # both providers' published tool-name rule


def _tools(hub: bool = False) -> AgentTools:
    # schema accessors make no request: a client that is never used is enough
    rest = RestClient("unused-key", "http://127.0.0.1:9")
    return AgentTools("room-1", rest, hub_room_id="room-1" if hub else "hub-9")


def _expected(caps: frozenset[Capability] | None, hub: bool) -> list[str]:
    chosen = {Capability.CONTACTS} if caps is None else set(caps)
    if hub:
        chosen.add(Capability.CONTACTS)
    order = (Capability.CONTACTS, Capability.MEMORY, Capability.FILES, Capability.TASKS)
    return CHAT + [name for cap in order if cap in chosen for name in GROUPS[cap]]


def _names(schemas: list[Any]) -> list[str]:
    return [s["function"]["name"] if "function" in s else s["name"] for s in schemas]


@pytest.mark.parametrize("hub", [False, True], ids=["room", "hub"])
@pytest.mark.parametrize(
    "caps",
    [None, *COMBOS],
    ids=lambda c: "none" if c is None else "+".join(sorted(x.value for x in c)) or "empty",
)
def test_groups_for_every_capability_combination(caps: frozenset | None, hub: bool) -> None:
    tools = _tools(hub)
    want = _expected(caps, hub)
    kw: dict[str, Any] = {} if caps is None else {"capabilities": caps}
    assert _names(tools.get_openai_tool_schemas(**kw)) == want
    assert _names(tools.get_anthropic_tool_schemas(**kw)) == want
    assert _names(tools.get_tool_schemas("openai", **kw)) == want
    assert _names(tools.get_tool_schemas("anthropic", **kw)) == want


def test_the_documented_selection_rules() -> None:
    tools = _tools()
    assert len(_names(tools.get_anthropic_tool_schemas())) == 8 + 5  # contacts by default
    assert _names(tools.get_openai_tool_schemas(capabilities=frozenset())) == CHAT
    memory_only = _names(tools.get_openai_tool_schemas(capabilities=frozenset({Capability.MEMORY})))
    assert memory_only == CHAT + GROUPS[Capability.MEMORY]
    hub = _names(_tools(hub=True).get_openai_tool_schemas(capabilities=frozenset()))
    assert hub == CHAT + GROUPS[Capability.CONTACTS]
    assert [c.value for c in Capability] == ["memory", "contacts", "files", "tasks"]
    assert len(TOOLS) == 8 + 5 + 5 + 3 + 7
    every = _names(tools.get_openai_tool_schemas(capabilities=frozenset(Capability)))
    assert len(every) == 28  # band-sdk 6.0.1 with every capability on
    assert CHAT_TOOL_NAMES == set(CHAT)
    assert CONTACT_TOOL_NAMES == set(GROUPS[Capability.CONTACTS])
    assert MEMORY_TOOL_NAMES == set(GROUPS[Capability.MEMORY])
    assert TASK_TOOL_NAMES == set(GROUPS[Capability.TASKS])
    assert FILE_TOOL_NAMES == set(GROUPS[Capability.FILES])
    assert ALL_TOOL_NAMES == set(TOOLS)


def test_invalid_format() -> None:
    for bad in ("gemini", "OpenAI", ""):
        with pytest.raises(ValueError) as err:
            _tools().get_tool_schemas(bad)
        assert str(err.value) == f"Invalid format: {bad}. Must be 'openai' or 'anthropic'"


def test_anthropic_schemas_fit_the_sdk_types() -> None:
    every = frozenset(Capability)
    adapter = TypeAdapter(anthropic.types.ToolParam)
    for schema in _tools().get_anthropic_tool_schemas(capabilities=every):
        assert set(schema) == {"name", "description", "input_schema"}
        adapter.validate_python(schema, strict=True)
        assert NAME.match(schema["name"]) and schema["description"].strip()
        _check_json_schema(schema["input_schema"])


def test_openai_schemas_fit_the_sdk_types() -> None:
    every = frozenset(Capability)
    tool_adapter = TypeAdapter(openai.types.chat.ChatCompletionFunctionToolParam)
    for schema in _tools().get_openai_tool_schemas(capabilities=every):
        tool_adapter.validate_python(schema, strict=True)
        fn = openai.types.shared.FunctionDefinition.model_validate(schema["function"])
        assert fn.parameters is not None and NAME.match(fn.name) and fn.description
        _check_json_schema(schema["function"]["parameters"])


def _check_json_schema(schema: dict[str, Any]) -> None:
    """A valid JSON Schema for an object whose required keys are declared properties."""
    jsonschema.Draft202012Validator.check_schema(schema)
    assert schema["type"] == "object"
    assert set(schema.get("required", [])) <= set(schema["properties"])
    assert "title" not in schema
    for prop in schema["properties"].values():
        assert prop.get("description"), prop
        assert "title" not in prop


def test_arguments_defaults_and_limits_in_the_schemas() -> None:
    props = {s.name: s.json_schema() for s in TOOLS.values()}

    def p(tool: str, arg: str) -> dict[str, Any]:
        return dict(props[tool]["properties"][arg])

    assert props["band_send_message"]["required"] == ["content", "mentions"]
    assert "attachment_ids" not in props["band_send_message"]["properties"]
    assert p("band_send_event", "message_type")["enum"] == ["thought", "error", "task"]
    assert p("band_add_participant", "role") == {
        **p("band_add_participant", "role"),
        "default": "member",
        "enum": ["owner", "admin", "member"],
    }
    for tool in ("band_lookup_peers", "band_list_contacts", "band_list_contact_requests"):
        assert p(tool, "page")["default"] == 1
        assert (p(tool, "page_size")["default"], p(tool, "page_size")["maximum"]) == (50, 100)
    assert (p("band_list_memories", "page_size")["maximum"]) == 50
    assert p("band_list_contact_requests", "sent_status")["default"] == "pending"
    for tool in ("band_list_tasks", "band_get_task_history"):
        limit = p(tool, "limit")["anyOf"][0]
        assert (limit["minimum"], limit["maximum"]) == (1, 100)
    assert props["band_store_memory"]["required"] == [
        "content",
        "system",
        "type",
        "segment",
        "thought",
        "scope",
    ]
    assert props["band_update_task"]["required"] == ["id"]
    assert "required" not in props["band_set_board"]
    assert "required" not in props["band_get_participants"]


def test_no_reply_matches_the_core_tool_spec() -> None:
    import band_sdk_core

    spec = band_sdk_core.no_reply_tool()
    [schema] = [s for s in _tools().get_anthropic_tool_schemas() if s["name"] == "band_no_reply"]
    assert schema["description"] == spec["description"]
    reason = schema["input_schema"]["properties"]["reason"]
    assert reason["description"] == spec["parameters"][0]["description"]
    assert "required" not in schema["input_schema"]


def test_effects_come_from_the_core_table() -> None:
    import band_sdk_core

    core = {k: v.wire_name for k, v in band_sdk_core.band_tool_effects().items()}
    assert {s.name: s.effect.value for s in TOOLS.values()} == {n: core[n] for n in TOOLS}
    assert [s.name for s in select_tools(frozenset())] == CHAT


REF_DUMP = """
import json
from band.runtime.tools import AgentTools
from band.runtime.capabilities import Capability
caps = frozenset(Capability)
print(json.dumps(AgentTools("r", rest=None).get_anthropic_tool_schemas(capabilities=caps)))
"""


def _facts(schema: dict[str, Any]) -> dict[str, Any]:
    """Names, required arguments, enums and defaults: what must match, wording aside."""
    defs = schema.get("$defs", {})

    def arg(prop: dict[str, Any]) -> dict[str, Any]:
        enum: list[str] = []
        for option in [prop, *prop.get("anyOf", [])]:
            if "$ref" in option:
                option = defs[option["$ref"].split("/")[-1]]
            enum += option.get("enum", [option["const"]] if "const" in option else [])
        return {"default": prop.get("default", "<required>"), "enum": sorted(enum)}

    return {
        "required": sorted(schema.get("required", [])),
        "properties": {k: arg(v) for k, v in schema["properties"].items()},
    }


@requires_refsdk
def test_same_tools_and_arguments_as_band_sdk_6() -> None:
    out = run_refsdk(REF_DUMP)
    ref = {s["name"]: _facts(s["input_schema"]) for s in json.loads(out)}
    every = frozenset(Capability)
    ours = {
        s["name"]: _facts(s["input_schema"])
        for s in _tools().get_anthropic_tool_schemas(capabilities=every)
    }
    assert list(ours) == list(ref)
    assert ours == ref


def test_capabilities_must_be_capability_members() -> None:
    with pytest.raises(TypeError, match="Capability members"):
        _tools().get_openai_tool_schemas(capabilities=frozenset({"memory"}))  # type: ignore[arg-type]
    # any collection of members works, not only a frozenset
    names = _names(_tools().get_openai_tool_schemas(capabilities={Capability.TASKS}))  # type: ignore[arg-type]
    assert names == CHAT + GROUPS[Capability.TASKS]
