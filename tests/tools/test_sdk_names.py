"""band-sdk's names in band.runtime.tools (issue 55): HumanTools, the human input models, the
tool constants; each doing what band-sdk documents, on the real local platform."""

from __future__ import annotations

import inspect

import pytest
from bandtest.platform import Live

from band.client.rest import RestClient
from band.core.exceptions import BandToolError, InvalidToolArgumentsError
from band.core.types import Capability
from band.mcp import human_tools
from band.runtime import HumanTools as RuntimeHumanTools
from band.runtime import runtime as agent_runtime
from band.runtime.tools import (
    CAPABILITY_TOOL_NAMES,
    CHAT_ID_FIELD_NAME,
    CHAT_ID_MAX_LENGTH,
    CHAT_PAGE_SIZE,
    CONTACT_TOOL_NAMES,
    FILE_TOOL_NAMES,
    HUMAN_SURFACE_CONTACT_TOOL_NAMES,
    HUMAN_SURFACE_MEMORY_TOOL_NAMES,
    MAX_CHAT_PAGES,
    MEMORY_TOOL_NAMES,
    MISSING_MENTIONS_ERROR,
    TASK_TOOL_NAMES,
    TOOL_MODELS,
    AddMyChatParticipantInput,
    CreateMyChatRoomInput,
    HumanTools,
    SendMyChatMessageInput,
    withheld_tool_names,
)
from band.runtime.tools import inputs as tool_inputs
from band.runtime.tools.constants import MAX_ROOM_PAGES

from .conftest import bound, new_bot, new_room, person, run


def test_human_tools_run_the_human_api_one_method_per_tool(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)

    async def go() -> None:
        async with RestClient(plat.user_key, plat.rest) as rest:
            tools = HumanTools(rest)
            room = (await tools.create_my_chat_room())["data"]
            chats = (await tools.list_my_chats(page_size=100))["data"]
            assert room["id"] in [c["id"] for c in chats]
            added = await tools.add_my_chat_participant(room["id"], bot.id)
            assert bot.id in str(added)
            sent = await tools.send_my_chat_message(room["id"], "hello", bot.name)
            assert isinstance(sent, dict), sent
            nobody = await tools.send_my_chat_message(room["id"], "hi", "nobody")
            assert isinstance(nobody, str) and nobody.startswith("Error: Not found: nobody.")
            messages = (await tools.list_my_chat_messages(chat_id=room["id"]))["data"]
            assert [m["content"].endswith("hello") for m in messages] == [True]
            profile = (await tools.get_my_profile())["data"]
            assert profile["id"] == me.id
            # bad arguments fail with the tool's message before any request
            with pytest.raises(InvalidToolArgumentsError, match="band_register_my_agent"):
                await tools.register_my_agent(name="", description="x")
            with pytest.raises(TypeError):
                await tools.get_my_chat_room()  # type: ignore[call-arg]

    run(go())


def test_human_tools_methods_take_the_input_fields_as_parameters() -> None:
    assert RuntimeHumanTools is HumanTools
    for name, spec in human_tools.TOOLS.items():
        method = getattr(HumanTools, name.removeprefix("band_"))
        params = list(inspect.signature(method).parameters)[1:]
        assert params == list(spec.input_model.model_fields), name
        assert inspect.iscoroutinefunction(method)
    assert CreateMyChatRoomInput is human_tools.CreateMyChatRoom
    assert tool_inputs.SendMyChatMessageInput is SendMyChatMessageInput
    assert SendMyChatMessageInput(chat_id="r", content="c", recipients="@x").recipients == "@x"


def test_add_participant_input_leaves_the_role_to_the_room(plat: Live) -> None:
    """band-sdk's AddMyChatParticipantInput leaves role None; the participant joins as a
    member. band-mcp's model (the MCP tool's schema) keeps its documented 'member' default."""
    assert AddMyChatParticipantInput(chat_id="r", participant_id="p").role is None
    assert human_tools.AddMyChatParticipant(chat_id="r", participant_id="p").role == "member"
    assert AddMyChatParticipantInput(chat_id="r", participant_id="p", role="admin").role == "admin"
    with pytest.raises(ValueError, match="role"):
        AddMyChatParticipantInput(chat_id="r", participant_id="p", role="king")  # type: ignore[arg-type]
    bot = new_bot(plat)
    person(plat)

    async def go() -> None:
        async with RestClient(plat.user_key, plat.rest) as rest:
            tools = HumanTools(rest)
            room = (await tools.create_my_chat_room())["data"]
            inp = AddMyChatParticipantInput(chat_id=room["id"], participant_id=bot.id)
            await tools.add_my_chat_participant(**inp.model_dump())  # role=None, as band-sdk's
            listed = (await tools.list_my_chat_participants(room["id"]))["data"]
            assert [p["role"] for p in listed if p["id"] == bot.id] == ["member"]

    run(go())


def test_capability_tool_names_gate_agent_and_human_tools() -> None:
    assert CAPABILITY_TOOL_NAMES[Capability.MEMORY] == (
        MEMORY_TOOL_NAMES | HUMAN_SURFACE_MEMORY_TOOL_NAMES
    )
    assert CAPABILITY_TOOL_NAMES[Capability.CONTACTS] == (
        CONTACT_TOOL_NAMES | HUMAN_SURFACE_CONTACT_TOOL_NAMES
    )
    assert CAPABILITY_TOOL_NAMES[Capability.FILES] == FILE_TOOL_NAMES
    assert "band_list_user_memories" in HUMAN_SURFACE_MEMORY_TOOL_NAMES
    assert "band_resolve_handle" in HUMAN_SURFACE_CONTACT_TOOL_NAMES
    kept = frozenset({Capability.MEMORY, Capability.CONTACTS})
    withheld = withheld_tool_names(kept)
    assert withheld == FILE_TOOL_NAMES | TASK_TOOL_NAMES
    assert "band_send_message" not in withheld_tool_names(frozenset())


def test_the_constants_are_the_values_the_tools_and_runtime_use(plat: Live) -> None:
    # the runtime lists its rooms in band-sdk's pages, and reads more of them than band-sdk
    # (tests/runtime/test_many_rooms.py: an agent in 5,050 rooms)
    assert agent_runtime.ROOM_PAGE_SIZE == CHAT_PAGE_SIZE
    assert agent_runtime.MAX_ROOM_PAGES == MAX_ROOM_PAGES > MAX_CHAT_PAGES
    # a room-bound tool names its room with this field, up to this length (band-mcp checks it)
    schema = TOOL_MODELS["band_send_message"].model_json_schema()
    assert CHAT_ID_FIELD_NAME not in schema["properties"]  # agent tools are bound to one room
    human_schema = human_tools.GetMyChatRoom.model_json_schema()
    assert CHAT_ID_FIELD_NAME in human_schema["properties"]
    from band.mcp import server

    assert server.ROOM_ID_MAX == CHAT_ID_MAX_LENGTH
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room, participants=[]) as tools:
            with pytest.raises(BandToolError) as empty:
                await tools.send_message("hi", [])
            assert str(empty.value).startswith(MISSING_MENTIONS_ERROR)

    run(go())
