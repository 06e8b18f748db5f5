"""Every Python sample in the README and the docs compiles, type-checks, and its tests run.

- every ```python block parses (top-level ``await`` allowed, as in a notebook or ``asyncio`` REPL);
- all blocks are type-checked together by mypy, each as a module of its own, with bodies checked
  (``--check-untyped-defs``), so a renamed class, method or keyword fails here;
- a block that defines ``test_*`` functions is run by pytest against the real ``band dev``
  (band.testing's fixtures), so the testing tutorials show tests that pass.

A block can be left out only by a ``<!-- sample: not-python -->`` comment right above it (for
output that is not code); none is today.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
SNIPPET = re.compile(r'^--8<-- "([^"]+)"$', re.M)
FENCE = re.compile(r"(?P<skip><!-- sample: not-python -->\n)?```python\n(?P<code>.*?)```", re.S)


@dataclass(frozen=True)
class Sample:
    """One ```python block: where it is and its code."""

    page: Path
    line: int
    code: str

    @property
    def name(self) -> str:
        stem = re.sub(r"\W", "_", str(self.page.relative_to(ROOT).with_suffix("")))
        return f"sample_{stem}_{self.line}"


def samples() -> list[Sample]:
    """Every ```python block of README.md and docs/**/*.md."""
    found = []
    for page in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = page.read_text()
        for match in FENCE.finditer(text):
            if match.group("skip"):
                continue
            line = text.count("\n", 0, match.start("code")) + 1
            # a block that includes a file (pymdownx.snippets) is checked as the file it shows
            code = SNIPPET.sub(lambda m: (ROOT / m.group(1)).read_text(), match.group("code"))
            found.append(Sample(page, line, code))
    return found


def test_there_are_samples() -> None:
    assert len(samples()) >= 5


@pytest.mark.parametrize("sample", samples(), ids=lambda s: f"{s.page.name}:{s.line}")
def test_sample_parses(sample: Sample) -> None:
    flags = ast.PyCF_ALLOW_TOP_LEVEL_AWAIT | ast.PyCF_ONLY_AST
    compile(sample.code, f"{sample.page}:{sample.line}", "exec", flags=flags)


def test_samples_type_check(tmp_path: Path) -> None:
    pytest.importorskip("mypy")
    paths = []
    for sample in samples():
        path = tmp_path / f"{sample.name}.py"
        path.write_text(sample.code)
        paths.append(path)
    check = subprocess.run(
        [
            sys.executable,
            "-m",
            "mypy",
            "--no-incremental",
            "--cache-dir",
            str(tmp_path / ".mypy_cache"),
            "--check-untyped-defs",
            "--ignore-missing-imports",
            "--disable-error-code=top-level-await",
            "--disable-error-code=no-redef",
            *map(str, paths),
        ],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=600,
    )
    where = {f"{s.name}.py": f"{s.page.relative_to(ROOT)}:{s.line}" for s in samples()}
    report = check.stdout
    for module, origin in where.items():
        report = report.replace(module, f"{origin} (block)")
    assert check.returncode == 0, f"samples fail mypy:\n{report}"


def _defines_tests(code: str) -> bool:
    tree = ast.parse(code)
    return any(
        isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test_")
        for node in tree.body
    )


ECHO = next(s.code for s in samples() if s.page.name == "README.md" and "class Echo" in s.code)
TEST_SAMPLES = [s for s in samples() if _defines_tests(s.code)]


@pytest.mark.parametrize("sample", TEST_SAMPLES, ids=lambda s: f"{s.page.name}:{s.line}")
def test_sample_tests_pass(sample: Sample, tmp_path: Path) -> None:
    test_file = tmp_path / f"test_{sample.name}.py"
    test_file.write_text(sample.code)
    # a tutorial's test imports the agent the tutorials build: echo.py (the README's 20-line
    # agent) beside it, and examples/ (the model agent) on the path
    (tmp_path / "echo.py").write_text(ECHO)
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(test_file)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**os.environ, "PYTHONDONTWRITEBYTECODE": "1", "PYTHONPATH": str(ROOT / "examples")},
        timeout=600,
    )
    assert run.returncode == 0, f"{sample.page}:{sample.line}:\n{run.stdout[-3000:]}"
    assert " passed" in run.stdout
