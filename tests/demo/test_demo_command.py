"""``band demo`` as a user runs it: a subprocess of this interpreter, isolated (-I)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

# generous: a loaded 2-core CI machine starts an ACP process and an MCP session per turn
RUN_TIMEOUT = 120


def band(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    """Run ``python -I -m band.cli <args>`` in ``cwd`` (so nothing leaks into the checkout)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("BAND_")}
    return subprocess.run(
        [sys.executable, "-I", "-m", "band.cli", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def test_demo_prints_the_room_until_the_reply_and_exits_0(tmp_path: Path) -> None:
    proc = band("demo", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    for n in range(1, 7):
        assert f"step {n}/6:" in out
    assert "web room view: http://127.0.0.1:" in out and "/#/rooms/" in out
    # the room as it unfolded: the person's mention, the agent's thought, tool call and reply
    assert "room | Local Person: @Demo Agent Hello! What can you do?" in out
    assert "room | Demo Agent (thought):" in out
    assert 'room | Demo Agent (tool call): band_send_message {"content":' in out
    reply = "Demo Agent: @Local Person Hello Local Person! You said: Hello! What can you do?"
    assert f"room | {reply}" in out
    assert "Demo Agent replied" in out
    # nothing was left behind in the working directory
    assert list(tmp_path.iterdir()) == []


def test_demo_acp_runs_the_bundled_acp_agent(tmp_path: Path) -> None:
    proc = band("demo", "--acp", "--message", "ping over ACP", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "ACPClientAdapter" in out
    assert "room | Demo ACP Agent (thought):" in out
    assert "band_send_message" in out
    assert "(from an ACP agent) You said: ping over ACP" in out
    assert "step 6/6: Demo ACP Agent replied" in out


def test_demo_keeps_its_data_in_db_when_asked(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite3"
    proc = band("demo", "--db", str(db), "--message", "remember me", cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    with sqlite3.connect(db) as conn:
        said = [row[0] for row in conn.execute("SELECT content FROM messages")]
    assert any(text.endswith("remember me") for text in said)
    assert any("You said: remember me" in text for text in said)


def test_demo_timeout_exits_1_with_the_reason(tmp_path: Path) -> None:
    proc = band("demo", "--timeout", "0.001", cwd=tmp_path)
    assert proc.returncode == 1
    assert "error: no reply within 0.001 s (--timeout); stopped while" in proc.stderr
    assert "step 6/6" not in proc.stdout


def test_demo_agent_that_never_replies_exits_1_with_the_runtime_report(tmp_path: Path) -> None:
    proc = band("demo", "--silent-agent", cwd=tmp_path)
    assert proc.returncode == 1
    assert "error: the agent reported an error:" in proc.stderr
    assert "step 5/6" in proc.stdout and "step 6/6" not in proc.stdout


def test_demo_db_that_is_not_a_database_exits_1_with_the_reason(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("not a database")
    proc = band("demo", "--db", "notes.txt", cwd=tmp_path)
    assert proc.returncode == 1
    assert (
        "error: starting the local platform failed: notes.txt is not a SQLite database; "
        "band dev left it as it is\n"
    ) in proc.stderr
    assert "Traceback" not in proc.stderr


@pytest.mark.parametrize("value", ["0", "-1", "soon"])
def test_demo_refuses_a_timeout_that_is_not_a_positive_number(tmp_path: Path, value: str) -> None:
    proc = band("demo", "--timeout", value, cwd=tmp_path)
    assert proc.returncode == 2
    assert "--timeout" in proc.stderr


def test_demo_help_lists_the_user_flags_only(tmp_path: Path) -> None:
    proc = band("demo", "--help", cwd=tmp_path)
    assert proc.returncode == 0
    for flag in ("--acp", "--keep", "--db", "--timeout", "--message"):
        assert flag in proc.stdout
    assert "silent" not in proc.stdout


def test_demo_keep_serves_the_room_until_ctrl_c(tmp_path: Path) -> None:
    """After the reply the platform stays up: a second mention is answered and printed."""
    import signal
    import time

    import httpx

    env = {k: v for k, v in os.environ.items() if not k.startswith("BAND_")}
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "band.cli", "demo", "--keep", "--timeout", str(RUN_TIMEOUT)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        lines: list[str] = []
        deadline = time.monotonic() + RUN_TIMEOUT
        while not any("Ctrl-C stops" in line for line in lines):
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            lines.append(proc.stdout.readline())
        out = "".join(lines)
        rest = next(line for line in lines if "BAND_REST_URL=" in line).split("=", 1)[1].strip()
        room = out.split("/#/rooms/", 1)[1].split()[0]
        agent = out.split("(@local/demo-agent, id ", 1)[1].split(")")[0]
        # the local person's key, the way the web room view gets it
        # generous HTTP timeouts: under load (CI on 2 cores) httpx's 5 s default can expire
        key = httpx.get(f"{rest}/dev/session", timeout=RUN_TIMEOUT).json()["data"]["api_key"]
        body = {"message": {"content": "and again", "mentions": [{"id": agent}]}}
        r = httpx.post(
            f"{rest}/api/v1/me/chats/{room}/messages",
            json=body,
            headers={"X-API-Key": key},
            timeout=RUN_TIMEOUT,
        )
        assert r.status_code == 201
        while "You said: and again" not in lines[-1]:
            assert time.monotonic() < deadline and proc.poll() is None, "".join(lines)
            lines.append(proc.stdout.readline())
        proc.send_signal(signal.SIGINT)
        tail, _ = proc.communicate(timeout=RUN_TIMEOUT)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0
    assert "stopped." in tail
