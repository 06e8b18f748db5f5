"""The room-file tools (send, list, read) against the real local platform."""

from __future__ import annotations

import base64
import hashlib
import json
from typing import Any

import pytest
from bandtest.platform import Live
from bandtest.refsdk import requires_refsdk, run_refsdk

from band.runtime.tools import (
    DEFAULT_FILE_CAPTION,
    FILE_UNAVAILABLE_MESSAGE,
    FILENAME_HEADER_SAFE_PATTERN,
    BandToolError,
    file_content_placeholder,
    redact_tool_call_args,
)
from band.runtime.tools.files import AttachmentCache
from band.runtime.tools.inputs import ID_ERROR

from .conftest import Bot, bound, human_messages, new_bot, new_room, person, run

ATTACHMENT_KEYS = {"bytes", "content_type", "expires_at", "has_thumb", "id", "name", "sha_256"}


def _upload(plat: Live, bot: Bot, room: str, blob: bytes, name: str, ctype: str) -> dict[str, Any]:
    headers = {"X-API-Key": bot.key, "x-file-name": name, "content-type": ctype}
    r = plat.client.put(
        f"{plat.rest}/api/v1/agent/chats/{room}/files", content=blob, headers=headers
    )
    assert r.status_code == 200, r.text
    return dict(r.json()["data"])


def test_send_room_file_uploads_and_posts_it_as_the_reply(plat: Live) -> None:
    bot, me = new_bot(plat), person(plat)
    room = new_room(plat, bot)
    text = "# Notes\nline 2 — ünïcode\n"

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            sent = await tools.send_room_file(text, "notes.md", "my notes", [me.handle])
            assert tools.turn.replied
            att = sent["attachment"]
            assert set(sent) == {"attachment", "message_id"} and set(att) == ATTACHMENT_KEYS
            blob = text.encode()
            assert att["name"] == "notes.md" and att["bytes"] == len(blob)
            assert att["sha_256"] == hashlib.sha256(blob).hexdigest()
            assert att["content_type"] == "text/plain" and att["expires_at"] is None
            [msg] = [m for m in human_messages(plat, room) if m["id"] == sent["message_id"]]
            assert msg["content"].endswith("my notes")
            assert [a["id"] for a in msg["attachments"]] == [att["id"]]
            # the bytes the person downloads are the text sent
            url = f"/api/v1/agent/chats/{room}/files/{att['id']}"
            assert plat.agent(bot.key, "GET", url).content == blob

            # a blank caption becomes the default one: the platform refuses blank content
            other = await tools.execute_tool_call_structured(
                "band_send_room_file",
                {"content": "x", "filename": "b.txt", "caption": " \u200b ", "mentions": [me.id]},
            )
            assert other.ok, other.error_message
            [msg2] = [m for m in human_messages(plat, room) if m["id"] == other.value["message_id"]]
            assert msg2["content"].endswith(DEFAULT_FILE_CAPTION.format(filename="b.txt"))
            assert msg2["content"].endswith("Shared a file: b.txt")

    run(go())


def test_list_and_read_files_of_the_room(plat: Live) -> None:
    bot, peer, me = new_bot(plat), new_bot(plat, "Peer"), person(plat)
    room = new_room(plat, bot, peer)
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(40))
    bad_utf8 = b"caf\xe9 au lait\n"
    json_text = b'{"looks": ["like", "json"]}'
    big = b"x" * (16 * 1024 + 1)

    async def go() -> None:
        files = {
            "png": _upload(plat, bot, room, png, "dot.png", "image/png"),
            "latin1": _upload(plat, bot, room, bad_utf8, "latin1.txt", "text/plain"),
            "json": _upload(plat, bot, room, json_text, "data.txt", "text/plain"),
            "big": _upload(plat, bot, room, big, "big.txt", "text/plain"),
            "bin": _upload(plat, bot, room, b"\x00\x01\x02", "blob.bin", "application/zip"),
        }
        ids = [f["id"] for f in files.values()]
        peer_file = _upload(plat, peer, room, b"from the peer\n", "peer.txt", "text/plain")
        async with bound(plat, bot, room) as tools:
            await tools.send_message("files", [me.id], attachment_ids=ids[:3])
            await tools.send_message("more", [me.id], attachment_ids=ids[2:])  # data.txt twice
        async with bound(plat, peer, room) as ptools:  # a file in a message mentioning the bot
            await ptools.send_message("for you", [bot.handle], attachment_ids=[peer_file["id"]])
        async with bound(plat, bot, room) as tools:
            listed = await tools.list_room_files()
            assert [a["id"] for a in listed["data"]] == [*ids, peer_file["id"]]  # each once
            assert listed["next_cursor"] is None
            assert all(set(a) == ATTACHMENT_KEYS for a in listed["data"])
            assert not tools.turn.replied and not tools.turn.complete  # observing only

            text = await tools.read_room_file(peer_file["id"])
            assert text == {
                "name": "peer.txt",
                "content_type": "text/plain",
                "bytes": 14,
                "text": "from the peer\n",
            }
            # downloaded bytes are never decoded as JSON
            assert (await tools.read_room_file(files["json"]["id"]))["text"] == json_text.decode()
            latin = await tools.read_room_file(files["latin1"]["id"])
            assert latin["text"] == "caf\ufffd au lait\n"
            assert latin["description"].startswith("This file is not valid UTF-8")
            image = await tools.read_room_file(files["png"]["id"])
            assert image == {
                "content": [
                    {
                        "type": "image",
                        "data": base64.b64encode(png).decode(),
                        "mimeType": "image/png",
                    }
                ]
            }
            assert await tools.read_room_file(files["big"]["id"]) == {
                "name": "big.txt",
                "content_type": "text/plain",
                "bytes": len(big),
                "description": "File not shown inline: exceeds the 16384-byte inline text "
                "limit. Its contents were not fetched.",
            }
            described = await tools.read_room_file(files["bin"]["id"])
            assert described["description"] == (
                "File not shown inline: is not a previewable text or image type. "
                "Its contents were not fetched."
            )
            via_call = await tools.execute_tool_call("band_read_room_file", {"file_id": ids[2]})
            assert via_call["text"] == json_text.decode()

    run(go())


