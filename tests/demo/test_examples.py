"""examples/ and the README's agent: every script compiles, the agents answer a mention on a
real local platform, and the MCP client configurations start band-mcp with the arguments and
variables they declare."""

from __future__ import annotations

import json
import os
import py_compile
import re
import subprocess
import sys
import time
import tomllib
from pathlib import Path
from typing import Any

import pytest
import yaml
from bandtest.platform import Live, room_with, stop_process

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples"
MENTION = re.compile(r"@\[\[[^\]]+\]\]\s*")


@pytest.mark.parametrize("script", sorted(EXAMPLES.glob("*.py")), ids=lambda p: p.name)
def test_example_compiles(script: Path, tmp_path: Path) -> None:
    py_compile.compile(str(script), cfile=str(tmp_path / "out.pyc"), doraise=True)


def start_example(
    live: Live,
    tmp_path: Path,
    script: Path,
    *args: str,
    name: str = "mine",
    env: dict[str, str] | None = None,
) -> subprocess.Popen[str]:
    """Register an agent, write agent_config.yaml and run ``script`` against ``live``
    (``env``: variables added to the script's environment)."""
    aid, _, key = live.register(script.stem)
    (tmp_path / "agent_config.yaml").write_text(
        yaml.safe_dump({name: {"agent_id": aid, "api_key": key}})
    )
    environ = {k: v for k, v in os.environ.items() if not k.startswith("BAND_")}
    environ.update(env or {}, BAND_REST_URL=live.rest, BAND_WS_URL=live.ws)
    proc = subprocess.Popen(
        [sys.executable, "-I", str(script), *args],
        cwd=tmp_path,
        env=environ,
        stdout=subprocess.DEVNULL,
        stderr=open(tmp_path / "stderr.log", "w"),  # closed with the process
        text=True,
    )
    proc.aid = aid  # type: ignore[attr-defined]
    return proc


def reply_to(live: Live, proc: subprocess.Popen[str], tmp_path: Path, text: str) -> str:
    """Mention the example's agent in a new room; return its reply (mentions stripped)."""
    aid: str = proc.aid  # type: ignore[attr-defined]
    rid = room_with(live, aid)
    body = {"message": {"content": text, "mentions": [{"id": aid}]}}
    assert live.human("POST", f"/api/v1/me/chats/{rid}/messages", json=body).status_code == 201
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert proc.poll() is None, (tmp_path / "stderr.log").read_text()
        rows = live.human("GET", f"/api/v1/me/chats/{rid}/messages").json()["data"]
        replies = [m for m in rows if m["sender_id"] == aid and m["message_type"] == "text"]
        if replies:
            return MENTION.sub("", replies[0]["content"]).strip()
        time.sleep(0.1)
    raise AssertionError(f"no reply: {(tmp_path / 'stderr.log').read_text()}")


def test_echo_example_answers_a_mention(live: Live, tmp_path: Path) -> None:
    proc = start_example(live, tmp_path, EXAMPLES / "echo_agent.py", "--name", "mine")
    try:
        assert reply_to(live, proc, tmp_path, "hello echo") == "echo: hello echo"
    finally:
        stop_process(proc)
    assert proc.returncode == 0  # SIGTERM stops it cleanly


@pytest.mark.parametrize(
    "script", ["langgraph_agent.py", "pydantic_ai_agent.py", "gemini_agent.py"]
)
def test_a_framework_example_answers_through_its_model(
    live: Live, tmp_path: Path, script: str
) -> None:
    """Each framework example, its model played by the scripted model server."""
    from band.testing import ScriptedModel, TextTurn

    with ScriptedModel() as model:
        model.script(TextTurn("hello from the model"))
        proc = start_example(live, tmp_path, EXAMPLES / script, name="my_agent", env=model.env())
        try:
            assert reply_to(live, proc, tmp_path, "hi there") == "hello from the model"
        finally:
            stop_process(proc)
        assert proc.returncode == 0  # SIGTERM stops it cleanly
        assert "hi there" in model.requests[0].prompt
        assert "concise, friendly" in (model.requests[0].system or "")


