"""band-mcp's human tools: their input models (``band.runtime.tools.inputs.human``), specs
(``band.runtime.tools.human_specs``) and ``HumanTools``, the backend of the human surface."""

from band.runtime.tools.human import HumanTools
from band.runtime.tools.human_specs import TOOLS, HumanSurface
from band.runtime.tools.inputs.human import *  # noqa: F403 -- the input models
from band.runtime.tools.inputs.human import __all__ as _models

__all__ = ["TOOLS", "HumanSurface", "HumanTools", *_models]
