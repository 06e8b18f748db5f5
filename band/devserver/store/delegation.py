"""Delegation persistence: envelopes on messages, consents, and the token exchange's checks.

A person who mentions an agent they do not own asks it to act for them: the message carries a
server-minted delegation envelope naming that person (the originator). The agent may then
redeem a token that acts as the originator for one system (an ``audience``), if the originator
consented to that agent for that system. band dev issues its own local tokens: there is no
provider behind an audience, so no provider answer (``provider_not_connected``) can occur.

Every function takes the ``Store`` first so it can run through ``AsyncStore.run``.
"""

from __future__ import annotations

import json
import secrets
import uuid
from datetime import UTC, datetime

import msgspec

from band.core.wire import JsonObject

from .db import Store, StoreError, now
from .principal import Principal


class Limits(msgspec.Struct, kw_only=True):
    """The exchange's limits (``app.state.delegation``; tests may narrow them)."""

    #: seconds from the envelope's ``minted_at`` during which an exchange may happen
    window_seconds: float = 900.0
    #: tokens one agent may redeem for one message
    per_message: int = 5
    #: exchange requests one agent may make per minute (checked before anything else)
    per_minute: int = 30


class Consent(msgspec.Struct, kw_only=True):
    """A person's consent that one agent act for them on the systems in ``audiences``."""

    id: str
    agent_id: str
    agent_name: str | None
    agent_handle: str | None
    audiences: list[str]
    inserted_at: str
    updated_at: str


TERMINATED = {"kind": "terminated", "reason": "forwarding_not_supported", "version": 1}


def _refused(code: str, message: str, status: int = 403) -> StoreError:
    return StoreError(status, code, message)


def envelope_for(
    store: Store, sender: Principal, rid: str, addressed: list[str]
) -> JsonObject | None:
    """The delegation a new message of ``sender`` addressing ``addressed`` carries, if any.

    A person mentioning an agent they do not own: an envelope naming them. An agent that is
    itself working on a delegated message of the room mentioning another agent: the
    ``terminated`` marker (delegation is single-hop). Otherwise none.
    """
    # a person addressed is no agent: asked of the cached identities, not the agents table
    agents = [a for i in addressed if store.is_agent(i) and (a := store.agent(i)) is not None]
    if sender.kind == "user":
        if not any(a.owner_id != sender.id for a in agents):
            return None
        user = store.user(sender.id)
        assert user is not None  # the sender was authenticated from this row
        origin = {"uuid": user.id, "handle": user.handle, "display_name": user.name}
        return {"version": 1, "originator": origin, "hop": None}
    if not any(a.id != sender.id for a in agents):
        return None
    held = store.exists(
        "SELECT 1 FROM deliveries d JOIN messages m ON m.id=d.message_id WHERE d.agent_id=? "
        "AND d.status='processing' AND m.room_id=? "
        "AND json_extract(m.metadata, '$.delegation.originator') IS NOT NULL LIMIT 1",
        (sender.id, rid),
    )
    return dict(TERMINATED) if held else None


def _elapsed(minted_at: str) -> float:
    when = datetime.fromisoformat(minted_at.replace("Z", "+00:00"))
    return (datetime.now(UTC) - when).total_seconds()


