"""End-to-end bench: N echo agents x M rooms x K messages through ``band dev`` over real sockets.

Each run starts a fresh ``band dev`` (file DB in a temp dir, 127.0.0.1), registers N agents,
starts each as its own process running bench/e2e/echo_agent.py, and has the local person talk
to them through the human API:

1. one warm-up room per agent: the first answer proves the agent is up; then its RSS is the
   idle agent's memory;
2. M more rooms per agent, one message each; the RSS growth over M is the memory per room;
3. K messages per room, every room in parallel, each room waiting for the answer before its next
   message (closed loop): answered messages per second over the phase, send-to-reply latency
   (the person's socket sees the reply push), and the CPU time the agent processes and the
   platform spent per answered message (from /proc; unlike wall-clock figures it barely moves
   with the machine's other load).

Afterwards every room must hold exactly one answer per message (read back through the human
API): ``lost`` and ``dup`` count the misses. Variants ``c`` (our SDK, compiled core), ``py``
(our SDK, BAND_SDK_CORE_NO_EXTENSIONS=1), ``uv`` (our SDK, compiled core, on uvloop; every
other variant runs with BAND_UVLOOP=0, on asyncio's own loop), ``ref`` (``--against PYTHON``:
the same script under another interpreter's band-sdk) and ``base`` (``--against-commit REV``:
our SDK as it was at REV, compiled core, in a venv built once by commits.py) alternate round by
round in one run; medians over rounds. ``mix`` runs half the agents on the compiled core and
half on the pure one in the same run (which half flips each round) and prints the two halves'
CPU per answered message round by round: the same load at the same moments, so the
comparison does not carry the rounds' spread. ``--guard`` fails the run (exit 1) when ``c`` is worse
than ``base`` beyond the noise band of bench/thresholds.py (``E2E_NOISE``).

    python bench/e2e/run.py --against "$BAND_REFSDK_PYTHON" --json e2e.json
    python bench/e2e/run.py --only c,base --against-commit main --guard
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import math
import os
import platform as pyplatform
import secrets
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from harness import (
    AGENT_SCRIPT,
    FLOOR_SCRIPT,
    AgentProc,
    DevPlatform,
    Person,
    cpu_seconds,
    rss_kib,
    start_agent,
    stop,
    sys_cpu_seconds,
    tick_cpu_seconds,
)

sys.path.insert(1, str(Path(__file__).resolve().parent.parent))
import runinfo  # bench/runinfo.py: commit, time and machine, as every result carries
import thresholds  # bench/thresholds.py: the e2e noise band of --guard
from commits import python_at


@dataclass
class Result:
    """One variant's figures for one round."""

    variant: str
    msgs_per_s: float
    p50_ms: float
    p99_ms: float
    idle_agent_kib: float
    per_room_kib: float
    ready_s: float
    agent_cpu_ms: float  # agent processes' CPU per answered message (load phase)
    platform_cpu_ms: float  # the platform's CPU per answered message (load phase)
    answered: int
    lost: int
    dup: int
    # this process's CPU per answered message (the person: its HTTP posts and socket reads),
    # on the same 2 cores as what it measures, so a heavy person slows every variant
    person_cpu_ms: float = 0.0
    # variant "mix" only: the agents split between the compiled and the pure core in one run,
    # each half's CPU per answered message
    compiled_cpu_ms: float = 0.0
    pure_cpu_ms: float = 0.0
    # the system-call (kernel) part of agent_cpu_ms, from the processes' tick counts (10 ms
    # steps: a few percent of a round's figure); in the round lines and the JSON only
    agent_sys_ms: float = 0.0


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0..1) by nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


async def _answered(
    person: Person, pairs: list[tuple[str, AgentProc, str]], timeout: float
) -> None:
    """Ask every (room, agent, token) at once; raise when any answer misses ``timeout``."""
    await asyncio.gather(*(person.ask(rid, a, tok, timeout) for rid, a, tok in pairs))


