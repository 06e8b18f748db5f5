"""``ClaudeSDKAdapter`` end to end: a real agent on band dev, the real Claude Agent SDK running
the real Claude Code CLI from npm (``make claude-code``), its model band.testing's ScriptedModel
(the Anthropic Messages API)."""

from __future__ import annotations

import os
import time
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("claude_agent_sdk", reason="the [claude-sdk] extra is not installed")

from band.adapters import (
    ClaudeApprovalOptions,
    ClaudeCLIOptions,
    ClaudePermissionMode,
    ClaudeSDKAdapter,
    ClaudeSDKAdapterConfig,
)
from band.core.types import Emit
from band.runtime.sessionconfig import SessionConfig
from band.testing import (
    ErrorTurn,
    LocalBand,
    ModelRequest,
    ScriptedModel,
    TextTurn,
    ToolTurn,
)

from .framework_helpers import (
    act_tool_turn,
    events,
    failed_turn,
    interrupt,
    missing_extra,
    script_agent,
    settled,
    start,
)

# npm's Claude Code CLI, in the prefix `make claude-code` fills (not the ACP agents' prefix)
PREFIX = Path(
    os.environ.get("BAND_CLAUDE_CODE")
    or Path(os.environ.get("TMPDIR") or "/tmp", "band-claude-code")
)
CLAUDE = PREFIX / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"

pytestmark = pytest.mark.skipif(
    not CLAUDE.exists(), reason=f"{CLAUDE} is missing: run make claude-code"
)


def _main_call(request: ModelRequest) -> bool:
    """A call of the agent's conversation (it offers the Band tools), not one of Claude Code's
    side calls (titles, summaries, quota probes)."""
    return any(name.endswith("band_send_message") for name in request.tool_names)


@pytest.fixture
def model(scripted_model: ScriptedModel) -> ScriptedModel:
    # Claude Code's side calls get a short text; the script answers the conversation's calls
    scripted_model.respond = lambda r: None if _main_call(r) else TextTurn("ok")
    return scripted_model


def _main(model: ScriptedModel) -> list[ModelRequest]:
    return [r for r in model.requests if _main_call(r)]


