"""Which models and reasoning efforts a harness offers, and checking a configured choice.

A harness (an ACP agent, for one) advertises its models, and for a model the efforts it
takes; an adapter configured with ``model=`` / ``reasoning_effort=`` is checked against that
before anything is set, so a typo fails with the advertised values instead of a vague refusal.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from enum import StrEnum

from .exceptions import BandConfigError

__all__ = [
    "ModelCatalog",
    "ModelChoice",
    "ModelSelection",
    "ModelSelectionError",
    "ModelSetting",
    "check_model_selection",
]


class ModelSetting(StrEnum):
    """One selectable setting, valued as its ``ModelSelection`` field name.

    The order is the order they are applied in: the model decides which efforts exist.
    """

    MODEL = "model"
    REASONING_EFFORT = "reasoning_effort"


@dataclass(frozen=True, kw_only=True)
class ModelSelection:
    """The model and reasoning effort an adapter is configured with (``None``: the harness's)."""

    model: str | None = None
    reasoning_effort: str | None = None

    def value_of(self, setting: ModelSetting) -> str | None:
        """The configured value of ``setting``."""
        return self.model if setting is ModelSetting.MODEL else self.reasoning_effort

    @property
    def is_empty(self) -> bool:
        """Nothing chosen: the harness keeps its own defaults."""
        return self.model is None and self.reasoning_effort is None


@dataclass(frozen=True, kw_only=True)
class ModelChoice:
    """One advertised model.

    ``efforts``: ``None`` when the harness does not say (an effort is then not checked),
    ``()`` when the model takes none.
    """

    id: str
    label: str | None = None
    efforts: tuple[str, ...] | None = None
    default_effort: str | None = None


@dataclass(frozen=True, kw_only=True)
class ModelCatalog:
    """The models a harness advertises, and the one it runs now."""

    models: tuple[ModelChoice, ...]
    current_model: str | None = None

    @property
    def model_ids(self) -> tuple[str, ...]:
        """The advertised model ids, in order."""
        return tuple(choice.id for choice in self.models)

    def choice(self, model_id: str) -> ModelChoice | None:
        """The advertised model ``model_id``, if any."""
        for choice in self.models:
            if choice.id == model_id:
                return choice
        return None


class ModelSelectionError(BandConfigError):
    """A configured model or effort is not among what the harness advertises."""

    def __init__(
        self, message: str, *, setting: ModelSetting, value: str, advertised: tuple[str, ...]
    ) -> None:
        super().__init__(message)
        self.setting = setting
        self.value = value
        self.advertised = advertised


def _listing(values: Iterable[str]) -> str:
    return ", ".join(values) or "(none)"


def check_model_selection(selection: ModelSelection, catalog: ModelCatalog | None) -> None:
    """Raise ``ModelSelectionError`` when ``catalog`` does not offer ``selection``.

    No catalog (the harness advertises nothing): nothing to check. The effort is checked
    against the selected model, else the catalog's current one.
    """
    if catalog is None:
        return
    model = selection.model
    if model is not None and catalog.choice(model) is None:
        raise ModelSelectionError(
            f'model "{model}" is not advertised; available: {_listing(catalog.model_ids)}',
            setting=ModelSetting.MODEL,
            value=model,
            advertised=catalog.model_ids,
        )
    effort = selection.reasoning_effort
    if effort is None:
        return
    target = model or catalog.current_model
    choice = catalog.choice(target) if target is not None else None
    if choice is None or choice.efforts is None or effort in choice.efforts:
        return  # nothing known about the efforts of that model: not checked
    detail = (
        f'reasoning effort "{effort}" is not advertised for model "{target}"; '
        f"available: {_listing(choice.efforts)}"
        if choice.efforts
        else f'model "{target}" offers no reasoning effort'
    )
    raise ModelSelectionError(
        detail,
        setting=ModelSetting.REASONING_EFFORT,
        value=effort,
        advertised=choice.efforts,
    )
