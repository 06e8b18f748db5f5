"""Session, SessionPolicy, SessionOutcome and the close/upgrade classifiers."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._session_py import (
        Session,
        SessionOutcome,
        SessionPolicy,
        classify_close,
        classify_upgrade,
    )
else:
    from ._session_c import (
        Session,
        SessionOutcome,
        SessionPolicy,
        classify_close,
        classify_upgrade,
    )

__all__ = ["Session", "SessionOutcome", "SessionPolicy", "classify_close", "classify_upgrade"]
