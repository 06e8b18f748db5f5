"""Looking tools up by name (legacy unprefixed names too), and walking a paged chat listing."""

from __future__ import annotations

import logging
import warnings
from collections.abc import AsyncIterator, Awaitable, Callable, Collection
from typing import Any

from pydantic import BaseModel, ValidationError

from band.core.exceptions import InvalidToolArgumentsError
from band.core.types import Capability

from .constants import CHAT_PAGE_SIZE, MAX_CHAT_PAGES
from .registry import DEFAULT_CAPABILITIES, TOOLS, ToolSpec
from .spec import format_validation_error

__all__ = [
    "format_tool_validation_error",
    "get_tool_description",
    "iter_chat_pages",
    "resolve_capabilities",
    "resolve_tool_model",
    "validate_tool_arguments",
]

logger = logging.getLogger(__name__)


def _spec(name: str) -> ToolSpec[Any, Any] | None:
    # Tools were once named without the ``band_`` prefix; those names still resolve.
    return TOOLS.get(name) or TOOLS.get(f"band_{name}")


def resolve_tool_model(name: str) -> type[BaseModel] | None:
    """The input model of tool ``name`` (``band_`` prefix optional), or ``None``."""
    spec = _spec(name)
    return None if spec is None else spec.input_model


def get_tool_description(name: str) -> str:
    """The description models get for tool ``name``; an unprefixed name warns it is deprecated."""
    spec = _spec(name)
    if spec is None:
        return f"Execute {name}"
    if spec.name != name:
        warnings.warn(
            f"Tool name {name!r} is deprecated. Use {spec.name!r} instead.",
            DeprecationWarning,
            stacklevel=2,
        )
    return spec.description


def resolve_capabilities(capabilities: Collection[Capability] | None) -> frozenset[Capability]:
    """``capabilities`` as a frozenset, ``DEFAULT_CAPABILITIES`` when it is ``None``."""
    return DEFAULT_CAPABILITIES if capabilities is None else frozenset(capabilities)


def _total_pages(response: Any) -> int:
    paging = getattr(response, "metadata", None)
    if paging is None:
        paging = getattr(response, "paging", None)
    return int(getattr(paging, "total_pages", None) or 0)


async def iter_chat_pages(fetch: Callable[[int, int], Awaitable[Any]]) -> AsyncIterator[Any]:
    """Each page ``fetch(page, CHAT_PAGE_SIZE)`` returns, from page 1 to the last one reported.

    Stops after ``MAX_CHAT_PAGES`` pages (with a warning) so a listing that never ends cannot
    hold a caller forever.
    """
    page = 0
    while page < MAX_CHAT_PAGES:
        page += 1
        response = await fetch(page, CHAT_PAGE_SIZE)
        yield response
        if page >= _total_pages(response):
            return
    logger.warning("Chat listing cut at %d pages; later rooms were not read", MAX_CHAT_PAGES)


def format_tool_validation_error(tool_name: str, error: ValidationError) -> str:
    """``error`` as the text a model reads: ``Invalid arguments for <tool>: <field>: <reason>``."""
    return format_validation_error(tool_name, error)


def validate_tool_arguments(
    tool_name: str, input_model: type[BaseModel], arguments: dict[str, Any]
) -> dict[str, Any]:
    """``arguments`` checked by ``input_model``, as keyword arguments without the ``None`` ones.

    Raises ``InvalidToolArgumentsError`` (``format_tool_validation_error``'s text) when invalid.
    """
    try:
        validated = input_model.model_validate(arguments)
    except ValidationError as exc:
        raise InvalidToolArgumentsError(format_validation_error(tool_name, exc)) from exc
    return validated.model_dump(exclude_none=True)
