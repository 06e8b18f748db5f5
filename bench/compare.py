"""Operations per second of band_sdk_core, implementation against implementation.

Every measurement runs in a worker subprocess that imports ``band_sdk_core``
through its public API, so ours (``c``: compiled, ``py``: forced pure Python)
and another interpreter's package (``--against PYTHON``, e.g. the reference
wheel in a scratch venv) run exactly the same code. Rounds are interleaved
across implementations to cancel machine drift; the best round counts.

    python bench/compare.py                       # c and py
    python bench/compare.py --against /venv/bin/python --json out.json
"""

from __future__ import annotations

import argparse
import json
import math
import os
import subprocess
import sys
import time
from collections.abc import Callable
from typing import Any

OPERATIONS = [
    "validate message_created",
    "validate participant_added",
    "validate agent.control",
    "validate invalid message (raising)",
    "evaluate_delivery_event",
    "roster add x50",
    "roster set_all(50)",
    "roster list(50)",
    "retry record_attempt",
    "claim cycle (5 calls)",
    "session reconnect cycle (3 calls)",
    "turn ledger cycle (new + 5 calls)",
    "activity normalize (5 rows)",
]


def _operations(core: Any) -> dict[str, Callable[[], object]]:
    """Build one zero-argument callable per operation."""
    message = {
        "id": "3f1e2d4c-0000-4000-8000-000000000001",
        "content": "@[[agent-1]] could you summarise the thread so far?",
        "message_type": "text",
        "sender_type": "User",
        "sender_id": "user-1",
        "sender_name": "Ada",
        "chat_room_id": "room-1",
        "inserted_at": "2026-12-02T12:00:00.000000Z",
        "updated_at": "2026-12-02T12:00:00.000000Z",
        "metadata": {
            "mentions": [{"id": "agent-1", "handle": "ada/helper", "name": "Helper"}],
            "status": "sent",
        },
        "attachments": [],
    }
    participant = {
        "id": "agent-2",
        "type": "Agent",
        "name": "Reviewer",
        "handle": "ada/reviewer",
        "description": "Reviews code",
        "is_external": False,
    }
    control = {
        "mode": "stop",
        "scope": "room",
        "agent_id": "agent-1",
        "correlation_id": "c-1",
        "execution_id": None,
        "room_id": "room-1",
    }
    invalid = {"id": "", "content": 5, "metadata": {"mentions": [{"id": 3}]}}
    people = [
        {"id": f"p{i}", "name": f"P{i}", "type": "User", "handle": f"h{i}", "description": None}
        for i in range(50)
    ]
    activity = {
        "working_agents": [
            {
                "agent_id": f"agent-{i}",
                "agent_name": f"Agent {i}",
                "working": True,
                "activity": {"kind": "tool_call", "name": "search"}
                if i % 2
                else {"kind": "reasoning"},
            }
            for i in range(5)
        ]
    }

    def invalid_message() -> None:
        try:
            core.validate_event_payload("message_created", invalid)
        except ValueError:
            pass

    def roster_add() -> None:
        roster = core.ParticipantRoster()
        for person in people:
            roster.add(person)

    def roster_set_all() -> None:
        core.ParticipantRoster().set_all(people)

    full_roster = core.ParticipantRoster()
    full_roster.set_all(people)
    tracker = core.RetryTracker(max_retries=1_000_000_000, max_tracked=100)
    claims = core.ClaimRegistry()
    claim_tracker = core.RetryTracker(max_retries=3)
    counter = [0]

    def claim_cycle() -> None:
        counter[0] += 1
        mid = str(counter[0] % 256)
        claims.guarded_claim("room", mid, claim_tracker)
        claim_tracker.record_attempt(mid)
        pending = claims.record_processed_settlement("room", mid)
        claims.release("room", mid)
        claims.confirm_settlement("room", mid, pending["token"], claim_tracker)

    session = core.Session(core.SessionPolicy.default())
    clock = [0.0]

    def session_cycle() -> None:
        now = clock[0] = clock[0] + 100.0
        epoch = session.begin_attempt(now)
        session.on_connected(epoch, now)
        session.on_socket_close(epoch, now + 70.0, 1006, 0.5)

    effects = core.band_tool_effects()
    observe, reply = effects["band_get_participants"], effects["band_send_message"]

    def ledger_cycle() -> None:
        ledger = core.TurnLedger()
        ledger.record(observe)
        ledger.record(reply)
        ledger.reply_settled()
        ledger.settle()
        ledger.verdict()

    return {
        OPERATIONS[0]: lambda: core.validate_event_payload("message_created", message),
        OPERATIONS[1]: lambda: core.validate_event_payload("participant_added", participant),
        OPERATIONS[2]: lambda: core.validate_event_payload("agent.control", control),
        OPERATIONS[3]: invalid_message,
        OPERATIONS[4]: lambda: core.evaluate_delivery_event(
            "message_created", "room-1", message, "agent-1"
        ),
        OPERATIONS[5]: roster_add,
        OPERATIONS[6]: roster_set_all,
        OPERATIONS[7]: full_roster.list,
        OPERATIONS[8]: lambda: tracker.record_attempt("m-1"),
        OPERATIONS[9]: claim_cycle,
        OPERATIONS[10]: session_cycle,
        OPERATIONS[11]: ledger_cycle,
        OPERATIONS[12]: lambda: core.normalize_room_activity_snapshot(activity, "agent-0"),
    }


