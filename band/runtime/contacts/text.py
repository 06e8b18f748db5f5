"""The text a model reads about contact events (hub-room turns and contact broadcasts)."""

from __future__ import annotations

from collections.abc import Mapping

from band.runtime.contacts.events import (
    ContactAddedEvent,
    ContactEvent,
    ContactRemovedEvent,
    ContactRequestReceivedEvent,
    ContactRequestUpdatedEvent,
)

__all__ = ["BROADCAST_PREFIX", "broadcast_text", "event_text", "event_type"]

#: Leads each contact change announced to the rooms' next turns.
BROADCAST_PREFIX = "[Contacts]: "


def _handle(value: str | None) -> str | None:
    """``@handle`` (a handle may arrive with or without its ``@``); None when empty."""
    value = (value or "").strip().lstrip("@")
    return f"@{value}" if value else None


def event_type(event: ContactEvent) -> str:
    """The wire name of ``event`` (``contact_request_received``...)."""
    return event.type


def event_text(event: ContactEvent, request: Mapping[str, str | None] | None = None) -> str:
    """One hub-room turn describing ``event``; ``request``: what is known of its request."""
    if isinstance(event, ContactRequestReceivedEvent) and event.payload is not None:
        p = event.payload
        who = f"{p.from_name or 'Someone'} ({_handle(p.from_handle) or 'handle unknown'})"
        note = f'\nTheir note: "{p.message}"' if p.message else ""
        return f"[Contact Request] {who} asked to become a contact.{note}\nRequest ID: {p.id}"
    if isinstance(event, ContactRequestUpdatedEvent) and event.payload is not None:
        u = event.payload
        info = request or {}
        if info.get("from_name") or info.get("to_name"):
            side = "from" if info.get("from_name") else "to"
            name = info.get("from_name") or info.get("to_name")
            handle = _handle(info.get("from_handle") or info.get("to_handle")) or "handle unknown"
            return (
                f"[Contact Request Update] The request {side} {name} ({handle}) is now "
                f"{u.status}.\nRequest ID: {u.id}"
            )
        return f"[Contact Request Update] Request {u.id} is now {u.status}."
    if isinstance(event, ContactAddedEvent) and event.payload is not None:
        a = event.payload
        who = f"{a.name or 'A new contact'} ({_handle(a.handle) or 'handle unknown'})"
        return f"[Contact Added] {who} is now one of your contacts.\nType: {a.type}, ID: {a.id}"
    if isinstance(event, ContactRemovedEvent) and event.payload is not None:
        return f"[Contact Removed] Contact {event.payload.id} is no longer one of your contacts."
    return f"[Contact Event] {event.type}"


def broadcast_text(event: ContactEvent) -> str | None:
    """The announcement of a contact added or removed (None for request events)."""
    if isinstance(event, ContactAddedEvent) and event.payload is not None:
        a = event.payload
        who = f"{_handle(a.handle) or 'handle unknown'} ({a.name or 'no name'})"
        return f"{BROADCAST_PREFIX}{who} was added to your contacts"
    if isinstance(event, ContactRemovedEvent) and event.payload is not None:
        return f"{BROADCAST_PREFIX}contact {event.payload.id} was removed from your contacts"
    return None
