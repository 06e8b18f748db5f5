"""Delegated tokens over real HTTP: envelopes on messages, consents, every error answer."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from band.devserver.store.delegation import Limits
from band.testing import AgentHandle, LocalBand, Person

AUDIENCE = "6f1c1f64-9a54-4bd1-8c8e-2f0b1b7c0d11"
OTHER = "0d7f3c9e-5b1a-4c2d-9e8f-7a6b5c4d3e2f"
TOKEN = "/api/v1/agent/delegation/token"
CONSENTS = "/me/delegation/consents"


@pytest.fixture
def band() -> Iterator[LocalBand]:
    with LocalBand() as running:
        yield running


def _setting(band: LocalBand) -> tuple[Person, AgentHandle, str, str]:
    """A person (a contact of the local one) who mentions the local person's agent."""
    asker = band.person("Asker")
    band.connect(band.me, asker)
    agent = band.register_agent("Delegate")
    room = band.room(agent, asker)
    body = {"message": {"content": "read my mail", "mentions": [{"id": agent.id}]}}
    r = asker.request("POST", f"/me/chats/{room.id}/messages", json=body)
    assert r.status_code == 201, r.text
    return asker, agent, room.id, str(r.json()["data"]["id"])


def _exchange(band: LocalBand, agent: AgentHandle, mid: str, audience: str = AUDIENCE) -> Any:
    body = {"audience": audience, "message_id": mid}
    return band.http.post(TOKEN, json=body, headers={"X-API-Key": agent.api_key})


def _code(r: Any, status: int) -> str:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["message"] and err["request_id"]
    return str(err["code"])


def _consent(asker: Person, agent: AgentHandle, *audiences: str) -> dict[str, Any]:
    body = {"consent": {"agent_id": agent.id, "audiences": list(audiences)}}
    r = asker.request("POST", CONSENTS, json=body)
    assert r.status_code == 201, r.text
    return dict(r.json()["data"])


def test_envelope_consent_and_token(band: LocalBand) -> None:
    asker, agent, rid, mid = _setting(band)
    rows = band.me.request("GET", f"/me/chats/{rid}/messages").json()["data"]
    [msg] = [m for m in rows if m["id"] == mid]
    env = msg["metadata"]["delegation"]
    assert env["version"] == 1 and env["message_id"] == mid and env["hop"] is None
    assert env["originator"] == {"uuid": asker.id, "handle": asker.handle, "display_name": "Asker"}
    assert env["minted_at"] == msg["inserted_at"]

    assert _code(_exchange(band, agent, mid), 403) == "consent_required"
    made = _consent(asker, agent, OTHER)
    assert made["agent_id"] == agent.id and made["audiences"] == [OTHER]
    assert _code(_exchange(band, agent, mid), 403) == "audience_not_allowed"
    changed = _consent(asker, agent, AUDIENCE)  # one consent per agent: replaced
    assert changed["id"] == made["id"] and changed["audiences"] == [AUDIENCE]
    r = _exchange(band, agent, mid)
    assert r.status_code == 200, r.text
    token = r.json()
    assert token["token_type"] == "bearer" and token["access_token"].startswith("band_dlg_")
    assert token["expires_at"] is None
    assert token["obo"] == {
        "agent_uuid": agent.id,
        "audience": AUDIENCE,
        "originator_uuid": asker.id,
        "originator_handle": asker.handle,
    }

    listed = asker.request("GET", CONSENTS).json()["data"]
    assert [c["id"] for c in listed] == [made["id"]]
    assert band.me.request("GET", CONSENTS).json()["data"] == []  # only one's own
    assert band.me.request("DELETE", f"{CONSENTS}/{made['id']}").status_code == 404
    assert asker.request("DELETE", f"{CONSENTS}/{made['id']}").status_code == 200
    assert _code(_exchange(band, agent, mid), 403) == "consent_required"


def test_every_refusal(band: LocalBand) -> None:
    asker, agent, rid, mid = _setting(band)
    _consent(asker, agent, AUDIENCE)
    assert band.app is not None
    limits = Limits()  # the app reads its limits from app.state on every exchange
    band.app.state.delegation = limits

    # a message not delivered to the agent, or none at all: 404, nothing disclosed
    other = band.register_agent("Bystander")
    assert _code(_exchange(band, other, mid), 404) == "not_found"
    assert _code(_exchange(band, agent, "no-such-message"), 404) == "not_found"
    # the owner's own message crosses no ownership boundary
    body = {"message": {"content": "mine", "mentions": [{"id": agent.id}]}}
    own = band.me.request("POST", f"/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    assert _code(_exchange(band, agent, own), 403) == "no_delegation"
    # malformed bodies
    assert _code(_exchange(band, agent, mid, audience="not-a-uuid"), 422) == "validation_error"
    # the per-message cap
    limits.per_message = 2
    for _ in range(2):
        assert _exchange(band, agent, mid).status_code == 200
    assert _code(_exchange(band, agent, mid), 403) == "exchange_cap_exhausted"
    # the window, measured from minted_at (checked before the cap)
    limits.window_seconds = 0.0
    assert _code(_exchange(band, agent, mid), 403) == "window_expired"
    limits.window_seconds, limits.per_message = 900.0, 100
    # the originator left the room
    body = {"message": {"content": "again", "mentions": [{"id": agent.id}]}}
    again = asker.request("POST", f"/me/chats/{rid}/messages", json=body).json()["data"]["id"]
    assert band.me.request("DELETE", f"/me/chats/{rid}/participants/{asker.id}").status_code == 200
    assert _code(_exchange(band, agent, again), 403) == "originator_not_participant"
    # the rate limit comes first: even an unknown message id is a 429 once over it
    limits.per_minute = 1
    fresh = band.register_agent("Hasty")
    assert _code(_exchange(band, fresh, "no-such-message"), 404) == "not_found"
    assert _code(_exchange(band, fresh, "no-such-message"), 429) == "rate_limited"


def test_a_reference_is_not_delivered_and_mints_nothing(band: LocalBand) -> None:
    asker = band.person("Referrer")
    band.connect(band.me, asker)
    agent = band.register_agent("Named")
    room = band.room(agent, asker)
    body = {"message": {"content": "about it", "mentions": [{"id": agent.id, "kind": "reference"}]}}
    r = asker.request("POST", f"/me/chats/{room.id}/messages", json=body)
    assert r.status_code == 201 and r.json()["data"]["recipients"] == []
    [row] = [m for m in room.messages() if m.id == r.json()["data"]["id"]]
    assert row.metadata["mentions"][0]["kind"] == "reference"
    assert "delegation" not in row.metadata and row.metadata["delivery_status"] == {}
    listed = band.http.get(
        f"/api/v1/agent/chats/{room.id}/messages",
        params={"status": "all"},
        headers={"X-API-Key": agent.api_key},
    )
    assert listed.json()["data"] == []
