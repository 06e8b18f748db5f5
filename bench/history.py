"""The benchmark history the bench workflow keeps, and its regression check.

    python bench/history.py append HISTORY.jsonl RESULT.json...
    python bench/history.py check (--history FILE | --history-ref REF) RESULT.compare.json...

``append`` adds each result file as one JSON line (the workflow does it for every run on the
default branch, then commits the file to the ``bench-history`` branch); a record already in
the file (same source, commit and time) is not added twice. ``check`` compares each core run
given with the history's runs (bench/thresholds.py: a ratio falling more than the margin
below its median over the last runs, in its best round too) and prints the regressions as
Markdown; its exit status is 1 when there is any, so the workflow fails.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from results import (
    Record,
    ResultError,
    Run,
    history,
    history_at,
    load,
    parse,
    read_history,
    regressions,
)
from thresholds import regression_rule


def _identity(record: Record) -> tuple[str, str, str]:
    return record.source, record.commit, record.datetime


def append(path: Path, files: Sequence[str]) -> int:
    """Append each result file to the history as one line; the number of lines added."""
    known = {_identity(parse(r, str(path))) for r in read_history(path)}
    lines = []
    for name in files:
        record = load(name)  # refuses what is not a result before anything is written
        if _identity(record) in known:
            continue
        known.add(_identity(record))
        data = json.loads(Path(name).read_text())
        lines.append(json.dumps(data, separators=(",", ":"), sort_keys=True) + "\n")
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as fh:
        fh.writelines(lines)
    return len(lines)


def check(past: Sequence[dict[str, Any]], files: Sequence[str]) -> list[str]:
    """Markdown lines: the regressions of each core run in ``files`` against ``past``."""
    records = [parse(x, "history") for x in past]
    before = [p.run for p in history(r for r in records if isinstance(r, Run))]
    out = []
    for name in files:
        run = load(name)
        if not isinstance(run, Run):
            continue  # end-to-end and scale runs are shown, not gated: wall clock through sockets
        earlier = [r for r in before if r.commit != run.commit]
        for regression in regressions(earlier, run):
            out.append(f"- `{run.commit}` {regression.describe()}")
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Command line: append or check."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    add = sub.add_parser("append", help="append result files to a history file")
    add.add_argument("history", type=Path)
    add.add_argument("results", nargs="+")
    chk = sub.add_parser("check", help="fail on a regression against the history")
    where = chk.add_mutually_exclusive_group(required=True)
    where.add_argument("--history", type=Path, help="a history file (JSON lines)")
    where.add_argument("--history-ref", metavar="REF", help="a git ref holding history.jsonl")
    chk.add_argument("results", nargs="+")
    args = parser.parse_args(argv)
    try:
        if args.command == "append":
            added = append(args.history, args.results)
            print(f"history: {added} run(s) added to {args.history}", file=sys.stderr)
            return 0
        past = read_history(args.history) if args.history else history_at(args.history_ref)
        if past is None:
            print(f"history: {args.history_ref} has no history yet: nothing to compare with")
            return 0
        found = check(past, args.results)
    except ResultError as exc:
        print(f"history: {exc}", file=sys.stderr)
        return 2
    rule = regression_rule()
    if found:
        print(f"### Benchmark regressions ({rule})\n")
        print("\n".join(found))
        return 1
    print(f"No benchmark regression ({rule}; {len(past)} run(s) in the history).")
    return 0


if __name__ == "__main__":
    sys.exit(main())
