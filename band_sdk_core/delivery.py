"""Facade: one-shot delivery decisions.

Only the pure-Python implementation exists for now; the compiled twin joins later.
"""

from __future__ import annotations

from ._delivery_py import (
    evaluate_adapter_result,
    evaluate_delivery_event,
    evaluate_drain_candidate,
    evaluate_next_message,
    is_self_echo,
)

__all__ = [
    "evaluate_adapter_result",
    "evaluate_delivery_event",
    "evaluate_drain_candidate",
    "evaluate_next_message",
    "is_self_echo",
]
