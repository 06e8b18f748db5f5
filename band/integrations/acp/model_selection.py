"""Where an ACP session offers its model and reasoning-effort choices, and applying a choice.

The ACP spec reserves two select categories for them. ``ACPClientAdapterConfig(model=...,
reasoning_effort=...)`` is a ``ModelSelection`` that ``apply_model_selection`` checks against
the session's catalogue (``band.core.model_catalog``) and sets, model first.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Sequence
from dataclasses import dataclass

from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
)

from band.core.model_catalog import (
    ModelCatalog,
    ModelChoice,
    ModelSelection,
    ModelSelectionError,
    ModelSetting,
    check_model_selection,
)

from .config import SessionConfigOption

__all__ = [
    "MODEL_CATEGORY",
    "THOUGHT_LEVEL_CATEGORY",
    "ACPModelOptions",
    "ModelOptionSetter",
    "apply_model_selection",
    "flatten_select_options",
    "locate_model_options",
]

#: (session_id, config_id, value) -> whatever the agent answered; the catalogue is re-read after
ModelOptionSetter = Callable[[str, str, str], Awaitable[object]]

#: the select categories the ACP spec reserves for the model and the reasoning effort
MODEL_CATEGORY = "model"
THOUGHT_LEVEL_CATEGORY = "thought_level"


@dataclass(frozen=True)
class ACPModelOptions:
    """The selects a session offers for its model and its reasoning effort (``None``: none)."""

    model: SessionConfigOptionSelect | None
    effort: SessionConfigOptionSelect | None

    def option_for(self, setting: ModelSetting) -> SessionConfigOptionSelect | None:
        """The select that carries ``setting``."""
        return self.model if setting is ModelSetting.MODEL else self.effort

    def current_selection(self) -> ModelSelection:
        """What the session runs now (``None`` for a setting it offers no select for)."""
        return ModelSelection(
            model=self.model.current_value if self.model else None,
            reasoning_effort=self.effort.current_value if self.effort else None,
        )

    def model_catalog(self) -> ModelCatalog | None:
        """The advertised models; a session shows the efforts of its current model only."""
        if self.model is None:
            return None
        current = self.model.current_value
        default = self.effort.current_value if self.effort else None
        efforts = (
            tuple(e.value for e in flatten_select_options(self.effort.options))
            if self.effort
            else ()
        )
        return ModelCatalog(
            models=tuple(
                ModelChoice(
                    id=entry.value,
                    label=entry.name,
                    efforts=efforts if entry.value == current else None,
                    default_effort=default if entry.value == current else None,
                )
                for entry in flatten_select_options(self.model.options)
            ),
            current_model=current,
        )


def flatten_select_options(
    options: Iterable[SessionConfigSelectOption | SessionConfigSelectGroup],
) -> tuple[SessionConfigSelectOption, ...]:
    """The values of a select option, with named groups expanded in order."""
    flat: list[SessionConfigSelectOption] = []
    for entry in options:
        flat.extend(entry.options if isinstance(entry, SessionConfigSelectGroup) else [entry])
    return tuple(flat)


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


_LABELS = {ModelSetting.MODEL: "model", ModelSetting.REASONING_EFFORT: "reasoning effort"}


async def apply_model_selection(
    *,
    session_id: str,
    catalog: Callable[[], Sequence[SessionConfigOption]],
    selection: ModelSelection,
    locate: Callable[[Sequence[SessionConfigOption]], ACPModelOptions] = locate_model_options,
    set_option: ModelOptionSetter,
) -> None:
    """Set the selected model, then the effort, each checked against the catalogue as it
    stands then (``catalog()`` is read again after the model: it can change the effort select).

    Raises ``ModelSelectionError`` for a value the session does not advertise, or when it
    offers no select for a chosen setting (``advertised`` then lists the select ids it has).
    """
    for setting in ModelSetting:
        value = selection.value_of(setting)
        if value is None:
            continue
        options = tuple(catalog())
        found = locate(options)
        check_model_selection(ModelSelection(**{setting.value: value}), found.model_catalog())
        option = found.option_for(setting)
        if option is None:
            ids = tuple(o.id for o in options if isinstance(o, SessionConfigOptionSelect))
            raise ModelSelectionError(
                f"the session offers no {_LABELS[setting]} option; "
                f"selects: {', '.join(ids) or '(none)'}",
                setting=setting,
                value=value,
                advertised=ids,
            )
        offered = tuple(e.value for e in flatten_select_options(option.options))
        if value not in offered:  # an effort select of a model the catalogue did not cover
            raise ModelSelectionError(
                f'{_LABELS[setting]} "{value}" is not advertised; available: '
                f"{', '.join(offered) or '(none)'}",
                setting=setting,
                value=value,
                advertised=offered,
            )
        await set_option(session_id, option.id, value)
