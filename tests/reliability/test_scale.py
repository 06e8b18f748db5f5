"""The scale bench (bench/scale) as a correctness test: 100 rooms and one reconnect storm.

One agent of ours sits in 100 rooms; band dev is killed with SIGKILL and restarted on its DB
while messages keep arriving. Read back through the human API, every message the platform holds
has exactly one answer: nothing lost, nothing duplicated. No timing is asserted (the figures are
the bench's business).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from bandtest.process import run_ok

RUN = Path(__file__).resolve().parents[2] / "bench" / "scale" / "run.py"


def test_100_rooms_survive_a_reconnect_storm_without_loss_or_duplicates(tmp_path: Path) -> None:
    out = tmp_path / "scale.json"
    args = ["--only", "c", "--rooms", "100", "-k", "1", "--settle", "0.3", "--timeout", "60"]
    argv = [sys.executable, RUN, *args, "--tmpdir", tmp_path, "--json", out]
    run_ok(argv, cwd=tmp_path, timeout=240)
    result = json.loads(out.read_text())["results"]["c"]
    assert result["failed"] is None and result["notes"] == []
    assert result["rooms"] == 100
    # every phase ran: all rooms subscribed, then resubscribed after the restart
    assert result["subscribe_s"] is not None and result["resubscribe_s"] is not None
    assert result["storm_sent"] > 0  # messages arrived around the outage
    assert result["lost"] == 0
    assert result["duplicated"] == 0
