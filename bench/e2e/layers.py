"""An agent's cProfile stats (``run.py --profile``) by layer and by function, per message.

Each function's own time (``tottime``: not its callees') is counted in the layer its file
belongs to, the first rule in LAYERS that matches; a builtin's (``isinstance``, ``dict.get``,
a socket's ``send``) goes to its callers' layers, split as cProfile split it among them, and
so do its calls (``calls/msg``: Python calls and builtin calls; a coroutine's resumptions
count as calls, as cProfile counts them; the runtime's own do not move with the load). The
per-message figures divide by the answered messages the profiled agent handled
(``--messages``). cProfile slows every call it times, small ones most: the shares are the
finding, not the absolute milliseconds.

    python bench/e2e/layers.py agent.prof --messages 100
    python bench/e2e/layers.py platform.prof --messages 200 --platform   # run.py --profile-platform
"""

from __future__ import annotations

import argparse
import pstats
from collections import defaultdict

#: (layer, substrings of a function's file path or name), the first match wins.
LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("turn trace", ("band/runtime/trace",)),
    ("logging", ("/logging/", "logging_config")),
    ("socket frame decode", ("band/client/phoenix", "websockets/", "band/core/wire")),
    (
        "REST calls",
        ("band/client/rest", "band/client/http11", "httptools", "httpx", "httpcore", "urllib/"),
    ),
    (
        "delivery pipeline",
        ("band/runtime/rooms/", "band/runtime/runtime", "band_sdk_core", "band/runtime/pushes"),
    ),
    (
        "adapter and tools",
        ("band/core/", "band/runtime/tools", "band/runtime/formatters", "echo_agent", "band/agent"),
    ),
    ("msgspec, json", ("msgspec", "json/")),
    ("asyncio event loop", ("asyncio/", "selectors", "uvloop", "<built-in method select")),
    ("typing (runtime Protocol checks)", ("/typing.py",)),
]

#: the same for ``band dev``'s stats (``run.py --profile-platform``); messages are all answered
PLATFORM_LAYERS: list[tuple[str, tuple[str, ...]]] = [
    ("logging", ("/logging/", "band/devserver/logs", "band/serving/logs")),
    ("SQLite store", ("band/devserver/store/", "sqlite3", "<method 'execute'", "<method 'commit'")),
    ("socket fan-out and channel", ("band/devserver/socket/", "band/serving/ws", "websockets/")),
    ("authz", ("band/devserver/access/",)),
    ("REST handlers and contract", ("band/devserver/api/", "band/devserver/contract/")),
    ("serving (limits, drain)", ("band/serving/",)),
    ("uvicorn HTTP/WS protocol", ("uvicorn/", "h11/", "httptools")),
    ("starlette routing, requests", ("starlette/",)),
    ("msgspec, json", ("msgspec", "json/")),
    ("asyncio event loop", ("asyncio/", "selectors", "uvloop", "<built-in method select")),
    ("typing (runtime Protocol checks)", ("/typing.py",)),
]


def layer_of(path: str, name: str, layers: list[tuple[str, tuple[str, ...]]] = LAYERS) -> str:
    """The layer a function belongs to, by its file (or, for builtins, its name)."""
    where = f"{path} {name}"
    for layer, marks in layers:
        if any(mark in where for mark in marks):
            return layer
    return "other"


def main(argv: list[str] | None = None) -> int:
    """Print the per-layer and the top per-function tables (markdown)."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("stats", help="the .prof file run.py --profile wrote")
    p.add_argument("--messages", type=int, required=True, help="messages the agent answered")
    p.add_argument("--top", type=int, default=15, help="functions listed")
    p.add_argument("--platform", action="store_true", help="band dev's stats, by its layers")
    args = p.parse_args(argv)
    layers = PLATFORM_LAYERS if args.platform else LAYERS
    stats = pstats.Stats(args.stats)
    raw = stats.stats  # type: ignore[attr-defined]  # {(file, line, name): (cc, nc, tt, ct, callers)}
    by_layer: dict[str, float] = defaultdict(float)
    calls_in: dict[str, int] = defaultdict(int)
    funcs: list[tuple[float, int, str, str]] = []
    for (path, line, name), (_cc, calls, own, _cum, callers) in raw.items():
        layer = layer_of(path, name, layers)
        if path == "~" and callers:  # a builtin: its time is its callers'
            spent = sum(c[2] for c in callers.values()) or 1.0
            for (cpath, _cline, cname), c in callers.items():
                caller = layer_of(cpath, cname, layers) if cpath != "~" else "other"
                by_layer[caller] += own * c[2] / spent
                calls_in[caller] += c[0]
        else:
            by_layer[layer] += own
            calls_in[layer] += calls
        short = path.split("site-packages/")[-1].split("lib/python3")[-1]
        funcs.append((own, calls, f"{short}:{line}({name})", layer))
    total = sum(by_layer.values())
    per = 1000 / args.messages
    print(f"profiled CPU: {total * per:.3f} ms/msg over {args.messages} messages\n")
    print("| layer | ms/msg (profiled) | share | calls/msg |")
    print("| --- | --- | --- | --- |")
    for layer, own in sorted(by_layer.items(), key=lambda kv: -kv[1]):
        calls = calls_in[layer] / args.messages
        print(f"| {layer} | {own * per:.3f} | {own / total:.0%} | {calls:.1f} |")
    print(f"| **total** | {total * per:.3f} | | {sum(calls_in.values()) / args.messages:.1f} |")
    print("\n| function (own time) | layer | calls/msg | ms/msg | share |")
    print("| --- | --- | --- | --- | --- |")
    for own, calls, where, layer in sorted(funcs, reverse=True)[: args.top]:
        print(
            f"| `{where}` | {layer} | {calls / args.messages:.1f} | {own * per:.3f} "
            f"| {own / total:.1%} |"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
