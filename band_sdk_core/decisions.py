"""Public facade of DecisionRegistry, CancelledDecisions and is_authorized_sender."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

# the twin's names and its __all__: the facade lists nothing again
if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._decisions_py import *  # noqa: F403
    from ._decisions_py import __all__ as __all__
else:
    from ._decisions_c import *  # noqa: F403
    from ._decisions_c import __all__ as __all__
