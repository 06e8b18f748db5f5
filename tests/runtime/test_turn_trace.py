"""The turn trace: the runtime's record of each turn, its INFO line, its OpenTelemetry spans,
and band dev's own view of the same turn (both sides of the wire), against a real band dev."""

from __future__ import annotations

import logging
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


def test_the_trace_becomes_opentelemetry_spans() -> None:
    sdk = pytest.importorskip("opentelemetry.sdk.trace")
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    from band.runtime.trace_otel import otel_sink, spans_of

    assert otel_sink() is not None  # opentelemetry-api is installed: recorders emit spans
    exporter = InMemorySpanExporter()
    provider = sdk.TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    with local_band() as band:
        bot = band.run_agent(DemoAdapter(), name="Spans")
        room = band.room(bot)
        room.ask(bot, "spans please")
        mid = room.messages()[0].id
        recorder = bot.agent.runtime.turn_recorder
        room.wait_for(lambda _: any(t.message_id == mid for t in recorder.recent()))
        trace = _trace_of(bot, mid)
    spans_of(trace, provider.get_tracer("test"))
    spans = {s.name: s for s in exporter.get_finished_spans()}
    turn = spans["band.turn"]
    assert turn.attributes is not None
    assert turn.attributes["band.message_id"] == mid
    assert turn.attributes["band.outcome"] == "processed"
    assert [e.name for e in turn.events] == [e.name for e in trace.events]
    adapter, send = spans["band.adapter"], spans["band.tool band_send_message"]
    for child in (adapter, send):
        assert child.parent is not None and child.parent.span_id == turn.context.span_id
        assert turn.start_time <= child.start_time <= child.end_time <= turn.end_time
    assert send.attributes is not None and send.attributes["band.args_bytes"] > 0
    assert len(exporter.get_finished_spans()) == 2 + len(trace.tools)
