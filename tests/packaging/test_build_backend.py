"""build_backend/band_build.py decides pure or compiled, and asks for Cython only to compile."""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import sys
from pathlib import Path
from types import ModuleType

import pytest
from bandtest.process import run_ok

BACKEND = Path(__file__).resolve().parents[2] / "build_backend" / "band_build.py"


@pytest.fixture
def backend(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    """The backend module from the checkout (it is not installed: pip loads it from the sdist)."""
    monkeypatch.delenv("BAND_SDK_CORE_NO_EXTENSIONS", raising=False)
    spec = importlib.util.spec_from_file_location("band_build", BACKEND)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_cpython_compiles_by_default(backend: ModuleType) -> None:
    assert backend.pure_python(None) is False
    assert backend.pure_python({}) is False


def test_any_other_interpreter_is_pure_by_default(
    backend: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sys.implementation, "name", "pypy")
    assert backend.pure_python(None) is True
    assert backend.pure_python({"pure-python": "false"}) is False  # asked for: try to compile


@pytest.mark.parametrize(
    ("value", "pure"),
    [("true", True), ("1", True), ("", True), ("false", False), ("0", False), (["1", "0"], False)],
)
def test_the_config_setting_decides(
    backend: ModuleType, value: str | list[str], pure: bool
) -> None:
    assert backend.pure_python({"pure-python": value}) is pure


def test_the_setting_wins_over_the_variable(
    backend: ModuleType, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("BAND_SDK_CORE_NO_EXTENSIONS", "1")
    assert backend.pure_python(None) is True
    assert backend.pure_python({"pure-python": "false"}) is False


def test_an_unclear_value_stops_the_build(backend: ModuleType) -> None:
    with pytest.raises(ValueError, match="pure-python='maybe': use true or false"):
        backend.pure_python({"pure-python": "maybe"})


def test_cython_is_a_requirement_of_the_compiled_build_only(tmp_path: Path) -> None:
    # setuptools' hooks run setup.py (egg_info) in the working directory: a copy of the tree
    root = BACKEND.parents[1]
    for name in ("setup.py", "pyproject.toml", "MANIFEST.in", "README.md", "LICENSE"):
        shutil.copy(root / name, tmp_path / name)
    skip = shutil.ignore_patterns("__pycache__", "*.c", "*.so")
    for name in ("band", "band_sdk_core", "build_backend"):
        shutil.copytree(root / name, tmp_path / name, ignore=skip)
    code = (
        "import json, band_build\n"
        "print(json.dumps([band_build.get_requires_for_build_wheel({}),\n"
        "    band_build.get_requires_for_build_wheel({'pure-python': 'true'}),\n"
        "    band_build.get_requires_for_build_sdist({})]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k.upper() != "BAND_SDK_CORE_NO_EXTENSIONS"}
    env["PYTHONPATH"] = str(tmp_path / "build_backend")  # as pip's backend-path does
    done = run_ok([sys.executable, "-c", code], cwd=tmp_path, env=env, timeout=120)
    compiled, pure, sdist = json.loads(done.stdout.strip().splitlines()[-1])
    assert "Cython>=3.1,<4" in compiled
    assert not any("cython" in r.lower() for r in pure + sdist)


def test_a_build_drops_sources_an_earlier_build_left(
    backend: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a module moved since the last build must not ride along in the next wheel
    lib = tmp_path / "build" / "lib.linux-x86_64-cpython-311"
    (lib / "band" / "devserver").mkdir(parents=True)
    (lib / "band" / "devserver" / "agent_api.py").write_text("stale = True\n")
    (lib / "band" / "devserver" / "static.css").write_text("body {}\n")
    (lib / "band_sdk_core").mkdir()
    compiled = lib / "band_sdk_core" / "_json_c.cpython-311-x86_64-linux-gnu.so"
    compiled.write_bytes(b"\x7fELF")
    (tmp_path / "build" / "temp.linux").mkdir()
    (tmp_path / "build" / "temp.linux" / "x.o").write_bytes(b"o")
    monkeypatch.chdir(tmp_path)

    assert backend.drop_stale_sources() == 2
    assert not (lib / "band" / "devserver" / "agent_api.py").exists()
    assert not (lib / "band" / "devserver" / "static.css").exists()
    assert compiled.exists()  # build_ext decides whether an extension is stale
    assert (tmp_path / "build" / "temp.linux" / "x.o").exists()  # objects are not sources
    assert backend.drop_stale_sources() == 0
