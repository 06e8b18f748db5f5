"""Package attributes that import their module on first use (PEP 562), so facades stay cheap."""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(namespace: dict[str, Any], exports: Mapping[str, str]) -> Callable[[str], Any]:
    """A module ``__getattr__``: ``exports`` maps each name to the module defining it."""
    package = namespace["__name__"]

    def __getattr__(name: str) -> Any:
        module = exports.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value  # cached: the next lookup does not come here
        return value

    return __getattr__
