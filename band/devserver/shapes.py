"""Render store rows as the JSON shapes of spec section 2.5."""

from __future__ import annotations

from typing import Any


def chat_room(room: dict[str, Any]) -> dict[str, Any]:
    """ChatRoom (also the room_added / room_removed payload)."""
    return {
        "id": room["id"],
        "title": room["title"],
        "task_id": room["task_id"],
        "type": room["type"],
        "status": room["status"],
        "inserted_at": room["inserted_at"],
        "updated_at": room["updated_at"],
    }


def me_chat_room(room: dict[str, Any], participants: list[dict[str, Any]]) -> dict[str, Any]:
    """MeChatRoom (human view, with the agents in it)."""
    agents = [
        {"id": p["id"], "name": p["name"], "handle": p["handle"], "type": "Agent"}
        for p in participants
        if p["type"] == "Agent"
    ]
    return {**chat_room(room), "agents": agents, "work_status": "idle"}


def participant(p: dict[str, Any], online: bool = False) -> dict[str, Any]:
    """ChatParticipant (also the participant_added / participant_removed payload)."""
    return {
        "id": p["id"],
        "type": p["type"],
        "role": p["role"],
        "status": "active",
        "name": p["name"],
        "handle": p["handle"],
        "description": p.get("description"),
        "is_external": False,
        "is_remote": False,
        "online": online,
    }


def message(m: dict[str, Any]) -> dict[str, Any]:
    """ChatMessage (also the message_created payload)."""
    return {k: v for k, v in m.items() if not k.startswith("_")}


def attachment(row: Any) -> dict[str, Any]:
    """Attachment (a room file as listed on a message, spec 2.5)."""
    return {
        "id": row["id"],
        "name": row["name"],
        "content_type": row["content_type"],
        "bytes": row["bytes"],
        "sha256": row["sha256"],
        "has_thumb": False,
        "expires_at": None,
    }


def agent_me(a: dict[str, Any]) -> dict[str, Any]:
    """AgentMe."""
    return {
        "id": a["id"],
        "name": a["name"],
        "handle": a["handle"],
        "description": a["description"],
        "owner_uuid": a["owner_id"],
        "inserted_at": a["inserted_at"],
        "updated_at": a["updated_at"],
        "feature_flags": {"ff_file_transfer": True},  # room files + attachments work
        "listed_in_directory": False,
        "tags": [],
    }


def my_agent(a: dict[str, Any]) -> dict[str, Any]:
    """Agent as seen by its owner."""
    return {
        "id": a["id"],
        "name": a["name"],
        "handle": a["handle"],
        "description": a["description"],
        "owner_id": a["owner_id"],
        "inserted_at": a["inserted_at"],
        "updated_at": a["updated_at"],
        "avatar_url": None,
        "is_external": False,
    }


def peer(p: dict[str, Any], online: bool) -> dict[str, Any]:
    """Peer."""
    return {
        "id": p["id"],
        "name": p["name"],
        "handle": p["handle"],
        "type": p["type"],
        "description": p.get("description"),
        "is_contact": bool(p.get("is_contact", False)),
        "online": online,
        "source": "registry",
    }


def user_details(u: dict[str, Any]) -> dict[str, Any]:
    """UserDetails."""
    return {
        "id": u["id"],
        "email": u["email"],
        "handle": u["handle"],
        "role": "user",
        "first_name": u["name"].split(" ")[0],
        "last_name": " ".join(u["name"].split(" ")[1:]) or None,
        "listed_in_directory": False,
    }
