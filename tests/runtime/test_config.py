"""agent_config.yaml loading (exact errors), platform settings, Agent.create / from_config."""

from __future__ import annotations

import logging
import os
from pathlib import Path
from typing import Any

import pytest

from band import Agent, AgentConfig, SessionConfig
from band.client import DEFAULT_REST_URL as client_default
from band.config import (
    DEFAULT_REST_URL,
    DEFAULT_WS_URL,
    PlatformSettings,
    get_config_path,
    load_agent_config,
)
from band.config.env import DEFAULT_BAND_URL, FALSE_VALUES, TRUE_VALUES, env_flag
from band.core import BandConfigError, SimpleAdapter
from band.core.exceptions import StartupError
from band.mcp.config import DEFAULT_BASE_URL as mcp_default
from band.mcp.config import load_settings
from band.runtime.tools.files import AttachmentCache
from band_sdk_core import _compat as core_compat


class Noop(SimpleAdapter[Any]):
    async def on_message(self, *args: Any, **kwargs: Any) -> None:
        return None


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "agent_config.yaml"
    path.write_text(text)
    return path


def test_keyed_and_flat_layouts(tmp_path: Path) -> None:
    keyed = write(
        tmp_path, "a:\n  agent_id: id-a\n  api_key: key-a\nb:\n  agent_id: id-b\n  api_key: key-b\n"
    )
    assert load_agent_config("b", config_path=keyed) == ("id-b", "key-b")
    flat = write(tmp_path, "agent_id: id-f\napi_key: key-f\nrole: worker\n")
    assert load_agent_config("anything", config_path=flat) == ("id-f", "key-f")


