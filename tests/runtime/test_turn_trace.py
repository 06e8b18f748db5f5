"""The turn trace: the runtime's record of each turn, its INFO line, its OpenTelemetry spans,
and band dev's own view of the same turn (both sides of the wire), against a real band dev."""

from __future__ import annotations

import json
import logging
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from band.demo.adapter import DemoAdapter, SilentAdapter
from band.runtime.trace import TurnTrace
from band.testing import local_band


def _trace_of(bot: Any, message_id: str) -> TurnTrace:
    """The agent's finished trace of ``message_id`` (the recorder keeps it once settled)."""
    recorder = bot.agent.runtime.turn_recorder
    found = [t for t in recorder.recent() if t.message_id == message_id]
    assert len(found) == 1, recorder.recent()
    return found[0]


def test_a_turn_is_recorded_logged_once_and_shown_by_band_dev(
    caplog: pytest.LogCaptureFixture,
) -> None:
    caplog.set_level(logging.INFO, logger="band.turns")
    caplog.set_level(logging.INFO, logger="band.devserver.turns")
    with local_band() as band:
        bot = band.run_agent(DemoAdapter(), name="Tracer")
        room = band.room(bot)
        reply = room.ask(bot, "trace me")
        mid = room.messages()[0].id
        room.wait_for(lambda _: room.delivery_status(mid, bot) == "processed")
        recorder = bot.agent.runtime.turn_recorder
        room.wait_for(lambda _: any(t.message_id == mid for t in recorder.recent()))
        trace = _trace_of(bot, mid)
        names = [e.name for e in trace.events]
        assert names == [
            "received", "claimed", "processing_mark", "adapter_start", "adapter_end", "settled"
        ]  # fmt: skip
        times = [e.at for e in trace.events]
        assert times == sorted(times) and trace.duration >= times[-1]
        assert trace.events[2].detail == {"accepted": True}
        assert trace.events[-1].detail == {"status": "processed", "confirmed": True}
        assert (trace.outcome, trace.attempt, trace.room_id) == ("processed", 1, room.id)
        # the demo's turn: thought, tool_call event, the reply through the model's path, result
        assert [t.name for t in trace.tools] == [
            "band_send_event", "band_send_event", "band_send_message", "band_send_event"
        ]  # fmt: skip
        send = trace.tools[2]
        assert send.ok and send.args_bytes > len("trace me") and send.end >= send.start
        start, end = trace.at("adapter_start"), trace.at("adapter_end")
        assert start is not None and end is not None
        assert all(start <= t.start <= t.end <= end for t in trace.tools)
        # one INFO line for the turn, naming the room, the message and the outcome
        lines = [r.getMessage() for r in caplog.records if r.name == "band.turns"]
        mine = [line for line in lines if f"message={mid}" in line]
        assert len(mine) == 1 and mine[0] == trace.line()
        assert f"room={room.id}" in mine[0] and " processed in " in mine[0]
        assert "tool band_send_message(" in mine[0]

        # band dev's log names the agent, not only its id, once per settled turn
        server = [r.getMessage() for r in caplog.records if r.name == "band.devserver.turns"]
        assert [line for line in server if mid in line] == [
            f"turn: agent Tracer ({bot.id}) marked message {mid} processed in room {room.id} "
            "(attempt 1)"
        ]
        # band dev's own view of the turn: its records of both sides
        turns = band.me.request("GET", f"/me/agents/{bot.id}/turns").json()["data"]
        assert turns[0]["message_id"] == mid and turns[0]["status"] == "processed"
        assert turns[0]["attempts"] == 1 and turns[0]["seconds"] >= 0
        got = band.me.request("GET", f"/me/agents/{bot.id}/turns/{mid}").json()["data"]
        kinds = [p["kind"] for p in got["points"]]
        assert kinds[:2] == ["sent", "processing"] and kinds[-1] == "processed"
        assert {"thought", "tool_call", "tool_result", "text"} <= set(kinds)
        assert [p["seconds"] for p in got["points"]] == sorted(p["seconds"] for p in got["points"])
        assert [t["name"] for t in got["tools"]] == ["band_send_message"]
        assert got["tools"][0]["ok"] is True
        assert any(reply.text in p["detail"] for p in got["points"] if p["kind"] == "text")
        # only the agent's owner sees its turns
        bob = band.person("Bob")
        assert bob.request("GET", f"/me/agents/{bot.id}/turns").status_code == 404
        assert bob.request("GET", f"/me/agents/{bot.id}/turns/{mid}").status_code == 404


