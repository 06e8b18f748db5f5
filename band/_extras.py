"""Optional features and the extra that installs each: a missing one costs a line, not a trace."""

from __future__ import annotations

import importlib.util
import logging
import os
import sys
from types import TracebackType

#: The distribution the extras belong to (``pip install 'band-open-sdk[mcp]'``).
DISTRIBUTION = "band-open-sdk"
#: extra -> the top-level modules its feature imports (pyproject.toml's optional dependencies).
EXTRAS: dict[str, tuple[str, ...]] = {
    "mcp": ("mcp",),
    "acp": ("acp", "mcp"),
    "anthropic": ("anthropic",),
    "openai": ("openai",),
    "langgraph": ("langgraph", "langchain_core"),
    "pydantic-ai": ("pydantic_ai",),
    "gemini": ("google.genai",),
    "openai-agents": ("agents",),
    "strands": ("strands",),
    "agno": ("agno",),
    "claude-sdk": ("claude_agent_sdk",),
    "google-adk": ("google.adk",),
    "crewai": ("crewai",),
    "rest": ("band_rest",),
}


class MissingExtraError(ImportError):
    """A feature's optional dependencies are not installed; the message names the extra."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (found without importing them)."""
    return [name for name in EXTRAS[extra] if not _found(name)]


def _found(name: str) -> bool:
    """Whether module ``name`` can be imported (a dotted name whose parent is absent: no)."""
    try:
        return importlib.util.find_spec(name) is not None
    except ModuleNotFoundError:
        return False


def require(extra: str, feature: str) -> None:
    """Raise MissingExtraError naming ``extra`` when ``feature`` cannot import its modules."""
    absent = missing_modules(extra)
    if absent:
        raise MissingExtraError(
            f"{feature} needs the [{extra}] extra: {install_hint(extra)}",
            name=absent[0],
        )


def require_module(extra: str, feature: str) -> None:
    """:func:`require` for a module that needs ``extra`` at import: uncaught, the error
    prints as its one line (``error: <feature> needs the [extra] extra: ...``)."""
    if missing_modules(extra):
        _install_quiet_hook()
    require(extra, feature)


def _install_quiet_hook() -> None:
    """Print an uncaught MissingExtraError as ``error: <message>`` alone (a traceback with
    ``BAND_LOG_LEVEL=DEBUG`` or the band logger at DEBUG)."""
    previous = sys.excepthook
    if getattr(previous, "_band_missing_extra", False):
        return

    def hook(kind: type[BaseException], exc: BaseException, tb: TracebackType | None) -> None:
        debug = os.environ.get("BAND_LOG_LEVEL", "").upper() == "DEBUG" or (
            logging.getLogger("band").getEffectiveLevel() <= logging.DEBUG
        )
        if isinstance(exc, MissingExtraError) and not debug:
            print(f"error: {exc}", file=sys.stderr)
            return
        previous(kind, exc, tb)

    hook._band_missing_extra = True  # type: ignore[attr-defined]
    sys.excepthook = hook
