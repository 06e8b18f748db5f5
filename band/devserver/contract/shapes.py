"""Render store rows as the JSON shapes of spec section 2.5."""

from __future__ import annotations

import msgspec

from band.core import wire

from ..store.rows import AgentRow, Member, MessageRecord, PeerRow, RoomRow, UserRow
from .views import MyAgent, UserDetails


def chat_room(room: RoomRow) -> wire.RoomDetails:
    """ChatRoom (also the room_added / room_removed payload), with its type and status."""
    return wire.RoomDetails(
        id=room.id,
        title=room.title,
        task_id=room.task_id,
        type=room.type,
        status=room.status,
        inserted_at=room.inserted_at,
        updated_at=room.updated_at,
    )


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
    return wire.Participant(
        id=p.id,
        type=p.type,
        role=p.role,
        status="active",
        name=p.name,
        handle=p.handle,
        description=p.description,
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
    return wire.MessageRow(
        id=m.id,
        content=m.content,
        message_type=m.message_type,
        sender_id=m.sender_id,
        sender_type=m.sender_type,
        sender_name=m.sender_name,
        chat_room_id=m.room_id,
        thread_id=msgspec.UNSET,
        inserted_at=m.inserted_at,
        updated_at=m.updated_at,
        attachments=[msgspec.to_builtins(a) for a in m.attachments],
        metadata=m.metadata,
    )


def agent_me(a: AgentRow) -> wire.AgentMe:
    """AgentMe."""
    return wire.AgentMe(
        id=a.id,
        name=a.name,
        handle=a.handle,
        description=a.description,
        owner_uuid=a.owner_id,
        inserted_at=a.inserted_at,
        updated_at=a.updated_at,
        feature_flags={"ff_file_transfer": True},  # room files + attachments work
        listed_in_directory=False,
        tags=[],
    )


def my_agent(a: AgentRow) -> MyAgent:
    """Agent as seen by its owner."""
    return MyAgent(
        id=a.id,
        name=a.name,
        handle=a.handle,
        description=a.description,
        owner_id=a.owner_id,
        inserted_at=a.inserted_at,
        updated_at=a.updated_at,
        slug=a.handle.rpartition("/")[2],
    )


def peer(p: PeerRow, online: bool) -> wire.Peer:
    """Peer (band dev keeps no avatar, external flag, directory listing or tags: left out)."""
    return wire.Peer(
        id=p.id,
        name=p.name,
        handle=p.handle,
        type=p.type,
        description=p.description,
        is_contact=p.is_contact,
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
