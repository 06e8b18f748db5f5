"""Delegated tokens: ``POST /agent/delegation/token`` and the consents a person manages.

``POST /api/v1/agent/delegation/token`` with ``{"audience", "message_id"}`` answers a
``DelegationTokenResponse`` (not enveloped, as on Band) or an error: 429 ``rate_limited``
(checked first), 404 ``not_found``, 403 ``window_expired`` / ``not_mentioned`` /
``no_delegation`` / ``originator_not_participant`` / ``exchange_cap_exhausted`` /
``consent_required`` / ``audience_not_allowed``, 422 for a malformed body.

The consents are band dev's stand-in for Band's connector settings: ``GET``/``POST
/api/v1/me/delegation/consents`` (``{"consent": {"agent_id", "audiences": [...]}}``) and
``DELETE /api/v1/me/delegation/consents/{consent_id}``, also in the web view.
"""

from __future__ import annotations

import time
from collections import deque

import msgspec
from starlette.responses import Response

from band.core.wire import JsonObject

from ..contract.bodies import ConsentBody, DelegationTokenBody
from ..store import delegation as sd
from ..store.db import StoreError
from ..store.delegation import Consent
from .http import Ctx, data
from .operations import Operation, declare


class RateLimiter:
    """Exchange requests per agent in the last minute (in memory, per app)."""

    def __init__(self) -> None:
        self.calls: dict[str, deque[float]] = {}

    def admit(self, agent_id: str, per_minute: int) -> bool:
        """Count one request of ``agent_id``; False when it is over ``per_minute``."""
        now = time.monotonic()
        seen = self.calls.setdefault(agent_id, deque())
        while seen and now - seen[0] > 60.0:
            seen.popleft()
        if len(seen) >= per_minute:
            return False
        seen.append(now)
        return True


def limits(ctx: Ctx) -> sd.Limits:
    """The app's exchange limits (created on first use)."""
    state = ctx.request.app.state
    if not isinstance(getattr(state, "delegation", None), sd.Limits):
        state.delegation = sd.Limits()
    return state.delegation  # type: ignore[no-any-return]


def _limiter(ctx: Ctx) -> RateLimiter:
    state = ctx.request.app.state
    if not isinstance(getattr(state, "delegation_rate", None), RateLimiter):
        state.delegation_rate = RateLimiter()
    return state.delegation_rate  # type: ignore[no-any-return]


async def exchange_token(ctx: Ctx) -> Response:
    """POST /agent/delegation/token."""
    bounds = limits(ctx)
    if not _limiter(ctx).admit(ctx.principal.id, bounds.per_minute):
        raise StoreError(
            429,
            "rate_limited",
            f"at most {bounds.per_minute} delegated token "
            "exchanges per agent per minute; retry later",
        )
    body = ctx.body(DelegationTokenBody)
    token = await ctx.db.run(sd.exchange, ctx.principal.id, body.message_id, body.audience, bounds)
    return Response(msgspec.json.encode(token), media_type="application/json")


async def list_consents(ctx: Ctx) -> Response:
    """GET /me/delegation/consents."""
    return data(await ctx.db.run(sd.consents, ctx.principal.id))


async def give_consent(ctx: Ctx) -> Response:
    """POST /me/delegation/consents (one consent per agent: a second replaces its audiences)."""
    wanted = ctx.body(ConsentBody).consent
    made = await ctx.db.run(sd.give_consent, ctx.principal.id, wanted.agent_id, wanted.audiences)
    return data(made, 201)


async def revoke_consent(ctx: Ctx) -> Response:
    """DELETE /me/delegation/consents/{consent_id}."""
    gone = await ctx.db.run(sd.revoke_consent, ctx.principal.id, ctx.params["consent_id"])
    return data(gone)


CONSENTS = "/api/v1/me/delegation/consents"
routes = declare(
    Operation(
        "POST",
        "/api/v1/agent/delegation/token",
        exchange_token,
        rule="self",
        answer=(200, JsonObject),
        body=DelegationTokenBody,
        form="bare",
    ),
    Operation("GET", CONSENTS, list_consents, rule="self", answer=(200, list[Consent])),
    Operation("POST", CONSENTS, give_consent, rule="self", answer=(201, Consent), body=ConsentBody),
    Operation(
        "DELETE", CONSENTS + "/{consent_id}", revoke_consent, rule="self", answer=(200, Consent)
    ),
)
