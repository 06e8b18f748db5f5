"""The smallest real ACP agent: JSON-RPC over stdio with the standard library only.

It starts in milliseconds (no SDK, no pydantic), so a test can run hundreds of room processes
on two cores. Each prompt is answered with one ``agent_message_chunk`` ``answered: <text>``.
Sessions are kept in ``tiny-sessions.json`` in the working directory, so a new process can
``session/load`` them; every request is appended to ``tiny-calls.jsonl`` there. Run it with
``python -I -S tiny_agent.py``.
"""

from __future__ import annotations

import json
import os
import sys
import uuid
from pathlib import Path
from typing import Any

SESSIONS = Path("tiny-sessions.json")
CALLS = Path("tiny-calls.jsonl")


def send(message: dict[str, Any]) -> None:
    """Write one JSON-RPC message (stdout is the protocol channel)."""
    sys.stdout.write(json.dumps({"jsonrpc": "2.0", **message}) + "\n")
    sys.stdout.flush()


def sessions() -> list[str]:
    return json.loads(SESSIONS.read_text()) if SESSIONS.exists() else []


def handle(method: str, params: dict[str, Any]) -> Any:
    """The result of one request; raises ``LookupError`` for an unknown session or method."""
    if method == "initialize":
        return {
            "protocolVersion": 1,
            "agentCapabilities": {
                "loadSession": True,
                "mcpCapabilities": {"http": True, "sse": False},
            },
            "authMethods": [],
            "agentInfo": {"name": "tiny-agent", "version": "1.0"},
        }
    if method == "session/new":
        sid = f"tiny-{uuid.uuid4().hex[:12]}"
        SESSIONS.write_text(json.dumps([*sessions(), sid]))
        return {"sessionId": sid}
    if method == "session/load":
        if params.get("sessionId") not in sessions():
            raise LookupError(-32002, "Resource not found")
        return {}
    if method == "session/prompt":
        text = "".join(b.get("text", "") for b in params.get("prompt", []))
        last = text.strip().splitlines()[-1] if text.strip() else ""
        update = {
            "sessionUpdate": "agent_message_chunk",
            "content": {"type": "text", "text": f"answered: {last}"},
        }
        send(
            {
                "method": "session/update",
                "params": {"sessionId": params["sessionId"], "update": update},
            }
        )
        return {"stopReason": "end_turn"}
    raise LookupError(-32601, "Method not found")


def main() -> None:
    """Serve requests until stdin closes."""
    for line in sys.stdin:
        if not line.strip():
            continue
        message = json.loads(line)
        method, params = message.get("method"), message.get("params") or {}
        with CALLS.open("a") as log:
            log.write(
                json.dumps(
                    {"method": method, "session_id": params.get("sessionId"), "pid": os.getpid()}
                )
                + "\n"
            )
        if "id" not in message or method is None:
            continue  # a notification (session/cancel) or a response: nothing to answer
        try:
            send({"id": message["id"], "result": handle(method, params)})
        except LookupError as exc:
            code, text = exc.args
            send({"id": message["id"], "error": {"code": code, "message": text}})


if __name__ == "__main__":
    main()
