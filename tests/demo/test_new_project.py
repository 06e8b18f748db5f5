"""``band new NAME``: the project it writes passes its own tests right after creation."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from bandtest.process import run_ok


def band(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-I", "-m", "band.cli", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("model", ["none", "anthropic", "openai"])
def test_a_new_project_passes_its_tests_at_once(tmp_path: Path, model: str) -> None:
    made = band("new", "helper-bot", "--model", model, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    # this venv has every extra and pytest: nothing to install first
    assert "next: cd helper-bot && pytest   (then see README.md" in made.stdout, made.stdout
    project = tmp_path / "helper-bot"
    names = {p.name for p in project.iterdir()}
    assert names == {
        "agent.py",
        "test_agent.py",
        "agent_config.yaml.example",
        ".gitignore",
        "README.md",
    }
    assert "agent_config.yaml" in (project / ".gitignore").read_text().splitlines()
    assert "helper_bot:" in (project / "agent_config.yaml.example").read_text()
    if model != "none":
        key = {"anthropic": "ANTHROPIC_API_KEY", "openai": "OPENAI_API_KEY"}[model]
        assert key in (project / "README.md").read_text()
    # the user's next step, as they would run it: no key, no platform, no network
    env = {
        k: v
        for k, v in os.environ.items()
        if not k.startswith(("BAND_", "ANTHROPIC_", "OPENAI_", "PYTEST_"))
    }
    done = run_ok(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"],
        cwd=project,
        env=env,
        timeout=300,
    )
    last = done.stdout.strip().splitlines()[-1]
    assert last.startswith("2 passed" if model == "none" else "1 passed"), done.stdout


def test_new_refuses_a_bad_name_and_a_full_directory(tmp_path: Path) -> None:
    bad = band("new", "9 lives", cwd=tmp_path)
    assert bad.returncode == 2 and bad.stderr.startswith("error: NAME must start with a letter")
    (tmp_path / "taken").mkdir()
    (tmp_path / "taken" / "keep.txt").write_text("mine")
    full = band("new", "taken", cwd=tmp_path)
    assert full.returncode == 1 and "exists and is not empty" in full.stderr
    assert (tmp_path / "taken" / "keep.txt").read_text() == "mine"
