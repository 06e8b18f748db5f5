"""Public facade of RetryTracker: the compiled class when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._retry_py import RetryTracker
else:
    from ._retry_c import RetryTracker

__all__ = ["RetryTracker"]
