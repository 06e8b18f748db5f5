"""Argument models of the room-file tools (offered with ``Capability.FILES``)."""

from __future__ import annotations

from pydantic import BaseModel, Field

from .identifiers import ResourceId

__all__ = ["ListRoomFilesInput", "ReadRoomFileInput", "SendRoomFileInput"]


class ListRoomFilesInput(BaseModel):
    """List the files shared in this room.

    Each entry is a file's metadata (id, name, content type, size) from a message you sent or
    that mentioned you, older messages included. Pass an entry's id to band_read_room_file to
    see what the file holds.
    """

    cursor: str | None = Field(
        default=None, description="The next_cursor of the previous page, to read the next one"
    )


class ReadRoomFileInput(BaseModel):
    """Read one file shared in this room.

    A small text file comes back as its text and a small image as an image; a file too large
    to show, or of another type, comes back as its name, type and size only.
    """

    file_id: ResourceId = Field(
        description=(
            "ID of the file, from a message's attachments or the latest band_list_room_files "
            "answer (files can expire or be replaced: do not reuse an old ID)."
        )
    )


class SendRoomFileInput(BaseModel):
    """Share text you wrote as a file in this room.

    The file arrives attached to a message, which counts as your reply. Use it for content that
    belongs in a file (a report, code, data) rather than in the message text.
    """

    content: str = Field(description="The file's text")
    filename: str = Field(
        description=(
            "File name with its extension, in plain printable ASCII (e.g. 'notes.md'); "
            "accented letters, other scripts, emoji and line breaks are refused."
        )
    )
    caption: str = Field(default="", description="Text of the message the file is attached to")
    mentions: list[str] = Field(
        description=(
            "Who the message is for; at least one, as for band_send_message (a participant's "
            "ID or handle)."
        )
    )
