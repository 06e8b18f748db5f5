"""Facade: AgentFailure.

Only the pure-Python implementation exists for now; the compiled twin joins later.
"""

from __future__ import annotations

# the twin's names and its __all__: the facade lists nothing again
from ._failure_py import *  # noqa: F403
from ._failure_py import __all__ as __all__
