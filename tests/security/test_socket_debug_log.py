"""The Phoenix client's socket handshake, logged at DEBUG, never shows the agent's key."""

from __future__ import annotations

import asyncio
import logging

import pytest
from bandtest.platform import Live

from band.client.phoenix import PhoenixClient


def test_handshake_debug_log_redacts_the_key(live: Live, caplog: pytest.LogCaptureFixture) -> None:
    aid, _, key = live.register("Quiet")
    caplog.set_level(logging.DEBUG)

    async def connect() -> None:
        client = PhoenixClient(live.ws, api_key=key, params={"agent_id": aid})
        await client.connect()
        await client.close()

    asyncio.run(connect())
    handshake = [r.getMessage() for r in caplog.records if r.getMessage().startswith("> ")]
    assert any(m.lower().startswith("> x-api-key: ") for m in handshake), handshake
    assert key not in caplog.text and key[8:24] not in caplog.text
