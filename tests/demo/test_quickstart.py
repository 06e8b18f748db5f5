"""The README's quickstart, run line by line in a fresh venv with the built wheel.

Each line of the "## Quickstart" block runs as written, with three substitutions a test must
make: the venv line is this test's venv, ``pip install band-open-sdk`` installs the wheel built
from this checkout, and port 8080 is a free port (``band dev`` gets ``--port``, and the CLI's
default URL is that port's through ``BAND_REST_URL`` until the README exports it). ``band dev``
and the agent keep running (the README's terminals 1 and 2); every other line must exit 0, and
the last (``band send``) must print the agent's answer. The agent is the README's echo.py.
"""

from __future__ import annotations

import os
import shlex
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from bandtest.platform import stop_process
from bandtest.process import read_until

ROOT = Path(__file__).resolve().parents[2]
README = (ROOT / "README.md").read_text(encoding="utf-8")
BLOCK = README.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
ECHO = README.split("## A 20-line agent", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
STEP_TIMEOUT = 300


def _lines() -> list[str]:
    """The block's commands, comments off."""
    out = []
    for line in BLOCK.splitlines():
        command = line.split("  #", 1)[0].strip()
        if command:
            out.append(command)
    return out


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The pure-Python wheel of this checkout (what ``pip install band-open-sdk`` gets where
    no compiled wheel exists; the commands are the same)."""
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--quiet", "--no-deps",
         "--config-settings=pure-python=true", "--wheel-dir", str(out), str(ROOT)],
        check=True, timeout=STEP_TIMEOUT,
    )  # fmt: skip
    return next(out.glob("band_open_sdk-*.whl"))


@pytest.fixture
def background() -> Iterator[list[subprocess.Popen[str]]]:
    procs: list[subprocess.Popen[str]] = []
    yield procs
    for proc in procs:
        stop_process(proc, 30)


def test_the_readme_quickstart_runs_in_a_fresh_venv(
    wheel: Path, tmp_path: Path, background: list[subprocess.Popen[str]]
) -> None:
    lines = _lines()
    assert lines[0].startswith("python3 -m venv .venv") and lines[1] == "pip install band-open-sdk"
    work = tmp_path / "project"
    work.mkdir()
    (work / "echo.py").write_text(ECHO)  # "save it there first"
    subprocess.run([sys.executable, "-m", "venv", str(work / ".venv")], check=True, timeout=120)
    bin_dir = work / ".venv" / "bin"
    port = str(_free_port())
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHON"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(bin_dir.parent))
    # what the commands' default (127.0.0.1:8080) means here, before the README exports it
    env["BAND_REST_URL"] = f"http://127.0.0.1:{port}"
    answer = ""
    for line in lines[1:]:
        line = line.replace("8080", port)
        argv = shlex.split(line)
        if argv[:2] == ["pip", "install"]:
            argv = [str(bin_dir / "pip"), "install", "--quiet", str(wheel)]
        if argv[0] == "export":
            env.update(dict(pair.split("=", 1) for pair in argv[1:]))
            continue
        if argv == ["band", "dev"] or argv[0] == "python":
            argv = [*argv, "--port", port] if argv[0] == "band" else argv
            proc = subprocess.Popen(
                argv, cwd=work, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
            )
            background.append(proc)
            read_until(proc, "Web room view" if argv[0] == "band" else "Agent started", [])
            continue
        done = subprocess.run(
            argv, cwd=work, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
        )
        assert done.returncode == 0, f"{line}\n{done.stdout}\n{done.stderr}"
        assert "Traceback" not in done.stderr and "warning" not in done.stderr, done.stderr
        answer = done.stdout
    assert lines[-1].startswith("band send ")
    assert "Echo: @Local Person echo: hello" in answer, answer


def test_a_new_model_project_says_what_to_install_and_its_steps_pass(
    wheel: Path, tmp_path: Path
) -> None:
    # a fresh venv with the wheel alone: no model SDK, no pytest; the printed next step, run as
    # printed (the wheel for band-open-sdk, as above), must end in a passing test
    subprocess.run([sys.executable, "-m", "venv", str(tmp_path / ".venv")], check=True, timeout=120)
    bin_dir = tmp_path / ".venv" / "bin"
    env = {k: v for k, v in os.environ.items() if not k.startswith(("BAND_", "PYTHON", "PYTEST_"))}
    env.update(PATH=f"{bin_dir}{os.pathsep}{env.get('PATH', '')}", VIRTUAL_ENV=str(bin_dir.parent))
    pip = [str(bin_dir / "pip"), "install", "--quiet"]
    subprocess.run([*pip, str(wheel)], check=True, env=env, timeout=STEP_TIMEOUT)
    made = subprocess.run(
        ["band", "new", "helper", "--model", "anthropic"],
        cwd=tmp_path, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT,
    )  # fmt: skip
    assert made.returncode == 0, made.stderr
    step = made.stdout.split("next: ", 1)[1].split("   (", 1)[0]
    assert step == (
        "pip install 'band-open-sdk[anthropic]' && pip install pytest && cd helper && pytest"
    ), made.stdout
    cwd = tmp_path
    for command in step.split(" && "):
        argv = shlex.split(command.replace("band-open-sdk[", f"{wheel}["))
        if argv[0] == "cd":
            cwd = cwd / argv[1]
            continue
        argv = [*pip, *argv[2:]] if argv[0] == "pip" else [*argv, "-q", "-p", "no:cacheprovider"]
        done = subprocess.run(
            argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=STEP_TIMEOUT
        )
        assert done.returncode == 0, f"{command}\n{done.stdout}\n{done.stderr}"
    assert done.stdout.strip().splitlines()[-1].startswith("1 passed"), done.stdout


def test_the_first_agent_tutorial_shows_the_same_quickstart() -> None:
    # the docs site's tutorial carries the README's quickstart and agent verbatim, so the run
    # above covers both
    page = (ROOT / "docs" / "tutorials" / "first-agent.md").read_text(encoding="utf-8")
    assert BLOCK in page.split("## Quickstart", 1)[1]
    assert ECHO in page.split("## A 20-line agent", 1)[1]