def test_acp_example_answers_through_an_acp_agent(live: Live, tmp_path: Path) -> None:
    command = f"{sys.executable} -m band.demo.acp_agent"
    args = ("--name", "mine", "--command", command, "--workspaces", "ws")
    proc = start_example(live, tmp_path, EXAMPLES / "acp_agent.py", *args)
    try:
        reply = reply_to(live, proc, tmp_path, "hello coder")
    finally:
        stop_process(proc)
    assert reply.endswith("(from an ACP agent) You said: hello coder")
    assert [p.name for p in (tmp_path / "ws").iterdir()]  # one workspace per room


def test_readme_agent_answers_a_mention(live: Live, tmp_path: Path) -> None:
    """The README's 20-line agent, as printed there, run the way the README says."""
    readme = (ROOT / "README.md").read_text()
    section = readme.split("## A 20-line agent", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    assert len(code.strip().splitlines()) <= 20
    (tmp_path / "echo.py").write_text(code)
    proc = start_example(live, tmp_path, tmp_path / "echo.py", name="my_agent")
    try:
        assert reply_to(live, proc, tmp_path, "hi readme") == "echo: hi readme"
    finally:
        stop_process(proc)


def mcp_configs() -> list[tuple[str, str, dict[str, Any]]]:
    """(file, server name, {command, args, env}) of every server in examples/mcp/."""
    out: list[tuple[str, str, dict[str, Any]]] = []
    for path in sorted((EXAMPLES / "mcp").iterdir()):
        if path.suffix == ".toml":
            servers = tomllib.loads(path.read_text())["mcp_servers"]
        else:
            doc = json.loads(path.read_text())
            servers = doc.get("mcpServers") or doc["servers"]
        out += [(path.name, name, server) for name, server in servers.items()]
    return out


def test_every_mcp_client_kind_has_a_configuration() -> None:
    names = {f for f, _, _ in mcp_configs()}
    assert names == {
        "claude_desktop_config.json",
        "codex-config.toml",
        "cursor-mcp.json",
        "vscode-mcp.json",
    }


@pytest.mark.parametrize(("server",), [(s,) for s in mcp_configs()], ids=lambda s: f"{s[0]}:{s[1]}")
def test_mcp_configuration_starts_band_mcp(
    server: tuple[str, str, dict[str, Any]], live: Live, tmp_path: Path
) -> None:
    """Run band-mcp with the file's args and variable names (real keys, live platform)."""
    import anyio
    from mcp import ClientSession, StdioServerParameters
    from mcp.client.stdio import stdio_client

    _, _, spec = server
    assert spec["command"] == "band-mcp"
    _, _, agent_key = live.register("Mcp")
    real = {"BAND_AGENT_KEY": agent_key, "BAND_USER_KEY": live.user_key}
    env = {"PATH": os.environ.get("PATH", ""), "BAND_BASE_URL": live.rest}
    for name in spec.get("env", {}):
        assert name in (*real, "BAND_BASE_URL"), name
        env[name] = real.get(name, live.rest)
    params = StdioServerParameters(
        command=str(Path(sys.executable).with_name("band-mcp")),
        args=list(spec.get("args", [])),
        env=env,
        cwd=str(tmp_path),
    )

    async def tools() -> list[str]:
        with open(tmp_path / "stderr.log", "w") as errlog:
            async with (
                stdio_client(params, errlog=errlog) as (read, write),
                ClientSession(read, write) as session,
            ):
                await session.initialize()
                health = await session.call_tool("health_check", {})
                assert not health.isError, health.content
                return [t.name for t in (await session.list_tools()).tools]

    names = anyio.run(tools)
    assert "band_send_message" in names and "health_check" in names