async def one_run(
    variant: str,
    python: str,
    pure: bool,
    args: argparse.Namespace,
    workdir: Path,
    rnd: int = 0,
) -> tuple[Result, list[float]]:
    """Measure one variant on a fresh platform; return its result and raw latencies.

    Variant ``mix`` runs every other agent on the pure core (which ones flips with ``rnd``):
    both cores then serve the same load on the same platform at the same moments.
    """
    plat_prof = Path(args.profile_platform).resolve() if args.profile_platform else None
    band = str(Path(args.platform_band).resolve()) if args.platform_band else None
    plat = DevPlatform(workdir, band=band, profile=plat_prof)
    plat.start()
    person = Person(plat)
    agents: list[AgentProc] = []
    tag = secrets.token_hex(3)
    seq = iter(range(10**9))

    def token() -> str:
        return f"e2e-{tag}-{next(seq)}"

    try:
        await person.open()
        for i in range(args.agents):
            agent = await person.register(f"Echo{i}")
            await person.room_with(agent)
            agents.append(agent)
        t0 = time.perf_counter()
        profiled = agents[0] if args.profile else None  # one agent process is profiled
        pure_agents = {
            a.agent_id
            for i, a in enumerate(agents)
            if (pure if variant != "mix" else (i + rnd) % 2)
        }
        for agent in agents:
            prof = Path(args.profile).resolve() if agent is profiled else None
            in_pure = agent.agent_id in pure_agents
            start_agent(
                python,
                agent,
                plat,
                workdir,
                in_pure,
                script=FLOOR_SCRIPT if variant.startswith("floor") else AGENT_SCRIPT,
                profile=prof,
                uvloop=variant in ("uv", "flooruv"),
            )
        warm = [(a.rooms[0], a, token()) for a in agents]
        await _answered(person, warm, args.timeout)
        ready = time.perf_counter() - t0
        await asyncio.sleep(args.settle)
        idle = [rss_kib(a.proc.pid) for a in agents if a.proc]
        for agent in agents:
            for _ in range(args.rooms):
                await person.room_with(agent)
        opened = [(rid, a, token()) for a in agents for rid in a.rooms[1:]]
        await _answered(person, opened, args.timeout)
        await asyncio.sleep(args.settle)
        with_rooms = [rss_kib(a.proc.pid) for a in agents if a.proc]
        per_room = statistics.mean(
            (r - i) / args.rooms for r, i in zip(with_rooms, idle, strict=True)
        )

        async def room_loop(rid: str, agent: AgentProc) -> list[float]:
            return [
                await person.ask(rid, agent, token(), args.timeout) for _ in range(args.messages)
            ]

        pids = [a.proc.pid for a in agents if a.proc]
        assert plat.proc is not None
        each0 = {a.agent_id: cpu_seconds(a.proc.pid) for a in agents if a.proc}
        cpu0 = sum(each0.values()), cpu_seconds(plat.proc.pid)
        ticks0 = sum(tick_cpu_seconds(pid) for pid in [*pids, plat.proc.pid])
        sys0 = sum(sys_cpu_seconds(pid) for pid in pids)
        if profiled is not None and profiled.proc is not None:
            profiled.proc.send_signal(signal.SIGUSR1)  # the load phase only
        if plat_prof is not None:
            plat.proc.send_signal(signal.SIGUSR1)
        # the person's own full collections (20 ms and more) are not the SDKs' latency: what
        # the setup left is frozen out of them for the load phase
        gc.collect()
        gc.freeze()
        person0 = time.process_time()
        start = time.perf_counter()
        per_room_lat = await asyncio.gather(
            *(room_loop(rid, a) for a in agents for rid in a.rooms[1:])
        )
        elapsed = time.perf_counter() - start
        person_cpu = time.process_time() - person0
        gc.unfreeze()
        if profiled is not None and profiled.proc is not None:
            profiled.proc.send_signal(signal.SIGUSR2)
        if plat_prof is not None:
            plat.proc.send_signal(signal.SIGUSR2)
        each = {a.agent_id: cpu_seconds(a.proc.pid) - each0[a.agent_id] for a in agents if a.proc}
        cpu1 = cpu0[0] + sum(each.values()), cpu_seconds(plat.proc.pid)
        ticks = sum(tick_cpu_seconds(pid) for pid in [*pids, plat.proc.pid]) - ticks0
        agent_sys = sum(sys_cpu_seconds(pid) for pid in pids) - sys0
        exact = cpu1[0] - cpu0[0] + cpu1[1] - cpu0[1]
        # the ticks count exited threads too: far more there means a thread took its time away
        # (each process's two tick reads may each be a tick off: 2 ticks of slack per process)
        if ticks > exact * 1.1 + 2 * 0.01 * (len(pids) + 1):
            print(
                f"warning: {variant}: CPU by ticks {ticks:.3f} s, by live threads {exact:.3f} s",
                file=sys.stderr,
            )
        latencies = [x for room in per_room_lat for x in room]
        await asyncio.sleep(args.settle)  # a duplicate answer would land here
        expected = 1 + args.rooms + args.rooms * args.messages
        lost = dup = 0
        for agent in agents:
            texts = []
            for rid in agent.rooms:
                texts += await person.agent_replies(rid, agent.agent_id)
            lost += max(0, expected - len(set(texts)))
            dup += len(texts) - len(set(texts))
        result = Result(
            variant=variant,
            msgs_per_s=len(latencies) / elapsed,
            p50_ms=1000 * percentile(latencies, 0.50),
            p99_ms=1000 * percentile(latencies, 0.99),
            idle_agent_kib=statistics.mean(idle),
            per_room_kib=per_room,
            ready_s=ready,
            agent_cpu_ms=1000 * (cpu1[0] - cpu0[0]) / len(latencies),
            platform_cpu_ms=1000 * (cpu1[1] - cpu0[1]) / len(latencies),
            person_cpu_ms=1000 * person_cpu / len(latencies),
            agent_sys_ms=1000 * agent_sys / len(latencies),
            compiled_cpu_ms=_half_cpu_ms(each, pure_agents, False, args.rooms * args.messages),
            pure_cpu_ms=_half_cpu_ms(each, pure_agents, True, args.rooms * args.messages),
            answered=len(latencies),
            lost=lost,
            dup=dup,
        )
        return result, latencies
    except Exception:
        for agent in agents:
            log = workdir / f"agent-{agent.agent_id}.log"
            if log.exists():
                print(f"--- {variant} {agent.handle} log tail ---", file=sys.stderr)
                print(log.read_text(errors="replace")[-3000:], file=sys.stderr)
        print(f"--- platform log tail ---\n{plat.log_tail()}", file=sys.stderr)
        raise
    finally:
        for agent in agents:
            if agent.proc is not None:
                stop(agent.proc)
        await person.close()
        plat.close()


