"""Optional features and the extra that installs each: a missing one costs a line, not a trace."""

from __future__ import annotations

import importlib.util

#: The distribution the extras belong to (``pip install 'band-open-sdk[mcp]'``).
DISTRIBUTION = "band-open-sdk"
#: extra -> the top-level modules its feature imports (pyproject.toml's optional dependencies).
EXTRAS: dict[str, tuple[str, ...]] = {
    "mcp": ("mcp",),
    "acp": ("acp", "mcp"),
    "anthropic": ("anthropic",),
    "openai": ("openai",),
    "gemini": ("google.genai",),
    "strands": ("strands",),
    "agno": ("agno",),
    "claude-sdk": ("claude_agent_sdk",),
    "google-adk": ("google.adk",),
    "crewai": ("crewai",),
}


class MissingExtraError(ImportError):
    """A feature's optional dependencies are not installed; the message names the extra."""


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return f"pip install '{DISTRIBUTION}[{extra}]'"


def missing_modules(extra: str) -> list[str]:
    """The modules of ``extra`` that cannot be found (found without importing them)."""
    return [name for name in EXTRAS[extra] if importlib.util.find_spec(name) is None]


def require(extra: str, feature: str) -> None:
    """Raise MissingExtraError naming ``extra`` when ``feature`` cannot import its modules."""
    absent = missing_modules(extra)
    if absent:
        raise MissingExtraError(
            f"{feature} needs the [{extra}] extra: {install_hint(extra)}",
            name=absent[0],
        )
