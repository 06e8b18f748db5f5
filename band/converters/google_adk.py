"""``GoogleADKHistoryConverter``: platform history as the contents a Google ADK agent reads.

ADK's messages are google-genai ``Content``\\s, so the rows are read as the Gemini converter
reads them (``user`` text parts ``[sender]: text``, this agent's tool calls ``model``
``function_call`` parts, their results ``function_response`` parts, in the dict form
``types.Content`` validates). ``format_transcript`` renders them as the text that opens an ADK
session (the adapter's runner starts each session fresh). It imports nothing of ADK.
"""

from __future__ import annotations

import json

from .gemini import GeminiHistoryConverter, GeminiMessages

__all__ = ["GoogleADKHistoryConverter", "GoogleADKMessages"]

#: ADK contents: ``{"role": "user" | "model", "parts": [...]}`` (google-genai's dict form).
GoogleADKMessages = GeminiMessages

#: How much of a tool's output a transcript line shows.
OUTPUT_PREVIEW = 200


class GoogleADKHistoryConverter(GeminiHistoryConverter):
    """The Gemini conversion under ADK's name, and the transcript an ADK session opens with."""

    def format_transcript(self, history: GoogleADKMessages) -> str:
        """The contents as lines: each text part as it is (``[sender]: text``; a ``model``
        text labelled with this agent's name), each call ``[Tool Call] name (args)``, each
        result ``[Tool Result] name: output`` (its first 200 characters)."""
        lines: list[str] = []
        for content in history:
            parts = content.get("parts")
            for part in parts if isinstance(parts, list) else []:
                if not isinstance(part, dict):
                    continue
                if isinstance(text := part.get("text"), str):
                    own = content.get("role") == "model" and self._agent_name
                    lines.append(f"[{self._agent_name}]: {text}" if own else text)
                elif isinstance(call := part.get("function_call"), dict):
                    args = json.dumps(call.get("args") or {}, default=str)
                    lines.append(f"[Tool Call] {call.get('name', 'unknown')} ({args})")
                elif isinstance(reply := part.get("function_response"), dict):
                    response = reply.get("response")
                    output = str(response.get("output", "") if isinstance(response, dict) else "")
                    if len(output) > OUTPUT_PREVIEW:
                        output = output[:OUTPUT_PREVIEW] + "..."
                    lines.append(f"[Tool Result] {reply.get('name', 'unknown')}: {output}")
        return "\n".join(lines)
