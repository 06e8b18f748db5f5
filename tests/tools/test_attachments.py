"""AgentTools.send_message with attachment_ids against the real local platform."""

from __future__ import annotations

from typing import Any

import pytest
from bandtest.platform import Live

from band.client.errors import UnprocessableEntityError

from .conftest import bound, human_messages, new_bot, new_room, person, run


def _upload(plat: Live, key: str, room: str, blob: bytes, name: str) -> dict[str, Any]:
    headers = {"X-API-Key": key, "x-file-name": name, "content-type": "text/csv"}
    url = f"{plat.rest}/api/v1/agent/chats/{room}/files"
    r = plat.client.put(url, content=blob, headers=headers)
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_send_message_with_attachment_ids_is_visible_to_the_human(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room = new_room(plat, bot)
    att = _upload(plat, bot.key, room, b"a,b\n1,2\n", "table.csv")

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            sent = await tools.send_message("the table", [me.id], attachment_ids=[att["id"]])
            assert sent["success"] is True and tools.turn.replied
            plain = await tools.send_message("no file", [me.id])
            [with_file] = [m for m in human_messages(plat, room) if m["id"] == sent["id"]]
            assert with_file["attachments"] == [att]
            assert with_file["attachments"][0]["name"] == "table.csv"
            assert with_file["attachments"][0]["bytes"] == len(b"a,b\n1,2\n")
            [without] = [m for m in human_messages(plat, room) if m["id"] == plain["id"]]
            assert without["attachments"] == []

    run(go())


def test_send_message_with_a_file_of_another_room_is_refused(plat: Live) -> None:
    bot = new_bot(plat)
    me = person(plat)
    room, other = new_room(plat, bot), new_room(plat, bot)
    att = _upload(plat, bot.key, other, b"elsewhere", "x.txt")

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            with pytest.raises(UnprocessableEntityError) as err:
                await tools.send_message("file", [me.id], attachment_ids=[att["id"]])
            assert err.value.status_code == 422 and err.value.code == "unknown_attachment"
            assert not tools.turn.replied
            assert human_messages(plat, room) == []

    run(go())
