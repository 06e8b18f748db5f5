"""A venv with this SDK as it was at another commit, for ``run.py --against-commit REV``.

Built once per commit under ``build/bench-venvs/<sha>``: the commit's tree (``git archive``, so the
working tree is not touched) installed non-editable with the ``dev`` extra, as ``make install``
installs the checkout (compiled core included): the same packages on both sides, since what is
installed changes what an agent imports (httpx loads rich and pygments when they are there, a
few MiB of RSS). A later run with the same commit reuses it.
"""

from __future__ import annotations

import io
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
HOME = ROOT / "build" / "bench-venvs"


def resolve(rev: str) -> str:
    """The full sha of ``rev`` (a branch, tag, sha, ``HEAD~1``...)."""
    out = subprocess.run(
        ["git", "rev-parse", "--verify", f"{rev}^{{commit}}"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    if out.returncode != 0:
        raise SystemExit(f"--against-commit: no commit {rev!r} in {ROOT} ({out.stderr.strip()})")
    return out.stdout.strip()


def python_at(rev: str) -> tuple[str, str]:
    """The interpreter of the venv holding the SDK at ``rev`` (built when missing), and its sha."""
    sha = resolve(rev)
    home = HOME / sha[:12]
    python = home / "venv" / "bin" / "python"
    stamp = home / ".installed"
    if stamp.exists() and python.exists():
        return str(python), sha
    shutil.rmtree(home, ignore_errors=True)
    src = home / "src"
    src.mkdir(parents=True)
    tree = subprocess.run(["git", "archive", sha], cwd=ROOT, capture_output=True, check=True)
    with tarfile.open(fileobj=io.BytesIO(tree.stdout)) as tar:
        tar.extractall(src, filter="data")
    print(f"building the SDK at {sha[:12]} in {home} (once)", file=sys.stderr, flush=True)
    subprocess.run([sys.executable, "-m", "venv", str(home / "venv")], check=True)
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", f"{src}[dev]"], check=True)
    shutil.rmtree(src)
    stamp.write_text(sha + "\n")
    return str(python), sha
