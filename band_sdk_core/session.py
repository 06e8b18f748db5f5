"""Session, SessionPolicy, SessionOutcome and the close/upgrade classifiers."""

from __future__ import annotations

from ._session_py import Session, SessionOutcome, SessionPolicy, classify_close, classify_upgrade

__all__ = ["Session", "SessionOutcome", "SessionPolicy", "classify_close", "classify_upgrade"]
