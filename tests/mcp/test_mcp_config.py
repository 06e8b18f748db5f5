"""band-mcp configuration: flags over environment over .env, lists, warnings, errors, exit codes."""

from __future__ import annotations

import json
import subprocess
import threading
from pathlib import Path

import pytest
from mcp_harness import band_mcp, run_cli, server_env

from band.core.types import Capability
from band.mcp.config import (
    Config,
    ConfigError,
    SettingsError,
    Transport,
    load_settings,
    read_dotenv,
    resolve_config,
    validate,
)
from band.runtime.tools.spec import Surface

AGENT_MISSING = (
    "Configuration error: agent scope requested but no agent credential available "
    "(set --agent-key / BAND_AGENT_KEY)"
)
HUMAN_MISSING = (
    "Configuration error: human scope requested but no user credential available "
    "(set --user-key / BAND_USER_KEY)"
)
NO_SCOPE = (
    "Configuration error: No valid --scope values resolved. Expected one or more of: agent, human."
)


# --- resolution (pure) ------------------------------------------------------------------------


def test_defaults() -> None:
    cfg = resolve_config({})
    assert cfg == Config(scope=(Surface.AGENT,), tools=())
    assert load_settings({}, {}) == load_settings({}, {}, transport=None)
    s = load_settings({}, {})
    assert (s.band_base_url, s.transport, s.host, s.port) == (
        "https://app.band.ai",
        Transport.STDIO,
        "127.0.0.1",
        8000,
    )
    assert s.enable_dns_rebinding_protection is True
    assert s.allowed_hosts == () and s.allowed_origins == ()


def test_flag_wins_over_variable_and_empty_means_unset() -> None:
    env = {
        "BAND_AGENT_KEY": "env-a",
        "BAND_USER_KEY": "env-u",
        "BAND_MCP_ROOM_ID": "env-room",
        "BAND_MCP_SCOPE": "human",
        "BAND_MCP_TOOLS": "memory",
    }
    cfg = resolve_config(
        env,
        agent_key="cli-a",
        user_key="cli-u",
        room_id="cli-room",
        scope=["agent"],
        tools=["tasks"],
    )
    assert (cfg.agent_key, cfg.user_key, cfg.room_id) == ("cli-a", "cli-u", "cli-room")
    assert cfg.scope == (Surface.AGENT,) and cfg.tools == (Capability.TASKS,)
    # an empty flag falls back to the variable; an empty variable counts as unset
    cfg = resolve_config(env | {"BAND_USER_KEY": ""}, agent_key="", room_id="  ")
    assert (cfg.agent_key, cfg.user_key, cfg.room_id) == ("env-a", None, "env-room")
    assert resolve_config({"BAND_MCP_SCOPE": "", "BAND_MCP_TOOLS": " "}).scope == (Surface.AGENT,)


def test_lists_trimmed_lowercased_deduplicated_repeatable() -> None:
    cfg = resolve_config(
        {}, scope=[" Human , AGENT", "human"], tools=["memory,Contacts", " memory"]
    )
    assert cfg.scope == (Surface.HUMAN, Surface.AGENT)
    assert cfg.tools == (Capability.MEMORY, Capability.CONTACTS)
    assert resolve_config({"BAND_MCP_TOOLS": "CONTACTS,,contacts , tasks"}).tools == (
        Capability.CONTACTS,
        Capability.TASKS,
    )


def test_empty_tools_flag_clears_the_variable() -> None:
    assert resolve_config({"BAND_MCP_TOOLS": "contacts,memory"}, tools=[""]).tools == ()


def test_unknown_values_warn_with_the_closest_suggestion() -> None:
    cfg = resolve_config({}, scope=["humn,agent,bogus"], tools=["contact,xyz,memory"])
    assert cfg.scope == (Surface.AGENT,)
    assert cfg.tools == (Capability.MEMORY,)
    assert cfg.warnings == (
        "unknown --scope value 'humn' \u2014 did you mean 'human'? ignoring.",
        "unknown --scope value 'bogus' \u2014 valid values: agent, human. ignoring.",
        "unknown --tools value 'contact' \u2014 did you mean 'contacts'? ignoring.",
        "unknown --tools value 'xyz' \u2014 valid values: contacts, memory, tasks. ignoring.",
    )


def test_validate_messages() -> None:
    with pytest.raises(ConfigError) as e:
        validate(resolve_config({}, scope=["nope"]))
    assert f"Configuration error: {e.value}" == NO_SCOPE
    with pytest.raises(ConfigError) as e:
        validate(resolve_config({}))
    assert f"Configuration error: {e.value}" == AGENT_MISSING
    with pytest.raises(ConfigError) as e:
        validate(resolve_config({}, scope=["agent,human"]))
    # one message per missing scope, the human one first
    assert str(e.value) == (
        HUMAN_MISSING.removeprefix("Configuration error: ")
        + "; "
        + AGENT_MISSING.removeprefix("Configuration error: ")
    )
    validate(resolve_config({"BAND_USER_KEY": "u"}, scope=["human"]))


