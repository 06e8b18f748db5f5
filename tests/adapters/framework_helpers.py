"""What the agent-framework adapter tests share: a local platform, an agent started on it,
and the waits and reads every scenario uses (the model is band.testing's ScriptedModel)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import yaml

from band.runtime.sessionconfig import SessionConfig
from band.testing import AgentHandle, LocalBand, Room, RunningAgent


def start(band: LocalBand, adapter: Any, name: str = "Framework") -> tuple[RunningAgent, Room]:
    """Run ``adapter`` as an agent in a new room; one attempt per message (no retry)."""
    bot = band.run_agent(adapter, name=name, session_config=SessionConfig(max_message_retries=0))
    return bot, band.room(bot)


def settled(
    room: Room, mid: str, bot: RunningAgent, status: str, timeout: float | None = None
) -> None:
    """Wait until the agent's delivery of ``mid`` is ``status``."""
    room.wait_for(lambda _: room.delivery_status(mid, bot) == status, timeout=timeout)


def interrupt(room: Room, bot: RunningAgent) -> None:
    """Interrupt the agent's turn in the room, as the person's room controls do."""
    r = room.person.request(
        "POST", f"/me/chats/{room.id}/control", json={"mode": "interrupt", "agent_id": bot.id}
    )
    assert r.status_code in (200, 202, 204), r.text


def events(room: Room, bot: RunningAgent, kind: str) -> list[dict[str, Any]]:
    """The JSON bodies of the agent's ``kind`` events (``tool_call``, ``tool_result``)."""
    return [json.loads(m.content) for m in room.messages_from(bot, kind)]


def import_without(module: str, names: str) -> list[str]:
    """What ``from band.adapters import <names>`` says with ``module`` not importable (in a
    fresh interpreter on the installed package), one line per failed import."""
    code = (
        f"import sys; sys.modules[{module!r}] = None\n"
        f"for name in {names.split()!r}:\n"
        "    try:\n"
        "        exec(f'from band.adapters import {name}')\n"
        "    except ImportError as exc:\n"
        "        print(exc)\n"
    )
    done = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=120, check=False
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout.splitlines()


def run_script(
    band: LocalBand, env: dict[str, str], script: Path, cwd: Path, name: str
) -> tuple[subprocess.Popen[str], AgentHandle]:
    """Start ``script`` (an example or a drop-in script) as a registered agent: its key in
    ``cwd/agent_config.yaml`` under ``my_agent`` and in ``AID``/``AKEY``, the platform's URLs
    and ``env`` (the scripted model's variables) in its environment."""
    handle = band.register_agent(name)
    config = {"my_agent": {"agent_id": handle.id, "api_key": handle.api_key}}
    (cwd / "agent_config.yaml").write_text(yaml.safe_dump(config))
    keep = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "OPENAI_"))}
    keep.update(env, AID=handle.id, AKEY=handle.api_key)
    keep.update(BAND_REST_URL=band.rest_url, BAND_WS_URL=band.ws_url)
    keep.pop("PYTHONPATH", None)
    proc = subprocess.Popen(
        [sys.executable, "-I", str(script)],
        cwd=cwd,
        env=keep,
        stdout=subprocess.DEVNULL,
        stderr=open(cwd / "stderr.log", "w"),  # closed with the process
        text=True,
    )
    return proc, handle


def stop_script(proc: subprocess.Popen[str]) -> None:
    """Terminate a started script and wait for it."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(30)
