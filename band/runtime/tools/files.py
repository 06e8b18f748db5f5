"""The room-file tools: share text as a file, list a room's files, read one.

There is no "list files" route: a room's files are the attachments of the messages the agent's
``/context`` returns (its own messages and those mentioning it), walked by cursor. Reading
downloads ``GET /agent/chats/{room}/files/{id}``; sending uploads ``PUT .../files`` and posts
a message with ``attachment_ids``. Results are the dicts band-sdk 6.0.1 returns.
"""

from __future__ import annotations

import base64
import hashlib
import logging
import re
import unicodedata
from collections import OrderedDict
from collections.abc import AsyncIterator, Mapping
from datetime import UTC, datetime

from band.client.errors import NotFoundError
from band.client.rest import RestClient, RestResponse
from band.config.env import env_value
from band.core.exceptions import BandToolError
from band.core.wire import (
    Attachment,
    JsonObject,
    JsonValue,
    MessageRow,
    Paging,
    decode_as,
    decode_rows,
    parse_instant,
)

from . import ops
from .inputs.files import ListRoomFilesInput, ReadRoomFileInput, SendRoomFileInput

__all__ = [
    "ATTACHMENT_CACHE",
    "DEFAULT_FILE_CAPTION",
    "FILENAME_HEADER_SAFE_PATTERN",
    "FILE_UNAVAILABLE_MESSAGE",
    "MAX_INLINE_IMAGE_BYTES",
    "MAX_INLINE_TEXT_BYTES",
    "MAX_SEND_CONTENT_BYTES",
    "PREVIEWABLE_IMAGE_CONTENT_TYPES",
    "file_content_placeholder",
    "has_visible_content",
    "list_room_files",
    "read_room_file",
    "redact_tool_call_args",
    "send_room_file",
]

log = logging.getLogger("band.tools")

#: The largest text ``band_send_room_file`` uploads (UTF-8 bytes): a bound on one tool call.
MAX_SEND_CONTENT_BYTES = 1_000_000
#: Text files up to this size come back inline from ``band_read_room_file``.
MAX_INLINE_TEXT_BYTES = 16 * 1024
#: Previewable images up to this size come back inline (base64) from ``band_read_room_file``.
MAX_INLINE_IMAGE_BYTES = 5 * 1024 * 1024
PREVIEWABLE_IMAGE_CONTENT_TYPES: frozenset[str] = frozenset(
    {"image/jpeg", "image/png", "image/gif", "image/webp"}
)
# the platform answers the same 404 for "no such file here" and "file transfer is off"
FILE_UNAVAILABLE_MESSAGE = "File not found, or file transfer is unavailable in this room."
# an attachment-only message still needs visible content
DEFAULT_FILE_CAPTION = "Shared a file: {filename}"
# the name travels as a raw x-file-name header: printable ASCII, no CR/LF
FILENAME_HEADER_SAFE_PATTERN = re.compile(r"[\x20-\x7e]+")
_VISIBLE = ("L", "N", "P", "S")  # letters, numbers, punctuation, symbols (the platform's rule)
_REPLACEMENT = "\ufffd"


def has_visible_content(value: str) -> bool:
    """Whether ``value`` has a character the platform counts as content (not only blanks)."""
    return any(unicodedata.category(ch)[0] in _VISIBLE for ch in value)


def file_content_placeholder(byte_count: int) -> str:
    """What a ``tool_call`` event shows instead of a file's text."""
    return f"<{byte_count} byte file content>"


def redact_tool_call_args(tool_name: str, args: JsonValue) -> JsonValue:
    """``band_send_room_file``'s arguments with ``content`` replaced by its placeholder."""
    if tool_name != "band_send_room_file" or not isinstance(args, Mapping):
        return args
    content = args.get("content")
    if not isinstance(content, str):
        return args
    return {**args, "content": file_content_placeholder(len(content.encode("utf-8")))}


def attachment_view(att: Attachment) -> JsonObject:
    """An attachment as the tools return it (band-sdk 6.0.1's keys, ``sha_256`` included)."""
    return {
        "bytes": att.bytes,
        "content_type": att.content_type,
        "expires_at": att.expires_at,
        "has_thumb": bool(att.has_thumb),
        "id": att.id,
        "name": att.name,
        "sha_256": att.sha256 if att.sha256 is not None else att.sha_256,
    }


# --- listing ----------------------------------------------------------------------------------


