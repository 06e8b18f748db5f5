"""Custom tools: names, schemas, declared turn effects recorded only on success."""

from __future__ import annotations

import asyncio
from typing import Any

import anthropic.types
import openai.types.chat
import pytest
from pydantic import BaseModel, Field, TypeAdapter

from band.core.turn import Turn, TurnVerdict
from band.runtime.tools import InvalidToolArgumentsError, TurnEffect
from band.runtime.tools.custom import (
    custom_tool_effects,
    custom_tool_to_anthropic_schema,
    custom_tool_to_openai_schema,
    custom_tools_to_schemas,
    declared_effect,
    declares_turn_effect,
    execute_custom_tool,
    find_custom_tool,
    get_custom_tool_name,
    is_failed_tool_output,
    reject_conflicting_tool_names,
)


class FileTicketInput(BaseModel):
    """File a support ticket."""

    title: str = Field(description="Ticket title")
    priority: int = Field(default=3, ge=1, le=5, description="1 (urgent) to 5")


class LookupInput(BaseModel):
    """Look something up."""

    query: str


def test_turn_effect_is_the_core_enum() -> None:
    from band.core.turn import TurnEffect as CoreTurnEffect

    assert TurnEffect is CoreTurnEffect
    assert [e.value for e in TurnEffect] == ["observe", "act", "reply", "decline"]


def test_tool_name_is_the_model_name_without_input_lowercased() -> None:
    assert get_custom_tool_name(FileTicketInput) == "fileticket"
    assert get_custom_tool_name(LookupInput) == "lookup"

    class Summarize(BaseModel):
        """Summarize."""

    assert get_custom_tool_name(Summarize) == "summarize"


def test_schemas_in_both_formats() -> None:
    oa = custom_tool_to_openai_schema(FileTicketInput)
    assert oa["type"] == "function" and oa["function"]["name"] == "fileticket"
    assert oa["function"]["description"] == "File a support ticket."
    params = oa["function"]["parameters"]
    assert params["required"] == ["title"]
    # a field named "title" survives the removal of pydantic's generated titles
    assert params["properties"]["title"] == {"description": "Ticket title", "type": "string"}
    TypeAdapter(openai.types.chat.ChatCompletionFunctionToolParam).validate_python(oa)
    an = custom_tool_to_anthropic_schema(FileTicketInput)
    assert an == {
        "name": "fileticket",
        "description": "File a support ticket.",
        "input_schema": params,
    }
    TypeAdapter(anthropic.types.ToolParam).validate_python(an)
    pair = [(FileTicketInput, lambda a: a), (LookupInput, lambda a: a)]
    assert [s["name"] for s in custom_tools_to_schemas(pair, "anthropic")] == [
        "fileticket",
        "lookup",
    ]
    with pytest.raises(ValueError) as err:
        custom_tools_to_schemas(pair, "xml")
    assert str(err.value) == "Invalid format: xml. Must be 'openai' or 'anthropic'"


def test_declared_effects() -> None:
    @declares_turn_effect(TurnEffect.REPLY)
    async def answer(args: LookupInput) -> str:
        return args.query

    async def legacy(args: LookupInput) -> str:
        return "done"

    legacy.band_terminal = True  # type: ignore[attr-defined]

    def plain(args: LookupInput) -> str:
        return "seen"

    assert declared_effect(answer) is TurnEffect.REPLY
    assert declared_effect(legacy) is TurnEffect.ACT
    assert declared_effect(plain) is None
    effects = custom_tool_effects([(FileTicketInput, answer), (LookupInput, plain)])
    assert effects == {"fileticket": TurnEffect.REPLY, "lookup": TurnEffect.OBSERVE}
    with pytest.raises(TypeError):
        declares_turn_effect("act")  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("effect", "verdict", "replied"),
    [
        (TurnEffect.ACT, TurnVerdict.Complete, False),
        (TurnEffect.REPLY, TurnVerdict.Complete, True),
        (TurnEffect.DECLINE, TurnVerdict.Complete, True),
        (TurnEffect.OBSERVE, TurnVerdict.MissingReply, False),
    ],
)
def test_success_records_the_declared_effect(
    effect: TurnEffect, verdict: TurnVerdict, replied: bool
) -> None:
    seen: list[FileTicketInput] = []

    @declares_turn_effect(effect)
    async def file_ticket(args: FileTicketInput) -> str:
        seen.append(args)
        return f"filed: {args.title}"

    turn = Turn()
    out = asyncio.run(
        execute_custom_tool((FileTicketInput, file_ticket), {"title": "printer"}, turn=turn)
    )
    assert out == "filed: printer" and seen[0].priority == 3
    assert turn.verdict() == verdict and turn.replied is replied