def _config(model: ScriptedModel, home: Path, key: str | None = None, **kw: Any) -> Any:
    env = {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": model.anthropic_base_url,
        "ANTHROPIC_API_KEY": key or model.api_key,
        # nothing but the model API, and the Band tools offered directly (not deferred)
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "ENABLE_TOOL_SEARCH": "false",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    home.mkdir(parents=True, exist_ok=True)
    return ClaudeSDKAdapterConfig(
        model="claude-scripted",
        cwd=home,
        cli=ClaudeCLIOptions(cli_path=str(CLAUDE), env=env),
        **kw,
    )


def _adapter(model: ScriptedModel, home: Path, key: str | None = None, **kw: Any) -> Any:
    config = kw.pop("config", {})
    return ClaudeSDKAdapter(_config(model, home, key, **config), **kw)


def test_a_reply_a_band_tool_and_the_second_turn_in_the_same_session(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    model.script(
        ToolTurn("band_send_message", {"content": "echo: hello", "mentions": ["@local"]}),
        TextTurn("All done."),
        TextTurn("second answer"),
    )
    adapter = _adapter(model, tmp_path / "home", emit=Emit.TOOL_CALLS)
    bot, room = start(band_platform, adapter, name="Claudia")
    mid = room.say("hello", mention=bot)
    reply = room.wait_for_reply(bot, after=mid, timeout=120)
    settled(room, mid, bot, "processed")
    assert reply.text == "echo: hello"
    first = _main(model)[0]
    assert "Claudia" in (first.system or "")
    assert "mcp__band__band_send_message" in first.tool_names
    [call] = [c for c in events(room, bot, "tool_call") if c["name"] == "band_send_message"]
    [result] = [c for c in events(room, bot, "tool_result") if c["name"] == "band_send_message"]
    assert reply.id in result["output"] and not result["is_error"]
    assert call["args"]["content"] == "echo: hello"
    mid = room.say("second question", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=120).text == "second answer"
    texts = " | ".join(text for _, text in _main(model)[-1].messages)
    assert "hello" in texts and "second question" in texts  # one session: it saw the first turn
    assert [m.text for m in room.messages_from(bot)] == ["echo: hello", "second answer"]
    sessions = [m for m in room.messages_from(bot, "task") if "claude_sdk_session_id" in m.metadata]
    assert len(sessions) == 1 and adapter.live_processes == 1


@pytest.mark.parametrize("window", [None, 0.0])
def test_a_repeated_send_within_the_window_posts_once(
    window: float | None, model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    """The same band_send_message twice (as a CLI retry issues it): one post by default
    (band-sdk's 30 s window), both with the window off."""
    again = ToolTurn("band_send_message", {"content": "on it", "mentions": ["@local"]})
    model.script(again, again, TextTurn("All done."))
    config = {} if window is None else {"send_message_dedup_ttl_seconds": window}
    bot, room = start(band_platform, _adapter(model, tmp_path / "home", config=config))
    mid = room.say("hello", mention=bot)
    settled(room, mid, bot, "processed", timeout=120)
    posts = [m.text for m in room.messages_from(bot)]
    first, second = [r.tool_results[-1][1] for r in _main(model)[1:3]]
    if window is None:
        assert posts == ["on it"] and second == first  # the repeat got the first one's answer
    else:
        assert posts == ["on it", "on it"] and second != first


def test_a_custom_tool_declared_act_completes_the_turn(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    act_tool_turn(
        band_platform, model, lambda t: _adapter(model, tmp_path / "home", additional_tools=t)
    )


@pytest.mark.parametrize(("status", "key"), [(500, None), (401, "wrong-key")], ids=["5xx", "401"])
def test_a_model_error_is_the_error_event_with_the_official_failure(
    status: int, key: str | None, model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    if status == 500:
        model.respond = lambda r: ErrorTurn(status=500) if _main_call(r) else TextTurn("ok")
    failed_turn(band_platform, _adapter(model, tmp_path / "home", key=key), "claude_sdk")


def test_an_interrupt_cancels_the_run(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    model.script(TextTurn("too late", delay=60), TextTurn("after the interrupt"))
    bot, room = start(band_platform, _adapter(model, tmp_path / "home"))
    mid = room.say("take your time", mention=bot)
    room.wait_for(lambda _: len(_main(model)) >= 1, timeout=120)
    interrupt(room, bot)
    room.wait_for(lambda _: room.delivery_status(mid, bot) not in (None, "processing", "pending"))
    mid = room.say("are you there?", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=120).text == "after the interrupt"
    assert "too late" not in [m.text for m in room.messages_from(bot)]


def test_a_restart_resumes_the_room_s_session(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    model.script(TextTurn("the code word is tangerine"), TextTurn("it was tangerine"))
    handle = band_platform.register_agent("Resumer")
    once = SessionConfig(max_message_retries=0)
    bot = band_platform.run_agent(_adapter(model, home), handle=handle, session_config=once)
    room = band_platform.room(handle)
    mid = room.say("pick a code word", mention=bot)
    room.wait_for_reply(bot, after=mid, timeout=120)
    bot.stop()  # the CLI process stops with the agent
    bot = band_platform.run_agent(_adapter(model, home), handle=handle, session_config=once)
    mid = room.say("which code word?", mention=bot)
    assert room.wait_for_reply(bot, after=mid, timeout=120).text == "it was tangerine"
    texts = " | ".join(text for _, text in _main(model)[-1].messages)
    assert "pick a code word" in texts and "the code word is tangerine" in texts
    sessions = {
        m.metadata["claude_sdk_session_id"]
        for m in room.messages_from(bot, "task")
        if "claude_sdk_session_id" in m.metadata
    }
    assert len(sessions) == 1  # the same session, resumed


def test_an_approval_round_trip_runs_the_native_tool(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    model.script(
        ToolTurn("Bash", {"command": "echo approved-run > proof.txt", "description": "write"}),
        ToolTurn("band_send_message", {"content": "wrote it", "mentions": ["@local"]}),
        TextTurn(""),
    )
    config = {
        "permission_mode": ClaudePermissionMode.DEFAULT,
        "approvals": ClaudeApprovalOptions(mode="manual"),
    }
    adapter = _adapter(model, home, config=config, emit=Emit.TOOL_CALLS)
    bot, room = start(band_platform, adapter)
    mid = room.say("write the proof", mention=bot)
    prompt = room.wait_for_reply(bot, after=mid, timeout=120)
    assert "/approve" in prompt.text
    token = prompt.text.split("/approve ", 1)[1].split("`")[0]
    assert not (home / "proof.txt").exists()
    mid = room.say(f"/approve {token}", mention=bot)
    reply = room.wait_for(
        lambda _: next((m for m in room.messages_from(bot) if m.text == "wrote it"), None),
        timeout=120,
    )
    assert reply.text == "wrote it"
    assert (home / "proof.txt").read_text().strip() == "approved-run"
    [result] = [r for r in events(room, bot, "tool_result") if r["name"] == "Bash"]
    assert not result["is_error"]


def test_config_checks() -> None:
    with pytest.raises(ValueError, match="adapter-owned"):
        ClaudeCLIOptions(extra_args={"resume": "x"})
    with pytest.raises(ValueError, match="dontAsk"):
        ClaudeSDKAdapterConfig(
            permission_mode=ClaudePermissionMode.DONT_ASK,
            approvals=ClaudeApprovalOptions(mode="manual"),
        )


def test_without_the_extra_the_import_names_it() -> None:
    missing_extra("claude_agent_sdk", "ClaudeSDKAdapter ClaudeCLIOptions", "claude-sdk")


ROOT = Path(__file__).resolve().parents[2]


def _cli_env(model: ScriptedModel, home: Path) -> dict[str, str]:
    home.mkdir(parents=True, exist_ok=True)
    return {
        "HOME": str(home),
        "CLAUDE_CLI": str(CLAUDE),
        "ANTHROPIC_BASE_URL": model.anthropic_base_url,
        "ANTHROPIC_API_KEY": model.api_key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "ENABLE_TOOL_SEARCH": "false",
    }


def test_the_example_asks_for_approval_in_the_room(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    # (a command that writes: Claude Code runs read-only ones without asking)
    model.script(ToolTurn("Bash", {"command": "date > now.txt", "description": "check"}))
    env = _cli_env(model, tmp_path / "home")
    script = ROOT / "examples" / "claude_sdk_agent.py"
    with script_agent(band_platform, env, script, tmp_path, "Claudette") as (handle, room):
        mid = room.say("check something", mention=handle)
        prompt = room.wait_for_reply(handle, after=mid, timeout=120)
        assert "/approve" in prompt.text and "Bash" in prompt.text
    assert "You keep answers short." in (_main(model)[0].system or "")


def test_a_script_written_for_the_official_constructor_runs_unchanged(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    model.script(
        ToolTurn("fileticket", {"title": "printer jam"}),
        ToolTurn("band_send_message", {"content": "filed", "mentions": ["@local"]}),
        TextTurn(""),
    )
    env = {**_cli_env(model, tmp_path / "home"), "WORKSPACES": str(tmp_path / "rooms")}
    script = ROOT / "tests" / "compat" / "scripts" / "claude_sdk_dropin.py"
    with script_agent(band_platform, env, script, tmp_path, "Dropin") as (handle, room):
        mid = room.say("file a ticket", mention=handle)
        assert room.wait_for_reply(handle, after=mid, timeout=120).text == "filed"
    first = _main(model)[0]
    assert "mcp__band__fileticket" in first.tool_names
    assert "mcp__band__band_list_tasks" in first.tool_names
    assert (tmp_path / "rooms").is_dir()  # the room's own workspace is Claude's cwd


def _cli_processes(cwd: Path) -> list[int]:
    """The Claude Code CLI processes running in ``cwd``."""
    pids = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        try:
            if "claude" in (proc / "cmdline").read_text() and (proc / "cwd").resolve() == cwd:
                pids.append(int(proc.name))
        except OSError:
            continue
    return pids


def test_cli_processes_are_bounded_and_stopped_with_the_agent(
    model: ScriptedModel, band_platform: LocalBand, tmp_path: Path
) -> None:
    home = (tmp_path / "home").resolve()
    model.script(TextTurn("one"), TextTurn("two"), TextTurn("one again"))
    adapter = _adapter(model, home, config={"max_live_processes": 1})
    bot, first = start(band_platform, adapter)
    second = band_platform.room(bot)
    mid = first.say("first room", mention=bot)
    first.wait_for_reply(bot, after=mid, timeout=120)
    mid = second.say("second room", mention=bot)
    second.wait_for_reply(bot, after=mid, timeout=120)
    assert adapter.live_processes == 1 and len(_cli_processes(home)) == 1
    mid = first.say("first room again", mention=bot)
    assert first.wait_for_reply(bot, after=mid, timeout=120).text == "one again"
    texts = " | ".join(text for _, text in _main(model)[-1].messages)
    assert "first room" in texts and "second room" not in texts  # its own session, resumed
    bot.stop()  # the agent stops: every room's CLI process with it
    assert adapter.live_processes == 0
    deadline = time.monotonic() + 30
    while _cli_processes(home) and time.monotonic() < deadline:
        time.sleep(0.1)  # the process exits after its stdin closed
    assert _cli_processes(home) == []