def test_files_older_than_one_context_page_are_paged_and_found(plat: Live) -> None:
    bot, me = new_bot(plat), person(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            for n in range(55):  # more than one context page (50)
                await tools.send_message(f"plain {n}", [me.id])
            sent = await tools.send_room_file("late\n", "late.txt", "", [me.id])
            first = await tools.list_room_files()
            assert first["data"] == [] and first["next_cursor"]
            second = await tools.list_room_files(cursor=first["next_cursor"])
            assert [a["id"] for a in second["data"]] == [sent["attachment"]["id"]]
            assert second["next_cursor"] is None
            # reading walks every page to find it
            read = await tools.read_room_file(sent["attachment"]["id"])
            assert read["text"] == "late\n"

    run(go())


def test_file_errors_have_the_exact_messages_and_post_nothing(plat: Live) -> None:
    bot, me = new_bot(plat), person(plat)
    room, other = new_room(plat, bot), new_room(plat, bot)
    elsewhere = _upload(plat, bot, other, b"other room\n", "o.txt", "text/plain")
    handles = f"['@{me.handle}']"

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            for file_id in ("0b5e1f5c-0000-4000-8000-000000000000", elsewhere["id"]):
                with pytest.raises(BandToolError) as err:
                    await tools.read_room_file(file_id)
                assert str(err.value) == FILE_UNAVAILABLE_MESSAGE
                with pytest.raises(BandToolError) as err:
                    await tools.execute_tool_call("band_read_room_file", {"file_id": file_id})
                assert str(err.value) == FILE_UNAVAILABLE_MESSAGE
            bad_id = await tools.execute_tool_call_structured(
                "band_read_room_file", {"file_id": "../etc"}
            )
            assert (
                bad_id.error_message
                == f"Invalid arguments for band_read_room_file: file_id: Value error, {ID_ERROR}"
            )

            for name in ("résumé.txt", "a\nb.txt", "日本.txt", "😀.txt", ""):
                assert not FILENAME_HEADER_SAFE_PATTERN.fullmatch(name)
                with pytest.raises(BandToolError) as err:
                    await tools.send_room_file("x", name, "c", [me.id])
                assert str(err.value) == (
                    f"Filename {name!r} must use plain printable ASCII characters only -- the "
                    "upload header cannot carry accents, CJK, emoji, line breaks, or other "
                    "control characters. Rename the file and try again."
                )
            too_big = "é" * 500_001  # 1,000,002 UTF-8 bytes
            with pytest.raises(BandToolError) as err:
                await tools.send_room_file(too_big, "big.txt", "c", [me.id])
            assert str(err.value) == (
                "File content is 1000002 bytes, which exceeds the 1000000-byte limit for "
                "band_send_room_file. Send shorter content."
            )
            with pytest.raises(BandToolError) as err:
                await tools.send_room_file("x", "a.txt", "c", [])
            assert str(err.value) == (
                f"At least one mention is required. Available handles: {handles}. "
                "Use participant handles from the list."
            )
            unknown = await tools.execute_tool_call_structured(
                "band_send_room_file",
                {"content": "x", "filename": "a.txt", "mentions": ["@nobody"]},
            )
            assert unknown.error_message == (
                f"Error executing band_send_room_file: Unknown participant 'nobody'. "
                f"Available handles: {handles}"
            )
            missing = await tools.execute_tool_call_structured(
                "band_send_room_file", {"content": "x", "filename": "a.txt"}
            )
            assert missing.error_message == (
                "Invalid arguments for band_send_room_file: mentions: Field required"
            )
            assert not tools.turn.replied
        assert human_messages(plat, room) == []

    run(go())


def test_send_room_file_content_is_redacted_for_tool_call_events() -> None:
    args = {"content": "é" * 10, "filename": "a.txt", "mentions": ["@x"]}
    assert redact_tool_call_args("band_send_room_file", args) == {
        **args,
        "content": file_content_placeholder(20),
    }
    assert file_content_placeholder(20) == "<20 byte file content>"
    assert redact_tool_call_args("band_send_message", args) is args


def _requested_paths(tools: Any) -> list[str]:
    """From now on, the last path segment of each request ``tools`` makes, in order."""
    seen: list[str] = []
    real = tools.rest.request

    async def counting(method: str, url: str, **kw: Any) -> Any:
        seen.append(url.rsplit("/", 1)[-1])
        return await real(method, url, **kw)

    tools.rest.request = counting
    return seen


def test_attachment_lookups_are_cached_per_client(plat: Live) -> None:
    bot, me = new_bot(plat), person(plat)
    room = new_room(plat, bot)

    async def go() -> None:
        async with bound(plat, bot, room) as tools:
            sent = await tools.send_room_file("cached\n", "c.txt", "", [me.id])
            fid = sent["attachment"]["id"]
            seen = _requested_paths(tools)
            assert (await tools.read_room_file(fid))["text"] == "cached\n"
            assert (await tools.read_room_file(fid))["text"] == "cached\n"
            # the room's context was walked once; the bytes were downloaded each time
            assert seen == ["context", fid, fid]
        # another client (another agent's, or a new one) looks it up itself
        async with bound(plat, bot, room) as other:
            spied = _requested_paths(other)
            await other.read_room_file(fid)
            assert spied == ["context", fid]

    run(go())


def test_attachment_cache_size(monkeypatch: pytest.MonkeyPatch) -> None:
    cache = AttachmentCache(maxsize=2)
    for n in range(3):
        cache.put(("rest", "room", str(n)), {"id": str(n)})
    assert len(cache) == 2 and cache.get(("rest", "room", "0")) is None
    cache.get(("rest", "room", "1"))  # now the most recently used
    cache.put(("rest", "room", "3"), {"id": "3"})
    assert cache.get(("rest", "room", "1")) == {"id": "1"}
    assert cache.get(("rest", "room", "2")) is None
    off = AttachmentCache(maxsize=0)
    off.put(("r", "r", "x"), {"id": "x"})
    assert len(off) == 0
    for raw, want in (("", 1000), ("  ", 1000), ("5", 5), ("-3", 0), ("many", 1000)):
        monkeypatch.setenv("band_attachment_cache_maxsize", raw)  # case-insensitive
        assert AttachmentCache().maxsize == want
    monkeypatch.delenv("band_attachment_cache_maxsize")
    assert AttachmentCache().maxsize == 1000


REF_FILE_FACTS = """
import json
import band.runtime.tools as t
import band.runtime.tools.agent as a
import band.runtime.tools.registry as r
from band.runtime.tools.inputs import files as f
print(json.dumps({
    "caption": t.DEFAULT_FILE_CAPTION, "unavailable": t.FILE_UNAVAILABLE_MESSAGE,
    "pattern": t.FILENAME_HEADER_SAFE_PATTERN.pattern, "names": sorted(r.FILE_TOOL_NAMES),
    "placeholder": t.file_content_placeholder(7),
    "limits": [a.MAX_SEND_CONTENT_BYTES, a.MAX_INLINE_TEXT_BYTES, a.MAX_INLINE_IMAGE_BYTES],
    "images": sorted(a.PREVIEWABLE_IMAGE_CONTENT_TYPES),
    "models": sorted(n for n in dir(f) if n.endswith("Input")),
}))
"""


@requires_refsdk
def test_file_constants_match_band_sdk_6() -> None:
    out = run_refsdk(REF_FILE_FACTS)
    from band.runtime.tools import FILE_TOOL_NAMES, files
    from band.runtime.tools import inputs as ours_inputs
    from band.runtime.tools.inputs import files as ours_files

    assert json.loads(out) == {
        "caption": DEFAULT_FILE_CAPTION,
        "unavailable": FILE_UNAVAILABLE_MESSAGE,
        "pattern": FILENAME_HEADER_SAFE_PATTERN.pattern,
        "names": sorted(FILE_TOOL_NAMES),
        "placeholder": file_content_placeholder(7),
        "limits": [
            files.MAX_SEND_CONTENT_BYTES,
            files.MAX_INLINE_TEXT_BYTES,
            files.MAX_INLINE_IMAGE_BYTES,
        ],
        "images": sorted(files.PREVIEWABLE_IMAGE_CONTENT_TYPES),
        "models": sorted(n for n in dir(ours_files) if n.endswith("Input")),
    }
    assert ours_inputs.SendRoomFileInput is ours_files.SendRoomFileInput
