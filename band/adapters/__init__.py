"""Adapters that connect agent frameworks and protocols to Band rooms."""

from band._lazy import lazy_exports
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


__getattr__ = lazy_exports(globals(), _MODEL_ADAPTERS)
