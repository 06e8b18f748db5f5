"""ACPClientAdapterConfig validation, flatten_select_options and locate_model_options."""

from __future__ import annotations

import pytest
from acp.schema import (
    HttpMcpServer,
    SessionConfigOptionBoolean,
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
)
from pydantic import ValidationError

from band.integrations.acp.config import ACPClientAdapterConfig, ACPRetentionConfig
from band.integrations.acp.config_options import flatten_select_options
from band.integrations.acp.model_selection import (
    MODEL_CATEGORY,
    THOUGHT_LEVEL_CATEGORY,
    ACPModelOptions,
    locate_model_options,
)


def error_text(exc: pytest.ExceptionInfo[ValidationError]) -> list[str]:
    return [e["msg"] for e in exc.value.errors()]


def test_defaults() -> None:
    cfg = ACPClientAdapterConfig(command=["agent", "acp"])
    assert cfg.command == ("agent", "acp")
    assert cfg.env is None and cfg.cwd is None and cfg.mcp_servers == ()
    assert cfg.inject_band_tools is True and cfg.auth_method is None
    assert cfg.custom_section == "" and cfg.use_unstable_protocol is False
    assert cfg.turn_timeout_s == 300.0
    assert cfg.model is None and cfg.reasoning_effort is None
    assert cfg.retention.idle_timeout_s is None


def test_plain_string_command_is_one_argv_element() -> None:
    assert ACPClientAdapterConfig(command="npx @zed/codex-acp").command == ("npx @zed/codex-acp",)


@pytest.mark.parametrize("kwargs", [{"command": []}, {"command": ""}, {"command": [""]}, {}])
def test_empty_or_missing_command(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError) as err:
        ACPClientAdapterConfig(**kwargs)  # type: ignore[arg-type]
    assert "Value error, ACP stdio transport requires a command" in error_text(err)


@pytest.mark.parametrize(
    "kwargs", [{"host": "127.0.0.1"}, {"port": 9000}, {"host": "h", "port": 1}]
)
def test_tcp_transport_is_refused(kwargs: dict[str, object]) -> None:
    with pytest.raises(ValidationError) as err:
        ACPClientAdapterConfig(command=["a"], **kwargs)  # type: ignore[arg-type]
    assert error_text(err) == [
        "Value error, TCP ACP transport cannot guarantee room process isolation"
    ]


def test_idle_retention_is_refused() -> None:
    with pytest.raises(ValidationError) as err:
        ACPClientAdapterConfig(command=["a"], retention=ACPRetentionConfig(idle_timeout_s=60))
    assert error_text(err) == [
        "Value error, Idle retention is unavailable: ACP end_turn and loadSession do not "
        "establish whole-session inactivity or non-cancelling shutdown. "
        "Leave retention.idle_timeout_s unset."
    ]
    with pytest.raises(ValidationError):
        ACPClientAdapterConfig(command=["a"], retention={"idle_timeout_s": 1.0})  # type: ignore[arg-type]


@pytest.mark.parametrize("value", [0, -1.5])
def test_turn_timeout_must_be_positive(value: float) -> None:
    with pytest.raises(ValidationError):
        ACPClientAdapterConfig(command=["a"], turn_timeout_s=value)


def test_unknown_field_is_refused() -> None:
    with pytest.raises(ValidationError):
        ACPClientAdapterConfig(command=["a"], turn_timeout=5)  # type: ignore[call-arg]


def test_mcp_servers_validate_into_acp_shapes() -> None:
    cfg = ACPClientAdapterConfig(
        command=["a"],
        mcp_servers=[{"type": "http", "name": "x", "url": "http://127.0.0.1:1/mcp", "headers": []}],  # type: ignore[list-item]
    )
    assert isinstance(cfg.mcp_servers[0], HttpMcpServer)


def test_flatten_select_options_expands_groups_in_order() -> None:
    a, b, c = (SessionConfigSelectOption(value=v, name=v.upper()) for v in "abc")
    group = SessionConfigSelectGroup(group="g", name="G", options=[b, c])
    assert flatten_select_options([a, group]) == (a, b, c)
    assert flatten_select_options([]) == ()


def _select(option_id: str, category: str | None) -> SessionConfigOptionSelect:
    values = [SessionConfigSelectOption(value="a", name="A")]
    return SessionConfigOptionSelect(
        id=option_id,
        name=option_id,
        category=category,
        current_value="a",
        options=values,
        type="select",
    )


def test_model_options_are_found_by_their_reserved_categories() -> None:
    assert (MODEL_CATEGORY, THOUGHT_LEVEL_CATEGORY) == ("model", "thought_level")
    toggle = SessionConfigOptionBoolean(
        id="fast", name="Fast", category="model", current_value=False, type="boolean"
    )
    model, other_model = _select("m", "model"), _select("m2", "model")
    effort, mode = _select("e", "thought_level"), _select("mode", "mode")
    found = locate_model_options([toggle, mode, model, effort, other_model])
    assert found == ACPModelOptions(model=model, effort=effort)  # the first select of each
    assert locate_model_options([mode]) == ACPModelOptions(model=None, effort=None)
