"""Start-up mistakes end in one or two lines naming the cause and the next step, no traceback.

Each case runs the README's 20-line agent as a process (``python -I echo.py``, the installed
package) the way a new user would, against a real ``band dev`` where one is needed.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from bandtest.platform import Live

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
#: The README's agent, as a user copies it.
ECHO = README.split("## A 20-line agent", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
RUN_TIMEOUT = 120


def _closed_port() -> int:
    """A loopback port nothing listens on (bound then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def run_echo(
    tmp_path: Path, env: dict[str, str], config: dict[str, object] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run echo.py in ``tmp_path`` with only ``env`` (plus PATH) for Band's settings."""
    (tmp_path / "echo.py").write_text(ECHO)
    if config is not None:
        (tmp_path / "agent_config.yaml").write_text(yaml.safe_dump(config))
    clean = {
        k: v
        for k, v in os.environ.items()
        if not k.upper().startswith(("BAND_", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY"))
    }
    return subprocess.run(
        [sys.executable, "-I", "echo.py"],
        cwd=tmp_path,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=RUN_TIMEOUT,
    )


def told(proc: subprocess.CompletedProcess[str]) -> list[str]:
    """The ``error:`` lines the process ended with; fails on a traceback or a zero exit."""
    assert proc.returncode != 0, proc.stderr
    assert "Traceback" not in proc.stderr, proc.stderr
    lines = proc.stderr.rstrip("\n").splitlines()
    start = max(i for i, line in enumerate(lines) if line.startswith("error: "))
    error = lines[start:]
    assert 1 <= len(error) <= 2, proc.stderr
    return error


def test_a_wrong_key_names_the_agent_the_url_and_what_to_do(live: Live, tmp_path: Path) -> None:
    aid, _, _ = live.register("Echo")
    config = {"my_agent": {"agent_id": aid, "api_key": "band_a_not-the-key"}}
    env = {"BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws}
    first, second = told(run_echo(tmp_path, env, config))
    assert first.startswith(
        f"error: the platform at {live.rest} (BAND_REST_URL) refused the API key of agent {aid}"
    )
    assert "HTTP 401" in first and "band_a_not-the-key" not in first + second
    # the entry the key came from: the file echo.py read, under the name it asked for
    assert second.startswith(f'Check "my_agent" in {tmp_path / "agent_config.yaml"}: '), second
    assert "band dev agent create" in second


def test_a_wrong_key_given_in_code_names_the_arguments(live: Live, tmp_path: Path) -> None:
    aid, _, _ = live.register("Echo")
    (tmp_path / "given.py").write_text(
        "import asyncio\n"
        "from band import Agent\n"
        "from band.demo.adapter import DemoAdapter\n"
        f"agent = Agent.create(adapter=DemoAdapter(), agent_id={aid!r}, api_key='band_a_wrong')\n"
        "asyncio.run(agent.run())\n"
    )
    env = {"BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws, "PATH": os.environ["PATH"]}
    proc = subprocess.run(
        [sys.executable, "-I", "given.py"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=RUN_TIMEOUT,
    )  # fmt: skip
    first, second = told(proc)
    assert f"refused the API key of agent {aid}" in first
    assert second.startswith("Check the agent_id and api_key given: "), second


def test_band_dev_not_running_says_so(tmp_path: Path) -> None:
    port = _closed_port()
    url = f"http://127.0.0.1:{port}"
    env = {"BAND_REST_URL": url, "BAND_WS_URL": f"ws://127.0.0.1:{port}/api/v1/socket/websocket"}
    config = {"my_agent": {"agent_id": "a1", "api_key": "band_a_k"}}
    first, second = told(run_echo(tmp_path, env, config))
    assert first.startswith(f"error: cannot reach the Band platform at {url} (BAND_REST_URL): ")
    assert second.startswith("Is `band dev` running?") and "--port" in second


def test_a_forgotten_band_rest_url_names_the_default_it_used(tmp_path: Path) -> None:
    # the default is Band Cloud; a proxy nobody listens on keeps the test off the network
    proxy = f"http://127.0.0.1:{_closed_port()}"
    config = {"my_agent": {"agent_id": "a1", "api_key": "band_a_k"}}
    env = {"HTTPS_PROXY": proxy, "HTTP_PROXY": proxy}
    first, second = told(run_echo(tmp_path, env, config))
    assert first.startswith(
        "error: cannot reach the Band platform at https://app.band.ai "
        "(the default, Band Cloud: BAND_REST_URL is not set): "
    )
    assert "export BAND_REST_URL=http://127.0.0.1:8080" in second
    assert "BAND_WS_URL=ws://127.0.0.1:8080/api/v1/socket/websocket" in second


@pytest.mark.parametrize(
    ("rest", "ws", "said"),
    [
        # before: a traceback ending in "not an http(s) URL: '127.0.0.1:PORT/api/v1'", a path
        # the user never wrote
        ("127.0.0.1:{port}", "ws://127.0.0.1:{port}/x", "'127.0.0.1:{port}' (BAND_REST_URL) "
         "is not an http:// or https:// URL."),
        # before: a NotFoundError traceback from the first call
        ("http://127.0.0.1:{port}/api/v1/", "ws://127.0.0.1:{port}/x",
         "'http://127.0.0.1:{port}/api/v1/' (BAND_REST_URL) ends in /api/v1, which the client "
         "adds itself: give http://127.0.0.1:{port}."),
        ("http://127.0.0.1:{port}", "127.0.0.1:{port}/api/v1/socket/websocket",
         "'127.0.0.1:{port}/api/v1/socket/websocket' (BAND_WS_URL) is not a ws:// or wss:// URL."),
    ],
)  # fmt: skip
def test_a_url_without_its_scheme_or_with_the_api_path_is_refused_before_any_call(
    tmp_path: Path, rest: str, ws: str, said: str
) -> None:
    port = _closed_port()  # nothing listens: a call made anyway would fail otherwise
    env = {"BAND_REST_URL": rest.format(port=port), "BAND_WS_URL": ws.format(port=port)}
    config = {"my_agent": {"agent_id": "a1", "api_key": "band_a_k"}}
    first, second = told(run_echo(tmp_path, env, config))
    assert first == f"error: {said.format(port=port)}"
    assert second.startswith("band dev's URLs are http://127.0.0.1:8080 and ws://"), second


def test_a_base_url_under_a_path_that_answers_404_says_so(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Echo")
    config = {"my_agent": {"agent_id": aid, "api_key": key}}
    env = {"BAND_REST_URL": f"{live.rest}/band", "BAND_WS_URL": live.ws}
    first, second = told(run_echo(tmp_path, env, config))
    assert first == (
        f"error: the platform at {live.rest}/band (BAND_REST_URL) answered 404 Not Found to "
        "the agent's first call."
    )
    assert second == (
        f"Is that a Band platform's address (without its path, {live.rest})? band dev prints "
        "its BAND_REST_URL."
    )


def test_no_config_file_says_how_to_make_one(tmp_path: Path) -> None:
    first, second = told(run_echo(tmp_path, {}))
    assert first == f"error: Config file not found at {tmp_path / 'agent_config.yaml'}."
    assert "band dev agent create NAME --config agent_config.yaml" in second
    assert ".example" not in first + second


def test_an_unknown_agent_name_lists_the_names_found(tmp_path: Path) -> None:
    config = {
        "echo": {"agent_id": "a1", "api_key": "band_a_k"},
        "helper": {"agent_id": "a2", "api_key": "band_a_j"},
    }
    first, second = told(run_echo(tmp_path, {}, config))
    assert first.startswith("error: Agent 'my_agent' not found in ")
    assert second == "Agents found there: 'echo', 'helper'."


@pytest.mark.parametrize("how", ["BAND_LOG_LEVEL"])
def test_debug_shows_the_traceback(tmp_path: Path, how: str) -> None:
    proc = run_echo(tmp_path, {how: "DEBUG"})
    assert proc.returncode != 0
    assert "Traceback" in proc.stderr and "ConfigFileNotFoundError" in proc.stderr


def test_a_forgotten_band_ws_url_is_named_before_connecting(live: Live, tmp_path: Path) -> None:
    aid, _, key = live.register("Echo")
    config = {"my_agent": {"agent_id": aid, "api_key": key}}
    first, second = told(run_echo(tmp_path, {"BAND_REST_URL": live.rest}, config))
    assert first == (
        f"error: the REST URL is {live.rest} but the socket URL is "
        "wss://app.band.ai/api/v1/socket/websocket (the default, Band Cloud: BAND_WS_URL is "
        "not set)."
    )
    port = live.rest.rsplit(":", 1)[1]
    assert second == (
        f"For band dev, export BAND_WS_URL=ws://127.0.0.1:{port}/api/v1/socket/websocket "
        "(or pass ws_url=)."
    )


def test_the_same_agent_twice_is_two_lines(live: Live, tmp_path: Path) -> None:
    """A second process of a running agent (same host) ends in two lines, no traceback."""
    aid, _, key = live.register("Echo")
    config = {"my_agent": {"agent_id": aid, "api_key": key}}
    env = {"BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws}
    first_dir, second_dir = tmp_path / "first", tmp_path / "second"
    first_dir.mkdir()
    second_dir.mkdir()
    (first_dir / "echo.py").write_text(ECHO)
    (first_dir / "agent_config.yaml").write_text(yaml.safe_dump(config))
    running = subprocess.Popen(
        [sys.executable, "-I", "echo.py"],
        cwd=first_dir,
        env={**os.environ, **env},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stderr is not None
        for line in running.stderr:  # waits on the first agent's own start line
            if "Agent started" in line:
                break
        else:
            raise AssertionError(f"the first agent ended: {running.wait()}")
        first, second = told(run_echo(second_dir, env, config))
    finally:
        running.terminate()
        running.wait(30)
    assert first.startswith(f"error: Agent {aid} is already running on this host (lock ")
    assert second.startswith("Stop the other process first")


def test_a_running_agent_deleted_on_the_platform_stops_saying_why(
    live: Live, tmp_path: Path
) -> None:
    """The platform closes a deleted agent's socket with 1008: the agent stops at once (no
    reconnect can help) and says what that close means, not only its code."""
    aid, _, key = live.register("Doomed")
    config = {"my_agent": {"agent_id": aid, "api_key": key}}
    (tmp_path / "echo.py").write_text(ECHO)
    (tmp_path / "agent_config.yaml").write_text(yaml.safe_dump(config))
    running = subprocess.Popen(
        [sys.executable, "-I", "echo.py"],
        cwd=tmp_path,
        env={**os.environ, "BAND_REST_URL": live.rest, "BAND_WS_URL": live.ws},
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert running.stderr is not None
        for line in running.stderr:  # the agent's own start line
            if "Agent started" in line:
                break
        else:
            raise AssertionError(f"the agent ended: {running.wait()}")
        assert live.human("DELETE", f"/api/v1/me/agents/{aid}").status_code == 200
        rest = running.stderr.read()  # to its end: the process exits by itself
        assert running.wait(RUN_TIMEOUT) == 0, rest
    finally:
        if running.poll() is None:
            running.kill()
            running.wait()
    said = (
        "disconnected: closed by the platform with code 1008 (agent deleted): it no longer "
        "accepts this agent's key (was the agent deleted, or its key revoked?)"
    )
    assert said in rest and "Agent stopped" in rest and "Traceback" not in rest, rest
