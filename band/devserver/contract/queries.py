"""The query parameters of every REST route, declared once (validation and ``/openapi.json``)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, ClassVar, Literal

from pydantic import AfterValidator, Field, ValidationInfo, field_validator, model_validator

from ..store.db import StoreError
from .fields import (
    Cursor,
    Limit,
    MemorySegment,
    MemorySystem,
    MemoryType,
    PageNumber,
    QueryBool,
    rule,
)
from .inputs import QueryModel

MESSAGE_TYPES = (
    "text", "tool_call", "tool_result", "thought", "error", "task", "attention", "system",
    "participant", "action", "guidelines",
)  # fmt: skip
ANCHORS = ("after", "before", "around")
MessageStatus = Literal["pending", "processing", "processed", "failed", "all"]
TaskListState = Literal["active", "cancelled", "superseded", "archived", "all"]
SentStatus = Literal["pending", "approved", "rejected", "cancelled", "expired", "all"]
PeerType = Literal["User", "Agent"]


class PageQuery(QueryModel):
    """Offset pagination: ``page`` (from 1) and ``page_size`` (1..100, default 20)."""

    page: PageNumber = 1
    page_size: Limit = 20

    def window(self) -> tuple[int, int]:
        """(page, page_size)."""
        return self.page, self.page_size


class ForceQuery(QueryModel):
    """DELETE /me/agents/{id}: ``force=true`` deletes the agent's execution history too."""

    force: QueryBool = False


class CursorQuery(QueryModel):
    """Keyset pagination: ``cursor`` (a row sequence number) and ``limit`` (1..100)."""

    cursor: Cursor | None = None
    limit: Limit | None = None


class HistoryQuery(QueryModel):
    """``include=history`` embeds the latest history events."""

    include: Literal["history"] | None = None


class RoomPageQuery(CursorQuery):
    """Cursor pagination that also accepts the deprecated ``page`` / ``page_size``."""

    page: PageNumber | None = None
    page_size: Limit | None = None

    def size(self, default: int) -> int:
        """The page length: ``limit``, else ``page_size``, else ``default``."""
        return self.limit or self.page_size or default


class AgentMessagesQuery(RoomPageQuery):
    """GET /agent/chats/{id}/messages."""

    status: MessageStatus | None = None
    sort_order: Literal["asc", "desc"] = "asc"


class TasksQuery(CursorQuery):
    """GET /agent/chats/{id}/tasks."""

    state: TaskListState = "active"


class PeersQuery(PageQuery):
    """GET /agent/peers."""

    not_in_chat: str | None = None


class MyPeersQuery(PeersQuery):
    """GET /me/peers."""

    type: PeerType | None = None


class ParticipantsQuery(QueryModel):
    """GET /me/chats/{id}/participants: cursor paging (``cursor``, ``limit``), or the
    deprecated offset paging (``page``, ``page_size``)."""

    participant_type: PeerType | None = None
    cursor: str | None = None
    limit: Limit | None = None
    page: PageNumber | None = None
    page_size: Limit | None = None

    @model_validator(mode="after")
    def _one_mode(self) -> ParticipantsQuery:
        _one_paging(self)
        return self


def _one_paging(q: QueryModel) -> None:
    """Refuse cursor paging mixed with offset paging (one mode per request)."""
    if getattr(q, "cursor", None) is not None and getattr(q, "page", None) is not None:
        raise rule("page", "use cursor/limit or page/page_size, not both")


def _include(allowed: tuple[str, ...]) -> Callable[[str | None], str | None]:
    """A validator of a comma-separated ``include`` list (repeated keys arrive joined)."""

    def check(value: str | None) -> str | None:
        if value is None:
            return None
        for item in value.split(","):
            if item not in allowed:
                raise rule("include", f"include: unsupported value {item!r} "
                           f"(one of {', '.join(allowed)})")  # fmt: skip
        return value

    return check


def includes(value: str | None) -> frozenset[str]:
    """The items of an ``include`` list."""
    return frozenset(value.split(",")) if value else frozenset()


class AgentChatsQuery(PageQuery):
    """GET /agent/chats: offset paging and ``include=participants``."""

    include: Annotated[str | None, AfterValidator(_include(("participants",)))] = None


class MyChatQuery(QueryModel):
    """GET /me/chats/{id}: ``include=message_counts``."""

    include: Annotated[str | None, AfterValidator(_include(("message_counts",)))] = None


CHAT_INCLUDES = ("agent_rooms", "participants", "last_message", "membership", "total_count")


class MyChatsQuery(QueryModel):
    """GET /me/chats: cursor paging (or the deprecated offset paging), filters, sort and
    ``include``."""

    cursor: str | None = None
    limit: Limit | None = None
    page: PageNumber | None = None
    page_size: Limit | None = None
    status: Literal["active", "archived", "closed"] | None = None
    type: Literal["direct", "group", "task"] | None = None
    sort_by: Literal["inserted_at", "updated_at"] = "inserted_at"
    order: Literal["asc", "desc"] = "desc"
    include: Annotated[str | None, AfterValidator(_include(CHAT_INCLUDES))] = None

    @model_validator(mode="after")
    def _one_mode(self) -> MyChatsQuery:
        _one_paging(self)
        return self


