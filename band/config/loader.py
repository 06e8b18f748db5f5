"""Read an agent's ``agent_id`` and ``api_key`` from ``agent_config.yaml``."""

from __future__ import annotations

import logging
import os
import stat
from pathlib import Path
from typing import Any

import yaml

from band.core.exceptions import StartupError

__all__ = [
    "CONFIG_FILE_NAME",
    "AgentNotConfiguredError",
    "ConfigFileNotFoundError",
    "get_config_path",
    "load_agent_config",
]

log = logging.getLogger("band.config")

CONFIG_FILE_NAME = "agent_config.yaml"
_REQUIRED = ("agent_id", "api_key")
#: How to get a file with an agent's credentials (the local platform writes one).
_HOW_TO_CREATE = (
    "`band dev agent create NAME --config {path}` registers an agent on band dev and writes it; "
    "for Band Cloud, write `NAME: {{agent_id: ..., api_key: ...}}` from its "
    '"Connect remote agent" dialog.'
)


class ConfigFileNotFoundError(StartupError, FileNotFoundError):
    """There is no agent config file where it was looked for."""


class AgentNotConfiguredError(StartupError, ValueError):
    """The config file has no (complete) entry for the agent asked for."""


def get_config_path() -> Path:
    """``agent_config.yaml`` in the working directory: the file read when no path is given.

    It takes no argument, as in band-sdk, so code that patches it (``lambda: path``) keeps
    working: ``load_agent_config`` calls it only when given no ``config_path``.
    """
    return Path.cwd() / CONFIG_FILE_NAME


def load_agent_config(agent_key: str, *, config_path: str | Path | None = None) -> tuple[str, str]:
    """Return ``(agent_id, api_key)`` of ``agent_key`` (keyed or flat file layout).

    Raises FileNotFoundError (:class:`ConfigFileNotFoundError`) when the file is missing,
    ValueError (:class:`AgentNotConfiguredError`) when the agent or one of its fields is
    missing, and RuntimeError for anything else (e.g. invalid YAML).
    """
    path = Path(config_path) if config_path is not None else get_config_path()
    if not path.is_file():
        raise ConfigFileNotFoundError(
            f"Config file not found at {path}.\n" + _HOW_TO_CREATE.format(path=path.name)
        )
    try:
        entry = _entry(_read(path), agent_key, path)
    except (FileNotFoundError, ValueError):
        raise
    except Exception as exc:
        raise RuntimeError(f"Error loading agent config: {exc}") from exc
    missing = [field for field in _REQUIRED if not entry.get(field)]
    if missing:
        raise AgentNotConfiguredError(
            f"Missing required fields for agent '{agent_key}': {', '.join(missing)}. "
            f"Please create a remote agent on the platform and add the credentials to {path}"
        )
    _warn_if_shared(path)
    log.debug("loaded credentials of agent %r from %s", agent_key, path)
    return str(entry["agent_id"]), str(entry["api_key"])


def _warn_if_shared(path: Path) -> None:
    """Warn when the file holding API keys can be read by other users (as ssh refuses a key).

    band dev writes it owner-only; one written by hand takes the umask's mode, often 0644.
    Windows has no such mode bits.
    """
    if os.name != "posix":
        return
    mode = stat.S_IMODE(path.stat().st_mode)
    if mode & 0o077:
        log.warning(
            "%s holds API keys and other users can read it (mode %04o): chmod 600 %s",
            path,
            mode,
            path,
        )


def _read(path: Path) -> Any:
    """The parsed file; an empty file is an empty mapping."""
    with path.open(encoding="utf-8") as fh:
        doc = yaml.safe_load(fh)
    # a non-mapping document fails on its first lookup, reported as a loading error
    return {} if doc is None else doc


def _entry(doc: Any, agent_key: str, path: Path) -> Any:
    """The agent's mapping: under its key, or the flat top level when that has ``agent_id``."""
    entry = doc.get(agent_key)
    if not entry and doc.get("agent_id"):
        return doc
    if not entry:
        found = [str(name) for name in doc if isinstance(doc.get(name), dict)]
        names = ", ".join(repr(name) for name in found) if found else "none"
        raise AgentNotConfiguredError(
            f"Agent '{agent_key}' not found in {path}. Please add the agent configuration.\n"
            f"Agents found there: {names}."
        )
    entry.get("agent_id")  # a non-mapping entry fails here, reported as a loading error
    return entry
