"""Human message list filters: message_type(s), exclude_message_types and since."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone
from typing import Any

import pytest

from .conftest import Live, expect_error, room_with

A = "/api/v1/agent"


def _seed(live: Live) -> tuple[str, str]:
    """A room with a text, a thought, a tool_call and an error, in that order."""
    aid, _, key = live.register("Filtered")
    rid = room_with(live, aid)
    msg = {"message": {"content": "hello", "mentions": [{"id": aid}]}}
    assert live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=msg).status_code == 201
    for mtype in ("thought", "tool_call", "error"):
        ev = {"event": {"content": mtype, "message_type": mtype}}
        assert live.agent(key, "POST", f"{A}/chats/{rid}/events", json=ev).status_code == 201
    return rid, key


def _list(live: Live, rid: str, **params: Any) -> tuple[list[str], dict[str, Any]]:
    r = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params=params)
    assert r.status_code == 200, r.text
    body = r.json()
    return [m["message_type"] for m in body["data"]], body["metadata"]


def test_type_filters(live: Live) -> None:
    rid, _ = _seed(live)
    assert _list(live, rid)[0] == ["error", "tool_call", "thought", "text"]  # newest first
    types, meta = _list(live, rid, message_type="thought")
    assert types == ["thought"] and meta["total_count"] == 1
    types, meta = _list(live, rid, message_types="text,error")
    assert types == ["error", "text"] and meta["total_count"] == 2
    types, meta = _list(live, rid, exclude_message_types="tool_call,thought")
    assert types == ["error", "text"] and meta["total_count"] == 2
    assert _list(live, rid, message_types="task")[0] == []


def test_type_filters_page_through_filtered_rows_only(live: Live) -> None:
    rid, _ = _seed(live)
    first, meta = _list(live, rid, exclude_message_types="text", limit=2)
    assert first == ["error", "tool_call"] and meta["has_more"] is True
    rest, meta = _list(live, rid, exclude_message_types="text", limit=2, cursor=meta["next_cursor"])
    assert rest == ["thought"] and meta["has_more"] is False


@pytest.mark.parametrize(
    "params",
    [
        {"message_type": "text", "message_types": "error"},
        {"message_types": "text", "exclude_message_types": "error"},
        {"message_types": "text, error"},
        {"message_types": "text,,error"},
        {"message_types": "bogus"},
        {"message_type": "text,error"},
        {"since": "yesterday"},
        {"since": "2026-01-01T00:00:00Z", "cursor": "1"},
    ],
)
def test_bad_filters_are_422(live: Live, params: dict[str, str]) -> None:
    rid = room_with(live)
    r = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params=params)
    err = expect_error(r, 422, "validation_error")
    assert set(err["details"]) <= {*params}


def test_since_returns_messages_after_the_time(live: Live) -> None:
    rid, key = _seed(live)
    r = live.human("GET", f"/api/v1/me/chats/{rid}/messages", params={"limit": 100})
    stamps = [m["inserted_at"] for m in reversed(r.json()["data"])]  # oldest first
    # strictly after the second message's time: the last two remain, newest first
    types, meta = _list(live, rid, since=stamps[1])
    assert types == ["error", "tool_call"] and meta["total_count"] == 2
    # an offset time is the same instant in UTC
    at = datetime.fromisoformat(stamps[1]).astimezone(timezone(timedelta(hours=2)))
    assert _list(live, rid, since=at.isoformat())[0] == ["error", "tool_call"]
    # naive means UTC; combined with a type filter
    naive = datetime.fromisoformat(stamps[0].replace("Z", "")).isoformat()
    assert _list(live, rid, since=naive, message_types="error,thought")[0] == ["error", "thought"]
    future = (datetime.now(UTC) + timedelta(minutes=1)).isoformat()
    assert _list(live, rid, since=future)[0] == []
    later = datetime.now(UTC).isoformat()
    ev = {"event": {"content": "late", "message_type": "thought"}}
    assert live.agent(key, "POST", f"{A}/chats/{rid}/events", json=ev).status_code == 201
    assert _list(live, rid, since=later)[0] == ["thought"]
