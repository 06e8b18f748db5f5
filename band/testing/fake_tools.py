"""``FakeAgentTools``: an in-memory ``AgentToolsProtocol`` that records what an adapter does.

For unit tests of an adapter's ``on_message`` without a platform. Every tool method keeps
its state in memory (participants, peers, contacts, memories, files, tasks, the board),
records its effect on ``turn`` when it succeeds (as the real tools do), and the sends are
recorded on ``messages_sent`` / ``events_sent``. Results are dicts that also answer
attribute access (``result.id``), so tests written for typed results read them too.
"""

from __future__ import annotations

import asyncio
import copy
import functools
import hashlib
import unicodedata
import uuid
from collections.abc import Awaitable, Callable, Mapping
from typing import Any, cast

from band.core.exceptions import BandToolError
from band.core.turn import (
    MISSING_REPLY,
    TOOL_EFFECTS,
    TURN_FAILURE_PROVIDER,
    AgentFailure,
    Turn,
    failure_event,
)
from band.core.turn import TurnEffect as _Effect
from band.core.types import ToolCallOutcome, ToolParam
from band.core.wire import ChatParticipant
from band.runtime.capabilities import Capability
from band.runtime.tools.registry import select_tools

__all__ = [
    "MISSING_REPLY_FAILURE",
    "FakeAgentTools",
    "HeldMessage",
    "Record",
    "events_of_type",
    "failure_reports",
    "reported_failures",
]

#: The one failure a missing-reply verdict reports, as ``failure_reports`` lists it.
MISSING_REPLY_FAILURE = (TURN_FAILURE_PROVIDER, MISSING_REPLY)
#: The error ``band_send_message`` gives without a mention (then the room's handles).
MISSING_MENTIONS_ERROR = "At least one mention is required"
#: The error ``band_read_room_file`` gives for an unknown file.
FILE_UNAVAILABLE_MESSAGE = "File not found, or file transfer is unavailable in this room."
#: The caption of a shared file whose caption has nothing visible.
DEFAULT_FILE_CAPTION = "Shared a file: {filename}"
#: Every record this fake creates carries this time, so results compare equal across runs.
FAKE_TIMESTAMP = "2025-01-01T00:00:00Z"
#: Who the fake acts as on tasks and the board.
FAKE_ACTOR = {"id": "fake-agent", "name": "Fake Agent", "type": "Agent", "handle": "fake-agent"}

_PENDING, _APPROVED, _REJECTED, _CANCELLED = "pending", "approved", "rejected", "cancelled"


class Record(dict[str, Any]):
    """A result dict whose keys also read as attributes (``r.id`` is ``r["id"]``)."""

    def __getattr__(self, name: str) -> Any:
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


def _record(value: Mapping[str, Any]) -> Record:
    """``value`` deep-copied, with every dict in it a :class:`Record`."""
    return Record({k: _record_in(v) for k, v in value.items()})


def _record_in(value: Any) -> Any:
    if isinstance(value, Mapping):
        return _record(value)
    if isinstance(value, list):
        return [_record_in(v) for v in value]
    return copy.deepcopy(value)


def _visible(text: str) -> bool:
    """Whether ``text`` has a letter, digit, punctuation or symbol (what the platform shows)."""
    return any(unicodedata.category(ch)[0] in "LNPS" for ch in text)


def _bare(handle: str) -> str:
    return handle.strip().removeprefix("@")


def _matches(record: Mapping[str, Any], identifier: str) -> bool:
    """Whether ``identifier`` names ``record`` by ID, handle (with or without @) or name."""
    wanted = _bare(identifier).lower()
    for key in ("id", "handle", "name"):
        value = record.get(key)
        if isinstance(value, str) and value and _bare(value).lower() == wanted:
            return True
    return False