@pytest.mark.skipif(os.name != "posix", reason="POSIX mode bits")
def test_a_key_file_other_users_can_read_is_warned_of_once_read(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    path = write(tmp_path, "a:\n  agent_id: id-a\n  api_key: band_a_secret\n")
    for mode, warned in ((0o644, True), (0o640, True), (0o600, False), (0o400, False)):
        os.chmod(path, mode)
        caplog.clear()
        with caplog.at_level(logging.WARNING, logger="band.config"):
            assert load_agent_config("a", config_path=path) == ("id-a", "band_a_secret")
        said = [r.getMessage() for r in caplog.records if r.levelno == logging.WARNING]
        if warned:
            assert said == [
                f"{path} holds API keys and other users can read it (mode {mode:04o}): "
                f"chmod 600 {path}"
            ]
        else:
            assert said == []
        assert all("band_a_secret" not in r.getMessage() for r in caplog.records)


def test_default_path_is_the_working_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert get_config_path() == tmp_path / "agent_config.yaml"
    write(tmp_path, "my_agent:\n  agent_id: i\n  api_key: k\n")
    assert load_agent_config("my_agent") == ("i", "k")


def test_a_patched_get_config_path_is_what_is_read(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """band-sdk's get_config_path takes no argument; code patching it that way still works."""
    import band.config.loader as loader

    elsewhere = write(tmp_path, "my_agent:\n  agent_id: p\n  api_key: q\n")
    monkeypatch.setattr(loader, "get_config_path", lambda: elsewhere)
    assert load_agent_config("my_agent") == ("p", "q")
    with pytest.raises(TypeError):
        get_config_path(elsewhere)  # type: ignore[call-arg]


def test_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "nope.yaml"
    with pytest.raises(FileNotFoundError) as err:
        load_agent_config("a", config_path=path)
    assert str(err.value) == (
        f"Config file not found at {path}.\n`band dev agent create NAME --config nope.yaml` "
        "registers an agent on band dev and writes it; for Band Cloud, write `NAME: {agent_id: "
        '..., api_key: ...}` from its "Connect remote agent" dialog.'
    )
    assert isinstance(err.value, StartupError)


@pytest.mark.parametrize("text", ["", "other:\n  agent_id: x\n  api_key: y\n"])
def test_agent_not_found(tmp_path: Path, text: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(ValueError) as err:
        load_agent_config("a", config_path=path)
    found = "'other'" if text else "none"
    assert str(err.value) == (
        f"Agent 'a' not found in {path}. Please add the agent configuration.\n"
        f"Agents found there: {found}."
    )
    assert isinstance(err.value, StartupError)


@pytest.mark.parametrize(
    ("entry", "missing"),
    [
        ("  role: x\n", "agent_id, api_key"),
        ("  agent_id: x\n", "api_key"),
        ("  agent_id: ''\n  api_key: k\n", "agent_id"),
    ],
)
def test_missing_fields(tmp_path: Path, entry: str, missing: str) -> None:
    path = write(tmp_path, "a:\n" + entry)
    with pytest.raises(ValueError) as err:
        load_agent_config("a", config_path=path)
    assert str(err.value) == (
        f"Missing required fields for agent 'a': {missing}. Please create a remote agent "
        f"on the platform and add the credentials to {path}"
    )


@pytest.mark.parametrize(
    ("text", "detail"),
    [("a: [\n", "while parsing"), ("- 1\n", "'list' object has no attribute 'get'")],
)
def test_other_failures(tmp_path: Path, text: str, detail: str) -> None:
    path = write(tmp_path, text)
    with pytest.raises(RuntimeError) as err:
        load_agent_config("a", config_path=path)
    assert str(err.value).startswith("Error loading agent config: ")
    assert detail in str(err.value)


def test_settings_defaults_env_and_arguments() -> None:
    assert PlatformSettings.from_env({}) == PlatformSettings(DEFAULT_REST_URL, DEFAULT_WS_URL)
    assert DEFAULT_REST_URL == "https://app.band.ai"
    assert DEFAULT_WS_URL == "wss://app.band.ai/api/v1/socket/websocket"
    env = {"band_rest_url": "http://r", "BAND_WS_URL": ""}  # case-insensitive; empty = unset
    settings = PlatformSettings.from_env(env)
    assert settings == PlatformSettings("http://r", DEFAULT_WS_URL)
    assert settings.resolve(ws_url="ws://w", rest_url=None) == PlatformSettings(
        "http://r", "ws://w"
    )


def test_settings_take_band_sdks_keyword_names_and_read_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """band-sdk's PlatformSettings is a settings model: PlatformSettings() reads the
    environment, BAND_REST_URL=/BAND_WS_URL= set a URL, and they are its attributes."""
    monkeypatch.delenv("BAND_REST_URL", raising=False)
    monkeypatch.setenv("band_ws_url", "ws://from-env")  # any case, as pydantic-settings
    settings = PlatformSettings()
    assert (settings.BAND_REST_URL, settings.BAND_WS_URL) == (DEFAULT_REST_URL, "ws://from-env")
    assert (settings.rest_url, settings.ws_url) == (DEFAULT_REST_URL, "ws://from-env")
    given = PlatformSettings(BAND_REST_URL="http://r", BAND_WS_URL="ws://w")
    assert given == PlatformSettings("http://r", "ws://w")
    # an explicit Cloud URL wins over the environment, as a keyword does in band-sdk
    assert PlatformSettings(BAND_WS_URL=DEFAULT_WS_URL).ws_url == DEFAULT_WS_URL
    monkeypatch.delenv("band_ws_url")
    monkeypatch.setenv("BAND_WS_URL", " ")  # blank counts as unset
    assert PlatformSettings().ws_url == DEFAULT_WS_URL


def test_one_flag_rule_and_one_default_url(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every flag reader (band's, the core's, band-mcp's bool) agrees on what turns a flag on."""
    assert core_compat.TRUE_VALUES == TRUE_VALUES
    for value in ("1", "true", "YES", " on ", "t", "Y"):
        assert env_flag("X", {"x": value}) and core_compat_flag(monkeypatch, value)
        assert dns_protection(value) is True
    for value in ("", "  ", "0", "false", "no", "off", "2", "enabled"):
        assert not env_flag("X", {"X": value}) and not core_compat_flag(monkeypatch, value)
    for value in ("0", "false", "No", "off", "f", "n"):
        assert dns_protection(value) is False
        # a flag on by default (BAND_UVLOOP) is off for exactly pydantic's False strings
        assert value.lower() in FALSE_VALUES and not env_flag("X", {"X": value}, default=True)
    for value in ("", "1", "on", "2", "enabled"):
        assert env_flag("X", {"X": value}, default=True)
    assert not env_flag("X", {})
    assert env_flag("X", {}, default=True)
    # the Band Cloud URL is written once; the client, the settings and band-mcp all use it
    assert DEFAULT_REST_URL == DEFAULT_BAND_URL == client_default == mcp_default
    assert DEFAULT_WS_URL.startswith(DEFAULT_BAND_URL.replace("https://", "wss://") + "/")


def dns_protection(value: str) -> bool:
    """band-mcp's pydantic-settings bool for ``value`` (its default is on)."""
    settings = load_settings({"ENABLE_DNS_REBINDING_PROTECTION": value}, {})
    return settings.enable_dns_rebinding_protection


def core_compat_flag(monkeypatch: pytest.MonkeyPatch, value: str) -> bool:
    """The core's own reader, given ``value`` under a lower-case name (names match any case)."""
    monkeypatch.setenv("band_sdk_core_test_flag", value)
    return core_compat.env_flag("BAND_SDK_CORE_TEST_FLAG")


def test_create_reads_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BAND_REST_URL", "http://127.0.0.1:1")
    monkeypatch.setenv("BAND_WS_URL", "")
    agent = Agent.create(adapter=Noop(), agent_id="a", api_key="k")
    assert agent.runtime.rest.base_url == "http://127.0.0.1:1"
    assert agent.runtime.phoenix.url.startswith(DEFAULT_WS_URL + "?")
    explicit = Agent.create(adapter=Noop(), agent_id="a", api_key="k", rest_url="http://x")
    assert explicit.runtime.rest.base_url == "http://x"


def test_create_rejects_bad_arguments() -> None:
    with pytest.raises(BandConfigError, match="agent_id must be a non-empty string"):
        Agent.create(adapter=Noop(), agent_id="", api_key="k")
    with pytest.raises(BandConfigError, match="api_key must be a non-empty string"):
        Agent.create(adapter=Noop(), agent_id="a", api_key=" ")
    with pytest.raises(BandConfigError, match="adapter must be a SimpleAdapter"):
        Agent.create(adapter=object(), agent_id="a", api_key="k")  # type: ignore[arg-type]


def test_from_config_passes_options(tmp_path: Path) -> None:
    path = write(tmp_path, "my_agent:\n  agent_id: id-1\n  api_key: key-1\n")
    session = SessionConfig(max_message_retries=3)
    agent = Agent.from_config(
        "my_agent", adapter=Noop(), config_path=path, rest_url="http://r", session_config=session
    )
    assert agent.runtime.agent_id == "id-1"
    assert agent.runtime.session_config is session
    assert agent.runtime.rest.base_url == "http://r"
    assert isinstance(agent.runtime.config, AgentConfig)
    with pytest.raises(ValueError, match="Agent 'other' not found"):
        Agent.from_config("other", adapter=Noop(), config_path=path)


def test_session_config_validates() -> None:
    assert SessionConfig().report_turn_failures_to_room is True
    assert SessionConfig().max_message_retries == 1
    with pytest.raises(ValueError):
        SessionConfig(idle_resync_seconds=0)
    with pytest.raises(ValueError):
        SessionConfig(unknown=1)  # type: ignore[call-arg]
    with pytest.raises(ValueError, match=r"working_keep_alive_seconds must be above 0 and below 5"):
        SessionConfig(working_keep_alive_seconds=0)  # a report in a busy loop
    with pytest.raises(ValueError, match=r"below working_keep_alive_seconds \(1\.5\)"):
        SessionConfig(working_keep_alive_seconds=1.5)  # the 2 s report timeout overlaps
    with pytest.raises(ValueError, match="max_cycle_seconds must be above 0 when set"):
        SessionConfig(max_cycle_seconds=0)
    assert SessionConfig(enable_working_state=False, working_keep_alive_seconds=0)


def test_session_config_reads_the_fields_not_given_from_the_environment(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("max_context_messages", "20")
    monkeypatch.setenv("IDLE_RESYNC_SECONDS", "5")
    monkeypatch.setenv("REPORT_TURN_FAILURES_TO_ROOM", "")  # empty: unset
    config = SessionConfig(max_message_retries=2)
    assert (config.max_context_messages, config.idle_resync_seconds) == (20, 5.0)
    assert config.report_turn_failures_to_room is True and config.max_message_retries == 2
    assert SessionConfig(max_context_messages=9).max_context_messages == 9  # a keyword wins
    monkeypatch.setenv("max_context_messages", "many")
    with pytest.raises(ValueError, match="max_context_messages"):
        SessionConfig()


@pytest.mark.parametrize(
    ("name", "value", "size"),
    [
        ("BAND_ATTACHMENT_CACHE_MAXSIZE", "5", 5),
        ("band_attachment_cache_maxsize", " 7 ", 7),  # names match any case, values are stripped
        ("BAND_ATTACHMENT_CACHE_MAXSIZE", "  ", 1000),  # blank counts as unset
        ("BAND_ATTACHMENT_CACHE_MAXSIZE", "lots", 1000),  # not a number: the default, logged
        ("BAND_ATTACHMENT_CACHE_MAXSIZE", "-3", 0),
    ],
)
def test_attachment_cache_size_reads_the_shared_rule(
    monkeypatch: pytest.MonkeyPatch, name: str, value: str, size: int
) -> None:
    monkeypatch.delenv("BAND_ATTACHMENT_CACHE_MAXSIZE", raising=False)
    monkeypatch.setenv(name, value)
    assert AttachmentCache().maxsize == size