def _page_attachments(resp: RestResponse) -> list[Attachment]:
    """One context page's attachments."""
    found: list[Attachment] = []
    for row in resp.rows_as(MessageRow):
        found += decode_rows(Attachment, [a for a in row.attachments or [] if isinstance(a, dict)])
    return found


async def _context_page(
    ctx: ops.ToolContext, cursor: str | None
) -> tuple[list[Attachment], Paging]:
    """One context page's attachments, and its paging."""
    resp = await ctx.rest.request("GET", ctx.chat_path("/context"), params={"cursor": cursor})
    return _page_attachments(resp), resp.paging


async def _all_attachments(ctx: ops.ToolContext) -> AsyncIterator[Attachment]:
    """Every attachment of the room's context, oldest page first, until the pages run out."""
    async for resp in ctx.rest.pages(ctx.chat_path("/context")):
        for att in _page_attachments(resp):
            yield att


async def list_room_files(ctx: ops.ToolContext, args: ListRoomFilesInput) -> JsonObject:
    """One context page's attachments (each file once) and the cursor of the next page."""
    found, paging = await _context_page(ctx, args.cursor)
    out: list[JsonObject] = []
    seen: set[str | None] = set()
    for att in found:
        if att.id not in seen:
            seen.add(att.id)
            out.append(attachment_view(att))
    return {"data": out, "next_cursor": paging.next_cursor}


# --- reading ----------------------------------------------------------------------------------


def _expired(att: Attachment) -> bool:
    when = parse_instant(att.expires_at)
    if when is None:
        return False
    if when.tzinfo is None:  # the platform speaks UTC
        when = when.replace(tzinfo=UTC)
    return when <= datetime.now(UTC)


DEFAULT_ATTACHMENT_CACHE_MAXSIZE = 1000


class AttachmentCache:
    """A process-wide LRU of attachments found by walking a room's context.

    Keyed by the REST client (so one agent never sees what another looked up), the room and
    the file ID. Its size is ``BAND_ATTACHMENT_CACHE_MAXSIZE`` (default 1000), read on first use
    so a ``.env`` loaded at startup still counts; 0 turns caching off.
    """

    def __init__(self, maxsize: int | None = None) -> None:
        self._maxsize = maxsize
        self._items: OrderedDict[tuple[RestClient, str, str], Attachment] = OrderedDict()

    @property
    def maxsize(self) -> int:
        """The number of attachments kept."""
        if self._maxsize is None:
            self._maxsize = _env_maxsize()
        return self._maxsize

    def get(self, key: tuple[RestClient, str, str]) -> Attachment | None:
        """The cached attachment (now the most recently used), or None."""
        att = self._items.get(key)
        if att is not None:
            self._items.move_to_end(key)
        return att

    def put(self, key: tuple[RestClient, str, str], att: Attachment) -> None:
        """Keep ``att``, dropping the least recently used beyond ``maxsize``."""
        if self.maxsize <= 0:
            return
        self._items[key] = att
        self._items.move_to_end(key)
        while len(self._items) > self.maxsize:
            self._items.popitem(last=False)

    def discard(self, key: tuple[RestClient, str, str]) -> None:
        """Forget one attachment."""
        self._items.pop(key, None)

    def __len__(self) -> int:
        return len(self._items)


def _env_maxsize() -> int:
    raw = env_value("BAND_ATTACHMENT_CACHE_MAXSIZE")
    if raw is None:
        return DEFAULT_ATTACHMENT_CACHE_MAXSIZE
    try:
        return max(0, int(raw))
    except ValueError:
        log.warning(
            "BAND_ATTACHMENT_CACHE_MAXSIZE=%r is not a number; using %d",
            raw,
            DEFAULT_ATTACHMENT_CACHE_MAXSIZE,
        )
        return DEFAULT_ATTACHMENT_CACHE_MAXSIZE


ATTACHMENT_CACHE = AttachmentCache()


async def _lookup(ctx: ops.ToolContext, file_id: str) -> Attachment:
    async for att in _all_attachments(ctx):
        if att.id == file_id:
            return att
    raise BandToolError(FILE_UNAVAILABLE_MESSAGE)


