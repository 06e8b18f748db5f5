"""ACPClientAdapter as band-sdk 6.0.1 has it: the 13 Band tools, ``@handle`` mentions in the
prompt, the room-file tools, and the official adapter options and config fields.

Scripted ACP agent processes, the adapter's Band MCP server (listed with the official ``mcp``
client) and the real local platform, as in test_acp_adapter.py.
"""

from __future__ import annotations

import asyncio
import base64
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from acp.schema import ClientCapabilities, FileSystemCapabilities
from acp_helpers import calls, run
from bandtest.platform import Live, live_platform
from bandtest.tool_names import CAPABILITY_TOOLS, CHAT_TOOLS
from pydantic import ValidationError
from test_acp_adapter import Harness, after_restart, harness, tool_events

from band.core.types import HistoryProvider, PlatformMessage
from band.integrations.acp import ACPClientAdapter, ACPClientAdapterConfig, ACPClientProfile
from band.integrations.acp.mentions import mention_label, replace_uuid_mentions
from band.runtime.capabilities import Capability
from band.runtime.tools import FILE_UNAVAILABLE_MESSAGE, AgentTools

CHAT = CHAT_TOOLS
CONTACTS = CAPABILITY_TOOLS[Capability.CONTACTS]
FILES = CAPABILITY_TOOLS[Capability.FILES]


@pytest.fixture(scope="module")
def plat() -> Iterator[Live]:
    """One local platform for this module's tests (each registers its own agent and room)."""
    yield from live_platform()


async def _listed(h: Harness) -> list[str]:
    from mcp import ClientSession
    from mcp.client.streamable_http import streamable_http_client

    url = h.adapter.mcp_server.room_http_url(h.room)
    async with streamable_http_client(url) as s, ClientSession(s[0], s[1]) as session:
        await session.initialize()
        return [t.name for t in (await session.list_tools()).tools]


def _handles(plat: Live, room: str) -> dict[str, str]:
    rows = plat.human("GET", f"/api/v1/me/chats/{room}/participants").json()["data"]
    return {p["id"]: p["handle"] for p in rows}


async def _turn(h: Harness, content: str) -> AgentTools:
    """One turn whose message content is ``content`` exactly (mention tokens included)."""
    tools = AgentTools(h.room, h.rest, agent_id=h.agent_id)
    msg = PlatformMessage(
        "m-1", h.room, content, h.person_id, "User", h.person_name, "text", {}, datetime.now(UTC)
    )
    await h.adapter.on_message(
        msg, tools, HistoryProvider([]), None, None, is_session_bootstrap=False, room_id=h.room
    )
    return tools


def _prompts(h: Harness) -> list[str]:
    return [c["text"] for c in calls(h.workspace) if c["method"] == "prompt"]


# -- tools -----------------------------------------------------------------------------------------


def test_serves_the_13_official_tools_contacts_included(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            await h.message("tool band_list_contacts {}; reply listed")
            assert await _listed(h) == CHAT + CONTACTS
            [(_, name, output)] = [e for e in tool_events(h.events()) if e[0] == "tool_result"][:1]
            assert name == "band_list_contacts" and '"data"' in output  # served, not refused
            assert not any(t == "error" for t, _ in h.events())

    run(main())


@pytest.mark.parametrize(
    ("caps", "want"),
    [
        ([Capability.FILES], CHAT + CONTACTS + FILES),
        (list(Capability), None),  # every group: 28, in the registry's order
    ],
    ids=["files", "all"],
)
def test_capabilities_add_their_groups(
    plat: Live, tmp_path: Path, caps: list[Capability], want: list[str] | None
) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, adapter_kw={"capabilities": caps}) as h:
            await h.message("reply warm up")
            names = await _listed(h)
            if want is None:
                every = AgentTools("r", h.rest).get_anthropic_tool_schemas(
                    capabilities=frozenset(Capability)
                )
                assert names == [s["name"] for s in every] and len(names) == 28
            else:
                assert names == want

    run(main())


def test_tool_filters_narrow_the_served_tools(plat: Live, tmp_path: Path) -> None:
    kw = {
        "capabilities": [Capability.FILES, Capability.MEMORY],
        "include_categories": ["chat", "files"],
        "exclude_tools": ["band_lookup_peers", "band_send_room_file"],
    }

    async def main() -> None:
        async with harness(plat, tmp_path, adapter_kw=kw) as h:
            await h.message("tool band_list_contacts {}; reply done")
            names = await _listed(h)
            assert names == [n for n in CHAT if n != "band_lookup_peers"] + FILES[:2]
            # a filtered-out tool is not callable either
            [(_, name, output)] = [e for e in tool_events(h.events()) if e[0] == "tool_result"][:1]
            assert name == "band_list_contacts" and output == "Unknown tool: band_list_contacts"
        only = {"include_tools": ["band_send_message", "band_no_reply"]}
        async with harness(plat, tmp_path, adapter_kw=only) as h:
            await h.message("reply hi")
            assert await _listed(h) == ["band_send_message", "band_no_reply"]

    run(main())