class MyAgentsQuery(QueryModel):
    """GET /me/agents: filters, sort, and cursor (or the deprecated offset) paging."""

    name: str | None = None
    is_external: QueryBool | None = None
    listed_in_directory: QueryBool | None = None
    sort: Literal["name", "inserted_at", "updated_at"] = "inserted_at"
    order: Literal["asc", "desc"] = "asc"
    cursor: str | None = None
    limit: Limit | None = None
    page: PageNumber | None = None
    page_size: Limit | None = None

    @model_validator(mode="after")
    def _one_mode(self) -> MyAgentsQuery:
        _one_paging(self)
        return self


class AgentRequestsQuery(PageQuery):
    """GET /agent/contacts/requests."""

    sent_status: SentStatus = "pending"


class SentRequestsQuery(PageQuery):
    """GET /me/contacts/requests/sent (all statuses when ``status`` is omitted)."""

    status: SentStatus | None = None


def _type_list(value: str, name: str, *, single: bool) -> tuple[str, ...]:
    values = (value,) if single else tuple(value.split(","))
    for item in values:
        if item not in MESSAGE_TYPES:
            raise rule(name, f"{name}: unknown message type {item!r}")
    return values


class HumanMessagesQuery(RoomPageQuery):
    """GET /me/chats/{id}/messages: type filters (one at most) and ``since``."""

    message_type: str | None = None
    message_types: str | None = None
    exclude_message_types: str | None = None
    since: str | None = None
    after: str | None = None
    before: str | None = None
    around: str | None = None

    @field_validator("message_type", "message_types", "exclude_message_types")
    @classmethod
    def _known_types(cls, value: str | None, info: ValidationInfo) -> str | None:
        name = str(info.field_name)
        if value is not None:
            _type_list(value, name, single=name == "message_type")
        return value

    @field_validator("since")
    @classmethod
    def _iso_time(cls, value: str | None) -> str | None:
        if value is None:
            return None
        try:
            when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
        except ValueError:
            raise rule("since", "since must be an ISO 8601 date-time") from None
        if when.tzinfo is None:  # naive means UTC
            when = when.replace(tzinfo=UTC)
        # the store's timestamp form, so strings compare as times
        return when.astimezone(UTC).isoformat(timespec="microseconds").replace("+00:00", "Z")

    @model_validator(mode="after")
    def _one_filter(self) -> HumanMessagesQuery:
        given = [n for n in ("message_type", "message_types", "exclude_message_types")
                 if getattr(self, n) is not None]  # fmt: skip
        if len(given) > 1:
            raise rule(given[1], "use at most one of message_type, message_types, "
                       "exclude_message_types")  # fmt: skip
        if self.since is not None and self.cursor is not None:
            raise rule("since", "since and cursor cannot be combined")
        return self

    def anchor(self) -> tuple[str, str] | None:
        """(``after`` | ``before`` | ``around``, message id) when one was given (422
        ``invalid_params`` for two anchors, or one with cursor, since, page or page_size)."""
        anchors = [(n, v) for n in ANCHORS if (v := getattr(self, n)) is not None]
        others = [
            n for n in ("cursor", "since", "page", "page_size") if getattr(self, n) is not None
        ]
        if len(anchors) > 1 or (anchors and others):
            name = anchors[-1][0]
            message = ("use at most one of after, before, around, and none with cursor, "
                       "since, page or page_size")  # fmt: skip
            raise StoreError(422, "invalid_params", message, {name: [message]})
        return anchors[0] if anchors else None

    def types(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        """Return (types to keep, types to drop)."""
        if self.exclude_message_types is not None:
            return (), tuple(self.exclude_message_types.split(","))
        if self.message_types is not None:
            return tuple(self.message_types.split(",")), ()
        return ((self.message_type,) if self.message_type is not None else ()), ()


class MemoryFilters(QueryModel):
    """The memory list filters."""

    system: MemorySystem | None = None
    type: MemoryType | None = None
    segment: MemorySegment | None = None
    status: Literal["active", "superseded", "archived", "all"] | None = None
    scope: Literal["agent", "subject", "organization", "all"] | None = None
    content_query: str | None = None
    subject_id: str | None = None
    cursor: Cursor | None = None
    limit: Limit | None = None
    page: PageNumber | None = None
    page_size: Annotated[int, Field(ge=1, le=50)] | None = None


class AgentMemoriesQuery(MemoryFilters):
    """GET /agent/memories (``memory_scope=me``: the agent's own memories)."""

    memory_scope: Literal["me", "org"] = "me"


class MyMemoriesQuery(MemoryFilters):
    """GET /me/memories."""

    OWN_FILTERS: ClassVar[tuple[str, ...]] = ("chat_room_id", "source_agent_id")
    chat_room_id: str | None = None
    source_agent_id: str | None = None
