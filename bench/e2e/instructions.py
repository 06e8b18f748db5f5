"""``band dev``'s instructions per answered message, counted by valgrind's callgrind: a CPU
figure that does not move with the machine's load (unlike ``run.py``'s CPU milliseconds).

``band dev`` (the given executable: this venv's, or another commit's from ``commits.py``) runs
under callgrind with counting off; a client sends the 4 REST requests of an answered message
(the person's message mentioning an agent, the agent's processing mark, its reply, its
processed mark) ``--warm`` times, then ``--messages`` times with counting on. No socket is
connected (the pushes have nobody to go to), the DB is in memory, uvloop as ``band dev``
picks it. Needs ``valgrind`` on PATH.

    python bench/e2e/instructions.py                       # this venv's band
    python bench/e2e/instructions.py --band build/bench-venvs/SHA/venv/bin/band
"""

from __future__ import annotations

import argparse
import contextlib
import glob
import secrets
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import httpx
from harness import free_port


def _serve(band: str, out: Path) -> tuple[subprocess.Popen[bytes], str, str]:
    """``band dev`` under callgrind (counting off) once it serves: process, URL, person key."""
    port, key = free_port(), "band_u_" + secrets.token_hex(16)
    cmd = ["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={out}"]
    cmd += [band, "dev", "--port", str(port), "--user-key", key, "--db", ":memory:"]
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 600  # valgrind starts Python slowly
    while time.monotonic() < deadline and proc.poll() is None:
        with contextlib.suppress(httpx.HTTPError):
            if httpx.get(url + "/openapi.json", timeout=5).status_code == 200:
                return proc, url, key
        time.sleep(1)
    proc.kill()
    raise RuntimeError("band dev did not start under valgrind")


def _count(pid: int, on: bool) -> None:
    flag = f"--instr={'on' if on else 'off'}"
    subprocess.run(["callgrind_control", flag, str(pid)], check=True, capture_output=True)


def measure(band: str, messages: int, warm: int) -> float:
    """Instructions ``band dev`` executes per answered message (its 4 REST requests)."""
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "callgrind.out"
        proc, url, key = _serve(band, out)
        person = {"X-API-Key": key}
        try:
            with httpx.Client(base_url=url, timeout=300) as http:
                me = http.get("/api/v1/me/profile", headers=person).json()["data"]["id"]
                reg = {"agent": {"name": "A", "description": "counted"}}
                made = http.post("/api/v1/me/agents/register", headers=person, json=reg)
                aid = made.json()["data"]["agent"]["id"]
                agent = {"X-API-Key": made.json()["data"]["credentials"]["api_key"]}
                room = http.post("/api/v1/me/chats", headers=person, json={"chat": {}})
                rid = room.json()["data"]["id"]
                joined = {"participant": {"participant_id": aid}}
                http.post(f"/api/v1/me/chats/{rid}/participants", headers=person, json=joined)

                def answered(i: int) -> None:
                    said = {"message": {"content": f"hi {i}", "mentions": [{"id": aid}]}}
                    posted = http.post(
                        f"/api/v1/me/chats/{rid}/messages", headers=person, json=said
                    )
                    mark = f"/api/v1/agent/chats/{rid}/messages/{posted.json()['data']['id']}"
                    reply = {"message": {"content": f"re {i}", "mentions": [{"id": me}]}}
                    answers = [
                        http.post(mark + "/processing", headers=agent),
                        http.post(f"/api/v1/agent/chats/{rid}/messages", headers=agent, json=reply),
                        http.post(mark + "/processed", headers=agent),
                    ]
                    assert [r.status_code for r in answers] == [200, 201, 200], answers

                for i in range(warm):
                    answered(i)
                _count(proc.pid, True)
                for i in range(messages):
                    answered(i)
                _count(proc.pid, False)
        finally:
            proc.send_signal(signal.SIGINT)
            proc.wait(300)
        total = 0
        for name in glob.glob(f"{out}*"):
            for line in Path(name).read_text(errors="replace").splitlines():
                if line.startswith(("summary:", "totals:")):
                    total = max(total, int(line.split()[1]))
        return total / messages


def main(argv: list[str] | None = None) -> int:
    """Print the instructions per answered message."""
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    p.add_argument("--band", default=str(Path(sys.executable).with_name("band")))
    p.add_argument("--messages", type=int, default=200, help="answered messages counted")
    p.add_argument("--warm", type=int, default=20, help="answered messages before counting")
    args = p.parse_args(argv)
    print(f"{measure(args.band, args.messages, args.warm):,.0f} instructions per answered message")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