def test_room_file_tools_over_mcp(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, adapter_kw={"capabilities": [Capability.FILES]}) as h:
            share = {"content": "ten bytes!", "filename": "a.txt", "mentions": [h.person_id]}
            missing = {"file_id": "0b5e1f5c-0000-4000-8000-000000000000"}
            tools = await h.message(
                f"tool band_send_room_file {json.dumps(share)}; "
                f"tool band_read_room_file {json.dumps(missing)}; tool band_list_room_files {{}}"
            )
            assert tools.turn.replied  # the shared file's message is the reply
            events = tool_events(h.events())
            calls_ = [e for e in events if e[0] == "tool_call"]
            results = [e for e in events if e[0] == "tool_result"]
            # the file's text never reaches the room's tool_call events
            assert calls_[0][1] == "band_send_room_file"
            assert calls_[0][2]["content"] == "<10 byte file content>"
            assert (
                results[1][1] == "band_read_room_file" and results[1][2] == FILE_UNAVAILABLE_MESSAGE
            )
            listed = json.loads(results[2][2])
            [att] = listed["data"]
            assert att["name"] == "a.txt" and att["bytes"] == 10
            [msg] = [r for r in h.rows() if r["attachments"]]
            assert msg["content"].endswith("Shared a file: a.txt")
            assert [a["id"] for a in msg["attachments"]] == [att["id"]]

    run(main())


def test_read_room_file_image_is_mcp_image_content(plat: Live, tmp_path: Path) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(24))

    async def main() -> None:
        from mcp import ClientSession
        from mcp.client.streamable_http import streamable_http_client

        async with harness(plat, tmp_path, adapter_kw={"capabilities": [Capability.FILES]}) as h:
            up = await h.rest.request(
                "PUT",
                f"/agent/chats/{h.room}/files",
                content=png,
                headers={"x-file-name": "dot.png", "content-type": "image/png"},
            )
            fid = up.data["id"]
            await h.rest.request(
                "POST",
                f"/agent/chats/{h.room}/messages",
                json={
                    "message": {
                        "content": "pic",
                        "mentions": [{"id": h.person_id}],
                        "attachment_ids": [fid],
                    }
                },
            )
            await h.message("reply warm up")  # binds the room's tools
            url = h.adapter.mcp_server.room_http_url(h.room)
            async with streamable_http_client(url) as s, ClientSession(s[0], s[1]) as session:
                await session.initialize()
                image = await session.call_tool("band_read_room_file", {"file_id": fid})
                gone = await session.call_tool("band_read_room_file", {"file_id": "nope"})
            assert not image.isError
            [block] = image.content
            assert block.type == "image" and block.mimeType == "image/png"
            assert base64.b64decode(block.data) == png
            assert gone.isError and gone.content[0].text == FILE_UNAVAILABLE_MESSAGE

    run(main())


# -- mentions --------------------------------------------------------------------------------------


