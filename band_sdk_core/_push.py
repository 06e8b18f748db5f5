"""Private facade of the push path's helpers (band's Phoenix client and runtime use them)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._compat import USING_EXTENSIONS

if TYPE_CHECKING or not USING_EXTENSIONS:
    from ._push_py import *  # noqa: F403
    from ._push_py import __all__ as __all__
else:
    from ._push_c import *  # noqa: F403
    from ._push_c import __all__ as __all__
