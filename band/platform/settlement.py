"""``SettlementResult``: what a processed/failed mark established on the platform."""

from __future__ import annotations

import enum

__all__ = ["SettlementResult"]


class SettlementResult(enum.StrEnum):
    """The outcome of one terminal mark of a message."""

    #: the platform confirmed it: the message is settled
    ACCEPTED = "accepted"
    #: no confirmation (network, unexpected answer): posting the same mark again is safe
    UNCONFIRMED = "unconfirmed"
    #: the platform does not know the message: posting again cannot succeed
    NOT_FOUND = "not_found"
    #: the platform has no processing attempt to settle: posting again cannot succeed
    REJECTED = "rejected"
