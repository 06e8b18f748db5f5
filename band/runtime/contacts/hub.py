"""The contacts hub room: where the HUB_ROOM strategy hands contact events to the model.

The hub room is created once (``POST /agent/chats`` with a fixed title) and found again by
that title (and its task) in the agent's room listing after a restart, so restarts do not
leave a trail of hub rooms behind.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Iterable, Mapping
from typing import Protocol

from band.client.rest import RestClient
from band.core.wire import Room

__all__ = [
    "HUB_PROMPT",
    "ContactsHub",
    "HUB_TITLE",
    "SYNTHETIC_CONTACT_EVENTS_SENDER_ID",
    "SYNTHETIC_CONTACT_EVENTS_SENDER_NAME",
    "SYNTHETIC_SENDER_TYPE",
    "create_hub_room",
    "find_hub_room",
    "is_contact_hub_turn",
]

log = logging.getLogger("band.runtime.contacts.hub")

HUB_TITLE = "Contacts hub"
#: Seconds to wait for the hub room's ``room_added`` before joining it without the push.
HUB_WAIT = 5.0

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


def find_hub_room(rooms: Iterable[Room], task_id: str | None) -> str | None:
    """The id of the agent's existing hub room among ``rooms`` (the listing), if any."""
    for room in rooms:
        if room.title == HUB_TITLE and room.task_id == task_id:
            return room.id
    return None


async def create_hub_room(rest: RestClient, task_id: str | None) -> str:
    """Create the hub room (the platform then pushes its ``room_added``); return its id."""
    chat: dict[str, str] = {"title": HUB_TITLE}
    if task_id:
        chat["task_id"] = task_id
    resp = await rest.request("POST", "/agent/chats", json={"chat": chat})
    room = resp.data_as(Room)
    if room is None or not room.id:
        raise ValueError("the platform answered the hub room creation without a room id")
    return room.id


class HubRoom(Protocol):
    """What the hub needs of a joined room (a ``RoomExecution``)."""

    room_id: str
    hub_room_id: str | None

    @property
    def running(self) -> bool:
        """Whether the room takes turns."""

    def inject_system_message(self, message: str) -> None:
        """Add ``message`` to what the model is told before the next turn."""

    def submit_synthetic(self, text: str) -> None:
        """Queue ``text`` as a turn that exists only in this process."""


class HubRooms(Protocol):
    """What the hub needs of the runtime: its joined rooms and a way to join one."""

    @property
    def rooms(self) -> Mapping[str, HubRoom]:
        """The joined rooms by id."""

    async def _add_room(self, room_id: str) -> None: ...


class ContactsHub:
    """The hub room of one running agent: found or created at start, fed contact events."""

    def __init__(self, rest: RestClient, task_id: str | None, runtime: HubRooms) -> None:
        self.rest = rest
        self.task_id = task_id
        self.runtime = runtime
        self.room_id: str | None = None
        self.ready = asyncio.Event()  # set while the hub room is joined and running
        self._prompted = False

    def __repr__(self) -> str:
        return f"ContactsHub(room_id={self.room_id!r})"

    async def setup(self, listing: Iterable[Room]) -> str:
        """Find the hub room in ``listing`` (the agent's rooms) or create it; wait until joined."""
        hub = find_hub_room(listing, self.task_id)
        created = hub is None
        if hub is None:
            hub = await create_hub_room(self.rest, self.task_id)
            log.info("created the contacts hub room %s", hub)
        self.room_id = hub
        for room in self.runtime.rooms.values():
            room.hub_room_id = hub
        joined = self.runtime.rooms.get(hub)
        if joined is not None and joined.running:
            self.ready.set()
            return hub
        if not created:  # an existing room that was not joined (auto-subscribe is off)
            await self.runtime._add_room(hub)
        if self.ready.is_set():
            return hub
        try:  # a new room: its room_added push admits it
            await asyncio.wait_for(self.ready.wait(), HUB_WAIT)
        except TimeoutError:
            log.warning("no room_added for the hub room %s; joining it anyway", hub)
            await self.runtime._add_room(hub)
        return hub

    def joined(self, room_id: str) -> None:
        """A room was joined (the hub room is ready once it is)."""
        if room_id == self.room_id:
            self.ready.set()

    def left(self, room_id: str) -> None:
        """A room was left."""
        if room_id == self.room_id:
            self.ready.clear()
            log.warning("the contacts hub room %s was removed; restart to create another", room_id)

    async def turn(self, text: str) -> str | None:
        """Queue ``text`` as a turn of the hub room; its id (None when it is not joined)."""
        try:
            await asyncio.wait_for(self.ready.wait(), HUB_WAIT)
        except TimeoutError:
            return None
        room = self.runtime.rooms.get(self.room_id or "")
        if room is None:
            return None
        if not self._prompted:
            room.inject_system_message(HUB_PROMPT)  # the model's instructions, once per start
            self._prompted = True
        room.submit_synthetic(text)
        return room.room_id
