"""band-sdk's ``HumanTools`` and human-scope input models, on band-mcp's human surface.

The human tools (a person's ``/me`` API under their user key) are defined once, in
:mod:`band.mcp.human_tools`; this module gives them band-sdk's import path and shape: one
coroutine method per tool (``list_my_chats(page=..., page_size=...)``) whose parameters are the
tool's input fields, and ``<Tool>Input`` names for the input models.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from band.core.types import Capability
from band.mcp import human_tools as h
from band.runtime.tools.spec import ToolSpec

__all__ = [
    "HUMAN_SURFACE_CONTACT_TOOL_NAMES",
    "HUMAN_SURFACE_MEMORY_TOOL_NAMES",
    "HUMAN_TOOL_NAMES",
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
    "HumanTools",
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

ListMyAgentsInput = h.ListMyAgents
RegisterMyAgentInput = h.RegisterMyAgent
ListMyChatsInput = h.ListMyChats
CreateMyChatRoomInput = h.CreateMyChatRoom
GetMyChatRoomInput = h.GetMyChatRoom
ListMyChatMessagesInput = h.ListMyChatMessages
SendMyChatMessageInput = h.SendMyChatMessage
ListMyChatParticipantsInput = h.ListMyChatParticipants
AddMyChatParticipantInput = h.AddMyChatParticipant
RemoveMyChatParticipantInput = h.RemoveMyChatParticipant
GetMyProfileInput = h.GetMyProfile
UpdateMyProfileInput = h.UpdateMyProfile
ListMyPeersInput = h.ListMyPeers
ListMyContactsInput = h.ListMyContacts
CreateContactRequestInput = h.CreateContactRequest
ListReceivedContactRequestsInput = h.ListReceivedContactRequests
ListSentContactRequestsInput = h.ListSentContactRequests
ApproveContactRequestInput = h.ApproveContactRequest
RejectContactRequestInput = h.RejectContactRequest
CancelContactRequestInput = h.CancelContactRequest
ResolveHandleInput = h.ResolveHandle
RemoveMyContactInput = h.RemoveMyContact
ListUserMemoriesInput = h.ListUserMemories
GetUserMemoryInput = h.GetUserMemory
SupersedeUserMemoryInput = h.SupersedeUserMemory
ArchiveUserMemoryInput = h.ArchiveUserMemory
RestoreUserMemoryInput = h.RestoreUserMemory
DeleteUserMemoryInput = h.DeleteUserMemory


def _names(group: object) -> frozenset[str]:
    return frozenset(n for n, s in h.TOOLS.items() if s.group == group)


#: every human tool, and those of the contacts and memory groups
HUMAN_TOOL_NAMES = frozenset(h.TOOLS)
HUMAN_SURFACE_CONTACT_TOOL_NAMES = _names(Capability.CONTACTS)
HUMAN_SURFACE_MEMORY_TOOL_NAMES = _names(Capability.MEMORY)


def _method(spec: ToolSpec[Any, Any]) -> Callable[..., Awaitable[Any]]:
    """``HumanTools.<tool>``: its input fields as parameters (optional ones default to None,
    which leaves the model's own default); the body validates them and runs the tool."""
    fields = spec.input_model.model_fields
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=inspect.Parameter.empty if field.is_required() else None,
            )
            for name, field in fields.items()
        ]
    )

    async def call(self: HumanTools, *args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(self, *args, **kwargs)
        given = {k: v for k, v in bound.arguments.items() if k != "self" and v is not None}
        return await self.run(spec, spec.validate(given))

    call.__signature__ = sig  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = spec.name.removeprefix("band_")
    call.__doc__ = spec.input_model.__doc__
    return call


class HumanTools(h.HumanTools):
    """The human-scope tools over one user-key REST client, one coroutine method per tool.

    Each method takes the tool's arguments, raises ``InvalidToolArgumentsError`` for bad ones
    (before any request) and returns the API's JSON answer; errors of the API raise
    ``band.client.errors.BandAPIError``.
    """


for _spec in h.TOOLS.values():
    setattr(HumanTools, _spec.name.removeprefix("band_"), _method(_spec))
del _spec
