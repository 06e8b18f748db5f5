"""CLI tests: ``band dev`` startup output and ``band dev agent create``."""

from __future__ import annotations

import contextlib
import json
import os
import re
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from bandtest.platform import live_platform
from bandtest.process import read_until

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


def test_band_devs_options_before_a_subcommand_are_the_ones_it_acts_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """``band dev --port P --db F agent create`` registers on the band dev at P with the key
    stored in F. Before: argparse put the subcommand's own defaults over them, so F was
    ignored (no user key found) and the agent went to port 8080."""
    for name in ("BAND_REST_URL", "BAND_USER_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.chdir(tmp_path)  # no .band/dev.sqlite3 here to fall back on
    db = str(tmp_path / "elsewhere.sqlite3")
    for live in live_platform(db):
        port = live.rest.rsplit(":", 1)[1]
        argv = ["dev", "--port", port, "--db", db, "agent", "create", "Echo", "--json"]
        assert main(argv) == 0, capsys.readouterr().err
        created = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        me = live.agent(created["api_key"], "GET", "/api/v1/agent/me").json()["data"]
        assert me["id"] == created["id"]
        # band dev's --user-key too; a subcommand's own option still wins over band dev's
        argv = ["dev", "--port", port, "--user-key", "band_u_wrong", "agent", "create", "X"]
        assert main([*argv, "--user-key", live.user_key, "--json"]) == 0
        capsys.readouterr()
        assert main(argv) == 1 and "refused the user key (401)" in capsys.readouterr().err
        assert main(["dev", "--db", db, "user", "create", "Bob"]) == 0
        bob = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
        r = live.agent(bob["api_key"], "GET", "/api/v1/me/profile")
        assert r.json()["data"]["id"] == bob["id"]


def test_agent_create(live: Live, capsys: pytest.CaptureFixture[str]) -> None:
    rc = main(["dev", "agent", "create", "Echo", "--description", "echoes", "--json",
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


@contextlib.contextmanager
def _serving(db: Path) -> Iterator[None]:
    """``band dev`` on ``db`` as a process, from its first line (the lock is held by then)."""
    proc = subprocess.Popen(
        [sys.executable, "-I", "-m", "band.cli", "dev", "--port", str(_free_port()),
         "--db", str(db)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        first = proc.stdout.readline()
        assert first.startswith("BAND_USER_KEY="), (first, proc.poll())
        yield
    finally:
        proc.terminate()
        proc.wait(30)


def test_a_second_band_dev_on_the_same_database_is_refused(tmp_path: Path) -> None:
    """Before: it served too, and each kept its own view (one's new rooms unseen by the
    other, pushes only to its own sockets)."""
    db = tmp_path / "dev.sqlite3"
    with _serving(db):
        second = band_cli("dev", "--port", str(_free_port()), "--db", str(db))
        assert second.returncode == 1 and second.stdout == "", second.stderr
        assert second.stderr == (
            f"error: another band dev is serving {db} (lock {db}.lock).\n"
            "Use that one (it printed its URLs), stop it first, or give this one another --db.\n"
        )
        with _serving(tmp_path / "other.sqlite3"):  # another database is served beside it
            pass
    # the lock ends with its holder (uvicorn re-raises SIGTERM: the kernel drops the flock)
    with _serving(db):
        pass


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


def band_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """``band ARGS`` as a process (the installed package), its output captured."""
    return subprocess.run(
        [sys.executable, "-I", "-m", "band.cli", *args],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=cwd,
    )


def test_version_and_help_give_every_default() -> None:
    from band._version import __version__

    version = band_cli("--version")
    assert (
        version.returncode == 0 and version.stdout.strip() == f"band {__version__} (band-open-sdk)"
    )
    helps = {
        ("dev",): ["--host", "--port", "--db", "--user-key", "--access-log"],
        ("dev", "agent", "create"): ["--description", "--url", "--user-key", "--db", "--config"],
        ("send",): ["--mention", "--wait", "--url", "--user-key", "--db"],
        ("room", "create"): ["--agent", "--url"],
        ("tail",): ["--last", "--url"],
        ("rooms",): ["--url", "--user-key", "--db"],
    }
    for command, options in helps.items():
        out = band_cli(*command, "--help").stdout
        block = out.split("options:", 1)[1]
        # one entry per option (continuation lines are indented further)
        entries = [e for e in re.split(r"\n  (?=-)", block) if e.lstrip().startswith("--")]
        # 3.13's argparse names an option's aliases before its metavar: "--mention, -m AGENT"
        named = {e.split()[0].rstrip(",") for e in entries}
        assert set(options) <= named, (command, out)
        for entry in entries:
            assert "default" in entry, (command, entry)
    assert "Serve Band's REST API" in band_cli("dev", "--help").stdout


def test_a_taken_port_is_reported_before_anything_is_printed(tmp_path: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        proc = band_cli("dev", "--port", str(port), "--db", str(tmp_path / "d.sqlite3"))
    assert proc.returncode == 1 and proc.stdout == ""
    first, second = proc.stderr.strip().splitlines()
    assert first.startswith(f"error: cannot listen on 127.0.0.1:{port}: ")
    assert f"--port {port + 1}" in second and "Traceback" not in proc.stderr


def test_agent_create_says_what_it_wrote(live: Live, tmp_path: Path) -> None:
    config = tmp_path / "agent_config.yaml"
    proc = band_cli("dev", "agent", "create", "Echo", "--config", str(config), "--key", "my_agent",
                    "--url", live.rest, "--user-key", live.user_key)  # fmt: skip
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.strip().splitlines()
    assert lines[0].startswith('registered agent "Echo" (@') and "band_a_" not in proc.stdout
    assert lines[1] == f'wrote its agent_id and api_key to {config} under "my_agent"'
    ws = live.rest.replace("http://", "ws://") + "/api/v1/socket/websocket"
    assert lines[-1] == f"  export BAND_REST_URL={live.rest} BAND_WS_URL={ws}"  # both URLs
    entry = __import__("yaml").safe_load(config.read_text())["my_agent"]
    me = live.agent(entry["api_key"], "GET", "/api/v1/agent/me").json()["data"]
    assert me["id"] == entry["agent_id"] and me["description"] == "Echo, a local agent"
    # without --config: the entry to paste, key included
    proc = band_cli(
        "dev", "agent", "create", "Other", "--url", live.rest, "--user-key", live.user_key
    )
    assert "Other:\n  agent_id: " in proc.stdout and "  api_key: band_a_" in proc.stdout


def test_cli_errors_say_what_to_do(live: Live, tmp_path: Path) -> None:
    closed = f"http://127.0.0.1:{_free_port()}"
    proc = band_cli("dev", "agent", "create", "X", "--url", closed, "--user-key", "band_u_x")
    assert proc.returncode == 1 and "Traceback" not in proc.stderr
    assert f"error: cannot reach {closed}" in proc.stderr and "band dev` running?" in proc.stderr
    proc = band_cli("rooms", "--url", live.rest, "--user-key", "band_u_wrong")
    assert proc.returncode == 1 and "refused the user key (401)" in proc.stderr
    proc = band_cli(
        "rooms", "--url", live.rest, "--db", str(tmp_path / "none.sqlite3"), cwd=tmp_path
    )
    assert proc.returncode == 1 and proc.stderr.startswith("error: no user key: pass --user-key")


def test_room_create_send_rooms_and_tail(live: Live, tmp_path: Path) -> None:
    """The terminal loop: a room with an agent, a message that mentions it, its answer."""
    from band.demo.adapter import DemoAdapter

    aid, _, key = live.register("Helper")
    auth = ("--url", live.rest, "--user-key", live.user_key)
    made = band_cli("room", "create", "Planning", "--agent", "Helper", *auth)
    assert made.returncode == 0, made.stderr
    rid = made.stdout.split("(", 1)[1].split(")", 1)[0]
    assert made.stdout.splitlines()[1] == f"web room view: {live.rest}/#/rooms/{rid}"
    listed = band_cli("rooms", *auth)
    assert listed.stdout.strip() == f"{rid}  Planning  [Helper]"
    # the agent runs with the SDK in a process of its own (the README's way)
    script = tmp_path / "helper.py"
    script.write_text(
        "import asyncio, sys\n"
        "from band import Agent\n"
        "from band.demo.adapter import DemoAdapter\n"
        "agent = Agent.create(adapter=DemoAdapter(), agent_id=sys.argv[1], api_key=sys.argv[2],\n"
        "                     rest_url=sys.argv[3], ws_url=sys.argv[4])\n"
        "asyncio.run(agent.run())\n"
    )
    assert DemoAdapter  # the adapter the script runs
    agent = subprocess.Popen(
        [sys.executable, "-I", str(script), aid, key, live.rest, live.ws],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    started = ""
    try:
        assert agent.stderr is not None
        for line in agent.stderr:  # connected before the message: no "offline" warning
            started += line
            if "Agent started" in line:
                break
        sent = band_cli("send", "Planning", "what's up?", "--mention", "@Helper", *auth)
        assert sent.returncode == 0, sent.stderr
        assert "warning" not in sent.stderr and "INFO" not in sent.stderr  # quiet by default
        lines = sent.stdout.strip().splitlines()
        assert "Local Person: @Helper what's up?" in lines[0]
        assert any("Helper: @Local Person Hello Local Person! You said: what's up?" in line
                   for line in lines)  # fmt: skip
        assert any("Helper (tool call): band_send_message" in line for line in lines)
    finally:
        agent.terminate()
        _, rest = agent.communicate(timeout=30)
        err = started + rest
    # the agent said what it did: start and one line for the turn
    assert "Agent started" in err and "band.turns: turn room=" in err, err
    tail = subprocess.Popen(
        [sys.executable, "-I", "-m", "band.cli", "tail", rid, "--last", "2", *auth],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert tail.stdout is not None
        assert tail.stdout.readline().startswith(f'room "Planning" ({rid})')
        assert "Helper" in tail.stdout.readline()
        assert "Helper" in tail.stdout.readline()
        body = {"message": {"content": "live line", "mentions": []}}
        r = live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body)
        assert r.status_code == 201
        assert "Local Person: live line" in tail.stdout.readline()
    finally:
        tail.terminate()
        tail.wait(10)
    # an unknown room or agent lists what there is
    missing = band_cli("send", "Nowhere", "hi", *auth)
    assert missing.returncode == 1 and '"Planning"' in missing.stderr
    nobody = band_cli("send", "Planning", "hi", "--mention", "Ghost", *auth)
    assert nobody.returncode == 1 and '"Helper"' in nobody.stderr


def test_send_warns_of_an_offline_agent_and_a_mention_not_made(live: Live) -> None:
    """An offline agent is named at once (then --wait runs out: 1); ``@Name`` is no mention."""
    live.register("Helper")
    auth = ("--url", live.rest, "--user-key", live.user_key)
    assert band_cli("room", "create", "Desk", "--agent", "Helper", *auth).returncode == 0
    plain = band_cli("send", "Desk", "@helper are you there?", *auth)
    assert plain.returncode == 0, plain.stderr
    assert plain.stderr.startswith('warning: "@helper" in the text is not a mention, so Helper ')
    assert "--mention" in plain.stderr and "Local Person: @helper are you there?" in plain.stdout
    # the warning comes before any wait: read while the command still waits
    waiting = subprocess.Popen(
        [sys.executable, "-I", "-m", "band.cli", "send", "Desk", "hi", "-m", "Helper", *auth],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert waiting.stderr is not None
        first = waiting.stderr.readline()
        assert first.startswith("warning: Helper is offline (not connected to the platform)")
        assert waiting.poll() is None  # still waiting for the answer
    finally:
        waiting.terminate()
        waiting.wait(30)
    gave_up = band_cli("send", "Desk", "hi", "--mention", "Helper", "--wait", "1", *auth)
    assert gave_up.returncode == 1 and "Traceback" not in gave_up.stderr
    assert (
        "Helper is offline" in gave_up.stderr and "error: no answer from Helper" in gave_up.stderr
    )


def test_doctor_checks_the_users_setup(live: Live, tmp_path: Path) -> None:
    """Variables, agent_config.yaml, the platform and each key; model keys never printed."""
    aid, _, key = live.register("Echo")
    config = tmp_path / "agent_config.yaml"
    config.write_text(f"good:\n  agent_id: {aid}\n  api_key: {key}\n")
    config.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "ANTHROPIC_"))}
    env.update(BAND_REST_URL=live.rest, BAND_WS_URL=live.ws, ANTHROPIC_API_KEY="sk-secret-1")

    def doctor() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-I", "-m", "band.cli", "doctor"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip

    sound = doctor()
    lines = sound.stdout.splitlines()
    assert sound.returncode == 0, sound.stdout
    for line in (f"  BAND_REST_URL: {live.rest}", f"  platform: {live.rest} answers",
                 f"  good: key accepted (agent {aid})", "  ANTHROPIC_API_KEY: set",
                 "  OPENAI_API_KEY: not set"):  # fmt: skip
        assert line in lines, sound.stdout
    assert "sk-secret-1" not in sound.stdout + sound.stderr and key not in sound.stdout
    config.write_text(config.read_text() + "bad:\n  agent_id: x\n  api_key: band_a_wrong\n")
    refused = doctor()
    assert refused.returncode == 1
    assert "  problem: bad: key refused (HTTP 401) for x" in refused.stdout.splitlines()
    env["BAND_REST_URL"] = f"http://127.0.0.1:{_free_port()}"
    gone = doctor()
    assert (
        gone.returncode == 1 and "does not answer" in gone.stdout and "Traceback" not in gone.stderr
    )


RELOADED = """\
import asyncio, sys
from band import Agent, PlatformMessage, strip_mentions
from band.core import AgentToolsProtocol, HistoryProvider, SimpleAdapter

VERSION = "{version}"


class Versioned(SimpleAdapter[HistoryProvider]):
    async def on_message(self, msg: PlatformMessage, tools: AgentToolsProtocol,
                         history: HistoryProvider, participants_msg: str | None,
                         contacts_msg: str | None, *, is_session_bootstrap: bool,
                         room_id: str) -> None:
        text = strip_mentions(msg.content)
        await tools.send_message(f"{{VERSION}}: {{text}}", mentions=[msg.sender_id])


agent = Agent.create(adapter=Versioned(), agent_id=sys.argv[1], api_key=sys.argv[2],
                     rest_url=sys.argv[3], ws_url=sys.argv[4])
asyncio.run(agent.run())
"""


def test_run_reload_restarts_the_agent_when_its_file_changes(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Reloader")
    auth = ("--url", live.rest, "--user-key", live.user_key)
    assert band_cli("room", "create", "Lab", "--agent", "Reloader", *auth).returncode == 0
    script = tmp_path / "agent.py"
    script.write_text(RELOADED.format(version="v1"))
    run = subprocess.Popen(
        [sys.executable, "-I", "-m", "band.cli", "run", "agent.py", "--reload",
         aid, key, live.rest, live.ws],
        cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
    )  # fmt: skip
    seen: list[str] = []

    def until(text: str) -> None:
        read_until(run, text, seen)

    try:
        until("Agent started")
        first = band_cli("send", "Lab", "hi", "--mention", "Reloader", *auth)
        assert first.returncode == 0 and "Reloader: @Local Person v1: hi" in first.stdout
        script.write_text(RELOADED.format(version="v2"))
        until("agent.py changed; restarting the agent")
        until("Agent started")
        second = band_cli("send", "Lab", "again", "--mention", "Reloader", *auth)
        assert second.returncode == 0 and "Reloader: @Local Person v2: again" in second.stdout
    finally:
        run.terminate()
        run.wait(30)
    assert "Agent stopped" in "".join(seen) and "Traceback" not in "".join(seen)


def test_an_agent_name_two_agents_share_is_refused_and_a_handle_picks_one(live: Live) -> None:
    """``band dev agent create`` twice with one name: the name alone no longer picks one
    silently; the error lists both handles, and either handle (or id) picks its agent."""
    first, first_handle, _ = live.register("Twin")
    second, second_handle, _ = live.register("Twin")
    assert first_handle != second_handle
    auth = ("--url", live.rest, "--user-key", live.user_key)
    both = band_cli("room", "create", "Twins", "--agent", "Twin", *auth)
    assert both.returncode == 1 and "Traceback" not in both.stderr
    assert both.stderr.startswith('error: 2 of your agents are named "Twin" (@'), both.stderr
    assert f"@{first_handle}" in both.stderr and f"@{second_handle}" in both.stderr
    assert "Twins" not in band_cli("rooms", *auth).stdout  # refused before the room was made
    for handle, aid in ((first_handle, first), (f"@{second_handle}", second)):
        made = band_cli("room", "create", f"Twins {aid}", "--agent", handle, *auth)
        assert made.returncode == 0, made.stderr
        rid = made.stdout.split("(", 1)[1].split(")", 1)[0]
        members = live.human("GET", f"/api/v1/me/chats/{rid}/participants").json()["data"]
        ids = {m["id"] for m in members}
        assert aid in ids and ({first, second} - {aid}).isdisjoint(ids), ids


def test_send_refuses_an_empty_text_before_any_call(live: Live) -> None:
    auth = ("--url", live.rest, "--user-key", live.user_key)
    blank = band_cli("send", "No such room", "  ", *auth)  # the room is not even looked up
    assert blank.returncode == 2, blank.stderr
    assert blank.stderr == "error: TEXT is empty: give the message to send\n"


def test_dev_refuses_a_port_out_of_range_in_one_line() -> None:
    for bad in ("99999", "0", "http"):
        proc = band_cli("dev", "--port", bad)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr, proc.stderr
        assert f"argument --port: must be a port from 1 to 65535, not {bad}" in proc.stderr


@pytest.mark.parametrize(
    ("host", "url", "exposed"),
    [
        ("127.0.0.1", "http://127.0.0.1:8080", False),
        ("localhost", "http://localhost:8080", False),
        ("::1", "http://[::1]:8080", False),
        ("127.0.0.2", "http://127.0.0.2:8080", False),
        # a wildcard listens everywhere; this machine's agents connect to loopback
        ("0.0.0.0", "http://127.0.0.1:8080", True),
        ("::", "http://[::1]:8080", True),
        ("192.168.1.5", "http://192.168.1.5:8080", True),
    ],
)
def test_dev_prints_a_connectable_url_and_warns_off_loopback(
    host: str, url: str, exposed: bool
) -> None:
    from band.cli.dev import exposure_warning, rest_url

    assert rest_url(host, 8080) == url
    warning = exposure_warning(host)
    assert bool(warning) is exposed
    if exposed:
        assert warning.startswith(f"listening on {host}, not a loopback address")


def test_a_url_option_that_cannot_work_is_a_usage_error(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # before: "band rooms --url 127.0.0.1:8080" ended in a ValueError traceback
    for argv, env, said in (
        (["--url", "127.0.0.1:8080"], None, "'127.0.0.1:8080' is not an http:// or https:// URL"),
        (
            ["--url", "http://127.0.0.1:8080/api/v1"],
            None,
            "'http://127.0.0.1:8080/api/v1' ends in /api/v1, which the client adds itself: "
            "give http://127.0.0.1:8080",
        ),
        ([], "localhost:8080", "'localhost:8080' is not an http:// or https:// URL"),
    ):
        if env is None:
            monkeypatch.delenv("BAND_REST_URL", raising=False)
        else:
            monkeypatch.setenv("BAND_REST_URL", env)
        with pytest.raises(SystemExit) as exited:
            build_parser().parse_args(["rooms", *argv, "--user-key", "band_u_k"])
        assert exited.value.code == 2
        err = capsys.readouterr().err
        assert (
            f"band rooms: error: argument --url: {said} (band dev's: http://127.0.0.1:8080)" in err
        )
