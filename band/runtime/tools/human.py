"""``HumanTools``: the human-scope tools (a person's ``/me`` API under their user key) as one
coroutine method per tool, ``list_my_chats(page=..., page_size=...)``, whose parameters are the
tool's input fields. The tools are defined once (``human_specs``); band-mcp serves the same.
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from band.core.types import Capability
from band.runtime.tools.human_specs import TOOLS, HumanSurface
from band.runtime.tools.spec import ToolSpec

__all__ = [
    "HUMAN_SURFACE_CONTACT_TOOL_NAMES",
    "HUMAN_SURFACE_MEMORY_TOOL_NAMES",
    "HUMAN_TOOL_NAMES",
    "HumanTools",
]


def _names(group: object) -> frozenset[str]:
    return frozenset(n for n, s in TOOLS.items() if s.group == group)


#: every human tool, and those of the contacts and memory groups
HUMAN_TOOL_NAMES = frozenset(TOOLS)
HUMAN_SURFACE_CONTACT_TOOL_NAMES = _names(Capability.CONTACTS)
HUMAN_SURFACE_MEMORY_TOOL_NAMES = _names(Capability.MEMORY)


def _method(spec: ToolSpec[Any, Any]) -> Callable[..., Awaitable[Any]]:
    """``HumanTools.<tool>``: its input fields as parameters (optional ones default to None,
    which leaves the model's own default); the body validates them and runs the tool."""
    fields = spec.input_model.model_fields
    sig = inspect.Signature(
        [inspect.Parameter("self", inspect.Parameter.POSITIONAL_OR_KEYWORD)]
        + [
            inspect.Parameter(
                name,
                inspect.Parameter.POSITIONAL_OR_KEYWORD,
                default=inspect.Parameter.empty if field.is_required() else None,
            )
            for name, field in fields.items()
        ]
    )

    async def call(self: HumanTools, *args: Any, **kwargs: Any) -> Any:
        bound = sig.bind(self, *args, **kwargs)
        given = {k: v for k, v in bound.arguments.items() if k != "self" and v is not None}
        return await self.run(spec, spec.validate(given))

    call.__signature__ = sig  # type: ignore[attr-defined]
    call.__name__ = call.__qualname__ = spec.name.removeprefix("band_")
    call.__doc__ = spec.input_model.__doc__
    return call


class HumanTools(HumanSurface):
    """The human-scope tools over one user-key REST client, one coroutine method per tool.

    Each method takes the tool's arguments, raises ``InvalidToolArgumentsError`` for bad ones
    (before any request) and returns the API's JSON answer; errors of the API raise
    ``band.client.errors.BandAPIError``.
    """


for _spec in TOOLS.values():
    setattr(HumanTools, _spec.name.removeprefix("band_"), _method(_spec))
del _spec