def _half_cpu_ms(each: dict[str, float], pure: set[str], want_pure: bool, per_agent: int) -> float:
    """CPU ms per answered message of the agents on the pure core (or not); 0 when none."""
    spent = [cpu for agent_id, cpu in each.items() if (agent_id in pure) == want_pure]
    return 1000 * sum(spent) / (per_agent * len(spent)) if spent else 0.0


def summarize(runs: dict[str, list[Result]], lat: dict[str, list[float]]) -> list[dict[str, Any]]:
    """Medians over rounds; latency percentiles over every round's answers."""
    rows = []
    for variant, results in runs.items():
        rows.append(
            {
                "variant": variant,
                "msgs_per_s": statistics.median(r.msgs_per_s for r in results),
                "p50_ms": 1000 * percentile(lat[variant], 0.50),
                "p99_ms": 1000 * percentile(lat[variant], 0.99),
                "idle_agent_kib": statistics.median(r.idle_agent_kib for r in results),
                "per_room_kib": statistics.median(r.per_room_kib for r in results),
                "ready_s": statistics.median(r.ready_s for r in results),
                "agent_cpu_ms": statistics.median(r.agent_cpu_ms for r in results),
                "platform_cpu_ms": statistics.median(r.platform_cpu_ms for r in results),
                "person_cpu_ms": statistics.median(r.person_cpu_ms for r in results),
                "agent_sys_ms": statistics.median(r.agent_sys_ms for r in results),
                "answered": sum(r.answered for r in results),
                "lost": sum(r.lost for r in results),
                "dup": sum(r.dup for r in results),
            }
        )
    return rows


def table(rows: list[dict[str, Any]]) -> str:
    """A markdown table, with ratios against ``ref`` and ``base`` when they ran."""
    baselines = [b for b in ("base", "ref") if any(r["variant"] == b for r in rows)]
    head = "| SDK | msgs/s | p50 ms | p99 ms | agent CPU ms/msg | platform CPU ms/msg"
    head += " | person CPU ms/msg"
    head += " | idle agent RSS MiB | RSS per room KiB | ready s | lost | dup |"
    for b in baselines:
        head += f" msgs/s vs {b} | p99 vs {b} | agent CPU vs {b} | RSS per room vs {b} |"
    lines = [head, "|" + " --- |" * (head.count("|") - 1)]
    for r in rows:
        line = (
            f"| {LABELS.get(r['variant'], r['variant'])} | {r['msgs_per_s']:.1f} "
            f"| {r['p50_ms']:.1f} | {r['p99_ms']:.1f} | {r['agent_cpu_ms']:.2f} "
            f"| {r['platform_cpu_ms']:.2f} | {r['person_cpu_ms']:.2f} "
            f"| {r['idle_agent_kib'] / 1024:.1f} "
            f"| {r['per_room_kib']:.0f} | {r['ready_s']:.2f} | {r['lost']} | {r['dup']} |"
        )
        for b in baselines:
            ratios = _ratios(r, next(x for x in rows if x["variant"] == b))
            line += "".join(f" {ratios[k]:.2f}x |" for k in RATIOS)
        lines.append(line)
    return "\n".join(lines)