def _measure(func: Callable[[], object], seconds: float) -> float:
    """Return the best ops/s of a few timed batches lasting about ``seconds`` in all."""
    number = 1
    while True:  # calibrate a batch of about 20 ms
        start = time.perf_counter()
        for _ in range(number):
            func()
        elapsed = time.perf_counter() - start
        if elapsed > 0.02:
            break
        number *= 2
    best = number / elapsed
    deadline = time.perf_counter() + seconds
    while time.perf_counter() < deadline:
        start = time.perf_counter()
        for _ in range(number):
            func()
        best = max(best, number / (time.perf_counter() - start))
    return best


def worker(seconds: float) -> None:
    """Measure every operation in this interpreter and print JSON."""
    import gc

    import band_sdk_core as core

    gc.disable()
    ops = _operations(core)
    result = {name: _measure(func, seconds) for name, func in ops.items()}
    using = getattr(core, "USING_EXTENSIONS", None)
    print(json.dumps({"using_extensions": using, "ops": result}))


def _run(python: str, env: dict[str, str], seconds: float) -> dict[str, Any]:
    out = subprocess.run(
        [python, os.path.abspath(__file__), "--worker", "--seconds", str(seconds)],
        env=env,
        capture_output=True,
        text=True,
        check=True,
        cwd=os.path.dirname(os.path.abspath(__file__)),
    )
    return json.loads(out.stdout)


def main() -> None:
    """Run interleaved rounds and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--against", metavar="PYTHON", help="another interpreter to compare")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seconds", type=float, default=0.3, help="time per operation per round")
    parser.add_argument("--json", metavar="PATH", help="also write the results as JSON")
    parser.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.worker:
        worker(args.seconds)
        return

    base = {k: v for k, v in os.environ.items() if not k.startswith("BAND_SDK_CORE_")}
    impls: dict[str, tuple[str, dict[str, str]]] = {
        "c": (sys.executable, {**base, "BAND_SDK_CORE_REQUIRE_EXTENSIONS": "1"}),
        "py": (sys.executable, {**base, "BAND_SDK_CORE_NO_EXTENSIONS": "1"}),
    }
    if args.against:
        impls["ref"] = (args.against, base)
    best: dict[str, dict[str, float]] = {name: {} for name in impls}
    for round_ in range(args.rounds):
        for name, (python, env) in impls.items():
            print(f"round {round_ + 1}/{args.rounds}: {name} ...", file=sys.stderr, flush=True)
            ops = _run(python, env, args.seconds)["ops"]
            for op, value in ops.items():
                best[name][op] = max(best[name].get(op, 0.0), value)

    names = list(impls)
    ref = "ref" if "ref" in impls else "py"
    header = f"| operation | {' | '.join(f'{n} ops/s' for n in names)} |"
    others = [n for n in names if n != ref]
    header += "".join(f" {n}/{ref} |" for n in others)
    print(header)
    print("|" + " --- |" * (1 + len(names) + len(others)))
    logs: dict[str, list[float]] = {n: [] for n in others}
    for op in OPERATIONS:
        row = f"| {op} | " + " | ".join(f"{best[n][op]:,.0f}" for n in names) + " |"
        for n in others:
            ratio = best[n][op] / best[ref][op]
            logs[n].append(math.log(ratio))
            row += f" {ratio:.2f}x |"
        print(row)
    geo = "".join(f" {math.exp(sum(v) / len(v)):.2f}x |" for v in logs.values())
    print("| **geometric mean** |" + " |" * len(names) + geo)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump({"ops_per_s": best, "baseline": ref}, fh, indent=2)


if __name__ == "__main__":
    main()
