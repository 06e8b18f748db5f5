"""Input models of the human-scope tools (a person's ``/me`` API under their user key).

Each model's docstring is the tool's description; band-mcp serves them (``band.mcp``), and
``band.runtime.tools.HumanTools`` takes their fields as method parameters. band-sdk names them
``<Tool>Input`` (``CreateMyChatRoomInput``...): both names are the same class.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

__all__ = [
    "AddMyChatParticipant",
    "ApproveContactRequest",
    "ArchiveUserMemory",
    "CancelContactRequest",
    "CreateContactRequest",
    "CreateMyChatRoom",
    "DeleteUserMemory",
    "GetMyChatRoom",
    "GetMyProfile",
    "GetUserMemory",
    "ListMyAgents",
    "ListMyChatMessages",
    "ListMyChatParticipants",
    "ListMyChats",
    "ListMyContacts",
    "ListMyPeers",
    "ListReceivedContactRequests",
    "ListSentContactRequests",
    "ListUserMemories",
    "MemoryRef",
    "Paged",
    "RegisterMyAgent",
    "RejectContactRequest",
    "RemoveMyChatParticipant",
    "RemoveMyContact",
    "RequestRef",
    "ResolveHandle",
    "RestoreUserMemory",
    "SendMyChatMessage",
    "SupersedeUserMemory",
    "UpdateMyProfile",
    "AddMyChatParticipantInput",
    "ApproveContactRequestInput",
    "ArchiveUserMemoryInput",
    "CancelContactRequestInput",
    "CreateContactRequestInput",
    "CreateMyChatRoomInput",
    "DeleteUserMemoryInput",
    "GetMyChatRoomInput",
    "GetMyProfileInput",
    "GetUserMemoryInput",
    "ListMyAgentsInput",
    "ListMyChatMessagesInput",
    "ListMyChatParticipantsInput",
    "ListMyChatsInput",
    "ListMyContactsInput",
    "ListMyPeersInput",
    "ListReceivedContactRequestsInput",
    "ListSentContactRequestsInput",
    "ListUserMemoriesInput",
    "RegisterMyAgentInput",
    "RejectContactRequestInput",
    "RemoveMyChatParticipantInput",
    "RemoveMyContactInput",
    "ResolveHandleInput",
    "RestoreUserMemoryInput",
    "SendMyChatMessageInput",
    "SupersedeUserMemoryInput",
    "UpdateMyProfileInput",
]

Page = Field(default=None, ge=1, description="Page number, from 1 (optional).")
PageSize = Field(default=None, ge=1, le=100, description="Items per page, 1-100 (optional).")
ChatId = Field(description="ID of the chat room.")
MemoryId = Field(description="ID of the memory.")
RequestId = Field(description="ID of the contact request.")


class _Input(BaseModel):
    """Base of the human tool inputs: arguments the tool does not know are ignored."""

    model_config = ConfigDict(extra="ignore")


class Paged(_Input):
    """List the page of your choice."""

    page: int | None = Page
    page_size: int | None = PageSize


class ListMyAgents(Paged):
    """List the agents you own."""


class RegisterMyAgent(_Input):
    """Register a new agent you own; the answer holds its API key, shown only this once."""

    name: str = Field(min_length=1, description="Name of the new agent.")
    description: str = Field(description="What the agent does.")


class ListMyChats(Paged):
    """List the chat rooms you take part in."""


class CreateMyChatRoom(_Input):
    """Create a chat room owned by you."""

    task_id: str | None = Field(default=None, description="Task to link the room to (optional).")


class GetMyChatRoom(_Input):
    """Get one chat room by ID."""

    chat_id: str = ChatId


class ListMyChatMessages(_Input):
    """List the messages of a chat room."""

    chat_id: str = ChatId
    page: int | None = Page
    page_size: int | None = PageSize
    message_type: str | None = Field(
        default=None, description="Only this message type, e.g. 'text' or 'tool_call' (optional)."
    )
    since: datetime | None = Field(
        default=None, description="Only messages after this ISO 8601 timestamp (optional)."
    )


class SendMyChatMessage(_Input):
    """Send a message as yourself, mentioning at least one participant by name."""

    chat_id: str = ChatId
    content: str = Field(description="Text of the message.")
    recipients: str = Field(
        description="Comma-separated names of the participants to mention (at least one)."
    )


class ListMyChatParticipants(_Input):
    """List the participants of a chat room."""

    chat_id: str = ChatId
    participant_type: Literal["User", "Agent"] | None = Field(
        default=None, description="Only users or only agents (optional)."
    )


class AddMyChatParticipant(_Input):
    """Add a user or agent to a chat room by ID."""

    chat_id: str = ChatId
    participant_id: str = Field(description="ID of the user or agent to add.")
    role: Literal["owner", "admin", "member"] = Field(
        default="member", description="Role in the room."
    )


class AddMyChatParticipantInput(AddMyChatParticipant):
    """Add a user or agent to a chat room by ID (band-sdk's model: the role may be left unset).

    band-mcp's ``AddMyChatParticipant`` (the MCP tool's schema) defaults the role to
    ``member``; band-sdk's leaves it None and sends ``member`` for it, so do the tools here.
    """

    role: Literal["owner", "admin", "member"] | None = Field(  # type: ignore[assignment]
        default=None, description="Role in the room (unset: member)."
    )


class RemoveMyChatParticipant(_Input):
    """Remove a participant from a chat room by ID."""

    chat_id: str = ChatId
    participant_id: str = Field(description="ID of the participant to remove.")


class GetMyProfile(_Input):
    """Get your profile: name, email, handle and role."""


class UpdateMyProfile(_Input):
    """Change your first or last name."""

    first_name: str | None = Field(default=None, description="New first name (optional).")
    last_name: str | None = Field(default=None, description="New last name (optional).")


class ListMyPeers(_Input):
    """List everyone you can add to a room: organization members, contacts and agents."""

    not_in_chat: str | None = Field(
        default=None, description="Leave out the participants of this room (optional)."
    )
    peer_type: Literal["User", "Agent"] | None = Field(
        default=None, description="Only users or only agents (optional)."
    )
    page: int | None = Page
    page_size: int | None = PageSize


class ListMyContacts(Paged):
    """List your active contacts with their handle, email and type."""


class CreateContactRequest(_Input):
    """Ask someone to become your contact."""

    recipient_handle: str = Field(
        min_length=1, description="Handle of the person or agent, with or without '@'."
    )
    message: str | None = Field(
        default=None, max_length=500, description="A note with the request (optional)."
    )


class ListReceivedContactRequests(Paged):
    """List the pending contact requests you received."""


class ListSentContactRequests(_Input):
    """List the contact requests you sent."""

    status: Literal["pending", "approved", "rejected", "cancelled", "all"] | None = Field(
        default=None, description="Only requests in this status (optional)."
    )
    page: int | None = Page
    page_size: int | None = PageSize


class RequestRef(_Input):
    """One contact request by ID."""

    request_id: str = RequestId


class ApproveContactRequest(RequestRef):
    """Approve a contact request you received."""


class RejectContactRequest(RequestRef):
    """Reject a contact request you received."""


class CancelContactRequest(RequestRef):
    """Cancel a contact request you sent."""


class ResolveHandle(_Input):
    """Look up who or what a handle belongs to."""

    handle: str = Field(min_length=1, description="The handle, with or without '@'.")


class RemoveMyContact(_Input):
    """Remove a contact by contact ID or handle (the ID wins when both are given)."""

    contact_id: str | None = Field(default=None, description="Contact record ID (optional).")
    handle: str | None = Field(default=None, description="Contact's handle (optional).")


class ListUserMemories(_Input):
    """List the memories available to you."""

    chat_room_id: str | None = Field(default=None, description="Only this room (optional).")
    scope: str | None = Field(default=None, description="Only this memory scope (optional).")
    system: str | None = Field(
        default=None, description="sensory, working or long_term (optional)."
    )
    memory_type: str | None = Field(default=None, description="Only this memory type (optional).")
    segment: str | None = Field(
        default=None, description="user, agent, tool or guideline (optional)."
    )
    content_query: str | None = Field(default=None, description="Text to search for (optional).")
    page_size: int | None = PageSize
    status: str | None = Field(
        default=None, description="active, superseded, archived or all (optional)."
    )


class MemoryRef(_Input):
    """One memory by ID."""

    memory_id: str = MemoryId


class GetUserMemory(MemoryRef):
    """Get one memory by ID."""


class SupersedeUserMemory(MemoryRef):
    """Mark a memory superseded: kept for the record, out of normal lists."""


class ArchiveUserMemory(MemoryRef):
    """Archive a memory; it can be restored later."""


class RestoreUserMemory(MemoryRef):
    """Restore an archived memory."""


class DeleteUserMemory(MemoryRef):
    """Delete a memory for good."""


# band-sdk's names of the models above
ApproveContactRequestInput = ApproveContactRequest
ArchiveUserMemoryInput = ArchiveUserMemory
CancelContactRequestInput = CancelContactRequest
CreateContactRequestInput = CreateContactRequest
CreateMyChatRoomInput = CreateMyChatRoom
DeleteUserMemoryInput = DeleteUserMemory
GetMyChatRoomInput = GetMyChatRoom
GetMyProfileInput = GetMyProfile
GetUserMemoryInput = GetUserMemory
ListMyAgentsInput = ListMyAgents
ListMyChatMessagesInput = ListMyChatMessages
ListMyChatParticipantsInput = ListMyChatParticipants
ListMyChatsInput = ListMyChats
ListMyContactsInput = ListMyContacts
ListMyPeersInput = ListMyPeers
ListReceivedContactRequestsInput = ListReceivedContactRequests
ListSentContactRequestsInput = ListSentContactRequests
ListUserMemoriesInput = ListUserMemories
RegisterMyAgentInput = RegisterMyAgent
RejectContactRequestInput = RejectContactRequest
RemoveMyChatParticipantInput = RemoveMyChatParticipant
RemoveMyContactInput = RemoveMyContact
ResolveHandleInput = ResolveHandle
RestoreUserMemoryInput = RestoreUserMemory
SendMyChatMessageInput = SendMyChatMessage
SupersedeUserMemoryInput = SupersedeUserMemory
UpdateMyProfileInput = UpdateMyProfile