#: The figures compared against a baseline, as ``ours / baseline``.
RATIOS = ("msgs_per_s", "p99_ms", "agent_cpu_ms", "per_room_kib")


def paired(compiled: list[Result], pure: list[Result]) -> str:
    """The compiled core's agent CPU against the pure core's, round by round.

    Rounds alternate the variants on one ``band dev``, so a round's pair shares the machine's
    state; the sign test's p is the chance of at least that many wins by a coin's toss.
    """
    return _sign_test(
        "compiled vs pure core",
        [c.agent_cpu_ms / p.agent_cpu_ms for c, p in zip(compiled, pure, strict=True)],
    )


def mixed(results: list[Result]) -> str:
    """The compiled core's agent CPU against the pure core's within each ``mix`` round."""
    ratios = [r.compiled_cpu_ms / r.pure_cpu_ms for r in results]
    return _sign_test("compiled vs pure core in the same runs (mix)", ratios)


def _sign_test(what: str, ratios: list[float]) -> str:
    """Ratios by round, their median, and the sign test's p for ratios under 1."""
    wins = sum(r < 1 for r in ratios)
    n = len(ratios)
    p_value = sum(math.comb(n, k) for k in range(wins, n + 1)) / 2**n
    return (
        f"{what}, agent CPU by round: {' '.join(f'{r:.2f}' for r in ratios)}; "
        f"median {statistics.median(ratios):.2f}x, compiled lower in {wins} of {n} "
        f"(sign test p = {p_value:.3g})"
    )


def _ratios(row: dict[str, Any], base: dict[str, Any]) -> dict[str, float]:
    """``row`` over ``base`` for each of RATIOS (inf where the baseline's figure is 0)."""
    return {k: row[k] / base[k] if base[k] else float("inf") for k in RATIOS}


def guard(rows: list[dict[str, Any]]) -> list[str]:
    """Where ``c`` is worse than ``base`` beyond the noise band: one line each (none: passed)."""
    ours = next((r for r in rows if r["variant"] == "c"), None)
    base = next((r for r in rows if r["variant"] == "base"), None)
    if ours is None or base is None:
        return ["--guard needs the c and base variants (--only c,base --against-commit REV)"]
    ratios = _ratios(ours, base)
    failures = []
    for key, (low, high) in thresholds.E2E_NOISE.items():
        if not low <= ratios[key] <= high:
            failures.append(
                f"e2e regression: {key} {ratios[key]:.2f}x the base commit's "
                f"({ours[key]:.2f} vs {base[key]:.2f}; the noise band is {low}x..{high}x)"
            )
    return failures


DEFAULT_TMP = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
LABELS = {
    "c": "ours, compiled core",
    "uv": "ours, compiled core, uvloop",
    "py": "ours, pure core",
    "mix": "ours, half compiled, half pure core",
    "ref": "official band-sdk",
    "floor": "the floor (floor_agent.py)",
    "flooruv": "the floor (floor_agent.py), uvloop",
}


def _interpreter_sdk(python: str) -> str:
    """The band-sdk version another interpreter has, for the record."""
    code = "import importlib.metadata as m; print(m.version('band-sdk'))"
    try:
        out = subprocess.run([python, "-c", code], capture_output=True, text=True, timeout=30)
        return out.stdout.strip() or "unknown"
    except OSError:
        return "unknown"