def test_prompt_mentions_are_rewritten_to_handles(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            handles = _handles(plat, h.room)
            me, bot = handles[h.person_id], handles[h.agent_id]
            ghost = "0b5e1f5c-0000-4000-8000-00000000dead"
            content = f"@[[{h.agent_id}]] hi @[[{h.person_id}]], ask @[[{ghost}]] [[reply ok]]"
            tools = await _turn(h, content)
            assert tools.turn.replied
            prompt = _prompts(h)[-1]
            # someone not in the room keeps the token; everyone else reads as @handle
            assert prompt.endswith(
                f"[{h.person_name}]: @{bot} hi @{me}, ask @[[{ghost}]] [[reply ok]]"
            )
            assert f"@[[{h.agent_id}]]" not in prompt and f"@[[{h.person_id}]]" not in prompt

    run(main())


def test_replayed_history_carries_handles(plat: Live, tmp_path: Path) -> None:
    async def main() -> None:
        async with after_restart(plat, tmp_path) as (h, handle):
            history = _prompts(h)[-1].split("[Conversation History]")[1]
            me = _handles(plat, h.room)[h.person_id]
            # the person's message mentioned the agent; the agent's reply the person
            assert f"@{handle} [[reply first answer]]" in history
            assert f"@{me} first answer" in history and "@[[" not in history

    run(main())


def test_mention_labels() -> None:
    people = [
        {"id": "a", "handle": "ada/helper", "name": "Helper"},
        {"id": "b", "handle": None, "name": "Grace  Hopper"},
        {"id": "c", "name": ""},
    ]
    assert replace_uuid_mentions("@[[a]] @[[b]] @[[c]] @[[d]]", people) == (
        "@ada/helper @Grace-Hopper @[[c]] @[[d]]"
    )
    assert mention_label(handle=None, name=" \t") is None
    assert replace_uuid_mentions("", people) == ""


# -- options and config ----------------------------------------------------------------------------


def test_settle_timeout_field() -> None:
    assert ACPClientAdapterConfig(command=["a"]).turn_settle_timeout_s == 10.0
    assert ACPClientAdapterConfig(command=["a"], turn_settle_timeout_s=0).turn_settle_timeout_s == 0
    with pytest.raises(ValidationError) as err:
        ACPClientAdapterConfig(command=["a"], turn_settle_timeout_s=-1)
    assert [e["loc"] for e in err.value.errors()] == [("turn_settle_timeout_s",)]


def test_spawn_process_is_refused() -> None:
    with pytest.raises(ValueError) as err:
        ACPClientAdapter(ACPClientAdapterConfig(command=["a"]), spawn_process=object())
    assert str(err.value) == "custom ACP transports cannot guarantee room process isolation"


@pytest.mark.parametrize("settle", [10.0, 0.0], ids=["settles", "cancels"])
def test_closing_a_room_lets_its_turn_settle(plat: Live, tmp_path: Path, settle: float) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path, turn_settle_timeout_s=settle) as h:
            turn = asyncio.create_task(h.message("sleep 1; reply settled"))
            while not (state := h.adapter.rooms.rooms.get(h.room)) or not any(
                c["method"] == "prompt" for c in calls(state.workspace)
            ):
                await asyncio.sleep(0.05)
            workspace = h.workspace
            await h.adapter.on_cleanup(h.room)
            tools = await asyncio.wait_for(turn, 20)
            methods = [c["method"] for c in calls(workspace)]
            if settle:  # the turn ended on its own: replied, never cancelled
                assert tools.turn.replied and ("text", "settled") in h.events()
                assert "cancel" not in methods
            else:
                assert not tools.turn.replied and "cancel" in methods

    run(main())


class EchoProfile:
    """Answers extension requests with what it was asked."""

    def __init__(self) -> None:
        self.forgotten: list[str] = []

    def forget_session(self, session_id: str) -> None:
        self.forgotten.append(session_id)

    async def ext_method(self, method: str, params: dict[str, Any]) -> dict[str, Any]:
        return {"method": method, "params": params}

    async def ext_notification(self, method: str, params: dict[str, Any]) -> None:
        return None


def test_profile_and_client_capabilities(plat: Live, tmp_path: Path) -> None:
    profile = EchoProfile()
    assert isinstance(profile, ACPClientProfile)
    caps = ClientCapabilities(fs=FileSystemCapabilities(read_text_file=True), terminal=False)

    async def main() -> None:
        kw = {"profile": profile, "client_capabilities": caps}
        async with harness(plat, tmp_path, adapter_kw=kw) as h:
            await h.message('ext acme/ping {"n": 1}; reply pong')
            answer = {"method": "acme/ping", "params": {"n": 1}}
            assert ("thought", json.dumps(answer, sort_keys=True)) in h.events()
            [init] = [c for c in calls(h.workspace) if c["method"] == "initialize"]
            assert init["client_capabilities"]["fs"]["readTextFile"] is True
            assert init["client_capabilities"]["terminal"] is False
            session = h.adapter.rooms.room(h.room).session_id
            await h.adapter.on_cleanup(h.room)
            assert profile.forgotten == [session]

    run(main())


def test_default_client_capabilities_advertise_no_fs_or_terminal(
    plat: Live, tmp_path: Path
) -> None:
    async def main() -> None:
        async with harness(plat, tmp_path) as h:
            await h.message("ext acme/ping {}; reply pong")
            [init] = [c for c in calls(h.workspace) if c["method"] == "initialize"]
            fs = init["client_capabilities"]["fs"]
            assert fs["readTextFile"] is False and fs["writeTextFile"] is False
            assert init["client_capabilities"]["terminal"] is False
            assert ("thought", "{}") in h.events()  # no profile: extension requests get {}

    run(main())
