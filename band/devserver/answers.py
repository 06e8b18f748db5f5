"""What every REST operation answers: its success status and the wire type of its ``data``.

``openapi`` turns this table into each operation's response schemas (the JSON Schema msgspec
generates from the same Structs the routes encode), and the app refuses to start with a route
missing here, as with ``authz.POLICY``. ``JsonObject`` marks an answer band dev builds as a
plain object (its fields are documented on the handler).
"""

from __future__ import annotations

from typing import Any

from band.core import wire
from band.core.wire import JsonObject

from .human_views import (
    AgentChatRoom,
    BulkDeletionJob,
    Contact,
    ContactRequest,
    MyAgent,
    MyChatRoom,
    ResolvedHandle,
    UserDetails,
)
from .memory_api import UserMemory
from .store_delegation import Consent
from .store_tasks import BoardTask

A, M, C = "/api/v1/agent", "/api/v1/me", "/chats/{chat_id}"
#: answered bare (no ``data`` envelope): the token exchange, as on Band, and this document
BARE = frozenset({f"POST {A}/delegation/token", "GET /openapi.json"})
#: answered with the web view's HTML page
HTML = frozenset({"GET /"})
#: "METHOD /path" -> (success status, type of ``data``); None: no JSON body (a file's bytes)
ANSWERS: dict[str, tuple[int, Any]] = {
    f"GET {A}/me": (200, wire.AgentMe),
    f"GET {A}/chats": (200, list[AgentChatRoom]),
    f"POST {A}/chats": (201, wire.RoomDetails),
    f"GET {A}{C}": (200, wire.RoomDetails),
    f"PATCH {A}{C}": (200, wire.RoomDetails),
    f"GET {A}{C}/messages": (200, list[wire.MessageRow]),
    f"POST {A}{C}/messages": (201, wire.MessageSentResponse),
    f"GET {A}{C}/messages/next": (200, wire.MessageRow),
    f"POST {A}{C}/messages/{{message_id}}/processing": (200, wire.MessageStatusResponse),
    f"POST {A}{C}/messages/{{message_id}}/processed": (200, wire.MessageStatusResponse),
    f"POST {A}{C}/messages/{{message_id}}/failed": (200, wire.MessageStatusResponse),
    f"POST {A}{C}/events": (201, wire.EventCreatedResponse),
    f"GET {A}{C}/context": (200, list[wire.MessageRow]),
    f"POST {A}{C}/activity": (200, wire.ActivityResponse),
    f"GET {A}{C}/participants": (200, list[wire.Participant]),
    f"POST {A}{C}/participants": (201, wire.Participant),
    f"DELETE {A}{C}/participants/{{pid}}": (200, wire.Participant),
    f"GET {A}/peers": (200, list[wire.Peer]),
    f"GET {A}{C}/tasks": (200, list[BoardTask]),
    f"POST {A}{C}/tasks": (201, BoardTask),
    f"GET {A}{C}/tasks/{{task_id}}": (200, BoardTask),
    f"POST {A}{C}/tasks/{{task_id}}": (200, BoardTask),
    f"GET {A}{C}/tasks/{{task_id}}/history": (200, list[wire.TaskEvent]),
    f"GET {A}{C}/board": (200, wire.Board),
    f"PUT {A}{C}/board": (200, wire.Board),
    f"PUT {A}{C}/files": (200, wire.Attachment),
    f"GET {A}{C}/files/{{file_id}}": (200, None),
    f"GET {A}/contacts": (200, list[wire.AgentContact]),
    f"POST {A}/contacts/add": (200, wire.AddAgentContactResponseData),
    f"POST {A}/contacts/remove": (200, wire.RemoveAgentContactResponseData),
    f"GET {A}/contacts/requests": (200, wire.ListAgentContactRequestsResponseData),
    f"POST {A}/contacts/requests/respond": (200, wire.RespondToAgentContactRequestResponseData),
    f"GET {A}/memories": (200, list[wire.AgentMemory]),
    f"POST {A}/memories": (201, wire.AgentMemory),
    f"GET {A}/memories/{{memory_id}}": (200, wire.AgentMemory),
    f"POST {A}/memories/{{memory_id}}/supersede": (200, wire.AgentMemory),
    f"POST {A}/memories/{{memory_id}}/archive": (200, wire.AgentMemory),
    f"POST {A}/delegation/token": (200, JsonObject),
    f"POST {M}/agents/register": (201, JsonObject),
    f"GET {M}/agents": (200, list[MyAgent]),
    f"DELETE {M}/agents/{{agent_id}}": (200, JsonObject),
    f"POST {M}/agents/{{agent_id}}/control": (200, JsonObject),
    f"GET {M}/agents/{{agent_id}}/control": (200, JsonObject),
    f"POST {M}/agents/bulk-delete": (202, BulkDeletionJob),
    f"POST {M}/chats/bulk-delete": (202, BulkDeletionJob),
    f"GET {M}/bulk-deletions/{{job_id}}": (200, BulkDeletionJob),
    f"GET {M}/chats": (200, list[MyChatRoom]),
    f"POST {M}/chats": (201, MyChatRoom),
    f"GET {M}{C}": (200, MyChatRoom),
    f"GET {M}{C}/messages": (200, list[wire.MessageRow]),
    f"POST {M}{C}/messages": (201, wire.MessageSentResponse),
    f"GET {M}{C}/participants": (200, list[wire.ChatParticipantDetails]),
    f"POST {M}{C}/participants": (201, wire.Participant),
    f"DELETE {M}{C}/participants/{{pid}}": (200, wire.Participant),
    f"POST {M}{C}/control": (200, JsonObject),
    f"GET {M}{C}/control": (200, JsonObject),
    f"GET {M}/profile": (200, UserDetails),
    f"PUT {M}/profile": (200, UserDetails),
    f"GET {M}/peers": (200, list[wire.Peer]),
    f"GET {M}/contacts": (200, list[Contact]),
    f"POST {M}/contacts/requests": (201, ContactRequest),
    f"GET {M}/contacts/requests": (200, list[ContactRequest]),
    f"GET {M}/contacts/requests/sent": (200, list[ContactRequest]),
    f"POST {M}/contacts/requests/{{request_id}}/approve": (
        200,
        wire.RespondToAgentContactRequestResponseData,
    ),
    f"POST {M}/contacts/requests/{{request_id}}/reject": (
        200,
        wire.RespondToAgentContactRequestResponseData,
    ),
    f"DELETE {M}/contacts/requests/{{request_id}}": (
        200,
        wire.RespondToAgentContactRequestResponseData,
    ),
    f"POST {M}/contacts/resolve": (200, ResolvedHandle),
    f"POST {M}/contacts/remove": (200, wire.RemoveAgentContactResponseData),
    f"GET {M}/memories": (200, list[UserMemory]),
    f"GET {M}/memories/{{memory_id}}": (200, UserMemory),
    f"DELETE {M}/memories/{{memory_id}}": (200, JsonObject),
    f"POST {M}/memories/{{memory_id}}/supersede": (200, UserMemory),
    f"POST {M}/memories/{{memory_id}}/archive": (200, UserMemory),
    f"POST {M}/memories/{{memory_id}}/restore": (200, UserMemory),
    f"GET {M}/delegation/consents": (200, list[Consent]),
    f"POST {M}/delegation/consents": (201, Consent),
    f"DELETE {M}/delegation/consents/{{consent_id}}": (200, Consent),
    # band dev's own views (the web view's agent page and room panel), not Band Cloud operations
    f"GET {M}/agents/{{agent_id}}/turns": (200, list[JsonObject]),
    f"GET {M}/agents/{{agent_id}}/turns/{{message_id}}": (200, JsonObject),
    f"GET {M}{C}/board": (200, JsonObject),
    f"PATCH {M}{C}": (200, wire.RoomDetails),
    "GET /openapi.json": (200, JsonObject),
    "GET /dev/session": (200, JsonObject),
    "GET /": (200, None),
}
