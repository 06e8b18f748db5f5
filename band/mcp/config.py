"""band-mcp configuration: CLI flags over the environment over ``.env``, resolved and validated."""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import TypeVar

from dotenv import dotenv_values
from pydantic import Field, ValidationError, field_validator
from pydantic_settings import (
    BaseSettings,
    DotEnvSettingsSource,
    EnvSettingsSource,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
)

# pydantic-settings' own error for a setting that cannot be parsed (band-mcp exits with code 1)
from pydantic_settings import SettingsError as SettingsError

from band.config.env import DEFAULT_BAND_URL
from band.core.types import Capability
from band.runtime.tools.spec import Surface

DEFAULT_BASE_URL = DEFAULT_BAND_URL
DEFAULT_HOST = "127.0.0.1"
_E = TypeVar("_E", bound=StrEnum)
DEFAULT_PORT = 8000


#: ``--scope`` values: the tool surfaces (each needs its own key).
SCOPES: tuple[Surface, ...] = (Surface.AGENT, Surface.HUMAN)
#: ``--tools`` values: the tool groups band-mcp offers on top of each scope's base tools (the
#: SDK's capabilities by value; room files are not served).
TOOL_GROUPS: tuple[Capability, ...] = (Capability.CONTACTS, Capability.MEMORY, Capability.TASKS)


class Transport(StrEnum):
    """How MCP clients reach the server."""

    STDIO = "stdio"
    SSE = "sse"
    STREAMABLE_HTTP = "streamable-http"


#: Settings that may come from ``.env``; keys, scopes, groups and the pinned room never do.
DOTENV_FIELDS = (
    "BAND_BASE_URL",
    "TRANSPORT",
    "HOST",
    "PORT",
    "ENABLE_DNS_REBINDING_PROTECTION",
    "ALLOWED_HOSTS",
    "ALLOWED_ORIGINS",
)


class ConfigError(Exception):
    """A configuration that cannot serve any tool: the CLI exits with code 2."""


