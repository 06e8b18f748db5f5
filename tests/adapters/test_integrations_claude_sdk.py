"""band.integrations.claude_sdk (band-sdk 6.0.1's ``ClaudeSessionManager`` and
``generate_claude_sdk_agent_prompt``, ``ClaudeSDKAdapter``'s own): one real Claude Code CLI
(``make claude-code``) per room, kept across messages, resumed, closed; its model
band.testing's ScriptedModel (the Anthropic Messages API)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("claude_agent_sdk", reason="the [claude-sdk] extra is not installed")

from claude_agent_sdk import AssistantMessage, ClaudeAgentOptions, ResultMessage, TextBlock

from band.core.types import AdapterFeatures
from band.integrations.claude_sdk import ClaudeSessionManager, generate_claude_sdk_agent_prompt
from band.integrations.claude_sdk.sessions import ClaudeSessionManagerStoppedError
from band.runtime.capabilities import Capability
from band.testing import ModelRequest, ScriptedModel, TextTurn

PREFIX = Path(
    os.environ.get("BAND_CLAUDE_CODE")
    or Path(os.environ.get("TMPDIR") or "/tmp", "band-claude-code")
)
CLAUDE = PREFIX / "node_modules" / "@anthropic-ai" / "claude-code" / "bin" / "claude.exe"
needs_cli = pytest.mark.skipif(
    not CLAUDE.exists(), reason=f"{CLAUDE} is missing: run make claude-code"
)


def _main_call(request: ModelRequest) -> bool:
    """A call of the conversation (Claude Code offers its tools), not one of its side calls
    (titles, summaries, quota probes)."""
    return "Bash" in request.tool_names


@pytest.fixture
def model(scripted_model: ScriptedModel) -> ScriptedModel:
    scripted_model.respond = lambda r: None if _main_call(r) else TextTurn("ok")
    return scripted_model


def _options(model: ScriptedModel, home: Path) -> ClaudeAgentOptions:
    home.mkdir(parents=True, exist_ok=True)
    env = {
        "HOME": str(home),
        "ANTHROPIC_BASE_URL": model.anthropic_base_url,
        "ANTHROPIC_API_KEY": model.api_key,
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    prompt = generate_claude_sdk_agent_prompt("Sessy", "A test agent")
    return ClaudeAgentOptions(
        model="claude-scripted", cwd=str(home), cli_path=str(CLAUDE), env=env, system_prompt=prompt
    )


async def _ask(manager: ClaudeSessionManager, room: str, text: str) -> tuple[str, Any]:
    """One turn in the room's session: the answer's text and the CLI that gave it."""
    session = manager.room(room)
    answer = ""
    async with session.using() as client:
        with session.listening() as stream:
            await client.query(f"[turn] {text}")
            async for message in stream.until_result():
                if isinstance(message, AssistantMessage):
                    answer += "".join(b.text for b in message.content if isinstance(b, TextBlock))
                last = message
    assert isinstance(last, ResultMessage) and not last.is_error
    return answer, client


def _conversation(model: ScriptedModel) -> list[ModelRequest]:
    return [r for r in model.requests if _main_call(r)]


@needs_cli
def test_a_rooms_session_is_kept_across_messages_and_closed_on_cleanup(
    model: ScriptedModel, tmp_path: Path
) -> None:
    model.script(TextTurn("first answer"), TextTurn("second answer"), TextTurn("other room"))
    disposed: list[str] = []

    async def main() -> None:
        manager = ClaudeSessionManager(
            _options(model, tmp_path / "home"), on_disposed=disposed.append
        )
        assert not manager.has_session("r1") and manager.get_session_count() == 0
        first, cli = await _ask(manager, "r1", "hello")
        assert first == "first answer"
        assert manager.has_session("r1") and manager.get_active_rooms() == ["r1"]
        second, again = await _ask(manager, "r1", "second question")
        assert second == "second answer" and again is cli  # the same CLI process
        texts = " | ".join(t for _, t in _conversation(model)[-1].messages)
        assert "hello" in texts and "first answer" in texts  # one conversation
        await _ask(manager, "r2", "elsewhere")
        assert (
            sorted(manager.get_active_rooms()) == ["r1", "r2"] and manager.get_session_count() == 2
        )
        await manager.cleanup_session("r1")
        assert disposed == ["r1"] and manager.session("r1") is None
        assert manager.get_active_rooms() == ["r2"]
        await manager.stop()
        assert manager.get_session_count() == 0 and disposed == ["r1", "r2"]
        with pytest.raises(ClaudeSessionManagerStoppedError):
            manager.room("r3")

    asyncio.run(main())


@needs_cli
def test_a_recovered_cli_is_replaced_and_resumes_the_conversation(
    model: ScriptedModel, tmp_path: Path
) -> None:
    model.script(TextTurn("the word is tangerine"), TextTurn("it was tangerine"), TextTurn("fresh"))

    async def main() -> None:
        manager = ClaudeSessionManager(_options(model, tmp_path / "home"))
        _, cli = await _ask(manager, "r1", "pick a word")
        session = manager.room("r1")
        conversation = session.session_id
        assert conversation and session.recover("a test asked")
        answer, replaced = await _ask(manager, "r1", "which word?")
        assert answer == "it was tangerine" and replaced is not cli
        texts = " | ".join(t for _, t in _conversation(model)[-1].messages)
        assert "pick a word" in texts and "tangerine" in texts  # resumed
        assert session.session_id == conversation
        assert session.recover("a crash", forget_session=True)
        await _ask(manager, "r1", "new start")
        texts = " | ".join(t for _, t in _conversation(model)[-1].messages)
        assert "pick a word" not in texts  # forgotten: a new conversation
        await manager.stop()

    asyncio.run(main())


@needs_cli
def test_the_room_factories_reach_the_cli(model: ScriptedModel, tmp_path: Path) -> None:
    model.script(TextTurn("here"))
    claimed: list[str] = []

    class Workspaces:
        def claim(self, room_id: str) -> Path:
            claimed.append(room_id)
            path = tmp_path / "rooms" / room_id
            path.mkdir(parents=True, exist_ok=True)
            return path

        def release(self, room_id: str) -> None:
            claimed.remove(room_id)

    async def main() -> None:
        manager = ClaudeSessionManager(
            _options(model, tmp_path / "home"),
            mcp_servers_factory=lambda room_id: {},
            workspaces=Workspaces(),
        )
        session = manager.room("r9")
        options = manager.options_for(session, 1, resume="abc")
        assert options.cwd == str(tmp_path / "rooms" / "r9") and options.resume == "abc"
        assert options.model == "claude-scripted"  # the base options, copied
        await _ask(manager, "r9", "where are you?")
        assert claimed == ["r9", "r9"]
        await manager.stop()
        assert claimed == ["r9"]  # released once on disposal

    asyncio.run(main())


def test_the_prompt_is_claude_codes_own_with_bands_appended() -> None:
    plain = generate_claude_sdk_agent_prompt("Sessy")
    assert plain["type"] == "preset" and plain["preset"] == "claude_code"
    assert "Sessy" in plain["append"] and "An AI assistant" in plain["append"]
    assert "band_store_memory" not in plain["append"]
    full = generate_claude_sdk_agent_prompt(
        "Sessy",
        "Keeps notes",
        custom_section="Always answer in French.",
        features=AdapterFeatures(capabilities=frozenset({Capability.MEMORY})),
    )
    assert "Keeps notes" in full["append"] and "Always answer in French." in full["append"]
    assert "band_store_memory" in full["append"]


@needs_cli
def test_a_cli_that_dies_between_turns_is_replaced_on_the_next_lease(
    model: ScriptedModel, tmp_path: Path
) -> None:
    model.script(TextTurn("the word is plum"), TextTurn("it was plum"))

    async def main() -> None:
        manager = ClaudeSessionManager(_options(model, tmp_path / "home"))
        _, cli = await _ask(manager, "r1", "pick a word")
        session = manager.room("r1")
        # the CLI process dies outside any turn (the SDK keeps it as its transport's process)
        cli._transport._process.kill()
        await asyncio.wait_for(_retired(session), 30)  # the reader saw the end
        assert await session.settled(0)  # nothing owed by a retired CLI
        answer, replaced = await _ask(manager, "r1", "which word?")
        assert answer == "it was plum" and replaced is not cli
        texts = " | ".join(t for _, t in _conversation(model)[-1].messages)
        assert "pick a word" in texts  # the conversation resumed
        await manager.stop()

    asyncio.run(main())


async def _retired(session: Any) -> None:
    """Until the room's reader has retired its dead CLI (checked each loop turn)."""
    while session._retire is None:
        await asyncio.sleep(0.01)
