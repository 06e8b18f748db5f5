"""How the real coding agents (Claude Code, Gemini CLI) are driven through ScriptedModel: the
turn's user message carries the script, the last ``[[ step; step; ... ]]`` block, and a
``ScriptedModel`` responder turns it into one model response per tool step:

* ``say <text>``: text in the current response (held by the adapter, posted as a thought).
* ``think <text>``: a thought in the current response.
* ``reply <text>``: call ``band_send_message`` mentioning the requester (the context's
  ``Current requester id: <id>``); ends the response.
* ``bash <command>``: call the agent's own shell tool (Claude Code ``Bash``, Gemini
  ``run_shell_command``), which asks the client for permission; ends the response.
* ``wait``: stream the response's text so far, then hold the stream open until the client
  goes away (the agent cancels the request when the turn is interrupted); only the first time
  the script is seen (a message run again after a restart is answered at once).

A script's steps after the last tool step end the turn. Requests without the Band tools (an
agent's own side queries: titles, routing, next speaker) get a neutral answer.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field

from band.testing import ModelRequest, ScriptedTurn, TextTurn, ToolTurn

__all__ = ["AgentScript", "NEUTRAL_JSON", "WAIT_S"]

SCRIPT = re.compile(r"\[\[(.*?)\]\]", re.S)
REQUESTER = re.compile(r"Current requester id: (\S+)")
TOOL_STEPS = frozenset({"reply", "bash"})
#: Gemini CLI's side queries that want JSON (model routing, next speaker) all parse this.
NEUTRAL_JSON = {
    "reasoning": "scripted",
    "model_choice": "flash",
    "complexity_reasoning": "scripted",
    "complexity_score": 1,
    "next_speaker": "user",
}
#: How long ``wait`` holds at most (the agent normally aborts the request long before).
WAIT_S = 120.0


@dataclass
class Answer:
    """What the model answers at one point of the script."""

    texts: list[str] = field(default_factory=list)
    thoughts: list[str] = field(default_factory=list)
    tool: tuple[str, str] | None = None
    wait: bool = False


def parse_script(text: str) -> list[Answer]:
    """The model's responses for the last ``[[...]]`` block of ``text``, one per tool step."""
    blocks = SCRIPT.findall(text)
    if not blocks:
        return [Answer(texts=["(no script)"])]
    responses = [Answer()]
    for raw in blocks[-1].split(";"):
        verb, _, arg = raw.strip().partition(" ")
        current = responses[-1]
        if verb == "say":
            current.texts.append(arg)
        elif verb == "think":
            current.thoughts.append(arg)
        elif verb == "wait":
            current.wait = True
        elif verb in TOOL_STEPS:
            current.tool = (verb, arg)
            responses.append(Answer())
    return responses


class AgentScript:
    """A ``ScriptedModel`` responder that follows the script in the turn's user message."""

    def __init__(self) -> None:
        #: scripts whose ``wait`` already held once (a turn run again answers at once)
        self._waited: set[str] = set()

    def __call__(self, request: ModelRequest) -> ScriptedTurn:
        if not any(name.endswith("band_send_message") for name in request.tool_names):
            return self._side_query(request)
        script, done = "", 0
        for index in range(len(request.messages) - 1, -1, -1):
            role, text = request.messages[index]
            if role == "user" and "[[" in text:
                script = text
                done = sum(1 for r, _ in request.messages[index + 1 :] if r == "assistant")
                break
        steps = parse_script(script)
        step = steps[done] if done < len(steps) else Answer()
        thinking = "\n".join(step.thoughts) or None
        text = "".join(step.texts)
        if step.tool is None:
            hold = WAIT_S if step.wait and script not in self._waited else 0.0
            if hold:
                self._waited.add(script)
            return TextTurn(text, thinking=thinking, hold=hold)
        verb, arg = step.tool
        if verb == "reply":
            args: dict[str, object] = {"content": arg, "mentions": [self._requester(request)]}
            return ToolTurn("band_send_message", args, text=text, thinking=thinking)
        if request.provider == "gemini":
            return ToolTurn("run_shell_command", {"command": arg}, text=text, thinking=thinking)
        args = {"command": arg, "description": "Run a command"}
        return ToolTurn("Bash", args, text=text, thinking=thinking)

    @staticmethod
    def _requester(request: ModelRequest) -> str:
        """The requester id the adapter's context names (the last one), or ``unknown``."""
        texts = [request.system or ""] + [text for _, text in request.messages]
        found = REQUESTER.findall("\n".join(texts))
        return found[-1] if found else "unknown"

    @staticmethod
    def _side_query(request: ModelRequest) -> TextTurn:
        """An agent's own query: neutral JSON where Gemini CLI asks for JSON, else text."""
        if request.provider == "gemini":
            config = request.body.get("generationConfig") or {}
            wants_json = config.get("responseMimeType") == "application/json"
            return TextTurn(json.dumps(NEUTRAL_JSON) if wants_json else "ok")
        return TextTurn("Band room")
