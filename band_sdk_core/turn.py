"""Turn outcome: TurnLedger, band_tool_effects, no_reply_tool and missing_reply_message."""

from __future__ import annotations

from ._turn_py import TurnLedger, band_tool_effects, missing_reply_message, no_reply_tool

__all__ = ["TurnLedger", "band_tool_effects", "missing_reply_message", "no_reply_tool"]