async def find_attachment(ctx: ops.ToolContext, file_id: str) -> Attachment:
    """The room attachment ``file_id`` names; ``BandToolError`` when there is none (or expired).

    A cached attachment past its ``expires_at`` is looked up once more (the platform may have
    extended it) before it counts as gone.
    """
    key = (ctx.rest, ctx.room(), file_id)
    att = ATTACHMENT_CACHE.get(key)
    for _ in range(2):
        if att is None:
            att = await _lookup(ctx, file_id)
            ATTACHMENT_CACHE.put(key, att)
        if not _expired(att):
            return att
        ATTACHMENT_CACHE.discard(key)
        att = None
    raise BandToolError(FILE_UNAVAILABLE_MESSAGE)


async def download(ctx: ops.ToolContext, file_id: str) -> bytes:
    """A room file's exact bytes (a 404 becomes ``FILE_UNAVAILABLE_MESSAGE``)."""
    try:
        resp = await ctx.rest.request("GET", ctx.chat_path("/files/{}", file_id), raw=True)
    except NotFoundError as exc:
        raise BandToolError(FILE_UNAVAILABLE_MESSAGE) from exc
    return resp.body if isinstance(resp.body, bytes) else b""


def _size_facts(att: Attachment) -> JsonObject:
    return {"name": att.name, "content_type": att.content_type, "bytes": att.bytes}


async def read_room_file(ctx: ops.ToolContext, args: ReadRoomFileInput) -> JsonObject:
    """A small text file's text, a small image as an image block, else a description."""
    att = await find_attachment(ctx, args.file_id)
    ctype = att.content_type or ""
    size = att.bytes or 0
    if ctype.startswith("text/"):
        limit, reason = MAX_INLINE_TEXT_BYTES, "text"
    elif ctype in PREVIEWABLE_IMAGE_CONTENT_TYPES:
        limit, reason = MAX_INLINE_IMAGE_BYTES, "image"
    else:
        limit, reason = -1, ""
    if reason == "text" and size <= limit:
        text = (await download(ctx, args.file_id)).decode("utf-8", errors="replace")
        result = {**_size_facts(att), "text": text}
        if _REPLACEMENT in text:
            result["description"] = (
                "This file is not valid UTF-8; non-UTF-8 bytes were replaced with \ufffd, "
                "so the text above may not exactly match the original."
            )
        return result
    if reason == "image" and size <= limit:
        blob = await download(ctx, args.file_id)
        data = base64.b64encode(blob).decode("ascii")
        return {"content": [{"type": "image", "data": data, "mimeType": ctype}]}
    why = (
        f"exceeds the {limit}-byte inline {reason} limit"
        if reason
        else "is not a previewable text or image type"
    )
    return {
        **_size_facts(att),
        "description": f"File not shown inline: {why}. Its contents were not fetched.",
    }


# --- sending ----------------------------------------------------------------------------------


async def send_room_file(ctx: ops.ToolContext, args: SendRoomFileInput) -> JsonObject:
    """Upload ``content`` as ``filename`` and post it with ``caption``, mentioning ``mentions``."""
    caption = args.caption
    if not has_visible_content(caption):
        caption = DEFAULT_FILE_CAPTION.format(filename=args.filename)
    if not FILENAME_HEADER_SAFE_PATTERN.fullmatch(args.filename):
        raise BandToolError(
            f"Filename {args.filename!r} must use plain printable ASCII characters only -- the "
            "upload header cannot carry accents, CJK, emoji, line breaks, or other control "
            "characters. Rename the file and try again."
        )
    body = args.content.encode("utf-8")
    if len(body) > MAX_SEND_CONTENT_BYTES:
        raise BandToolError(
            f"File content is {len(body)} bytes, which exceeds the {MAX_SEND_CONTENT_BYTES}-byte "
            "limit for band_send_room_file. Send shorter content."
        )
    # resolved before the upload: a bad mention must not leave an orphaned file behind
    mentions = await ops.resolved_mentions(ctx, list(args.mentions))
    headers = {
        "x-file-name": args.filename,
        "x-file-sha256": hashlib.sha256(body).hexdigest(),
        "content-type": "text/plain",
    }
    try:
        resp = await ctx.rest.request("PUT", ctx.chat_path("/files"), content=body, headers=headers)
    except NotFoundError as exc:
        raise BandToolError(FILE_UNAVAILABLE_MESSAGE) from exc
    att = decode_as(Attachment, ops.require_data(resp, "upload file"))
    message = await ops.post_message(ctx, caption, mentions, [str(att.id)])
    return {"attachment": attachment_view(att), "message_id": message.get("id")}
