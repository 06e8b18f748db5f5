"""Facade: AgentFailure.

Only the pure-Python implementation exists for now; the compiled twin joins later.
"""

from __future__ import annotations

from ._failure_py import AgentFailure

__all__ = ["AgentFailure"]
