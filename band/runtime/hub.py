"""The contacts hub room: where the HUB_ROOM strategy hands contact events to the model.

The hub room is created once (``POST /agent/chats`` with a fixed title) and found again by
that title (and its task) in the agent's room listing after a restart, so restarts do not
leave a trail of hub rooms behind.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from band.client.rest import RestClient

__all__ = [
    "HUB_PROMPT",
    "HUB_TITLE",
    "SYNTHETIC_CONTACT_EVENTS_SENDER_ID",
    "SYNTHETIC_CONTACT_EVENTS_SENDER_NAME",
    "SYNTHETIC_SENDER_TYPE",
    "create_hub_room",
    "find_hub_room",
    "is_contact_hub_turn",
]

HUB_TITLE = "Contacts hub"

#: Sender of the turns the runtime injects into the hub room (they are not platform messages).
SYNTHETIC_SENDER_TYPE = "System"
SYNTHETIC_CONTACT_EVENTS_SENDER_ID = "contact-events"
SYNTHETIC_CONTACT_EVENTS_SENDER_NAME = "Contact Events"

#: Handed to the model (in ``contacts_msg``) with the first contact event after a start.
HUB_PROMPT = """## Contacts hub: contact management mode

This room is your contacts hub. The runtime posts your contact events here and you act on
them yourself with the contact tools. Do not add participants or look up peers in this room.

For each event:
1. A `[Contact Request]` names who asked and the request ID. Decide whether to accept.
2. Answer it with `band_respond_contact_request(action="approve", request_id="<id>")` or
   `action="reject"`.
3. Record what you decided and why with `band_send_event(..., message_type="thought")`.

`[Contact Added]`, `[Contact Removed]` and `[Contact Request Update]` events are for your
information; end such a turn with `band_no_reply` unless something needs doing.

Contact tools: `band_respond_contact_request(action, request_id)`,
`band_list_contact_requests()`, `band_list_contacts()`, `band_add_contact(handle)`,
`band_remove_contact(handle | contact_id)`.
"""


def is_contact_hub_turn(*, sender_type: str | None, sender_id: str | None) -> bool:
    """Whether a message is a contact event the runtime injected into the hub room."""
    return sender_type == SYNTHETIC_SENDER_TYPE and sender_id == SYNTHETIC_CONTACT_EVENTS_SENDER_ID


def find_hub_room(rooms: Iterable[dict[str, Any]], task_id: str | None) -> str | None:
    """The id of the agent's existing hub room among ``rooms`` (listing rows), if any."""
    for row in rooms:
        if row.get("title") == HUB_TITLE and row.get("task_id") == task_id:
            return str(row["id"])
    return None


async def create_hub_room(rest: RestClient, task_id: str | None) -> str:
    """Create the hub room (the platform then pushes its ``room_added``); return its id."""
    chat: dict[str, Any] = {"title": HUB_TITLE}
    if task_id:
        chat["task_id"] = task_id
    resp = await rest.request("POST", "/agent/chats", json={"chat": chat})
    data = resp.data if isinstance(resp.data, dict) else {}
    if not isinstance(data.get("id"), str):
        raise ValueError("the platform answered the hub room creation without a room id")
    return str(data["id"])
