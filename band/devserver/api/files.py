"""Room file routes (agent API rows 36-37): upload raw bytes, download with Range."""

from __future__ import annotations

import re

import msgspec
from starlette.responses import Response

from band.core import wire

from ..store import files as sf
from ..store.db import StoreError
from .http import Ctx, data
from .operations import RAW, Operation, declare

_SHA = re.compile(r"^[0-9a-f]{64}$")
_RANGE = re.compile(r"^bytes=(\d*)-(\d*)$")


async def upload(ctx: Ctx) -> Response:
    """PUT /agent/chats/{chat_id}/files (raw body; x-file-name, x-file-sha256)."""
    headers = ctx.request.headers
    name = (headers.get("x-file-name") or "").strip()
    if not name:
        raise StoreError(
            422, "validation_error", "x-file-name is required", {"x-file-name": ["is required"]}
        )
    sha = headers.get("x-file-sha256")
    if sha is not None and not _SHA.match(sha):
        raise StoreError(
            422,
            "validation_error",
            "x-file-sha256 must be 64 lowercase hex characters",
            {"x-file-sha256": ["is invalid"]},
        )
    declared = headers.get("content-length")
    if declared and declared.isdigit() and int(declared) > sf.MAX_FILE_BYTES:
        raise StoreError(413, "payload_too_large", "file too large")
    rid = (await ctx.member_room()).id
    blob = await ctx.request.body()
    if len(blob) > sf.MAX_FILE_BYTES:
        raise StoreError(413, "payload_too_large", "file too large")
    if not blob:
        raise StoreError(422, "validation_error", "file is empty", {"body": ["is empty"]})
    ctype = headers.get("content-type") or "application/octet-stream"
    att = await ctx.db.run(sf.put_file, rid, ctx.principal.id, name, ctype, blob, sha)
    return data(att)


async def download(ctx: Ctx) -> Response:
    """GET /agent/chats/{chat_id}/files/{file_id} (exact bytes; ``Range`` -> 206/416)."""
    rid = (await ctx.member_room()).id
    row = await ctx.db.run(sf.get_file, rid, ctx.params["file_id"])
    blob = row.data
    size = len(blob)
    quoted = row.name.replace("\\", "_").replace('"', "_")
    headers = {
        "Content-Disposition": f'attachment; filename="{quoted}"',
        "Accept-Ranges": "bytes",
        "ETag": f'"{row.sha256}"',
    }
    raw = ctx.request.headers.get("range")
    if raw is None:
        return Response(blob, media_type=row.content_type, headers=headers)
    m = _RANGE.match(raw.strip())
    start: int | None = None
    end = size - 1
    if m and (m.group(1) or m.group(2)):
        if m.group(1):
            start = int(m.group(1))
            if m.group(2):
                end = min(int(m.group(2)), size - 1)
        else:
            start = max(size - int(m.group(2)), 0)
    if start is None or start >= size or start > end:
        # the contract's 416 body is a JSON string (band_rest parses it as the body of
        # RangeNotSatisfiableError), with the file's size in Content-Range
        message = f"range not satisfiable: the file has {size} bytes"
        return Response(
            msgspec.json.encode(message),
            status_code=416,
            media_type="application/json",
            headers={**headers, "Content-Range": f"bytes */{size}"},
        )
    headers["Content-Range"] = f"bytes {start}-{end}/{size}"
    return Response(
        blob[start : end + 1], status_code=206, media_type=row.content_type, headers=headers
    )


C = "/api/v1/agent/chats/{chat_id}/files"
routes = declare(
    Operation("PUT", C, upload, rule="post", answer=(200, wire.Attachment), body=RAW),
    Operation("GET", C + "/{file_id}", download, rule="read", answer=(200, None)),
)


def is_upload(path: str) -> bool:
    """Whether ``path`` is the upload route (its body may be a whole file)."""
    parts = path.split("/")  # "", api, v1, agent, chats, <chat_id>, files
    return len(parts) == 7 and parts[1:5] == ["api", "v1", "agent", "chats"] and parts[6] == "files"
