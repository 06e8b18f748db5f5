"""The protocols adapters meet, at band-sdk's import path: ``AgentToolsProtocol`` (the tools of a
turn, ``band.core.agent_tools``), ``HistoryConverter`` and ``Preprocessor``."""

from band.core.agent_tools import AgentToolsProtocol
from band.core.preprocessor import Preprocessor
from band.core.types import HistoryConverter

__all__ = ["AgentToolsProtocol", "HistoryConverter", "Preprocessor"]
