"""Public facade of one-shot delivery decisions: the compiled twin when active, else pure Python."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._delivery_py import (
        evaluate_adapter_result,
        evaluate_delivery_event,
        evaluate_drain_candidate,
        evaluate_next_message,
        is_self_echo,
    )
else:
    from ._delivery_c import (
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
