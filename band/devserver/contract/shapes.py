"""Render store rows as the JSON shapes of spec section 2.5."""

from __future__ import annotations

import msgspec

from band.core import wire

from ..store.rows import AgentRow, Member, MessageRecord, PeerRow, RoomRow, UserRow
from .views import MyAgent, UserDetails


def chat_room(room: RoomRow) -> wire.RoomDetails:
    """ChatRoom (also the room_added / room_removed payload), with its type and status."""
    return room.as_wire(wire.RoomDetails)


def me_chat_room(room: RoomRow, participants: list[Member]) -> wire.MeChatRoom:
    """MeChatRoom (human view, with the agents in it)."""
    agents = [
        wire.MeChatRoomAgentsItem(id=p.id, name=p.name, handle=p.handle, type="Agent")
        for p in participants
        if p.type == "Agent"
    ]
    return wire.MeChatRoom(
        **msgspec.structs.asdict(chat_room(room)), agents=agents, work_status="idle"
    )


def participant(p: Member, online: bool = False) -> wire.Participant:
    """ChatParticipant (also the participant_added / participant_removed payload)."""
    return p.as_wire(
        wire.Participant,
        status="active",
        is_external=False,
        is_remote=False,
        online=online,
        avatar_url=msgspec.UNSET,
    )


def participant_details(p: Member, online: bool = False) -> wire.ChatParticipantDetails:
    """ChatParticipantDetails (the human API's participant row): ``connection_status`` is
    tracked for agents (band dev's agents all connect over the socket, as external agents do)
    and null for people, whose connectivity the field does not track."""
    status = ("connected" if online else "disconnected") if p.type == "Agent" else None
    return wire.ChatParticipantDetails(
        **msgspec.structs.asdict(participant(p, online)),
        username=p.handle,
        connection_status=status,
    )


def message(m: MessageRecord) -> wire.MessageRow:
    """ChatMessage (also the message_created payload)."""
    return m.as_wire(
        wire.MessageRow,
        chat_room_id=m.room_id,
        thread_id=msgspec.UNSET,
        attachments=[msgspec.to_builtins(a) for a in m.attachments],
    )


def agent_me(a: AgentRow) -> wire.AgentMe:
    """AgentMe."""
    return a.as_wire(
        wire.AgentMe,
        owner_uuid=a.owner_id,
        feature_flags={"ff_file_transfer": True},  # room files + attachments work
        listed_in_directory=False,
        tags=[],
    )


def my_agent(a: AgentRow) -> MyAgent:
    """Agent as seen by its owner."""
    return a.as_wire(MyAgent, slug=a.handle.rpartition("/")[2])


def peer(p: PeerRow, online: bool) -> wire.Peer:
    """Peer (band dev keeps no avatar, external flag, directory listing or tags: left out)."""
    return p.as_wire(
        wire.Peer,
        online=online,
        # how the peer was found: from contacts, else the registry (owner, sibling agents)
        source="contact" if p.is_contact else "registry",
        avatar_url=msgspec.UNSET,
        is_external=msgspec.UNSET,
        listed_in_directory=msgspec.UNSET,
        tags=msgspec.UNSET,
    )


def user_details(u: UserRow) -> UserDetails:
    """UserDetails."""
    first, _, rest = u.name.partition(" ")
    return UserDetails(
        id=u.id, email=u.email, handle=u.handle, first_name=first, last_name=rest or None
    )