def exchange(store: Store, agent_id: str, mid: str, audience: str, limits: Limits) -> JsonObject:
    """Redeem a token for ``agent_id`` acting as the originator of message ``mid`` on
    ``audience``, after the documented checks, each failing closed."""
    msg = store.message(mid)
    delivered = store.exists(
        "SELECT 1 FROM deliveries WHERE message_id=? AND agent_id=?", (mid, agent_id)
    )
    if msg is None or not delivered or store.role(msg.room_id, agent_id) is None:
        raise _refused("not_found", "message not found", 404)  # nothing about others' messages
    envelope = msg.metadata.get("delegation")
    origin = envelope.get("originator") if isinstance(envelope, dict) else None
    minted = envelope.get("minted_at") if isinstance(envelope, dict) else None
    if _elapsed(str(minted or msg.inserted_at)) > limits.window_seconds:
        raise _refused(
            "window_expired",
            "the message's processing window has closed: "
            "exchange while handling the message, measured from "
            "metadata.delegation.minted_at",
        )
    mentioned = store.exists(
        "SELECT 1 FROM mentions WHERE message_id=? AND participant_id=?", (mid, agent_id)
    )
    if not mentioned:
        raise _refused("not_mentioned", "the agent was not @mentioned on this message")
    agent = store.agent(agent_id)
    if not isinstance(origin, dict) or agent is None or origin.get("uuid") == agent.owner_id:
        raise _refused(
            "no_delegation",
            "this message carries no delegation: it crossed no "
            "ownership boundary (its sender owns the agent, or is an agent)",
        )
    originator = str(origin.get("uuid"))
    if store.role(msg.room_id, originator) is None:
        raise _refused(
            "originator_not_participant", "the originator is no longer a participant of the room"
        )
    (used,) = store.db.execute(
        "SELECT COUNT(*) FROM delegation_exchanges WHERE message_id=? AND agent_id=?",
        (mid, agent_id),
    ).fetchone()
    if used >= limits.per_message:
        raise _refused(
            "exchange_cap_exhausted",
            f"this message's {limits.per_message} token exchanges are used up",
        )
    row = store.db.execute(
        "SELECT audiences FROM delegation_consents WHERE user_id=? AND agent_id=?",
        (originator, agent_id),
    ).fetchone()
    if row is None:
        raise _refused(
            "consent_required",
            "the originator has not consented to this agent "
            "acting for them (band dev: POST /api/v1/me/delegation/consents)",
        )
    if audience not in json.loads(row[0]):
        raise _refused(
            "audience_not_allowed",
            "the audience is not on the originator's consent allowlist for this agent",
        )
    store.db.execute(
        "INSERT INTO delegation_exchanges VALUES (?,?,?,?)", (mid, agent_id, audience, now())
    )
    return {
        "access_token": "band_dlg_" + secrets.token_urlsafe(32),
        "token_type": "bearer",
        "expires_at": None,  # a local token: no provider expiry is known
        "obo": {
            "agent_uuid": agent_id,
            "audience": audience,
            "originator_uuid": originator,
            "originator_handle": origin.get("handle"),
        },
    }


def _consent(store: Store, row: tuple[str, str, str, str, str]) -> Consent:
    cid, aid, audiences, inserted, updated = row
    agent = store.agent(aid)
    return Consent(
        id=cid,
        agent_id=aid,
        agent_name=agent.name if agent else None,
        agent_handle=agent.handle if agent else None,
        audiences=json.loads(audiences),
        inserted_at=inserted,
        updated_at=updated,
    )


_COLUMNS = "id, agent_id, audiences, inserted_at, updated_at"


def consents(store: Store, user_id: str) -> list[Consent]:
    """The consents ``user_id`` gave, oldest first."""
    rows = store.db.execute(
        f"SELECT {_COLUMNS} FROM delegation_consents WHERE user_id=? ORDER BY inserted_at",
        (user_id,),
    )
    return [_consent(store, r) for r in rows]


def give_consent(store: Store, user_id: str, agent_id: str, audiences: list[str]) -> Consent:
    """Consent (or change the consent) that ``agent_id`` act for ``user_id`` on ``audiences``."""
    agent = store.agent(agent_id)
    if agent is None:
        raise StoreError(404, "not_found", "agent not found")
    ts, wanted = now(), json.dumps(list(dict.fromkeys(audiences)))
    store.db.execute(
        "INSERT INTO delegation_consents VALUES (?,?,?,?,?,?) ON CONFLICT(user_id, agent_id) "
        "DO UPDATE SET audiences=excluded.audiences, updated_at=excluded.updated_at",
        (str(uuid.uuid4()), user_id, agent_id, wanted, ts, ts),
    )
    row = store.db.execute(
        f"SELECT {_COLUMNS} FROM delegation_consents WHERE user_id=? AND agent_id=?",
        (user_id, agent_id),
    ).fetchone()
    return _consent(store, row)


def revoke_consent(store: Store, user_id: str, consent_id: str) -> Consent:
    """Withdraw one of ``user_id``'s consents."""
    row = store.db.execute(
        f"SELECT {_COLUMNS} FROM delegation_consents WHERE id=? AND user_id=?",
        (consent_id, user_id),
    ).fetchone()
    if row is None:
        raise StoreError(404, "not_found", "consent not found")
    store.db.execute("DELETE FROM delegation_consents WHERE id=?", (consent_id,))
    return _consent(store, row)