def test_a_failed_turn_is_traced_as_failed() -> None:
    with local_band() as band:
        bot = band.run_agent(SilentAdapter(), name="Mute")
        room = band.room(bot)
        mid = room.say("anyone?", mention=bot)
        room.wait_for(lambda _: room.delivery_status(mid, bot) == "failed")
        recorder = bot.agent.runtime.turn_recorder
        room.wait_for(lambda _: any(t.message_id == mid for t in recorder.recent()))
        trace = _trace_of(bot, mid)
        assert trace.outcome == "failed" and trace.error == "missing reply"
        assert trace.events[-1].detail == {"status": "failed", "confirmed": True}
        assert trace.tools == []  # the adapter called nothing
        got = band.me.request("GET", f"/me/agents/{bot.id}/turns/{mid}").json()["data"]
        assert got["status"] == "failed"
        kinds = [p["kind"] for p in got["points"]]
        assert kinds[:2] == ["sent", "processing"] and kinds.count("failed") == 1
        assert "error" in kinds  # the runtime's missing-reply report, as the platform stored it


#: Run in a process of its own: the tracer provider is process-wide and set once.
OTEL_SCRIPT = """
import json
from opentelemetry import trace
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from band.demo.adapter import DemoAdapter
from band.testing import local_band

with local_band() as band:
    bot = band.run_agent(DemoAdapter(), name="Spans")
    room = band.room(bot)
    room.ask(bot, "before any provider")
    first = room.messages()[0].id
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    trace.set_tracer_provider(provider)
    mid = room.say("spans please", mention=bot)
    recorder = bot.agent.runtime.turn_recorder
    room.wait_for(lambda _: any(t.message_id == mid for t in recorder.recent()))
    [turn] = [t for t in recorder.recent() if t.message_id == mid]
spans = [
    {
        "name": s.name,
        "id": s.context.span_id,
        "parent": s.parent.span_id if s.parent else None,
        "start": s.start_time,
        "end": s.end_time,
        "attributes": dict(s.attributes or {}),
        "events": [e.name for e in s.events],
    }
    for s in exporter.get_finished_spans()
]
print(json.dumps({"first": first, "mid": mid, "spans": spans, "trace": turn.as_dict()}))
"""


def test_the_trace_becomes_opentelemetry_spans(tmp_path: Path) -> None:
    pytest.importorskip("opentelemetry.sdk.trace")  # the dev extra installs it
    script = tmp_path / "spans.py"
    script.write_text(OTEL_SCRIPT)
    proc = subprocess.run(
        [sys.executable, "-I", str(script)], capture_output=True, text=True, timeout=120
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    spans, trace = out["spans"], out["trace"]
    # no span for the turn before a provider was configured; the turn after it has them all
    turns = [s for s in spans if s["name"] == "band.turn"]
    assert [t["attributes"]["band.message_id"] for t in turns] == [out["mid"]]
    turn = turns[0]
    assert turn["attributes"]["band.outcome"] == "processed"
    assert turn["attributes"]["band.attempt"] == 1
    assert turn["events"] == [e["name"] for e in trace["events"]]
    children = [s for s in spans if s is not turn]
    names = [s["name"] for s in children]
    assert names.count("band.adapter") == 1
    assert [n for n in names if n != "band.adapter"] == [
        f"band.tool {t['name']}" for t in trace["tools"]
    ]
    send = next(s for s in children if s["name"] == "band.tool band_send_message")
    assert send["attributes"]["band.args_bytes"] > 0
    for child in children:
        assert child["parent"] == turn["id"]
        assert turn["start"] <= child["start"] <= child["end"] <= turn["end"]
