"""band-mcp configuration: CLI flags over the environment over ``.env``, resolved and validated."""

from __future__ import annotations

import difflib
import json
import os
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Any

DEFAULT_BASE_URL = "https://app.band.ai"
DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


class Scope(StrEnum):
    """Which Band API surface the server exposes (each needs its own key)."""

    AGENT = "agent"
    HUMAN = "human"


class ToolGroup(StrEnum):
    """Opt-in tool groups added on top of each scope's base tools."""

    CONTACTS = "contacts"
    MEMORY = "memory"
    TASKS = "tasks"


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
_TRUE = frozenset({"1", "true", "yes", "on", "t", "y"})
_FALSE = frozenset({"0", "false", "no", "off", "f", "n"})


class ConfigError(Exception):
    """A configuration that cannot serve any tool: the CLI exits with code 2."""


class SettingsError(Exception):
    """A process setting (environment or ``.env``) that cannot be parsed: exit code 1."""


@dataclass(frozen=True, slots=True)
class Settings:
    """Process settings: CLI flag, else environment, else ``.env``, else the default."""

    band_base_url: str = DEFAULT_BASE_URL
    transport: Transport = Transport.STDIO
    host: str = DEFAULT_HOST
    port: int = DEFAULT_PORT
    enable_dns_rebinding_protection: bool = True
    allowed_hosts: tuple[str, ...] = ()
    allowed_origins: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Config:
    """What the server serves: credentials, scopes, groups and the pinned room."""

    user_key: str | None = None
    agent_key: str | None = None
    room_id: str | None = None
    scope: tuple[Scope, ...] = (Scope.AGENT,)
    tools: tuple[ToolGroup, ...] = ()
    warnings: tuple[str, ...] = field(default=())


def read_dotenv(path: Path) -> dict[str, str]:
    """Parse a ``.env`` file: ``KEY=VALUE`` lines, ``export``, quotes and ``#`` comments."""
    try:
        text = path.read_text(encoding="utf-8")
    except (FileNotFoundError, IsADirectoryError, PermissionError):
        return {}
    out: dict[str, str] = {}
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith("#"):
            continue
        if line.startswith("export "):
            line = line[len("export ") :].lstrip()
        key, sep, value = line.partition("=")
        if not sep:
            continue
        value = value.strip()
        if value[:1] in ("'", '"'):
            quote = value[0]
            end = value.find(quote, 1)
            value = value[1:end] if end > 0 else value[1:]
        else:
            value = value.split(" #", 1)[0].rstrip()
        out[key.strip()] = value
    return out


def _lookup(name: str, env: Mapping[str, str], dotenv: Mapping[str, str]) -> tuple[str, str] | None:
    """(value, source) for a setting: environment first, then ``.env``; names case-insensitive."""
    for source, mapping in (("environment", env), (".env", dotenv)):
        for key, value in mapping.items():
            if key.upper() == name and value.strip():
                return value.strip(), source
    return None


def _json_list(name: str, value: str, source: str) -> tuple[str, ...]:
    try:
        parsed = json.loads(value)
    except ValueError:
        parsed = None
    if not isinstance(parsed, list) or not all(isinstance(x, str) for x in parsed):
        raise SettingsError(
            f'error parsing value for field "{name.lower()}" from source "{source}": '
            "expected a JSON array of strings"
        )
    return tuple(parsed)


def load_settings(
    env: Mapping[str, str],
    dotenv: Mapping[str, str],
    *,
    transport: str | None = None,
    host: str | None = None,
    port: int | None = None,
) -> Settings:
    """Resolve process settings; CLI values (keyword arguments) win over env and ``.env``."""
    raw: dict[str, tuple[str, str]] = {}
    for name in DOTENV_FIELDS:
        hit = _lookup(name, env, dotenv)
        if hit is not None:
            raw[name] = hit
    values: dict[str, Any] = {}
    if "BAND_BASE_URL" in raw:
        values["band_base_url"] = raw["BAND_BASE_URL"][0].rstrip("/")
    chosen_transport = transport or (raw["TRANSPORT"][0] if "TRANSPORT" in raw else None)
    if chosen_transport:
        try:
            values["transport"] = Transport(chosen_transport.strip().lower())
        except ValueError:
            valid = ", ".join(t.value for t in Transport)
            src = "cli" if transport else raw["TRANSPORT"][1]
            raise SettingsError(
                f'error parsing value for field "transport" from source "{src}": '
                f"{chosen_transport!r} is not one of {valid}"
            ) from None
    if host or "HOST" in raw:
        values["host"] = host or raw["HOST"][0]
    if port is not None:
        values["port"] = port
    elif "PORT" in raw:
        value, src = raw["PORT"]
        try:
            values["port"] = int(value)
        except ValueError:
            raise SettingsError(
                f'error parsing value for field "port" from source "{src}": '
                f"{value!r} is not an integer"
            ) from None
    if "ENABLE_DNS_REBINDING_PROTECTION" in raw:
        value, src = raw["ENABLE_DNS_REBINDING_PROTECTION"]
        if value.lower() not in _TRUE | _FALSE:
            raise SettingsError(
                f'error parsing value for field "enable_dns_rebinding_protection" from source '
                f'"{src}": {value!r} is not a boolean'
            )
        values["enable_dns_rebinding_protection"] = value.lower() in _TRUE
    for name in ("ALLOWED_HOSTS", "ALLOWED_ORIGINS"):
        if name in raw:
            values[name.lower()] = _json_list(name, *raw[name])
    return Settings(**values)


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
    flag: str, tokens: list[str], vocab: type[StrEnum], warnings: list[str]
) -> tuple[Any, ...]:
    """Keep the known tokens; warn about the others with the closest valid value."""
    valid = [v.value for v in vocab]
    kept = []
    for token in tokens:
        if token in valid:
            kept.append(vocab(token))
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
        (Scope.AGENT,) if scope_tokens is None else _known("--scope", scope_tokens, Scope, warnings)
    )
    groups = () if tool_tokens is None else _known("--tools", tool_tokens, ToolGroup, warnings)
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
        valid = ", ".join(s.value for s in Scope)
        raise ConfigError(f"No valid --scope values resolved. Expected one or more of: {valid}.")
    missing = []
    if Scope.HUMAN in config.scope and not config.user_key:
        missing.append(
            "human scope requested but no user credential available "
            "(set --user-key / BAND_USER_KEY)"
        )
    if Scope.AGENT in config.scope and not config.agent_key:
        missing.append(
            "agent scope requested but no agent credential available "
            "(set --agent-key / BAND_AGENT_KEY)"
        )
    if missing:
        raise ConfigError("; ".join(missing))


def process_env() -> dict[str, str]:
    """A snapshot of the process environment."""
    return dict(os.environ)
