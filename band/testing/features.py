"""``feature_kwargs``: an ``AdapterFeatures`` as the keywords adapter constructors take."""

from __future__ import annotations

from typing import Any

from band.core.types import AdapterFeatures

__all__ = ["feature_kwargs"]


def feature_kwargs(features: AdapterFeatures | None) -> dict[str, Any]:
    """``emit=``, ``capabilities=``, ``include_tools=``, ... of ``features`` (None: none, so
    the adapter's defaults apply)."""
    if features is None:
        return {}
    return {
        "emit": features.emit,
        "capabilities": features.capabilities,
        "include_tools": features.include_tools,
        "exclude_tools": features.exclude_tools,
        "include_categories": features.include_categories,
    }
