"""Turn outcome: TurnLedger, band_tool_effects, no_reply_tool and missing_reply_message."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

# the twin's names and its __all__: the facade lists nothing again
if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._turn_py import *  # noqa: F403
    from ._turn_py import __all__ as __all__
else:
    from ._turn_c import *  # noqa: F403
    from ._turn_c import __all__ as __all__