def main(argv: list[str] | None = None) -> int:
    """Parse arguments, run the rounds interleaved, print the table."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--agents", "-n", type=int, default=2, help="agent processes (N)")
    p.add_argument("--rooms", "-m", type=int, default=5, help="rooms per agent (M)")
    p.add_argument("--messages", "-k", type=int, default=10, help="messages per room (K)")
    p.add_argument("--rounds", type=int, default=2, help="rounds; variants alternate per round")
    p.add_argument("--against", metavar="PYTHON", help="interpreter with another Band SDK")
    p.add_argument(
        "--against-commit",
        metavar="REV",
        help="our SDK at another commit (variant base; its venv is built once, compiled core)",
    )
    p.add_argument(
        "--only",
        default="c,py,ref,base",
        help="variants to run (c, uv, py, mix, ref, base, floor, flooruv)",
    )
    p.add_argument(
        "--guard",
        action="store_true",
        help="exit 1 when c is worse than base beyond bench/thresholds.py's E2E_NOISE",
    )
    p.add_argument("--timeout", type=float, default=60.0, help="seconds to wait for one answer")
    p.add_argument("--settle", type=float, default=1.0, help="seconds of quiet before RSS reads")
    p.add_argument(
        "--tmpdir",
        default=DEFAULT_TMP,
        help="where each run's platform DB lives (default: /dev/shm when there is one, so the\n"
        "platform's SQLite fsyncs do not hide the SDKs' costs)",
    )
    p.add_argument("--keep-logs", metavar="DIR", help="copy each run's platform and agent logs")
    p.add_argument("--json", metavar="PATH", help="write the results here")
    p.add_argument(
        "--profile",
        metavar="PATH",
        help="cProfile one agent process over the load phase, stats to PATH (one variant,\n"
        "one round; read them with bench/e2e/layers.py); its CPU figures include the profiler",
    )
    p.add_argument(
        "--profile-platform",
        metavar="PATH",
        help="cProfile band dev over the load phase, stats to PATH (one variant, one round;\n"
        "read them with bench/e2e/layers.py --platform); its CPU figures include the profiler",
    )
    p.add_argument(
        "--platform-band",
        metavar="BAND",
        help="the band executable serving the platform (default: this interpreter's), e.g.\n"
        "build/bench-venvs/SHA/venv/bin/band to measure an older band dev",
    )
    args = p.parse_args(argv)
    wanted = args.only.split(",")
    if "mix" in wanted and args.agents < 2:
        p.error("variant mix needs --agents 2 or more: one on each core")
    ours = ("c", "uv", "py", "mix", "floor", "flooruv")
    variants = [(v, sys.executable, v == "py") for v in ours if v in wanted]
    if args.against and "ref" in wanted:
        variants.append(("ref", args.against, False))
    base_sha = None
    if args.against_commit and "base" in wanted:
        base_python, base_sha = python_at(args.against_commit)
        LABELS["base"] = f"ours at {base_sha[:12]} (compiled core)"
        variants.append(("base", base_python, False))
    runs: dict[str, list[Result]] = {v: [] for v, _, _ in variants}
    lat: dict[str, list[float]] = {v: [] for v, _, _ in variants}
    for rnd in range(args.rounds):
        order = variants if rnd % 2 == 0 else variants[::-1]
        for variant, python, pure in order:
            with tempfile.TemporaryDirectory(prefix="band-e2e-", dir=args.tmpdir) as tmp:
                try:
                    run = one_run(variant, python, pure, args, Path(tmp), rnd)
                    result, latencies = asyncio.run(run)
                finally:
                    if args.keep_logs:
                        dest = Path(args.keep_logs) / f"round{rnd + 1}-{variant}"
                        shutil.copytree(tmp, dest, ignore=shutil.ignore_patterns("*.sqlite3*"))
            runs[variant].append(result)
            lat[variant] += latencies
            print(
                f"round {rnd + 1} {variant}: {result.msgs_per_s:.1f} msgs/s, "
                f"p50 {result.p50_ms:.1f} ms, p99 {result.p99_ms:.1f} ms, "
                f"agent CPU {result.agent_cpu_ms:.2f} ms/msg "
                f"({result.agent_sys_ms:.2f} in system calls), "
                f"person CPU {result.person_cpu_ms:.2f} ms/msg",
                file=sys.stderr,
                flush=True,
            )
    rows = summarize(runs, lat)
    print(
        f"N={args.agents} agents x M={args.rooms} rooms x K={args.messages} messages, "
        f"{args.rounds} rounds, Python {pyplatform.python_version()}, DB in {args.tmpdir or 'tmp'}"
    )
    print(table(rows))
    if len(runs.get("c", ())) > 1 and len(runs.get("py", ())) == len(runs["c"]):
        print(paired(runs["c"], runs["py"]))
    if runs.get("mix"):
        print(mixed(runs["mix"]))
    if args.json:
        record = {
            "kind": "band-bench-e2e",
            "commit": runinfo.commit(),
            "datetime": runinfo.now(),
            "params": vars(args),
            "python": pyplatform.python_version(),
            "machine": runinfo.machine(),
            "against_sdk": _interpreter_sdk(args.against) if args.against else None,
            "against_commit": base_sha,
            "rows": rows,
            "rounds": {v: [asdict(r) for r in rs] for v, rs in runs.items()},
        }
        Path(args.json).write_text(json.dumps(record, indent=2))
    failed = any(r["lost"] or r["dup"] for r in rows)
    if args.guard:
        problems = guard(rows)
        for line in problems:
            print(line, file=sys.stderr)
        failed = failed or bool(problems)
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
