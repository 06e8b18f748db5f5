"""Our band.runtime.tools helpers answer as band-sdk 6.0.1's do, call for call, side by side."""

from __future__ import annotations

import base64
import json
import os
import subprocess
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

import band.runtime.tools as ours

PNG = base64.b64encode(b"\x89PNG").decode()
IMAGE = {"content": [{"type": "image", "data": PNG, "mimeType": "image/png"}]}
PEOPLE = [
    {"id": "me", "handle": "@me"},
    {"id": "u1", "handle": "@Alice", "name": "Alice Smith"},
    {"id": "u2", "handle": "bob", "name": None},
    {"id": "u3", "name": "No Handle"},
]
#: (function, positional args, keyword args): the same calls go to both packages.
CALLS: list[tuple[str, list[Any], dict[str, Any]]] = [
    *[("strip_handle_prefix", [v], {}) for v in ("@a", "@@a", "a", " @a", "")],
    *[
        ("matches_identifier", [PEOPLE[1], ident], {})
        for ident in ("alice", "@ALICE", "@@alice", "alice smith", "U1", "@u1", "", " alice")
    ],
    ("matches_identifier", [{}, "x"], {}),
    ("available_mention_handles", [PEOPLE, "me"], {}),
    ("available_mention_handles", [PEOPLE], {}),
    ("append_mention_handles_hint", ["Error x", ["@a", "b"]], {}),
    ("append_mention_handles_hint", ["Error x", []], {}),
    ("append_available_mention_handles", ["Error sending", PEOPLE, "me"], {}),
    ("append_available_mention_handles", ["Error sending", [PEOPLE[0]], "me"], {}),
    *[("is_mcp_content_result", [d], {}) for d in (IMAGE, {"content": []}, {"content": "x"}, [])],
    ("is_mcp_content_result", [{"content": [{"type": "image", "data": PNG}]}], {}),
    ("is_mcp_content_result", [{"content": [{**IMAGE["content"][0], "type": "text"}]}], {}),
    *[
        ("is_image_passthrough_result", [name, IMAGE], {})
        for name in ("band_read_room_file", "band-band_read_room_file", "band_send_message")
    ],
    ("decode_image_block", [IMAGE["content"][0]], {}),
    ("decode_image_blocks", [IMAGE], {}),
    ("decode_image_block", [{"mimeType": "x"}], {}),
    ("image_block_placeholder", [2], {}),
    ("mcp_tool_spelling", ["band", "band_send_message"], {}),
    *[
        ("_resolve_mcp_tool_name", [name, ["band_send_message"]], {})
        for name in ("band_send_message", "band-band_send_message", "other-band_send_message")
    ],
    ("canonicalize_mcp_tool_name", ["x-band_no_reply", ["band_no_reply"]], {}),
    ("canonicalize_mcp_tool_name", ["band-band_no_reply", ["band_no_reply"]], {}),
    *[
        ("band_tool_errored", [name, content], {})
        for name, content in (
            ("band_send_message", "Error sending: boom"),
            ("band_send_message", "Errors are fine"),
            ("band-band_send_message", "Error x"),
            ("my_tool", "Error x"),
            (None, "Error x"),
            ("band_send_message", {"error": "x"}),
        )
    ],
    *[
        ("turn_effect", [name], {})
        for name in ("band_send_message", "band-band_no_reply", "band_lookup_peers", "other")
    ],
    ("turn_effect", ["mine"], {"custom_effects": {"mine": "reply"}}),
    ("turn_effect", ["band_send_message"], {"custom_effects": {"band_send_message": "observe"}}),
    *[
        ("tool_result_text", [v], {})
        for v in ("plain", None, 3, [1, "é"], {"b": "BYTES", "n": [None, True]})
    ],
    ("serialize_tool_result", [{"k": [1, 2]}], {}),
    # Descriptions are our own text; what is compared is the fallback for an unknown name.
    ("get_tool_description", ["nope"], {}),
    *[
        ("resolve_tool_model", [name], {})
        for name in ("band_send_message", "send_message", "band-band_send_message", "nope")
    ],
    ("resolve_capabilities", [None], {}),
    *[
        ("get_band_tool_category", [name], {})
        for name in ("band_send_message", "band_send_event", "band_list_tasks", "nope")
    ],
    *[
        ("_validate", [name, model, args], {})
        for name, model, args in (
            ("band_list_tasks", "ListTasksInput", {"state": None, "limit": 5}),
            ("band_list_tasks", "ListTasksInput", {"state": "open"}),
            ("band_list_tasks", "ListTasksInput", {"limit": 0}),
            ("band_send_message", "SendMessageInput", {"content": "hi", "mentions": ["@a"]}),
            ("band_send_message", "SendMessageInput", {"content": 3}),
        )
    ],
    ("_members", ["BandTool"], {}),
    ("_members", ["ToolCategory"], {}),
    ("resolve_capabilities", [["memory"]], {}),
]

RUN = """
import base64, json, sys
import band.runtime.tools as t

def fix(value):
    # JSON can't carry bytes or enums: the calls spell them as markers.
    if value == "BYTES":
        return b"\\xff\\xfe ok"
    if isinstance(value, dict):
        return {k: fix(v) for k, v in value.items()}
    if isinstance(value, list):
        return [fix(v) for v in value]
    return value

def enc(value):
    if isinstance(value, bytes):
        return {"bytes": base64.b64encode(value).decode()}
    if isinstance(value, (list, tuple)):
        return [enc(v) for v in value]
    if isinstance(value, type):
        return value.__name__
    if isinstance(value, frozenset):
        return sorted(enc(v) for v in value)
    if hasattr(value, "value") and type(value).__module__ != "builtins":
        return value.value
    return value

out = []
for name, args, kwargs in json.load(sys.stdin):
    if name == "resolve_capabilities" and args[0] is not None:
        import band
        args = [frozenset(band.Capability(c) for c in args[0])]
    if "custom_effects" in kwargs:
        effects = kwargs["custom_effects"]
        kwargs = {"custom_effects": {k: t.TurnEffect(v) for k, v in effects.items()}}
    if name == "_validate":  # validate_tool_arguments, and the error text when it refuses
        tool, model, arguments = args
        try:
            out.append(t.validate_tool_arguments(tool, getattr(t, model), arguments))
        except ValueError as exc:  # InvalidToolArgumentsError, in both packages
            out.append({"refused": str(exc)})
        continue
    if name == "_members":  # an enum's members, as sorted (name, value) pairs
        out.append(sorted([m.name, m.value] for m in getattr(t, args[0])))
        continue
    try:
        out.append(enc(getattr(t, name)(*fix(args), **kwargs)))
    except Exception as exc:
        out.append({"raised": type(exc).__name__})
print(json.dumps(out))
"""


def _answers(python: str, script: Path) -> list[Any]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    out = subprocess.run(
        [python, str(script)],
        input=json.dumps(CALLS),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        cwd=script.parent,
    )
    assert out.returncode == 0, out.stderr[-3000:]
    answers: list[Any] = json.loads(out.stdout)
    return answers


@requires_refsdk
def test_helpers_answer_like_the_official(tmp_path: Path) -> None:
    import sys

    script = tmp_path / "calls.py"
    script.write_text(RUN)
    theirs = _answers(str(REFSDK_PYTHON), script)
    mine = _answers(sys.executable, script)
    assert len(mine) == len(CALLS)
    for call, got, want in zip(CALLS, mine, theirs, strict=True):
        assert got == want, call
    # The table covers every helper this file is about, so none slips out of the comparison.
    assert {name for name, _, _ in CALLS} - {"_members", "_validate"} <= set(ours.__all__)
