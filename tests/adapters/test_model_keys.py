"""A model agent's key and its provider's errors, against ``band.testing.ScriptedModel``.

A missing or refused key ends the agent before it connects, in two lines naming the variable
and where to get a key; an error of the provider during a turn is one card in the room that
says it (status and the provider's message) and one log line, and the message is not run
again (in this run or after a restart).
"""

from __future__ import annotations

import logging
import os
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from band.adapters.anthropic import AnthropicAdapter, AnthropicAdapterConfig
from band.adapters.openai import OpenAIAdapter, OpenAIAdapterConfig
from band.testing import LocalBand, ScriptedModel, local_band
from band.testing.scripted_model import ErrorTurn, TextTurn

AGENT = """\
import asyncio, sys
from band import Agent
from band.adapters.{module} import {cls}
agent = Agent.create(adapter={cls}(), agent_id="a1", api_key="band_a_k")
asyncio.run(agent.run())
"""
PROVIDERS = {
    "anthropic": ("AnthropicAdapter", "ANTHROPIC_API_KEY", "console.anthropic.com"),
    "openai": ("OpenAIAdapter", "OPENAI_API_KEY", "platform.openai.com/api-keys"),
}


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_agent(tmp_path: Path, provider: str, env: dict[str, str]) -> list[str]:
    """Run a model agent whose platform is not there; its stderr's lines."""
    cls = PROVIDERS[provider][0]
    (tmp_path / "agent.py").write_text(AGENT.format(module=provider, cls=cls))
    port = _closed_port()  # a key error must come first: the agent never gets to connect
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "ANTHROPIC_", "OPENAI_"))
    }
    proc = subprocess.run(
        [sys.executable, "-I", "agent.py"],
        cwd=tmp_path,
        env={
            **clean,
            "BAND_REST_URL": f"http://127.0.0.1:{port}",
            "BAND_WS_URL": f"ws://127.0.0.1:{port}/api/v1/socket/websocket",
            **env,
        },
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode != 0 and "Traceback" not in proc.stderr, proc.stderr
    return proc.stderr.strip().splitlines()


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_missing_key_is_a_start_up_error(tmp_path: Path, provider: str) -> None:
    _, variable, where = PROVIDERS[provider]
    first, second = run_agent(tmp_path, provider, {})
    assert first.startswith("error: no ") and f"reads {variable}" in first
    assert where in second and f"export {variable}=" in second


@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_refused_key_is_a_start_up_error(
    tmp_path: Path, provider: str, scripted_model: ScriptedModel
) -> None:
    _, variable, where = PROVIDERS[provider]
    env = {k: v for k, v in scripted_model.env().items() if not k.endswith(("_KEY",))}
    env[variable] = "not-the-key"
    first, second = run_agent(tmp_path, provider, env)
    assert first.startswith(f"error: the {'Anthropic' if provider == 'anthropic' else 'OpenAI'}")
    assert f"refused the key in {variable} (HTTP 401: Invalid API key" in first
    assert where in second and "not-the-key" not in first + second
    # the right key passes the check: the agent goes on to the platform (which is not there)
    env[variable] = scripted_model.api_key
    told = run_agent(tmp_path, provider, env)
    assert told[-2].startswith("error: cannot reach the Band platform"), told


def _adapter(provider: str, model: ScriptedModel) -> Any:
    if provider == "anthropic":
        from anthropic import AsyncAnthropic

        adapter = AnthropicAdapter(AnthropicAdapterConfig(provider_key=model.api_key))
        adapter.client = AsyncAnthropic(
            api_key=model.api_key, base_url=model.anthropic_base_url, max_retries=0
        )
        return adapter
    config = OpenAIAdapterConfig(provider_key=model.api_key, base_url=model.openai_base_url)
    adapter = OpenAIAdapter(config)
    adapter.client = adapter.client.with_options(max_retries=0)
    return adapter


@pytest.fixture
def band() -> Iterator[LocalBand]:
    with local_band() as b:
        yield b


@pytest.mark.parametrize(
    ("status", "said", "hint"),
    [
        (401, "invalid x-api-key", "the API key was refused: check "),
        (429, "rate limit reached", "rate limited: try again later"),
        (503, "overloaded", "the provider failed: try again later"),
    ],
)
@pytest.mark.parametrize("provider", sorted(PROVIDERS))
def test_a_model_error_is_one_card_that_says_it_and_is_not_run_again(
    provider: str,
    status: int,
    said: str,
    hint: str,
    scripted_model: ScriptedModel,
    band: LocalBand,
    caplog: pytest.LogCaptureFixture,
) -> None:
    api = "Anthropic" if provider == "anthropic" else "OpenAI"
    scripted_model.script(ErrorTurn(status=status, message=said))
    bot = band.run_agent(_adapter(provider, scripted_model), name="Model")
    room = band.room(bot)
    with caplog.at_level(logging.INFO, logger="band"):
        mid = room.say("hello", mention=bot)
        room.wait_for(lambda _: room.delivery_status(mid, bot) == "failed")
    [card] = room.messages_from(bot, "error")
    assert card.text == f"{api} API error {status}: {said} ({hint}" + (
        f"{PROVIDERS[provider][1]})" if status == 401 else ")"
    )
    assert card.metadata["failure"]["code"] == str(status)
    ours = [r for r in caplog.records if r.name.startswith("band.")]
    told = [r for r in ours if r.levelno >= logging.WARNING]
    assert [r.getMessage().split(": ", 1)[1] for r in told] == [f"turn {mid} failed: {card.text}"]
    assert all(r.exc_info is None for r in ours), "no traceback"
    # restarted, the agent does not run the failed message again: only the new one
    bot.stop()
    scripted_model.script(TextTurn("back again"))
    again = band.run_agent(_adapter(provider, scripted_model), handle=bot.handle)
    second = room.say("still there?", mention=again)
    room.wait_for(lambda _: room.delivery_status(second, again) == "processed")
    assert [m.text for m in room.messages_from(again)] == ["back again"]
    assert len(room.messages_from(bot, "error")) == 1
    assert [r.prompt for r in scripted_model.requests][-1].endswith("still there?")
    assert len(scripted_model.requests) == 2
