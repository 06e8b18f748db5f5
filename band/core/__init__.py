"""What adapters build on: the adapter base class, tool protocol, message types and the turn."""

from .exceptions import AgentAlreadyRunningError, BandConfigError, BandError
from .preprocessor import Preprocessor
from .protocols import AgentToolsProtocol, FrameworkAdapter
from .simple_adapter import FeatureKwargs, SimpleAdapter
from .types import (
    AdapterFeatures,
    AgentInput,
    Emit,
    HistoryConverter,
    HistoryProvider,
    PlatformMessage,
)

__all__ = [
    "AdapterFeatures",
    "AgentAlreadyRunningError",
    "AgentInput",
    "AgentToolsProtocol",
    "BandConfigError",
    "BandError",
    "Emit",
    "FeatureKwargs",
    "FrameworkAdapter",
    "HistoryConverter",
    "HistoryProvider",
    "PlatformMessage",
    "Preprocessor",
    "SimpleAdapter",
]
