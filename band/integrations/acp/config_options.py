"""Session configuration: pick model / reasoning effort (or a resolver's values) per session."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Mapping, Sequence

from acp.schema import (
    SessionConfigOptionBoolean,
)

from band.core.model_catalog import ModelSelection, ModelSelectionError

from .config import ACPConfigRequest, ConfigResolver, SessionConfigOption
from .model_selection import apply_model_selection, flatten_select_options

__all__ = [
    "CONFIG_FAILURE_PREFIX",
    "CONFIG_TIMEOUT_S",
    "ACPSessionConfigError",
    "apply_session_config",
    "flatten_select_options",
]

CONFIG_FAILURE_PREFIX = "ACP session configuration failed: "
#: Bound of each session/set_config_option call.
CONFIG_TIMEOUT_S = 10.0

#: (session_id, option_id, value) -> the refreshed catalog (None when the agent sent none).
ConfigSetter = Callable[[str, str, str | bool], Awaitable[Sequence[SessionConfigOption] | None]]


class ACPSessionConfigError(RuntimeError):
    """A requested session option could not be applied; the message is posted to the room."""

    def __init__(self, detail: str) -> None:
        super().__init__(CONFIG_FAILURE_PREFIX + detail)


def _by_id(catalog: Sequence[SessionConfigOption], option_id: str) -> SessionConfigOption | None:
    for option in catalog:
        if option.id == option_id:
            return option
    return None


def _check_value(option: SessionConfigOption, value: str) -> str | bool:
    """The wire value to set ``option`` to, or an error if the option does not offer it."""
    if isinstance(option, SessionConfigOptionBoolean):
        if value.lower() not in ("true", "false"):
            raise ACPSessionConfigError(f"option {option.id!r} takes true or false, not {value!r}")
        return value.lower() == "true"
    offered = [entry.value for entry in flatten_select_options(option.options)]
    if value not in offered:
        raise ACPSessionConfigError(
            f"{value!r} is not offered for {option.id!r} (offered: {', '.join(offered)})"
        )
    return value


async def _set(
    setter: ConfigSetter, session_id: str, option_id: str, value: str | bool
) -> list[SessionConfigOption]:
    try:
        catalog = await asyncio.wait_for(setter(session_id, option_id, value), CONFIG_TIMEOUT_S)
    except TimeoutError:
        raise ACPSessionConfigError(
            f"setting {option_id!r} got no answer within {CONFIG_TIMEOUT_S:g}s"
        ) from None
    except ACPSessionConfigError:
        raise
    except Exception as exc:
        raise ACPSessionConfigError(f"setting {option_id!r} failed: {exc}") from exc
    if catalog is None:
        raise ACPSessionConfigError(f"setting {option_id!r} returned no configuration")
    return list(catalog)


async def apply_session_config(
    *,
    room_id: str,
    session_id: str,
    catalog: Sequence[SessionConfigOption] | None,
    setter: ConfigSetter,
    model: str | None = None,
    reasoning_effort: str | None = None,
    resolver: ConfigResolver | None = None,
) -> list[SessionConfigOption]:
    """Apply the configured choices to a fresh session; return the final catalog."""
    current: list[SessionConfigOption] = list(catalog or [])
    if resolver is not None:
        request = ACPConfigRequest(room_id, session_id, tuple(current))
        try:
            chosen: Mapping[str, str | None] = await asyncio.wait_for(
                resolver(request), CONFIG_TIMEOUT_S
            )
        except TimeoutError:
            raise ACPSessionConfigError(
                f"resolve_session_config did not answer within {CONFIG_TIMEOUT_S:g}s"
            ) from None
        for option_id, value in dict(chosen or {}).items():
            if value is None:
                continue
            if not isinstance(value, str):
                raise ACPSessionConfigError(f"value for {option_id!r} must be a string")
            option = _by_id(current, option_id)
            if option is None:
                raise ACPSessionConfigError(f"the session offers no option {option_id!r}")
            current = await _set(setter, session_id, option_id, _check_value(option, value))
        return current
    # the model goes first (apply_model_selection's order): it can change the effort option
    selection = ModelSelection(model=model, reasoning_effort=reasoning_effort)

    async def set_option(sid: str, option_id: str, value: str) -> None:
        nonlocal current
        current = await _set(setter, sid, option_id, value)

    try:
        await apply_model_selection(
            session_id=session_id,
            catalog=lambda: current,
            selection=selection,
            set_option=set_option,
        )
    except ModelSelectionError as exc:
        raise ACPSessionConfigError(str(exc)) from exc
    return current
