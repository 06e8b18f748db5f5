"""band-sdk's ToolDefinition table and docstring/schema builders, read off our tool registry."""

from __future__ import annotations

import inspect
import warnings
from typing import Any

import pytest
from pydantic import BaseModel, Field, ValidationError, field_validator

from band.core.types import AdapterFeatures, Capability
from band.runtime.tools import (
    CHAT_TOOL_NAMES,
    CONTACT_TOOL_NAMES,
    HUMAN_SURFACE_MEMORY_TOOL_NAMES,
    HUMAN_TOOL_NAMES,
    MEMORY_TOOL_NAMES,
    TOOL_DEFINITIONS,
    TOOL_MODELS,
    AgentTools,
    HumanTools,
    ToolDefinition,
    classify_room_binding,
    docstring_with_args,
    format_arg_doc,
    get_tool_description,
    get_tool_docstring_with_args,
    iter_tool_definitions,
    platform_args_schema,
    platform_tool,
    selected_tool_definitions,
)
from band.runtime.tools.spec import Surface


def _names(defs: list[ToolDefinition]) -> set[str]:
    return {d.name for d in defs}


def test_the_table_holds_every_tool_with_the_method_that_runs_it() -> None:
    agent = {n for n, d in TOOL_DEFINITIONS.items() if d.surface == Surface.AGENT}
    human = {n for n, d in TOOL_DEFINITIONS.items() if d.surface == Surface.HUMAN}
    assert agent == set(TOOL_MODELS) and human == HUMAN_TOOL_NAMES
    assert len(TOOL_DEFINITIONS) == 56  # band-sdk 6.0.1's table: 28 agent + 28 human tools
    for name, d in TOOL_DEFINITIONS.items():
        assert d.name == name
        owner = AgentTools if d.surface == Surface.AGENT else HumanTools
        assert inspect.iscoroutinefunction(getattr(owner, d.method_name)), name
        if d.surface == Surface.AGENT:
            assert d.input_model is TOOL_MODELS[name]
    send = TOOL_DEFINITIONS["band_send_message"]
    assert (send.method_name, send.surface) == ("send_message", Surface.AGENT)
    with pytest.raises(AttributeError):
        send.name = "x"  # type: ignore[misc]  # frozen


def test_room_binding_follows_the_bound_room_and_the_chat_id_field() -> None:
    assert classify_room_binding(TOOL_DEFINITIONS["band_send_message"]) == (True, False)
    assert classify_room_binding(TOOL_DEFINITIONS["band_list_contacts"]) == (False, False)
    assert classify_room_binding(TOOL_DEFINITIONS["band_get_my_chat_room"]) == (False, True)
    assert classify_room_binding(TOOL_DEFINITIONS["band_list_my_chats"]) == (False, False)


def test_iterating_filters_by_surface_and_capability() -> None:
    default = iter_tool_definitions()
    assert {d.surface for d in default} == {Surface.AGENT}
    assert _names(default) == CHAT_TOOL_NAMES | CONTACT_TOOL_NAMES  # contacts by default
    assert _names(iter_tool_definitions(capabilities=frozenset())) == CHAT_TOOL_NAMES
    both = _names(iter_tool_definitions(surface=None, capabilities=frozenset()))
    assert both & HUMAN_TOOL_NAMES and both & CHAT_TOOL_NAMES
    assert not both & (MEMORY_TOOL_NAMES | HUMAN_SURFACE_MEMORY_TOOL_NAMES)
    memory = iter_tool_definitions(
        surface=Surface.HUMAN, capabilities=frozenset({Capability.MEMORY})
    )
    assert HUMAN_SURFACE_MEMORY_TOOL_NAMES <= _names(memory) <= HUMAN_TOOL_NAMES


def test_selection_applies_capabilities_hub_room_and_filters_in_order() -> None:
    assert _names(selected_tool_definitions(AdapterFeatures())) == CHAT_TOOL_NAMES
    hub = selected_tool_definitions(AdapterFeatures(), is_hub_room=True)
    assert _names(hub) == CHAT_TOOL_NAMES | CONTACT_TOOL_NAMES
    memory = frozenset({Capability.MEMORY})
    # each filter narrows the previous one: a memory tool is not in the "chat" category
    narrowed = AdapterFeatures(
        capabilities=memory,
        include_categories=frozenset({"chat"}),
        include_tools=frozenset({"band_store_memory"}),
    )
    assert selected_tool_definitions(narrowed) == []
    picked = AdapterFeatures(
        capabilities=memory,
        include_categories=frozenset({"memory"}),
        exclude_tools=frozenset({"band_archive_memory"}),
    )
    assert _names(selected_tool_definitions(picked)) == MEMORY_TOOL_NAMES - {"band_archive_memory"}


class _Model(BaseModel):
    """Do a thing."""

    first: str = Field(description="The first\nline two")
    second: int = 0


def test_args_sections_come_from_the_field_descriptions() -> None:
    assert format_arg_doc("x", " one\n  two \n") == "    x: one\n        two"
    assert docstring_with_args("Do a thing.\n", _Model) == (
        "Do a thing.\n\nArgs:\n    first: The first\n        line two"
    )
    assert docstring_with_args("Bare.", BaseModel) == "Bare."
    text = get_tool_docstring_with_args("band_send_message")
    assert text.startswith(get_tool_description("band_send_message").rstrip() + "\n\nArgs:\n")
    assert "    content: Text of the message" in text and "    mentions: " in text
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert get_tool_docstring_with_args("send_message") == text
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    assert get_tool_docstring_with_args("no_such_tool") == "Execute no_such_tool"


def test_platform_tool_documents_the_function_and_serializes_its_result() -> None:
    @platform_tool
    async def band_get_participants(limit: int = 3) -> list[_Model]:
        return [_Model(first="a", second=limit)]

    assert band_get_participants.__doc__ == get_tool_docstring_with_args("band_get_participants")
    assert list(inspect.signature(band_get_participants).parameters) == ["limit"]
    import asyncio

    assert asyncio.run(band_get_participants(limit=5)) == [{"first": "a", "second": 5}]


def test_args_schema_is_the_input_model_with_enum_not_const_and_extra_validators() -> None:
    with pytest.raises(KeyError):
        platform_args_schema("no_such_tool")
    board = platform_args_schema("band_get_board")
    assert issubclass(board, TOOL_MODELS["band_get_board"])
    assert board.__doc__ == TOOL_MODELS["band_get_board"].__doc__
    include = board.model_json_schema()["properties"]["include"]
    assert {"enum": ["history"], "type": "string"} in include["anyOf"]
    assert "const" not in str(board.model_json_schema())

    def lower(cls: Any, value: Any) -> Any:
        return value.lower() if isinstance(value, str) else value

    loose = platform_args_schema(
        "band_add_participant",
        validators={"lower_role": field_validator("role", mode="before")(lower)},
    )
    assert loose.model_validate({"identifier": "@a", "role": "ADMIN"}).role == "admin"  # type: ignore[attr-defined]
    with pytest.raises(ValidationError):
        platform_args_schema("band_add_participant").model_validate(
            {"identifier": "@a", "role": "ADMIN"}
        )
