"""band.runtime.tools' helpers: mention matching, image blocks, MCP spellings, result text."""

from __future__ import annotations

import asyncio
import base64
import datetime as dt
import json
from collections.abc import Awaitable, Callable

import pytest
from pydantic import BaseModel, ValidationError

from band.core import wire as w
from band.core.turn import TurnEffect
from band.core.types import Capability
from band.runtime import tools as t


def test_handles_match_with_or_without_at_and_in_any_case() -> None:
    alice = {"id": "u1", "handle": "@Alice", "name": "Alice Smith"}
    assert t.strip_handle_prefix("@@bob") == "bob"
    assert t.matches_identifier(alice, "alice") and t.matches_identifier(alice, "@ALICE")
    assert t.matches_identifier(alice, "alice smith") and t.matches_identifier(alice, "U1")
    assert not t.matches_identifier(alice, "@u1")  # the @ belongs to handles only
    assert not t.matches_identifier(alice, "")
    participant = w.ChatParticipant(id="u2", handle="@carol", name="Carol", type="User")
    assert t.matches_identifier(participant, "carol")


def test_mention_hint_lists_other_handles_once() -> None:
    people = [{"id": "me", "handle": "@me"}, {"id": "u1", "handle": "@a"}, {"id": "u2"}]
    assert t.available_mention_handles(people, "me") == ["@a"]
    hinted = t.append_available_mention_handles("Error sending", people, "me")
    assert (
        hinted == "Error sending. Available handles: ['@a']. Use participant handles from the list."
    )
    assert t.append_mention_handles_hint(hinted, ["@b"]) == hinted
    assert t.append_mention_handles_hint("Error sending", []) == "Error sending"


def test_image_blocks_are_recognised_only_from_read_room_file() -> None:
    data = base64.b64encode(b"\x89PNG").decode()
    result = {"content": [{"type": "image", "data": data, "mimeType": "image/png"}]}
    assert t.is_image_passthrough_result("band_read_room_file", result)
    assert t.image_passthrough_result("band_read_room_file", result) is result
    assert t.image_passthrough_result("band_send_message", result) is None
    assert not t.is_mcp_content_result({"content": [{"type": "image", "data": data}]})
    assert not t.is_mcp_content_result({"content": []})
    assert t.decode_image_blocks(result) == [(b"\x89PNG", "image/png")]
    assert t.image_block_placeholder(2) == "<2 image content block(s)>"
    with pytest.raises(KeyError):
        t.decode_image_block({"mimeType": "image/png"})


def test_band_server_spelling_resolves_and_others_do_not() -> None:
    spelled = t.mcp_tool_spelling(t.BAND_MCP_SERVER_NAME, "band_send_message")
    assert spelled == "band-band_send_message"
    assert t.canonicalize_mcp_tool_name(spelled, t.ALL_TOOL_NAMES) == "band_send_message"
    assert t.canonicalize_mcp_tool_name("x-band_send_message", t.ALL_TOOL_NAMES) == (
        "x-band_send_message"
    )
    assert t._resolve_mcp_tool_name("x-band_send_message", t.ALL_TOOL_NAMES) is None


def test_turn_effects_and_error_convention() -> None:
    assert t.turn_effect("band-band_no_reply") is TurnEffect.DECLINE
    assert t.turn_effect("band_send_message") is TurnEffect.REPLY
    assert t.turn_effect("mine", custom_effects={"mine": TurnEffect.REPLY}) is TurnEffect.REPLY
    observe = {"band_send_message": TurnEffect.OBSERVE}
    assert t.turn_effect("band_send_message", custom_effects=observe) is TurnEffect.REPLY
    assert t.turn_effect("unknown") is TurnEffect.OBSERVE
    assert t.band_tool_errored("band_send_message", "Error sending message: boom")
    assert not t.band_tool_errored("my_tool", "Error sending message: boom")
    assert not t.band_tool_errored("band_send_message", {"error": "x"})


class _Shot(BaseModel):
    raw: bytes
    at: dt.datetime


