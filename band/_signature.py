"""One parameter table for two functions: the second is declared with the first's."""

from __future__ import annotations

import inspect
from collections.abc import Callable
from typing import Any, ParamSpec, TypeVar

__all__ = ["parameters_of"]

P = ParamSpec("P")
R = TypeVar("R")


def parameters_of(template: Callable[P, Any]) -> Callable[[Callable[..., R]], Callable[P, R]]:
    """Give the decorated function ``template``'s parameters, for type checkers and
    ``inspect.signature`` alike (its own return type stays)."""

    def adopt(func: Callable[..., R]) -> Callable[P, R]:
        own = inspect.signature(func).return_annotation
        func.__signature__ = inspect.signature(template).replace(  # type: ignore[attr-defined]
            return_annotation=own
        )
        return func

    return adopt
