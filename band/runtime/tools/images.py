"""``band_read_room_file``'s image result: MCP image content blocks, checked and decoded."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, TypedDict, TypeGuard

__all__ = [
    "ImageContentBlock",
    "ImageContentResult",
    "decode_image_block",
    "decode_image_blocks",
    "image_block_placeholder",
    "image_passthrough_result",
    "is_image_passthrough_result",
    "is_mcp_content_result",
]

_READ_ROOM_FILE = "band_read_room_file"


class ImageContentBlock(TypedDict):
    """An MCP image block: base64 ``data`` and its ``mimeType``."""

    type: str
    data: str
    mimeType: str


class ImageContentResult(TypedDict):
    """What ``band_read_room_file`` returns for an image it can preview: a list of blocks."""

    content: list[ImageContentBlock]


def _is_image_block(block: Any) -> bool:
    return (
        isinstance(block, Mapping)
        and block.get("type") == "image"
        and isinstance(block.get("data"), str)
        and isinstance(block.get("mimeType"), str)
    )


def is_mcp_content_result(data: Any) -> TypeGuard[ImageContentResult]:
    """True for a non-empty ``content`` list whose every block is a complete image block."""
    if not isinstance(data, Mapping):
        return False
    blocks = data.get("content")
    return isinstance(blocks, list) and bool(blocks) and all(map(_is_image_block, blocks))


def is_image_passthrough_result(tool_name: str, result: Any) -> bool:
    """True when ``result`` is ``band_read_room_file``'s image blocks (that tool name only)."""
    return tool_name == _READ_ROOM_FILE and is_mcp_content_result(result)


def image_passthrough_result(tool_name: str, result: Any) -> ImageContentResult | None:
    """``result`` itself when ``is_image_passthrough_result`` holds, else ``None``."""
    if tool_name == _READ_ROOM_FILE and is_mcp_content_result(result):
        return result
    return None


def decode_image_block(block: Mapping[str, Any]) -> tuple[bytes, str]:
    """One image block as ``(raw bytes, mime type)``."""
    return base64.b64decode(block["data"]), block["mimeType"]


def decode_image_blocks(result: Mapping[str, Any]) -> list[tuple[bytes, str]]:
    """Every block of an image result, decoded with ``decode_image_block``."""
    return [decode_image_block(block) for block in result["content"]]


def image_block_placeholder(block_count: int) -> str:
    """The text that stands in for image blocks an adapter hands to the model separately."""
    return f"<{block_count} image content block(s)>"
