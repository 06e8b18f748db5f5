"""Devserver tests share the platform helpers of ``bandtest``."""

from bandtest.platform import Live, expect_error, room_with, say, stop_process

__all__ = ["Live", "expect_error", "room_with", "say", "stop_process"]
