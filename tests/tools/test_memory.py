"""The memory tools against the real local platform."""

from __future__ import annotations

import pytest
from bandtest.platform import Live

from band.client.errors import NotFoundError
from band.core.turn import TurnVerdict
from band.runtime.tools import InvalidToolArgumentsError

from .conftest import assert_tool_errors, bound, new_bot, new_room, run

NOTE = {
    "content": "Dana prefers short answers",
    "system": "long_term",
    "type": "semantic",
    "segment": "user",
    "thought": "shapes every reply to Dana",
    "scope": "agent",
}
ID_ERROR = "ID must contain only ASCII letters, digits, underscores or hyphens"
SUBJECT_ERROR = (
    'scope="subject" requires a subject_id (the UUID of the person or agent the memory is '
    "about). You did not provide one. If you do not have a concrete subject UUID, retry with "
    'scope="agent" and omit subject_id. Do not invent a UUID.'
)


def test_memory_lifecycle(plat: Live) -> None:
    bot, other = new_bot(plat), new_bot(plat, "Other")
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            out = await tools.execute_tool_call_structured(
                "band_store_memory", {**NOTE, "metadata": {"tags": ["style"]}}
            )
            assert out.ok and tools.turn.complete
            mem = out.value
            assert mem["content"] == NOTE["content"] and mem["scope"] == "agent"
            assert mem["metadata"]["tags"] == ["style"]
            about = await tools.store_memory(
                "likes tea", "working", "episodic", "agent", "small talk", "subject", other.id
            )
            assert about["subject_id"] == other.id

            got = await tools.execute_tool_call_structured(
                "band_get_memory", {"memory_id": mem["id"]}
            )
            assert got.ok and got.value["id"] == mem["id"]
            listed = await tools.list_memories(content_query="short answers")
            assert [m["id"] for m in listed["data"]] == [mem["id"]]
            by_subject = await tools.execute_tool_call_structured(
                "band_list_memories", {"subject_id": other.id, "scope": "subject"}
            )
            assert [m["id"] for m in by_subject.value["data"]] == [about["id"]]
            filtered = await tools.list_memories(system="working", type="episodic", page_size=50)
            assert [m["id"] for m in filtered["data"]] == [about["id"]]

            sup = await tools.supersede_memory(mem["id"])
            assert sup["status"] == "superseded"
            arc = await tools.execute_tool_call_structured(
                "band_archive_memory", {"memory_id": about["id"]}
            )
            assert arc.ok and arc.value["status"] == "archived"
            active = await tools.list_memories(status="active")
            assert active["data"] == []
            every = await tools.list_memories(status="all", segment="user")
            assert [m["id"] for m in every["data"]] == [mem["id"]]
        async with bound(plat, other, room) as theirs:
            # another agent cannot touch it: the REST error becomes the tool's text
            out = await theirs.execute_tool_call_structured(
                "band_supersede_memory", {"memory_id": mem["id"]}
            )
            assert not out.ok
            assert out.error_message.startswith("Error executing band_supersede_memory: ")
            assert theirs.turn.verdict() == TurnVerdict.MissingReply
            with pytest.raises(NotFoundError):  # not visible to another agent
                await theirs.archive_memory(mem["id"])

    run(go())


def test_memory_errors(plat: Live) -> None:
    bot = new_bot(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            for tool in ("band_get_memory", "band_supersede_memory", "band_archive_memory"):
                for bad in ("../etc", "a b", "x/y", "", "é"):
                    out = await tools.execute_tool_call_structured(tool, {"memory_id": bad})
                    assert out.error_message == (
                        f"Invalid arguments for {tool}: memory_id: Value error, {ID_ERROR}"
                    )
            with pytest.raises(InvalidToolArgumentsError, match=ID_ERROR):
                await tools.get_memory("../../agent/me")

            await assert_tool_errors(
                tools,
                (
                    "band_store_memory",
                    {**NOTE, "system": "working", "type": "iconic"},
                    "Invalid arguments for band_store_memory: : Value error, 1 validation "
                    "issue(s): type `iconic` is not valid for system `working`; "
                    "expected one of: episodic, semantic, procedural (type)",
                ),
                (
                    "band_store_memory",
                    {**NOTE, "scope": "subject"},
                    f"Invalid arguments for band_store_memory: : Value error, {SUBJECT_ERROR}",
                ),
                (
                    "band_store_memory",
                    {**NOTE, "scope": "organization"},
                    'Error executing band_store_memory: scope="organization" was rejected: the '
                    'agent\'s owner does not belong to an organization. Retry with scope="agent" '
                    "instead.",
                ),
                (
                    "band_list_memories",
                    {"page_size": 51},
                    "Invalid arguments for band_list_memories: page_size: "
                    "Input should be less than or equal to 50",
                ),
                (
                    "band_list_memories",
                    {"scope": "everyone"},
                    "Invalid arguments for band_list_memories: scope: "
                    "Input should be 'agent', 'subject', 'organization' or 'all'",
                ),
            )
            missing = await tools.execute_tool_call_structured(
                "band_get_memory", {"memory_id": "no-such-memory"}
            )
            assert missing.error_message is not None
            assert "status_code: 404" in missing.error_message
            assert tools.turn.verdict() == TurnVerdict.MissingReply

    run(go())