def test_results_become_json_with_url_safe_bytes() -> None:
    shot = _Shot(raw=b"\xff\xfe", at=dt.datetime(2026, 1, 2, 3, 4, 5))
    plain = {"raw": "__4=", "at": "2026-01-02T03:04:05"}
    assert t.serialize_tool_result(shot) == plain
    assert t.serialize_tool_result([shot, 1]) == [plain, 1]
    assert t.serialize_tool_result({"k": 1}) == {"k": 1}
    assert t.tool_result_text("as is") == "as is"
    assert json.loads(t.tool_result_text({"shot": shot, "b": b"\xff"})) == {
        "shot": plain,
        "b": "_w==",
    }
    memory = w.AgentMemory(
        id="m1", content="c", subject_id="s", scope="subject", system="long_term"
    )
    assert json.loads(t.tool_result_text(memory))["id"] == "m1"
    with pytest.raises(TypeError):
        t.tool_result_text(object())


class _Page:
    """A listing page as the REST client returns it: rows and ``metadata.total_pages``."""

    def __init__(self, total_pages: int | None) -> None:
        self.metadata = w.Paging(total_pages=total_pages)


async def _walk(fetch: Callable[[int, int], Awaitable[_Page]]) -> list[_Page]:
    return [page async for page in t.iter_chat_pages(fetch)]


def test_chat_pages_walk_until_the_last_reported_page() -> None:
    asked: list[tuple[int, int]] = []

    async def fetch(page: int, size: int) -> _Page:
        asked.append((page, size))
        return _Page(3)

    pages = asyncio.run(_walk(fetch))
    assert len(pages) == 3 and asked == [(n, t.CHAT_PAGE_SIZE) for n in (1, 2, 3)]

    async def endless(page: int, size: int) -> _Page:
        return _Page(10**6)

    assert len(asyncio.run(_walk(endless))) == t.MAX_CHAT_PAGES

    async def unknown(page: int, size: int) -> _Page:
        return _Page(None)

    assert len(asyncio.run(_walk(unknown))) == 1


def test_tool_lookups_by_name() -> None:
    assert t.resolve_tool_model("band_send_message") is t.SendMessageInput
    assert t.resolve_tool_model("band-band_send_message") is None
    with pytest.warns(DeprecationWarning, match="band_no_reply"):
        legacy = t.get_tool_description("no_reply")
    assert legacy == t.get_tool_description("band_no_reply") == t.TOOLS["band_no_reply"].description
    assert t.get_tool_description("nope") == "Execute nope"
    assert t.resolve_capabilities(None) == t.DEFAULT_CAPABILITIES
    assert t.resolve_capabilities([]) == frozenset()


def test_band_tool_names_every_agent_tool_once() -> None:
    assert [str(member) for member in t.BandTool] == list(t.TOOLS)
    assert t.BandTool.READ_ROOM_FILE == "band_read_room_file"
    assert t.BandTool("band_no_reply") is t.BandTool.NO_REPLY
    assert t.get_band_tool_category(t.BandTool.SEND_MESSAGE) is t.ToolCategory.CHAT
    assert t.get_band_tool_category("band_store_memory") is t.ToolCategory.MEMORY
    assert t.get_band_tool_category("band_create_my_chat_room") is None
    assert {c.value for c in t.ToolCategory} == {"chat", *(c.value for c in Capability)}


def test_tool_arguments_validate_to_keywords_without_nones() -> None:
    args = {"state": None, "limit": 5}
    assert t.validate_tool_arguments("band_list_tasks", t.ListTasksInput, args) == {"limit": 5}
    refused = r"^Invalid arguments for band_x: limit: "
    with pytest.raises(t.InvalidToolArgumentsError, match=refused):
        t.validate_tool_arguments("band_x", t.ListTasksInput, {"limit": 0})
    try:
        t.SendMessageInput.model_validate({"content": 3})
    except ValidationError as exc:
        text = t.format_tool_validation_error("band_send_message", exc)
    assert text.startswith("Invalid arguments for band_send_message: content: ")
    assert "mentions: Field required" in text
