"""Turn outcome: TurnLedger, band_tool_effects, no_reply_tool and missing_reply_message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._turn_py import TurnLedger, band_tool_effects, missing_reply_message, no_reply_tool
else:
    from ._turn_c import TurnLedger, band_tool_effects, missing_reply_message, no_reply_tool

__all__ = ["TurnLedger", "band_tool_effects", "missing_reply_message", "no_reply_tool"]
