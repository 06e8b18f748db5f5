"""Public facade of ClaimRegistry."""

from __future__ import annotations

from ._claims_py import ClaimRegistry

__all__ = ["ClaimRegistry"]
