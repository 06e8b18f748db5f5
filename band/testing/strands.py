"""``ScriptedStrandsModel``: a Strands model that plays scripted turns in-process.

Where :class:`band.testing.ScriptedModel` is a provider server a real Strands ``OpenAIModel``
talks to over HTTP, this is the in-process variant for tests without a server: it implements
Strands' ``Model`` interface and answers each ``stream()`` call with the next turn, in the same
turn types (``TextTurn``, ``ToolTurn``, a list of ``ToolTurn`` for parallel calls, ``ErrorTurn``).
Needs the ``[strands]`` extra.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncGenerator, Sequence
from typing import Any

from band._extras import require

require("strands", "ScriptedStrandsModel")

from strands.models import Model  # noqa: E402
from strands.types.content import Messages  # noqa: E402
from strands.types.streaming import StreamEvent  # noqa: E402
from strands.types.tools import ToolSpec  # noqa: E402

from band.testing.scripted_model import ErrorTurn, ScriptedTurn, TextTurn, ToolTurn  # noqa: E402

__all__ = ["ErrorTurn", "ScriptedStrandsModel", "ScriptedTurn", "TextTurn", "ToolTurn"]


class ScriptedStrandsModel(Model):
    """Answers each model call with the next scripted turn (text, tool calls, or an error);
    once the script is exhausted, with the text ``done``. Non-zero token counts add the
    usage metadata event to every answer. ``calls`` records what each call was given."""

    def __init__(
        self,
        turns: Sequence[ScriptedTurn] = (),
        *,
        input_tokens: int = 0,
        output_tokens: int = 0,
    ) -> None:
        self._turns: list[ScriptedTurn] = list(turns)
        self._input_tokens = input_tokens
        self._output_tokens = output_tokens
        self._config: dict[str, Any] = {}
        #: per call: the messages, the offered tool names and the system prompt
        self.calls: list[dict[str, Any]] = []

    def script(self, *turns: ScriptedTurn) -> None:
        """Queue more turns."""
        self._turns.extend(turns)

    def update_config(self, **model_config: Any) -> None:
        """Strands' config hook: kept as given."""
        self._config.update(model_config)

    def get_config(self) -> Any:
        """The config given to :meth:`update_config`."""
        return self._config

    async def structured_output(
        self, output_model: Any, prompt: Messages, system_prompt: str | None = None, **kwargs: Any
    ) -> AsyncGenerator[dict[str, Any], None]:
        """Not scripted: structured output is refused."""
        raise NotImplementedError("ScriptedStrandsModel does not script structured output")
        yield {}  # an async generator, as the interface declares

    async def stream(
        self,
        messages: Messages,
        tool_specs: list[ToolSpec] | None = None,
        system_prompt: str | None = None,
        **kwargs: Any,
    ) -> AsyncGenerator[StreamEvent, None]:
        """The next turn as Strands' stream events."""
        self.calls.append(
            {
                "messages": json.loads(json.dumps(messages, default=str)),
                "tool_names": [spec["name"] for spec in tool_specs or []],
                "system_prompt": system_prompt,
            }
        )
        turn: ScriptedTurn = self._turns.pop(0) if self._turns else TextTurn("done")
        delay = 0.0 if isinstance(turn, Sequence) else turn.delay
        if delay:
            await asyncio.sleep(delay)
        if isinstance(turn, ErrorTurn):
            raise turn.error or RuntimeError(
                f"scripted model error {turn.status}: {turn.message or 'error'}"
            )
        yield {"messageStart": {"role": "assistant"}}
        if isinstance(turn, TextTurn):
            yield {"contentBlockStart": {"start": {}}}
            yield {"contentBlockDelta": {"delta": {"text": turn.text}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "end_turn"}}
        else:
            calls = [turn] if isinstance(turn, ToolTurn) else list(turn)
            for i, call in enumerate(calls):
                use_id = call.id or f"call-{len(self.calls)}-{i}-{call.name}"
                start = {"toolUse": {"toolUseId": use_id, "name": call.name}}
                yield {"contentBlockStart": {"start": start}}  # type: ignore[typeddict-item]
                delta = {"toolUse": {"input": json.dumps(call.args)}}
                yield {"contentBlockDelta": {"delta": delta}}  # type: ignore[typeddict-item]
                yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}
        if self._input_tokens or self._output_tokens:
            total = self._input_tokens + self._output_tokens
            usage = {
                "inputTokens": self._input_tokens,
                "outputTokens": self._output_tokens,
                "totalTokens": total,
            }
            yield {"metadata": {"usage": usage, "metrics": {"latencyMs": 1}}}  # type: ignore[typeddict-item]