class Settings(BaseSettings):
    """Process settings: CLI flag, else environment, else ``.env``, else the default."""

    model_config = SettingsConfigDict(
        case_sensitive=False, extra="ignore", env_ignore_empty=True, frozen=True
    )

    band_base_url: str = DEFAULT_BASE_URL
    transport: Transport = Transport.STDIO
    host: str = DEFAULT_HOST
    # checked here, not by the socket: bind() raised OverflowError in a traceback for 99999
    port: int = Field(DEFAULT_PORT, ge=1, le=65535)
    enable_dns_rebinding_protection: bool = True
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        """Only the given values: :func:`load_settings` reads the environment and ``.env``."""
        return (init_settings,)

    @field_validator("*", mode="before")
    @classmethod
    def _strip(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value

    @field_validator("transport", mode="before")
    @classmethod
    def _lower(cls, value: object) -> object:
        return value.lower() if isinstance(value, str) else value

    @field_validator("band_base_url")
    @classmethod
    def _no_trailing_slash(cls, value: str) -> str:
        return value.rstrip("/")


@dataclass(frozen=True, slots=True)
class Config:
    """What the server serves: credentials, scopes, groups and the pinned room."""

    user_key: str | None = None
    agent_key: str | None = None
    room_id: str | None = None
    scope: tuple[Surface, ...] = (Surface.AGENT,)
    tools: tuple[Capability, ...] = ()
    warnings: tuple[str, ...] = field(default=())


def read_dotenv(path: Path) -> dict[str, str]:
    """The ``KEY=VALUE`` pairs of a ``.env`` file (python-dotenv's parser); {} when unreadable."""
    try:
        values = dotenv_values(path, encoding="utf-8") if path.is_file() else {}
    except (OSError, UnicodeDecodeError):
        return {}
    return {key: value for key, value in values.items() if value is not None}


def _over(source: EnvSettingsSource, values: Mapping[str, str]) -> EnvSettingsSource:
    """``source`` reading ``values`` in place of its own (names case-insensitive, blank unset)."""
    wanted = {name.lower() for name in DOTENV_FIELDS}
    source.env_vars = {
        k.lower(): v.strip() for k, v in values.items() if k.lower() in wanted and v.strip()
    }
    return source


def load_settings(
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    *,
    transport: str | None = None,
    host: str | None = None,
    port: int | None = None,
) -> Settings:
    """Resolve process settings; CLI values (keyword arguments) win over env and ``.env``.

    pydantic-settings' own sources parse both mappings (JSON for the lists), so a bad list
    raises its ``SettingsError``; a value the model rejects is raised as one too, naming the
    field and where it came from.
    """
    cli = {
        k: v for k, v in (("transport", transport), ("host", host), ("port", port)) if v or v == 0
    }
    env_source = _over(EnvSettingsSource(Settings), env)
    dotenv_source = _over(DotEnvSettingsSource(Settings, env_file=None), dotenv)
    found = {"cli": cli, "EnvSettingsSource": env_source(), "DotEnvSettingsSource": dotenv_source()}
    values = {**found["DotEnvSettingsSource"], **found["EnvSettingsSource"], **cli}
    try:
        return Settings.model_validate(values)
    except ValidationError as exc:
        error = exc.errors()[0]
        name = str(error["loc"][0]) if error["loc"] else "?"
        origin = next((src for src, got in found.items() if name in got), "cli")
        raise SettingsError(
            f'error parsing value for field "{name}" from source "{origin}": '
            f"{error['input']!r}: {error['msg']}"
        ) from None


def _tokens(values: Iterable[str]) -> list[str]:
    """Split on commas, trim, lowercase, drop empties and duplicates (first wins)."""
    out: list[str] = []
    for value in values:
        for token in value.split(","):
            token = token.strip().lower()
            if token and token not in out:
                out.append(token)
    return out


def _known(
    flag: str, tokens: list[str], vocab: Sequence[_E], warnings: list[str]
) -> tuple[_E, ...]:
    """Keep the known tokens; warn about the others with the closest valid value."""
    by_value = {v.value: v for v in vocab}
    valid = list(by_value)
    kept = []
    for token in tokens:
        if token in by_value:
            kept.append(by_value[token])
            continue
        close = difflib.get_close_matches(token, valid, n=1, cutoff=0.6)
        hint = f"did you mean '{close[0]}'?" if close else f"valid values: {', '.join(valid)}."
        warnings.append(f"unknown {flag} value '{token}' \u2014 {hint} ignoring.")
    return tuple(kept)


def _scalar(cli: str | None, env: Mapping[str, str], name: str) -> str | None:
    """CLI value, else the environment variable; empty (or blank) counts as unset."""
    for value in (cli, env.get(name)):
        if value is not None and value.strip():
            return value.strip()
    return None


def _list(cli: Sequence[str] | None, env: Mapping[str, str], name: str) -> list[str] | None:
    """CLI values when given (``--tools ""`` means empty), else the environment variable."""
    if cli is not None:
        return _tokens(cli)
    value = env.get(name)
    if value is not None and value.strip():
        return _tokens([value])
    return None


def resolve_config(
    env: Mapping[str, str],
    *,
    user_key: str | None = None,
    agent_key: str | None = None,
    room_id: str | None = None,
    scope: Sequence[str] | None = None,
    tools: Sequence[str] | None = None,
) -> Config:
    """Resolve keys, scopes, groups and the pinned room from CLI values and the environment."""
    warnings: list[str] = []
    scope_tokens = _list(scope, env, "BAND_MCP_SCOPE")
    tool_tokens = _list(tools, env, "BAND_MCP_TOOLS")
    scopes = (
        (Surface.AGENT,)
        if scope_tokens is None
        else _known("--scope", scope_tokens, SCOPES, warnings)
    )
    groups = () if tool_tokens is None else _known("--tools", tool_tokens, TOOL_GROUPS, warnings)
    return Config(
        user_key=_scalar(user_key, env, "BAND_USER_KEY"),
        agent_key=_scalar(agent_key, env, "BAND_AGENT_KEY"),
        room_id=_scalar(room_id, env, "BAND_MCP_ROOM_ID"),
        scope=scopes,
        tools=groups,
        warnings=tuple(warnings),
    )


def validate(config: Config) -> None:
    """Raise ConfigError when no scope is left or a requested scope has no key."""
    if not config.scope:
        valid = ", ".join(s.value for s in SCOPES)
        raise ConfigError(f"No valid --scope values resolved. Expected one or more of: {valid}.")
    missing = []
    if Surface.HUMAN in config.scope and not config.user_key:
        missing.append(
            "human scope requested but no user credential available "
            "(set --user-key / BAND_USER_KEY)"
        )
    if Surface.AGENT in config.scope and not config.agent_key:
        missing.append(
            "agent scope requested but no agent credential available "
            "(set --agent-key / BAND_AGENT_KEY)"
        )
    if missing:
        raise ConfigError("; ".join(missing))