def test_no_legacy_variables() -> None:
    env = {"BAND_API_KEY": "k", "THENVOI_API_KEY": "k", "THENVOI_AGENT_KEY": "k"}
    with pytest.raises(ConfigError):
        validate(resolve_config(env))


def test_settings_precedence_and_dotenv(tmp_path: Path) -> None:
    dotenv_file = tmp_path / ".env"
    dotenv_file.write_text(
        "# comment\n"
        "export BAND_BASE_URL=http://dotenv.example/\n"
        "PORT=9001\n"
        "HOST='0.0.0.0'\n"
        'ALLOWED_HOSTS=["a:*", "b"]  \n'
        "TRANSPORT=sse # trailing comment\n"
        "BAND_AGENT_KEY=from-dotenv\n"
        "BAND_MCP_SCOPE=human\n"
    )
    dotenv = read_dotenv(dotenv_file)
    assert dotenv["HOST"] == "0.0.0.0" and dotenv["TRANSPORT"] == "sse"
    s = load_settings({"PORT": "9002", "host": ""}, dotenv)
    assert s.band_base_url == "http://dotenv.example"
    assert s.port == 9002  # environment over .env
    assert s.host == "0.0.0.0"  # empty environment value: .env applies
    assert s.allowed_hosts == ("a:*", "b")
    assert s.transport is Transport.SSE
    s = load_settings({"PORT": "9002"}, dotenv, transport="stdio", host="127.0.0.2", port=9003)
    assert (s.transport, s.host, s.port) == (Transport.STDIO, "127.0.0.2", 9003)
    assert read_dotenv(tmp_path / "missing") == {}


def test_settings_parse_errors() -> None:
    with pytest.raises(SettingsError, match='error parsing value for field "allowed_hosts"'):
        load_settings({"ALLOWED_HOSTS": "localhost:*"}, {})
    with pytest.raises(SettingsError, match='error parsing value for field "allowed_origins"'):
        load_settings({}, {"ALLOWED_ORIGINS": '{"a": 1}'})
    with pytest.raises(SettingsError, match='field "port"'):
        load_settings({"PORT": "abc"}, {})
    with pytest.raises(SettingsError, match='field "enable_dns_rebinding_protection"'):
        load_settings({"ENABLE_DNS_REBINDING_PROTECTION": "maybe"}, {})
    with pytest.raises(SettingsError, match='field "transport"'):
        load_settings({"TRANSPORT": "carrier-pigeon"}, {})
    off = load_settings({"ENABLE_DNS_REBINDING_PROTECTION": "False"}, {})
    assert off.enable_dns_rebinding_protection is False


# --- the command line (subprocess) ------------------------------------------------------------


def test_cli_missing_agent_key_exit_2(tmp_path: Path) -> None:
    r = run_cli([], {}, tmp_path)
    assert r.returncode == 2
    assert AGENT_MISSING in r.stderr
    assert r.stdout == ""


def test_cli_missing_user_key_and_hints_before_the_error(tmp_path: Path) -> None:
    r = run_cli(["--scope", "human,bogus", "--tools", "contact"], {"BAND_AGENT_KEY": "k"}, tmp_path)
    assert r.returncode == 2
    lines = r.stderr.splitlines()
    assert any(HUMAN_MISSING in line for line in lines), r.stderr
    warn = "unknown --scope value 'bogus' \u2014 valid values: agent, human. ignoring."
    hint = "unknown --tools value 'contact' \u2014 did you mean 'contacts'? ignoring."
    assert any(warn in line and "[WARNING]" in line for line in lines), r.stderr
    assert any(hint in line for line in lines), r.stderr
    idx = next(i for i, line in enumerate(lines) if "Configuration error" in line)
    assert all(i < idx for i, line in enumerate(lines) if "unknown --" in line)


def test_cli_no_valid_scope_exit_2(tmp_path: Path) -> None:
    r = run_cli([], {"BAND_MCP_SCOPE": "humn,agnt", "BAND_AGENT_KEY": "k"}, tmp_path)
    assert r.returncode == 2
    assert NO_SCOPE in r.stderr
    assert "unknown --scope value 'humn' \u2014 did you mean 'human'? ignoring." in r.stderr


