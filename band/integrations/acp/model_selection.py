"""Where an ACP session offers its model and reasoning-effort choices (band-sdk's names).

The ACP spec reserves two select categories for them; ``ACPClientAdapterConfig(model=...,
reasoning_effort=...)`` is applied to the selects found here (``config_options``).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from acp.schema import SessionConfigOptionSelect

from .config import SessionConfigOption

__all__ = ["MODEL_CATEGORY", "THOUGHT_LEVEL_CATEGORY", "ACPModelOptions", "locate_model_options"]

#: the select categories the ACP spec reserves for the model and the reasoning effort
MODEL_CATEGORY = "model"
THOUGHT_LEVEL_CATEGORY = "thought_level"


@dataclass(frozen=True)
class ACPModelOptions:
    """The selects a session offers for its model and its reasoning effort (``None``: none)."""

    model: SessionConfigOptionSelect | None
    effort: SessionConfigOptionSelect | None


def _select(
    options: Sequence[SessionConfigOption], category: str
) -> SessionConfigOptionSelect | None:
    for option in options:
        if isinstance(option, SessionConfigOptionSelect) and option.category == category:
            return option
    return None


def locate_model_options(options: Sequence[SessionConfigOption]) -> ACPModelOptions:
    """The first select of each reserved category in a session's configuration catalogue."""
    return ACPModelOptions(
        model=_select(options, MODEL_CATEGORY), effort=_select(options, THOUGHT_LEVEL_CATEGORY)
    )
