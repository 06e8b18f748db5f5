"""CLI tests: ``band dev`` startup output and ``band dev agent create``."""

from __future__ import annotations

import json
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from bandtest.platform import live_platform

from band.cli import build_parser, main

from .conftest import Live


def test_parser_defaults() -> None:
    args = build_parser().parse_args(["dev"])
    assert (args.host, args.port, args.db, args.user_key) == (
        "127.0.0.1",
        8080,
        ".band/dev.sqlite3",
        None,
    )
    with pytest.raises(SystemExit):
        build_parser().parse_args([])


def test_agent_create(live: Live, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["dev", "agent", "create", "Echo", "--description", "echoes",
               "--url", live.rest, "--user-key", live.user_key])  # fmt: skip
    assert rc == 0
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert set(out) == {"id", "handle", "api_key"} and out["api_key"].startswith("band_a_")
    me = live.agent(out["api_key"], "GET", "/api/v1/agent/me").json()["data"]
    assert me["id"] == out["id"] and me["description"] == "echoes"


def test_agent_create_bad_key(live: Live, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["dev", "agent", "create", "Echo", "--description", "d",
               "--url", live.rest, "--user-key", "band_u_wrong", "--db", ":memory:"])  # fmt: skip
    assert rc == 1
    assert "401" in capsys.readouterr().err


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_band_dev_runs_and_keeps_key(tmp_path: Path) -> None:
    db = tmp_path / "dev.sqlite3"
    keys = []
    for _ in range(2):
        port = _free_port()
        # -I: import the installed package (with its compiled core), not the checkout
        proc = subprocess.Popen(
            [sys.executable, "-I", "-m", "band.cli", "dev", "--port", str(port), "--db", str(db)],
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            text=True,
        )
        try:
            assert proc.stdout is not None
            lines = [proc.stdout.readline().strip() for _ in range(3)]
            env = dict(line.split("=", 1) for line in lines)
            assert env["BAND_REST_URL"] == f"http://127.0.0.1:{port}"
            assert env["BAND_WS_URL"] == f"ws://127.0.0.1:{port}/api/v1/socket/websocket"
            key = env["BAND_USER_KEY"]
            keys.append(key)
            deadline = time.monotonic() + 10
            while True:
                try:
                    r = httpx.get(env["BAND_REST_URL"] + "/api/v1/me/profile",
                                  headers={"X-API-Key": key})  # fmt: skip
                    break
                except httpx.ConnectError:
                    assert time.monotonic() < deadline
                    time.sleep(0.05)
            assert r.status_code == 200
        finally:
            proc.terminate()
            proc.wait(10)
    assert keys[0] == keys[1]
    rc = main(["dev", "agent", "create", "X", "--description", "d", "--db", str(db),
               "--url", "http://127.0.0.1:1"])  # fmt: skip
    assert rc == 1  # key read from the DB, server unreachable


def test_user_create_prints_a_working_key(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """``band dev user create`` adds a person a running platform on the same file serves."""
    db = str(tmp_path / "dev.sqlite3")
    for live in live_platform(db):
        assert main(["dev", "user", "create", "Bob Builder", "--db", db]) == 0
        bob = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert set(bob) == {"id", "handle", "api_key"} and bob["api_key"].startswith("band_u_")
        assert bob["handle"] == "bob-builder"
        me = live.agent(bob["api_key"], "GET", "/api/v1/me/profile").json()["data"]
        assert (me["id"], me["handle"]) == (bob["id"], "bob-builder")
        assert live.agent(bob["api_key"], "GET", "/api/v1/me/chats").json()["data"] == []
        # a second one with the same name gets its own handle and key
        assert main(["dev", "user", "create", "Bob Builder", "--db", db, "--handle", "bob"]) == 0
        again = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        assert again["handle"] == "bob" and again["api_key"] != bob["api_key"]
        r = live.agent(again["api_key"], "GET", "/api/v1/me/profile")
        assert r.json()["data"]["id"] == again["id"] != bob["id"]


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["  "], "NAME can't be blank"),
        (["Bob", "--db", ":memory:"], "--db must be the platform's SQLite file"),
    ],
)
def test_user_create_refuses(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["dev", "user", "create", *argv]) == 2
    assert message in capsys.readouterr().err