def test_cli_keys_in_dotenv_are_ignored(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(
        "BAND_AGENT_KEY=band_a_dotenv\nBAND_USER_KEY=band_u_dotenv\nBAND_MCP_SCOPE=human\n"
    )
    r = run_cli([], {}, tmp_path)
    assert r.returncode == 2
    # the scope did not come from .env either: the default agent scope is what fails
    assert AGENT_MISSING in r.stderr and "human scope" not in r.stderr
    assert "band_a_dotenv" not in r.stderr


def test_cli_allowed_hosts_must_be_a_json_array(tmp_path: Path) -> None:
    r = run_cli([], {"BAND_AGENT_KEY": "k", "ALLOWED_HOSTS": "localhost:*"}, tmp_path)
    assert r.returncode == 1
    assert 'SettingsError: error parsing value for field "allowed_hosts"' in r.stderr
    (tmp_path / ".env").write_text("ALLOWED_ORIGINS=http://x\n")
    r = run_cli([], {"BAND_AGENT_KEY": "k"}, tmp_path)
    assert r.returncode == 1
    assert 'SettingsError: error parsing value for field "allowed_origins"' in r.stderr


def test_cli_a_port_out_of_range_is_a_settings_error_not_a_traceback(tmp_path: Path) -> None:
    # before: bind() raised OverflowError in a traceback once the HTTP server started
    for argv, env, origin, message in (
        (["-t", "sse", "--port", "99999"], {}, "cli", "less than or equal to 65535"),
        (["-t", "streamable-http", "-p", "0"], {}, "cli", "greater than or equal to 1"),
        (["-t", "sse"], {"PORT": "70000"}, "EnvSettingsSource", "less than or equal to 65535"),
    ):
        r = run_cli(argv, {"BAND_AGENT_KEY": "k", **env}, tmp_path)
        assert r.returncode == 1 and "Traceback" not in r.stderr, r.stderr
        expected = f'SettingsError: error parsing value for field "port" from source "{origin}"'
        assert expected in r.stderr and message in r.stderr, r.stderr


def test_cli_version_help_and_usage_errors(tmp_path: Path) -> None:
    r = run_cli(["--version"], {}, tmp_path)
    assert (r.returncode, r.stdout.strip()) == (0, "band-mcp 2.2.7")
    r = run_cli(["--help"], {}, tmp_path)
    assert r.returncode == 0
    flags = (
        "--user-key --agent-key --scope --tools --room-id --transport -t --host --port -p "
        "--version BAND_USER_KEY BAND_AGENT_KEY BAND_MCP_SCOPE BAND_MCP_TOOLS BAND_MCP_ROOM_ID "
        "BAND_BASE_URL TRANSPORT HOST PORT ENABLE_DNS_REBINDING_PROTECTION ALLOWED_HOSTS "
        "ALLOWED_ORIGINS BAND_LOG_LEVEL streamable-http"
    )
    for flag in flags.split():
        assert flag in r.stdout, flag
    assert "\x1b[" not in r.stdout
    r = run_cli(["-t", "carrier-pigeon"], {"BAND_AGENT_KEY": "k"}, tmp_path)
    assert r.returncode == 2 and "invalid choice: 'carrier-pigeon'" in r.stderr
    r = run_cli(["--bogus"], {"BAND_AGENT_KEY": "k"}, tmp_path)
    assert r.returncode == 2 and "unrecognized arguments: --bogus" in r.stderr


RAW_STDIO_SESSION = [
    {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {
            "protocolVersion": "2025-06-18",
            "capabilities": {},
            "clientInfo": {"name": "raw", "version": "0"},
        },
    },
    {"jsonrpc": "2.0", "method": "notifications/initialized"},
    {"jsonrpc": "2.0", "id": 2, "method": "tools/list"},
]


def _stdio_server(cwd: Path) -> subprocess.Popen[str]:
    """band-mcp on stdio with an agent key and an unreachable platform, all pipes ours."""
    proc = subprocess.Popen(
        band_mcp(),
        env=server_env(BAND_AGENT_KEY="band_a_secret_key", BAND_BASE_URL="http://127.0.0.1:9"),
        cwd=cwd,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdin is not None and proc.stdout is not None
    return proc


def test_cli_stdio_stdout_carries_only_the_protocol(tmp_path: Path) -> None:
    """Logs go to stderr; closing stdin ends the server normally (exit 0)."""
    proc = _stdio_server(tmp_path)
    assert proc.stdin is not None and proc.stdout is not None
    watchdog = threading.Timer(60, proc.kill)  # a hung server fails the test, not the run
    watchdog.start()
    replies = []
    try:
        for message in RAW_STDIO_SESSION:
            proc.stdin.write(json.dumps(message) + "\n")
            proc.stdin.flush()
            if "id" in message:  # wait for the answer: closing stdin early would cut it off
                replies.append(json.loads(proc.stdout.readline()))
    finally:
        watchdog.cancel()
    out, err = proc.communicate(timeout=60)  # closes stdin: a normal end
    assert proc.returncode == 0, err
    assert out == ""
    assert [r["id"] for r in replies] == [1, 2]
    assert replies[0]["result"]["serverInfo"]["name"] == "band-mcp-server"
    assert len(replies[1]["result"]["tools"]) == 9
    assert "Starting band-mcp-server v2.2.7" in err and "Resolved tools: <none>" in err
    assert "band_a_secret_key" not in err


def test_cli_stdio_client_that_stops_reading_is_a_normal_end(tmp_path: Path) -> None:
    """A client that closes its end of stdout ends the session: exit 0, one line, no traceback."""
    proc = _stdio_server(tmp_path)
    assert proc.stdout is not None
    proc.stdout.close()  # the client is gone before the server can answer
    session = "".join(json.dumps(m) + "\n" for m in RAW_STDIO_SESSION)
    _, err = proc.communicate(session, timeout=60)
    assert proc.returncode == 0, err
    assert "the MCP client closed the stdio pipes; stopping" in err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert "band_a_secret_key" not in err
