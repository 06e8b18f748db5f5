"""Public facade of DecisionRegistry, CancelledDecisions and is_authorized_sender."""

from __future__ import annotations

from ._decisions_py import CancelledDecisions, DecisionRegistry, is_authorized_sender

__all__ = ["CancelledDecisions", "DecisionRegistry", "is_authorized_sender"]
