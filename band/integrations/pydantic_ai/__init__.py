"""Pydantic AI helpers of band-sdk 6.0.1 (the Band tools: :mod:`.tools`). The adapter is
``band.adapters.PydanticAIAdapter``. Needs the [pydantic-ai] extra."""

from __future__ import annotations

from band._extras import require_module

require_module("pydantic-ai", "band.integrations.pydantic_ai")  # optional: say how to get it