def test_band_terminal_handler_counts_as_work() -> None:
    def sync_handler(args: LookupInput) -> dict[str, Any]:
        return {"ok": True, "hits": 2}

    sync_handler.band_terminal = True  # type: ignore[attr-defined]
    turn = Turn()
    result = asyncio.run(
        execute_custom_tool((LookupInput, sync_handler), {"query": "q"}, turn=turn)
    )
    assert result == {"ok": True, "hits": 2}
    assert turn.complete and not turn.replied


def test_failures_record_nothing() -> None:
    @declares_turn_effect(TurnEffect.ACT)
    async def raises(args: LookupInput) -> str:
        raise RuntimeError("backend down")

    @declares_turn_effect(TurnEffect.REPLY)
    async def not_ok(args: LookupInput) -> dict[str, Any]:
        return {"ok": False, "error": "no"}

    @declares_turn_effect(TurnEffect.ACT)
    def error_text(args: LookupInput) -> str:
        return "Error: nothing found"

    turn = Turn()
    with pytest.raises(RuntimeError, match="backend down"):
        asyncio.run(execute_custom_tool((LookupInput, raises), {"query": "q"}, turn=turn))
    assert asyncio.run(execute_custom_tool((LookupInput, not_ok), {"query": "q"}, turn=turn)) == {
        "ok": False,
        "error": "no",
    }
    out = asyncio.run(execute_custom_tool((LookupInput, error_text), {"query": "q"}, turn=turn))
    assert out == "Error: nothing found"
    with pytest.raises(InvalidToolArgumentsError) as bad:
        asyncio.run(execute_custom_tool((FileTicketInput, error_text), {"priority": 9}, turn=turn))
    assert str(bad.value) == (
        "Invalid arguments for fileticket: title: Field required, "
        "priority: Input should be less than or equal to 5"
    )
    assert turn.verdict() == TurnVerdict.MissingReply and not turn.replied
    assert is_failed_tool_output("Error: x") and is_failed_tool_output({"ok": False})
    assert not is_failed_tool_output("All good. Error: none") and not is_failed_tool_output(
        {"ok": True}
    )


def test_handlers_taking_fields_as_keywords() -> None:
    def by_fields(title: str, priority: int) -> str:
        return f"{title}/{priority}"

    turn = Turn()
    out = asyncio.run(
        execute_custom_tool((FileTicketInput, by_fields), {"title": "t", "priority": 1}, turn=turn)
    )
    assert out == "t/1"


def test_lookup_and_name_conflicts() -> None:
    tools = [(FileTicketInput, lambda a: a), (LookupInput, lambda a: a)]
    found = find_custom_tool(tools, "lookup")
    assert found is not None and found[0] is LookupInput
    assert find_custom_tool(tools, "nope") is None
    reject_conflicting_tool_names(["fileticket", "lookup"])
    with pytest.raises(ValueError, match="conflicts with a Band platform tool"):
        reject_conflicting_tool_names(["band_send_message"])
    with pytest.raises(ValueError, match="more than one tool"):
        reject_conflicting_tool_names(["lookup", "lookup"])
