"""band.core.model_catalog's check, and apply_model_selection on an ACP session's catalogue.

The catalogue checks are plain values; applying a selection runs on the scripted agent's real
config options (grouped model select, per-model effort select) read from a real process.
"""

from __future__ import annotations

import asyncio

import pytest
from acp.schema import (
    SessionConfigOptionSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
)

from band.core.exceptions import BandConfigError
from band.core.model_catalog import (
    ModelCatalog,
    ModelChoice,
    ModelSelection,
    ModelSelectionError,
    ModelSetting,
    check_model_selection,
)
from band.integrations.acp.config import SessionConfigOption
from band.integrations.acp.model_selection import apply_model_selection, locate_model_options

CATALOG = ModelCatalog(
    models=(
        ModelChoice(id="fast", efforts=("low",)),
        ModelChoice(id="smart", label="Smart", efforts=("low", "high"), default_effort="low"),
        ModelChoice(id="tiny", efforts=()),
        ModelChoice(id="opaque"),
    ),
    current_model="smart",
)


def test_selection_values_and_order() -> None:
    selection = ModelSelection(model="smart", reasoning_effort="high")
    assert [s.value for s in ModelSetting] == ["model", "reasoning_effort"]
    assert [selection.value_of(s) for s in ModelSetting] == ["smart", "high"]
    assert ModelSelection().is_empty and not selection.is_empty
    assert CATALOG.model_ids == ("fast", "smart", "tiny", "opaque")
    assert CATALOG.choice("smart") is CATALOG.models[1] and CATALOG.choice("gpt") is None


@pytest.mark.parametrize(
    "selection",
    [
        ModelSelection(),
        ModelSelection(model="fast", reasoning_effort="low"),
        ModelSelection(reasoning_effort="high"),  # checked against the current model
        ModelSelection(model="opaque", reasoning_effort="anything"),  # efforts unknown
    ],
)
def test_advertised_selections_pass(selection: ModelSelection) -> None:
    check_model_selection(selection, CATALOG)
    check_model_selection(ModelSelection(model="gpt-9"), None)  # nothing advertised


@pytest.mark.parametrize(
    ("selection", "setting", "message", "advertised"),
    [
        (
            ModelSelection(model="gpt-9"),
            ModelSetting.MODEL,
            'model "gpt-9" is not advertised; available: fast, smart, tiny, opaque',
            ("fast", "smart", "tiny", "opaque"),
        ),
        (
            ModelSelection(model="fast", reasoning_effort="high"),
            ModelSetting.REASONING_EFFORT,
            'reasoning effort "high" is not advertised for model "fast"; available: low',
            ("low",),
        ),
        (
            ModelSelection(reasoning_effort="max"),
            ModelSetting.REASONING_EFFORT,
            'reasoning effort "max" is not advertised for model "smart"; available: low, high',
            ("low", "high"),
        ),
        (
            ModelSelection(model="tiny", reasoning_effort="low"),
            ModelSetting.REASONING_EFFORT,
            'model "tiny" offers no reasoning effort',
            (),
        ),
    ],
)
def test_unadvertised_selections_fail(
    selection: ModelSelection, setting: ModelSetting, message: str, advertised: tuple[str, ...]
) -> None:
    with pytest.raises(ModelSelectionError) as caught:
        check_model_selection(selection, CATALOG)
    error = caught.value
    assert isinstance(error, BandConfigError)
    assert (str(error), error.setting, error.advertised) == (message, setting, advertised)
    assert error.value == selection.value_of(setting)


def _select(id_: str, category: str, current: str, *values: str) -> SessionConfigOptionSelect:
    return SessionConfigOptionSelect(
        id=id_,
        name=id_,
        category=category,
        type="select",
        current_value=current,
        options=[SessionConfigSelectOption(value=v, name=v.title()) for v in values],
    )


def test_located_options_describe_the_session() -> None:
    model = _select("m", "model", "fast", "fast")
    model.options = [
        SessionConfigSelectGroup(group="g", name="G", options=list(model.options)),  # type: ignore[list-item]
        SessionConfigSelectOption(value="smart", name="Smart"),
    ]
    found = locate_model_options([_select("e", "thought_level", "low", "low", "mid"), model])
    assert found.option_for(ModelSetting.MODEL) is model
    assert found.current_selection() == ModelSelection(model="fast", reasoning_effort="low")
    assert found.model_catalog() == ModelCatalog(
        models=(
            ModelChoice(id="fast", label="Fast", efforts=("low", "mid"), default_effort="low"),
            ModelChoice(id="smart", label="Smart"),  # a session shows its current model's only
        ),
        current_model="fast",
    )
    assert locate_model_options([]).model_catalog() is None


def test_apply_sets_the_model_then_rereads_the_catalogue() -> None:
    """The effort is located after the model is set: the new model brings a new effort select."""
    catalogs: dict[str, list[SessionConfigOption]] = {
        "fast": [
            _select("m", "model", "fast", "fast", "smart"),
            _select("e", "thought_level", "low", "low"),
        ],
        "smart": [
            _select("m", "model", "smart", "fast", "smart"),
            _select("e2", "thought_level", "low", "low", "high"),
        ],
    }
    state = {"model": "fast"}
    sets: list[tuple[str, str, str]] = []

    async def set_option(session_id: str, config_id: str, value: str) -> None:
        sets.append((session_id, config_id, value))
        if config_id == "m":
            state["model"] = value

    asyncio.run(
        apply_model_selection(
            session_id="s1",
            catalog=lambda: catalogs[state["model"]],
            selection=ModelSelection(model="smart", reasoning_effort="high"),
            locate=locate_model_options,
            set_option=set_option,
        )
    )
    assert sets == [("s1", "m", "smart"), ("s1", "e2", "high")]

    sets.clear()
    with pytest.raises(ModelSelectionError, match='"max" is not advertised for model "smart"'):
        asyncio.run(
            apply_model_selection(
                session_id="s1",
                catalog=lambda: catalogs[state["model"]],
                selection=ModelSelection(reasoning_effort="max"),
                locate=locate_model_options,
                set_option=set_option,
            )
        )
    with pytest.raises(ModelSelectionError, match="offers no reasoning effort option; selects: x"):
        asyncio.run(
            apply_model_selection(
                session_id="s1",
                catalog=lambda: [_select("x", "mode", "a", "a")],
                selection=ModelSelection(reasoning_effort="low"),
                set_option=set_option,
            )
        )
    assert sets == []  # nothing is set for a refused selection