def _total_pages(total: int, page_size: int) -> int:
    return max(1, -(-total // page_size)) if total else 0


def _page(items: list[Any], page: int, page_size: int) -> list[Any]:
    start = (page - 1) * page_size
    return items[start : start + page_size]


def _offset_meta(page: int, page_size: int, total: int) -> dict[str, Any]:
    return {
        "page": page,
        "page_size": page_size,
        "total_count": total,
        "total_pages": _total_pages(total, page_size),
    }


class HeldMessage:
    """A message held in flight: ``async with`` waits until the adapter starts sending it;
    leaving the block lets it land, or fail with ``error``."""

    def __init__(self, matching: str, error: Exception | None) -> None:
        self.matching = matching
        self.error = error
        self.sending = asyncio.Event()
        self.released = asyncio.Event()

    async def __aenter__(self) -> None:
        await self.sending.wait()

    async def __aexit__(self, *exc_info: object) -> None:
        self.released.set()


def _effect_recorded(tool_name: str, method: Callable[..., Awaitable[Any]]) -> Any:
    """Wrap a tool method so a successful call records the tool's effect on ``self.turn``."""

    @functools.wraps(method)
    async def run(self: FakeAgentTools, *args: Any, **kwargs: Any) -> Any:
        result = await method(self, *args, **kwargs)
        self._record_effect(tool_name, result)
        return result

    return run


class FakeAgentTools:
    """An in-memory ``AgentToolsProtocol`` that records messages, events and tool calls.

    Seed it with ``participants``, ``peers``, ``contacts``, ``memories``, ``files``,
    ``tasks``, ``board``, contact requests and ``room_context``; read back
    ``messages_sent``, ``events_sent``, ``tool_calls``, ``participants_added`` / ``_removed``,
    ``context_calls`` and ``turn``. Set ``send_message_error`` / ``send_event_error`` to make
    those sends raise. ``execute_tool_call*`` records the call and reports success without
    running the tool (subclass it for failure paths).
    """

    def __init__(
        self,
        *,
        participants: list[dict[str, Any]] | None = None,
        peers: list[dict[str, Any]] | None = None,
        contacts: list[dict[str, Any]] | None = None,
        room_id: str = "room-fake",
        hub_room_id: str | None = None,
        room_context: list[dict[str, Any]] | None = None,
        memories: list[dict[str, Any]] | None = None,
        files: list[dict[str, Any]] | None = None,
        tasks: list[dict[str, Any]] | None = None,
        board: dict[str, Any] | None = None,
        agent_id: str | None = None,
        received_contact_requests: list[dict[str, Any]] | None = None,
        sent_contact_requests: list[dict[str, Any]] | None = None,
    ) -> None:
        self._agent_id = agent_id
        self.room_id = room_id
        self._hub_room_id = hub_room_id
        self.messages_sent: list[dict[str, Any]] = []
        self.events_sent: list[dict[str, Any]] = []
        self.send_event_error: Exception | None = None
        self.send_message_error: Exception | None = None
        self._participants = [dict(p) for p in participants or []]
        self._peers = [dict(p) for p in peers or []]
        self._contacts = [dict(c) for c in contacts or []]
        self._received_requests = [dict(r) for r in received_contact_requests or []]
        self._sent_requests = [dict(r) for r in sent_contact_requests or []]
        self._room_context = [dict(m) for m in room_context or []]
        self.memories: list[dict[str, Any]] = [dict(m) for m in memories or []]
        self.files: list[dict[str, Any]] = [dict(f) for f in files or []]
        self.tasks: list[dict[str, Any]] = [
            {"assignments": [], **copy.deepcopy(t)} for t in tasks or []
        ]
        self._task_seq = max((int(t.get("number") or 0) for t in self.tasks), default=0)
        self.board: dict[str, Any] = (
            dict(board)
            if board is not None
            else {
                "chat_room_id": room_id,
                "goal_title": None,
                "goal_summary": None,
                "updated_at": None,
                "updated_by": None,
            }
        )
        self.participants_added: list[dict[str, Any]] = []
        self.participants_removed: list[dict[str, Any]] = []
        self.tool_calls: list[dict[str, Any]] = []
        self.context_calls: list[dict[str, Any]] = []
        self._held: list[HeldMessage] = []
        self._observers: list[tuple[Callable[[], bool], asyncio.Future[None]]] = []
        self.turn = Turn()

    def __repr__(self) -> str:
        return f"FakeAgentTools(room_id={self.room_id!r}, sent={len(self.messages_sent)})"

    # --- identity -----------------------------------------------------------------------------

    @property
    def agent_id(self) -> str | None:
        """The fake's agent ID (None unless given)."""
        return self._agent_id

    @property
    def is_hub_room(self) -> bool:
        """True when ``room_id`` is the given ``hub_room_id``."""
        return self._hub_room_id is not None and self.room_id == self._hub_room_id

    @property
    def participants(self) -> list[dict[str, Any]]:
        """A copy of the room's participants."""
        return [dict(p) for p in self._participants]

    def _record_effect(self, tool_name: str, result: Any) -> None:
        """Record a successful call; a reply that posted nothing (blank) records nothing."""
        effect = TOOL_EFFECTS.get(tool_name, _Effect.OBSERVE)
        if effect is _Effect.REPLY and result is None:
            return
        self.turn.record(effect)

    # --- chat ---------------------------------------------------------------------------------

    async def send_message(
        self,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None = None,
        *,
        attachment_ids: list[str] | None = None,
    ) -> Record | None:
        """Record a message (the turn's reply); without a mention it raises like the real tool,
        and blank content posts nothing (None)."""
        return await self._post(content, mentions, attachment_ids)

    async def send_notice(
        self, content: str, mentions: list[str] | list[dict[str, str]] | None = None
    ) -> Record | None:
        """Record an adapter-written message; it records nothing on the turn."""
        return await self._post(content, mentions, None)

    async def _post(
        self,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None,
        attachment_ids: list[str] | None,
    ) -> Record | None:
        if self.send_message_error is not None:
            raise self.send_message_error
        self._require_mentions(mentions)
        held = next((h for h in self._held if h.matching in content), None)
        if held is not None:
            self._held.remove(held)
            held.sending.set()
            await held.released.wait()
            if held.error is not None:
                raise held.error
        if not _visible(content):
            return None
        return self._record_message(content, mentions, attachment_ids)

    def _require_mentions(self, mentions: list[str] | list[dict[str, str]] | None) -> None:
        if mentions:
            return
        handles = [
            _bare(p["handle"])
            for p in self._participants
            if p.get("handle") and p.get("id") != self._agent_id
        ]
        hint = (
            f". Available handles: {handles!r}. Use participant handles from the list."
            if handles
            else ""
        )
        raise BandToolError(MISSING_MENTIONS_ERROR + hint)

    def _record_message(
        self,
        content: str,
        mentions: list[str] | list[dict[str, str]] | None,
        attachment_ids: list[str] | None = None,
    ) -> Record:
        mid = f"msg-{len(self.messages_sent)}"
        recipients = []
        for m in mentions or []:
            fields: Mapping[str, Any] = m if isinstance(m, Mapping) else {"handle": m}
            handle = _bare(str(fields.get("handle") or fields.get("id") or ""))
            recipients.append(
                {"id": fields.get("id") or handle, "handle": handle, "name": fields.get("name")}
            )
        entry: dict[str, Any] = {"id": mid, "content": content, "mentions": list(mentions or [])}
        if attachment_ids:
            entry["attachment_ids"] = list(attachment_ids)
        self.messages_sent.append(entry)
        self._notify()
        return _record({"id": mid, "recipients": recipients, "success": True})

    async def send_event(
        self, content: str, message_type: str, metadata: dict[str, Any] | None = None
    ) -> Record | None:
        """Record an event (blank content posts nothing: None)."""
        if self.send_event_error is not None:
            raise self.send_event_error
        if not _visible(content):
            return None
        eid = f"evt-{len(self.events_sent)}"
        self.events_sent.append(
            {
                "id": eid,
                "content": content,
                "message_type": message_type,
                "metadata": dict(metadata or {}),
            }
        )
        self._notify()
        return _record({"id": eid, "message_type": message_type, "success": True})

    async def no_reply(self, reason: str | None = None) -> Record:
        """Decline the turn."""
        return Record({"status": "no_reply"})

    async def send_failure(self, failure: AgentFailure) -> Any:
        """Post ``failure`` as an ``error`` event and note it on the turn; never raises."""
        content, meta = failure_event(failure)
        try:
            posted = await self.send_event(content, "error", meta)
        except Exception as exc:  # like the real send_failure: reporting never raises
            return {"ok": False, "error": str(exc)}
        self.turn.note_reported()
        return posted

    async def add_participant(self, identifier: str, role: str = "member") -> Record:
        """Add a peer by ID, handle or name (already present: ``already_in_room``)."""
        present = next((p for p in self._participants if _matches(p, identifier)), None)
        if present is not None:
            result = {
                "id": present["id"],
                "name": present.get("name", identifier),
                "role": role,
                "status": "already_in_room",
            }
        else:
            peer = next((p for p in self._peers if _matches(p, identifier)), None)
            if peer is None:
                raise ValueError(
                    f"Participant '{identifier}' not found. "
                    "Use band_lookup_peers to find available peers."
                )
            name = peer.get("name") or identifier
            self._participants.append(
                {
                    "id": peer["id"],
                    "name": name,
                    "handle": peer.get("handle"),
                    "role": role,
                    "status": "active",
                    "type": peer.get("type", "Agent"),
                }
            )
            result = {"id": peer["id"], "name": name, "role": role, "status": "added"}
        self.participants_added.append(result)
        return _record(result)

    async def remove_participant(self, identifier: str) -> Record:
        """Remove a participant by ID, handle or name."""
        present = next((p for p in self._participants if _matches(p, identifier)), None)
        if present is None:
            raise ValueError(f"Participant '{identifier}' not found in this room.")
        self._participants.remove(present)
        result = {"id": present["id"], "name": present.get("name", identifier), "status": "removed"}
        self.participants_removed.append(result)
        return _record(result)

    async def get_participants(self) -> list[ChatParticipant]:
        """The room's participants (``Record`` rows: read as ``p.name`` or ``p["name"]``)."""
        # typed as the protocol's result: a Record reads by attribute as ChatParticipant does
        return cast("list[ChatParticipant]", [_record(p) for p in self._participants])

    async def lookup_peers(self, page: int = 1, page_size: int = 50) -> Record:
        """Seeded peers, one page: ``{"data": [...], "metadata": {...}}``."""
        return _record(
            {
                "data": _page(self._peers, page, page_size),
                "metadata": _offset_meta(page, page_size, len(self._peers)),
            }
        )

    async def create_chatroom(self, task_id: str | None = None) -> str:
        """A new room ID."""
        return f"room-{uuid.uuid4()}"

    def set_room_context(self, messages: list[dict[str, Any]]) -> None:
        """Replace the context ``fetch_room_context`` pages over."""
        self._room_context = [dict(m) for m in messages]

    def append_room_context(self, message: dict[str, Any]) -> None:
        """Add one message to the context."""
        self._room_context.append(dict(message))

    async def fetch_room_context(
        self, *, room_id: str, page: int = 1, page_size: int = 50
    ) -> dict[str, Any]:
        """A page of the seeded context: ``{"data": [...], "meta": {...}}``."""
        self.context_calls.append({"room_id": room_id, "page": page, "page_size": page_size})
        return _record(
            {
                "data": _page(self._room_context, page, page_size),
                "meta": _offset_meta(page, page_size, len(self._room_context)),
            }
        )

    # --- contacts -----------------------------------------------------------------------------

    async def list_contacts(self, page: int = 1, page_size: int = 50) -> Record:
        """Seeded contacts, one page."""
        return _record(
            {
                "data": _page(self._contacts, page, page_size),
                "metadata": _offset_meta(page, page_size, len(self._contacts)),
            }
        )

    def _by_handle(
        self, rows: list[dict[str, Any]], key: str, handle: str, status: str | None = None
    ) -> dict[str, Any] | None:
        wanted = _bare(handle)
        return next(
            (
                r
                for r in rows
                if (status is None or r.get("status") == status)
                and isinstance(r.get(key), str)
                and _bare(r[key]) == wanted
            ),
            None,
        )

    def _approve(self, request: dict[str, Any]) -> None:
        """A received request becomes a contact; a crossing sent request is approved too."""
        handle = request.get("from_handle")
        if not handle:
            raise ValueError(
                "Failed to respond to contact request - malformed request has no from_handle"
            )
        self._contacts.append(
            {
                "id": str(uuid.uuid4()),
                "handle": _bare(handle),
                "name": request.get("from_name"),
                "type": request.get("type", "User"),
                "inserted_at": FAKE_TIMESTAMP,
                "online": True,
            }
        )
        crossing = self._by_handle(self._sent_requests, "to_handle", handle, _PENDING)
        if crossing is not None:
            crossing["status"] = _APPROVED
        request["status"] = _APPROVED

    async def add_contact(self, handle: str, message: str | None = None) -> Record:
        """Request a contact; an existing contact or a pending request from them approves."""
        existing = self._by_handle(self._contacts, "handle", handle)
        if existing is not None:
            return Record({"id": existing["id"], "status": _APPROVED})
        theirs = self._by_handle(self._received_requests, "from_handle", handle, _PENDING)
        if theirs is not None:
            self._approve(theirs)
            return Record({"id": theirs["id"], "status": _APPROVED})
        request = {
            "id": str(uuid.uuid4()),
            "to_handle": _bare(handle),
            "message": message,
            "status": _PENDING,
            "inserted_at": FAKE_TIMESTAMP,
        }
        self._sent_requests.append(request)
        return Record({"id": request["id"], "status": _PENDING})

    def _find(
        self,
        rows: list[dict[str, Any]],
        key: str,
        ident: str | None,
        handle: str | None,
        not_found: str,
        status: str | None = None,
    ) -> dict[str, Any]:
        if ident is not None:
            for r in rows:
                if r.get("id") == ident:
                    if status is None or r.get("status") == status:
                        return r
                    raise RuntimeError(not_found)
        if handle is not None:
            hit = self._by_handle(rows, key, handle, status)
            if hit is not None:
                return hit
        raise RuntimeError(not_found)

    async def remove_contact(
        self, handle: str | None = None, contact_id: str | None = None
    ) -> Record:
        """Remove a contact by handle or ID."""
        if handle is None and contact_id is None:
            raise ValueError("Either handle or contact_id must be provided")
        contact = self._find(
            self._contacts,
            "handle",
            contact_id,
            handle,
            "Failed to remove contact - no response data",
        )
        self._contacts.remove(contact)
        return Record({"status": "removed"})

    async def list_contact_requests(
        self, page: int = 1, page_size: int = 50, sent_status: str = "pending"
    ) -> Record:
        """Pending received requests and sent requests in ``sent_status`` (``all``: every)."""
        received = [r for r in self._received_requests if r.get("status") == _PENDING]
        sent = [
            r for r in self._sent_requests if sent_status == "all" or r.get("status") == sent_status
        ]
        return _record(
            {
                "data": {
                    "received": _page(received, page, page_size),
                    "sent": _page(sent, page, page_size),
                },
                "metadata": {
                    "page": page,
                    "page_size": page_size,
                    "received": {
                        "total": len(received),
                        "total_pages": _total_pages(len(received), page_size),
                    },
                    "sent": {"total": len(sent), "total_pages": _total_pages(len(sent), page_size)},
                },
            }
        )

    async def respond_contact_request(
        self, action: str, handle: str | None = None, request_id: str | None = None
    ) -> Record:
        """Approve or reject a pending received request, or cancel a pending sent one."""
        if handle is None and request_id is None:
            raise ValueError("Either handle or request_id must be provided")
        if action in ("approve", "reject"):
            rows, key = self._received_requests, "from_handle"
        elif action == "cancel":
            rows, key = self._sent_requests, "to_handle"
        else:
            raise ValueError(f"Unknown contact request action: {action!r}")
        request = self._find(
            rows,
            key,
            request_id,
            handle,
            "Failed to respond to contact request - no response data",
            _PENDING,
        )
        status = {"approve": _APPROVED, "reject": _REJECTED, "cancel": _CANCELLED}[action]
        if action == "approve":
            self._approve(request)
        else:
            request["status"] = status
        return Record({"id": request["id"], "status": status})

    # --- memories -----------------------------------------------------------------------------

    async def list_memories(
        self,
        subject_id: str | None = None,
        scope: str | None = None,
        system: str | None = None,
        type: str | None = None,
        segment: str | None = None,
        content_query: str | None = None,
        page_size: int = 50,
        status: str | None = None,
    ) -> Record:
        """The stored memories' first page (filters are accepted, not applied)."""
        first = self.memories[:page_size]
        return _record(
            {"data": first, "meta": {"page_size": len(first), "total_count": len(self.memories)}}
        )

    async def store_memory(
        self,
        content: str,
        system: str,
        type: str,
        segment: str,
        thought: str,
        scope: str,
        subject_id: str | None = None,
        metadata: dict[str, Any] | None = None,
    ) -> Record:
        """Store a memory and return it."""
        memory = {
            "id": str(uuid.uuid4()),
            "content": content,
            "system": system,
            "type": type,
            "segment": segment,
            "scope": scope,
            "status": "active",
            "thought": thought,
            "subject_id": subject_id,
            "metadata": metadata,
            "inserted_at": FAKE_TIMESTAMP,
        }
        self.memories.append(memory)
        return _record(memory)

    async def get_memory(self, memory_id: str) -> Record:
        """One stored memory."""
        memory = next((m for m in self.memories if m.get("id") == memory_id), None)
        if memory is None:
            raise RuntimeError("Failed to get memory - no response data")
        return _record(memory)

    async def supersede_memory(self, memory_id: str) -> Record:
        """Mark a memory superseded."""
        return self._memory_status(memory_id, "superseded", "supersede")

    async def archive_memory(self, memory_id: str) -> Record:
        """Archive a memory."""
        return self._memory_status(memory_id, "archived", "archive")

    def _memory_status(self, memory_id: str, status: str, action: str) -> Record:
        for memory in self.memories:
            if memory.get("id") == memory_id:
                memory["status"] = status
                return _record(memory)
        raise RuntimeError(f"Failed to {action} memory - no response data")

    @property
    def memory_contents(self) -> list[str]:
        """The stored memories' contents, oldest first."""
        return [str(m.get("content")) for m in self.memories]

    # --- files --------------------------------------------------------------------------------

    async def list_room_files(self, cursor: str | None = None) -> Record:
        """The room's files (one page)."""
        return _record({"data": self.files, "next_cursor": None})

    async def read_room_file(self, file_id: str) -> Record:
        """A description of a stored file (the fake keeps no bytes)."""
        f = next((f for f in self.files if f.get("id") == file_id), None)
        if f is None:
            raise BandToolError(FILE_UNAVAILABLE_MESSAGE)
        return Record(
            {
                "name": f["name"],
                "content_type": f["content_type"],
                "bytes": f["bytes"],
                "description": (
                    f"Fake file '{f['name']}' ({f['content_type']}, {f['bytes']} bytes)."
                ),
            }
        )

    async def send_room_file(
        self,
        content: str,
        filename: str,
        caption: str = "",
        mentions: list[str] | None = None,
    ) -> Record:
        """Store a text file and post it; mentions are checked first, so nothing is left."""
        self._require_mentions(mentions)
        if not _visible(caption):
            caption = DEFAULT_FILE_CAPTION.format(filename=filename)
        body = content.encode("utf-8")
        file_id = str(uuid.uuid4())
        attachment: dict[str, Any] = {
            "id": file_id,
            "name": filename,
            "content_type": "text/plain",
            "bytes": len(body),
            "sha256": hashlib.sha256(body).hexdigest(),
            "has_thumb": False,
        }
        message = self._record_message(caption, mentions, [file_id])
        self.files.append(attachment)
        return _record({"attachment": attachment, "message_id": message["id"]})

    # --- tasks --------------------------------------------------------------------------------

    def _task(self, ident: str) -> dict[str, Any]:
        ref = ident.strip().removeprefix("#")
        task = next(
            (t for t in self.tasks if t.get("id") == ref or str(t.get("number")) == ref), None
        )
        if task is None:
            raise RuntimeError(f"Failed to find task {ident!r} - no response data")
        return task

    async def list_tasks(
        self, state: str | None = None, cursor: str | None = None, limit: int | None = None
    ) -> Record:
        """Tasks in ``state`` (default ``active``; ``all``: every), in one page."""
        wanted = state or "active"
        rows = [t for t in self.tasks if wanted == "all" or t.get("state") == wanted]
        return _record(
            {
                "data": rows,
                "metadata": {"has_more": False, "limit": limit or 50, "next_cursor": None},
            }
        )

    async def create_task(
        self, subject: str, detail: str | None = None, supersedes_id: str | None = None
    ) -> Record:
        """Create a task (not assigned); ``supersedes_id`` marks the old one superseded."""
        self._task_seq += 1
        task = {
            "id": str(uuid.uuid4()),
            "number": self._task_seq,
            "chat_room_id": self.room_id,
            "subject": subject,
            "detail": detail or "",
            "state": "active",
            "overall_status": "pending",
            "assignments": [],
            "created_by": dict(FAKE_ACTOR),
            "superseded_by_id": None,
            "inserted_at": FAKE_TIMESTAMP,
            "updated_at": FAKE_TIMESTAMP,
        }
        self.tasks.append(task)
        if supersedes_id is not None:
            old = self._task(supersedes_id)
            old["state"] = "superseded"
            old["superseded_by_id"] = task["id"]
        return _record(task)

    async def get_task(self, id: str, include: str | None = None) -> Record:
        """One task by ID or number."""
        return _record(self._task(id))

    async def update_task(
        self,
        id: str,
        status: str | None = None,
        active_form: str | None = None,
        comment: str | None = None,
        subject: str | None = None,
        detail: str | None = None,
        state: str | None = None,
    ) -> Record:
        """Apply the fields; a first ``status`` / ``active_form`` joins the fake to the task."""
        task = self._task(id)
        for key, value in (("subject", subject), ("detail", detail), ("state", state)):
            if value is not None:
                task[key] = value
        if status is not None or active_form is not None:
            mine = next(
                (a for a in task["assignments"] if a["assignee"]["id"] == FAKE_ACTOR["id"]), None
            )
            if mine is None:
                mine = {
                    "assignee": dict(FAKE_ACTOR),
                    "status": "pending",
                    "active_form": "",
                    "linked_native_id": "",
                    "updated_at": FAKE_TIMESTAMP,
                }
                task["assignments"].append(mine)
            if status is not None:
                mine["status"] = status
                task["overall_status"] = status
            if active_form is not None:
                mine["active_form"] = active_form
        task["updated_at"] = FAKE_TIMESTAMP
        return _record(task)

    async def get_task_history(
        self, id: str, cursor: str | None = None, limit: int | None = None
    ) -> Record:
        """An empty history (the fake keeps no event log) for an existing task."""
        self._task(id)
        return _record(
            {"data": [], "metadata": {"has_more": False, "limit": limit or 50, "next_cursor": None}}
        )

    async def get_board(self, include: str | None = None) -> Record:
        """The room's goal."""
        return _record(self.board)

    async def set_board(
        self, goal_title: str | None = None, goal_summary: str | None = None
    ) -> Record:
        """Set the given goal fields."""
        if goal_title is not None:
            self.board["goal_title"] = goal_title
        if goal_summary is not None:
            self.board["goal_summary"] = goal_summary
        self.board["updated_at"] = FAKE_TIMESTAMP
        self.board["updated_by"] = dict(FAKE_ACTOR)
        return _record(self.board)

    # --- schemas and the model's tool calls -------------------------------------------------------

    def get_tool_schemas(
        self, format: str, *, capabilities: frozenset[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """The real tool schemas the room's tools would offer, in ``format``."""
        specs = select_tools(capabilities, hub_room=self.is_hub_room)
        return [s.schema(format) for s in specs]

    def get_anthropic_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[ToolParam]:
        """The tool schemas in Anthropic format."""
        return cast(
            "list[ToolParam]", self.get_tool_schemas("anthropic", capabilities=capabilities)
        )

    def get_openai_tool_schemas(
        self, *, capabilities: frozenset[Capability] | None = None
    ) -> list[dict[str, Any]]:
        """The tool schemas in OpenAI format."""
        return self.get_tool_schemas("openai", capabilities=capabilities)

    async def execute_tool_call(self, tool_name: str, arguments: Mapping[str, Any]) -> Any:
        """Record the call; its value is ``{"status": "ok"}``."""
        return (await self.execute_tool_call_structured(tool_name, arguments)).value

    async def execute_tool_call_structured(
        self, tool_name: str, arguments: Mapping[str, Any]
    ) -> ToolCallOutcome:
        """Record the call and its effect on ``turn`` and report success (the tool is not run)."""
        self.tool_calls.append({"tool_name": tool_name, "arguments": dict(arguments)})
        outcome = ToolCallOutcome(value={"status": "ok"}, ok=True)
        self._record_effect(tool_name, outcome.value)
        return outcome

    # --- waiting and assertions ---------------------------------------------------------------

    def hold_message(self, matching: str, *, error: Exception | None = None) -> HeldMessage:
        """Hold the next message containing ``matching`` in flight for an ``async with``."""
        held = HeldMessage(matching, error)
        self._held.append(held)
        return held

    async def until(self, condition: Callable[[], bool]) -> None:
        """Wait until ``condition()`` holds; re-checked whenever a message or event lands."""
        if condition():
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._observers.append((condition, fut))
        await fut

    async def until_said(self, fragment: str, *, times: int = 1) -> None:
        """Wait until ``times`` sent messages contain ``fragment``."""
        await self.until(lambda: sum(fragment in m["content"] for m in self.messages_sent) >= times)

    def _notify(self) -> None:
        for observer in list(self._observers):
            condition, fut = observer
            if fut.done() or condition():
                self._observers.remove(observer)
                if not fut.done():
                    fut.set_result(None)

    @property
    def chat(self) -> list[str]:
        """The content of every message sent, in order."""
        return [m["content"] for m in self.messages_sent]

    def assert_message_sent(
        self,
        content: str | None = None,
        *,
        mentions: list[str] | None = None,
        count: int | None = None,
    ) -> None:
        """Assert a message was sent (matching ``content`` / ``mentions``; ``count`` in all):
        ``assert_message_sent("echo: hi")``, or ``content=`` as band-sdk spells it."""
        if count is not None:
            assert len(self.messages_sent) == count, (
                f"Expected {count} messages, got {len(self.messages_sent)}"
            )
        if content is not None:
            assert any(m["content"] == content for m in self.messages_sent), (
                f"No message with content {content!r} found. Sent: {self.chat}"
            )
        if mentions is not None:
            assert any(m["mentions"] == mentions for m in self.messages_sent), (
                f"No message with mentions {mentions!r} found. "
                f"Sent: {[m['mentions'] for m in self.messages_sent]}"
            )

    def assert_event_sent(
        self, message_type: str | None = None, *, count: int | None = None
    ) -> None:
        """Assert an event was sent (of ``message_type``; ``count`` of them)."""
        matching = [
            e for e in self.events_sent if message_type is None or e["message_type"] == message_type
        ]
        types = [e["message_type"] for e in self.events_sent]
        if count is None and message_type is None:
            assert matching, "Expected at least one event; none were sent"
        if count is not None:
            assert len(matching) == count, (
                f"Expected {count} {message_type or 'total'} events, got {len(matching)}. "
                f"Sent types: {types}"
            )
        if message_type is not None:
            assert matching, f"No event with type {message_type!r} found. Sent types: {types}"

    def assert_no_messages_sent(self) -> None:
        """Assert no message was sent."""
        assert not self.messages_sent, (
            f"Expected no messages, but {len(self.messages_sent)} were sent"
        )


# every Band tool method records its tool's effect on the turn when it returns, whoever calls it
for _name in TOOL_EFFECTS:
    _method = FakeAgentTools.__dict__.get(_name.removeprefix("band_"))
    if callable(_method):
        setattr(FakeAgentTools, _name.removeprefix("band_"), _effect_recorded(_name, _method))


def events_of_type(tools: FakeAgentTools, message_type: str) -> list[dict[str, Any]]:
    """The events of ``message_type`` that ``tools`` recorded."""
    return [e for e in tools.events_sent if e["message_type"] == message_type]


def reported_failures(tools: FakeAgentTools) -> list[dict[str, Any]]:
    """Every failure reported with ``send_failure``: ``{provider, code, message, detail}``.

    An ``error`` event without a provider in its metadata is not a failure report.
    """
    out = []
    for e in events_of_type(tools, "error"):
        meta = e["metadata"]
        nested = meta.get("failure")
        if isinstance(nested, Mapping):
            out.append(dict(nested))
        elif "provider" in meta:
            out.append(
                {
                    "provider": meta["provider"],
                    "code": meta.get("code"),
                    "message": e["content"],
                    "detail": meta.get("detail"),
                }
            )
    return out


def failure_reports(tools: FakeAgentTools) -> list[tuple[str, str]]:
    """Every failure reported with ``send_failure``, as ``(provider, message)``."""
    return [(f["provider"], f["message"]) for f in reported_failures(tools)]
