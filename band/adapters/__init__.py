"""Adapters that connect agent frameworks and protocols to Band rooms."""

from typing import Any

from band.adapters.acp import *  # noqa: F403 -- the ACP adapter's public names are this package's
from band.adapters.acp import __all__ as _acp_all

# the model adapters load on first use: their provider SDKs are optional
_MODEL_ADAPTERS = {
    "AnthropicAdapter": "band.adapters.anthropic",
    "AnthropicAdapterConfig": "band.adapters.anthropic",
    "OpenAIAdapter": "band.adapters.openai",
    "OpenAIAdapterConfig": "band.adapters.openai",
}

__all__ = [*_acp_all, *_MODEL_ADAPTERS]


def __getattr__(name: str) -> Any:
    import importlib

    module = _MODEL_ADAPTERS.get(name)
    if module is None:
        raise AttributeError(f"module 'band.adapters' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)
