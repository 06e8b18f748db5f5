"""Public facade of DecisionRegistry, CancelledDecisions and is_authorized_sender."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._decisions_py import CancelledDecisions, DecisionRegistry, is_authorized_sender
else:
    from ._decisions_c import CancelledDecisions, DecisionRegistry, is_authorized_sender

__all__ = ["CancelledDecisions", "DecisionRegistry", "is_authorized_sender"]
