"""Public facade of ClaimRegistry: the compiled class when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._claims_py import ClaimRegistry
else:
    from ._claims_c import ClaimRegistry

__all__ = ["ClaimRegistry"]
