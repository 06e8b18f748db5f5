"""An agent's turns as the platform saw them (functions over ``Store``; run via ``AsyncStore.run``).

``band dev`` holds both sides of the wire, so it can show a turn without the agent's help: the
message that mentioned the agent (sent), each delivery attempt (the processing mark that opened
it, the processed/failed mark that closed it, its error), and what the agent posted in the room
meanwhile (thoughts, tool calls and results, replies, error events), each with the time the
platform stored it. A tool call and the result with the same ``tool_call_id`` (or, without
one, the next result of the same tool) give the call's duration as the platform saw it.
"""

from __future__ import annotations

import json
import re
import sqlite3
from datetime import datetime
from typing import Any

from .db import Store, StoreError, load_json

__all__ = ["recent_turns", "turn_timeline"]

#: Turns listed on an agent's page.
RECENT = 20
#: Posts of the agent read after a message, at most (a turn posting more is cut there).
MAX_POSTS = 200
_MENTION = re.compile(r"@\[\[([^\]]+)\]\]")


def _readable(store: Store, room_id: str, text: str, limit: int = 200) -> str:
    """``text`` cut to ``limit`` with its ``@[[id]]`` mention tokens shown as ``@Name``."""
    if "@[[" in text:
        names = {p.id: p.name for p in store.participants(room_id)}
        text = _MENTION.sub(lambda m: "@" + names.get(m.group(1), m.group(1)), text)
    return text[:limit]


def _seconds(start: str, at: str | None) -> float | None:
    """Seconds from ISO ``start`` to ISO ``at``."""
    if not at:
        return None
    fmt = datetime.fromisoformat
    return round(
        (fmt(at.replace("Z", "+00:00")) - fmt(start.replace("Z", "+00:00"))).total_seconds(), 6
    )


def _attempts(store: Store, mid: str, aid: str) -> list[sqlite3.Row]:
    return list(
        store.db.execute(
            "SELECT * FROM attempts WHERE message_id=? AND agent_id=? ORDER BY number", (mid, aid)
        )
    )


def recent_turns(store: Store, agent_id: str, limit: int = RECENT) -> list[dict[str, Any]]:
    """The agent's last delivered messages, newest first, each with its status and timing."""
    rows = store.db.execute(
        "SELECT d.message_id, d.status, d.current_attempt, m.room_id, m.content, m.sender_name, "
        "m.inserted_at, r.title FROM deliveries d JOIN messages m ON m.id = d.message_id "
        "JOIN rooms r ON r.id = m.room_id WHERE d.agent_id=? ORDER BY m.seq DESC LIMIT ?",
        (agent_id, limit),
    )
    out = []
    for row in rows:
        attempts = _attempts(store, row["message_id"], agent_id)
        last = attempts[-1] if attempts else None
        out.append(
            {
                "message_id": row["message_id"],
                "room_id": row["room_id"],
                "room_title": row["title"],
                "sender_name": row["sender_name"],
                "content": _readable(store, row["room_id"], row["content"]),
                "sent_at": row["inserted_at"],
                "status": row["status"],
                "attempts": len(attempts),
                "error": last["error"] if last is not None else None,
                "seconds": _seconds(row["inserted_at"], last["ended_at"]) if last else None,
            }
        )
    return out


def _opened_by(open_calls: list[dict[str, Any]], result: dict[str, Any]) -> dict[str, Any] | None:
    """The open tool call a result answers: same ``tool_call_id``, else the same tool's first."""
    for call in open_calls:
        if call["id"] and call["id"] == result.get("tool_call_id"):
            return call
    return next((c for c in open_calls if not c["id"] and c["name"] == result.get("name")), None)


def turn_timeline(store: Store, agent_id: str, message_id: str) -> dict[str, Any]:
    """Every point of the agent's turn(s) on ``message_id``, in time order, from its sending."""
    msg = store.db.execute("SELECT * FROM messages WHERE id=?", (message_id,)).fetchone()
    delivery = store.db.execute(
        "SELECT * FROM deliveries WHERE message_id=? AND agent_id=?", (message_id, agent_id)
    ).fetchone()
    if msg is None or delivery is None:
        raise StoreError(404, "not_found", "no turn of this agent on that message")
    t0 = msg["inserted_at"]
    sender = msg["sender_name"] or msg["sender_id"]
    said = _readable(store, msg["room_id"], msg["content"])
    points: list[dict[str, Any]] = [{"at": t0, "kind": "sent", "detail": f"{sender}: {said}"}]
    attempts = _attempts(store, message_id, agent_id)
    for a in attempts:
        points.append(
            {"at": a["started_at"], "kind": "processing", "detail": f"attempt {a['number']}"}
        )
        if a["ended_at"]:
            detail = f"attempt {a['number']}" + (f": {a['error']}" if a["error"] else "")
            kind = "processed" if a["status"] == "success" else a["status"]
            points.append({"at": a["ended_at"], "kind": kind, "detail": detail})
    # the agent's posts from the message until its last attempt ended (or until now)
    ends = [a["ended_at"] for a in attempts]
    until = max(ends) if ends and all(ends) else None
    query = (
        "SELECT * FROM messages WHERE room_id=? AND sender_id=? AND seq > ?"
        + (" AND inserted_at <= ?" if until else "")
        + " ORDER BY seq LIMIT ?"
    )
    params: tuple[Any, ...] = (msg["room_id"], agent_id, msg["seq"])
    params += ((until,) if until else ()) + (MAX_POSTS,)
    open_calls: list[dict[str, Any]] = []
    tools: list[dict[str, Any]] = []
    for post in store.db.execute(query, params):
        meta = load_json(post["metadata"])
        kind = post["message_type"]
        detail = _readable(store, msg["room_id"], post["content"])
        if kind == "tool_call":
            call = {
                "name": meta.get("name"),
                "id": meta.get("tool_call_id"),
                "at": post["inserted_at"],
            }
            open_calls.append(call)
            size = len(json.dumps(meta.get("args", {}), ensure_ascii=False).encode())
            detail = f"{meta.get('name')} ({size} B of arguments)"
        elif kind == "tool_result":
            opened = _opened_by(open_calls, meta)
            ok = "failed" if meta.get("is_error") else "ok"
            if opened is not None:
                open_calls.remove(opened)
                took = _seconds(opened["at"], post["inserted_at"])
                tools.append({"name": opened["name"], "ok": ok == "ok", "seconds": took})
                detail = f"{meta.get('name')} -> {ok} after {took:.3f}s"
            else:
                detail = f"{meta.get('name')} -> {ok}"
        points.append({"at": post["inserted_at"], "kind": kind, "detail": detail})
    points.sort(key=lambda p: p["at"])
    for point in points:
        point["seconds"] = _seconds(t0, point["at"])
    return {
        "message_id": message_id,
        "room_id": msg["room_id"],
        "agent_id": agent_id,
        "status": delivery["status"],
        "attempts": len(attempts),
        "points": points,
        "tools": tools,
    }
