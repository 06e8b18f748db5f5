"""Key files are private whatever the umask: ``.band/``, the SQLite files, ``agent create
--config``; an existing file's mode is kept or tightened, never loosened."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

from band.private_files import write_private

from .conftest import VENV_BIN, clean_env, free_port, spawn, wait_http

pytestmark = pytest.mark.skipif(os.name != "posix", reason="POSIX permission bits")


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def _umask_022() -> None:
    os.umask(0o022)


def _band(*args: str, cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [str(VENV_BIN / "band"), *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        preexec_fn=_umask_022,
    )


def test_band_dev_and_agent_create_write_private_files(tmp_path: Path) -> None:
    port = free_port()
    rest = f"http://127.0.0.1:{port}"
    log = tmp_path / "dev.log"
    err = log.open("wb")
    dev = subprocess.Popen(
        [str(VENV_BIN / "band"), "dev", "--port", str(port)],  # the default .band/dev.sqlite3
        cwd=tmp_path,
        env=clean_env(),
        stdout=err,
        stderr=err,
        preexec_fn=_umask_022,
    )
    try:
        wait_http(rest + "/openapi.json", dev, log, timeout=60)
        config = tmp_path / "agent_config.yaml"

        def create(name: str, description: str, *flags: str) -> str:
            """Create agent ``name`` into the config file, which stays owner-only; its stdout."""
            made = _band(
                "dev", "agent", "create", name, "--description", description, "--url", rest,
                *flags, "--config", str(config), cwd=tmp_path, env=clean_env(),
            )  # fmt: skip
            assert made.returncode == 0, made.stderr
            assert _mode(config) == 0o600
            return made.stdout

        create("Alpha", "first")
        # rewriting an existing owner-only file keeps it owner-only
        again = create("Beta", "second", "--json")
        doc = yaml.safe_load(config.read_text())
        assert set(doc) == {"Alpha", "Beta"}
        assert doc["Beta"]["api_key"] == json.loads(again)["api_key"]
        # a file someone left group-readable is tightened when the keys are written into it
        os.chmod(config, 0o644)
        create("Gamma", "third")
        # while the platform runs (and has written): the directory and every SQLite file
        band_dir = tmp_path / ".band"
        assert _mode(band_dir) == 0o700
        files = {p.name: _mode(p) for p in band_dir.iterdir()}
        assert {"dev.sqlite3", "dev.sqlite3-wal", "dev.sqlite3-shm"} <= set(files), files
        assert all(mode == 0o600 for mode in files.values()), {k: oct(v) for k, v in files.items()}
        assert not list(tmp_path.glob("*.tmp")) and not list(tmp_path.glob(".*.tmp"))
    finally:
        dev.terminate()
        dev.wait(20)
        err.close()


def test_existing_loose_database_files_are_tightened(tmp_path: Path) -> None:
    band_dir = tmp_path / ".band"
    band_dir.mkdir(mode=0o755)
    os.chmod(band_dir, 0o755)
    db = band_dir / "dev.sqlite3"
    made = _band("dev", "user", "create", "Zed", "--db", str(db), cwd=tmp_path, env=clean_env())
    assert made.returncode == 0, made.stderr
    for path in (db, Path(f"{db}-wal")):
        if path.exists():
            os.chmod(path, 0o644)
    again = _band("dev", "user", "create", "Yan", "--db", str(db), cwd=tmp_path, env=clean_env())
    assert again.returncode == 0, again.stderr
    assert _mode(band_dir) == 0o700
    for path in band_dir.iterdir():
        assert _mode(path) == 0o600, (path.name, oct(_mode(path)))


def test_write_private_never_loosens(tmp_path: Path) -> None:
    old = os.umask(0o022)
    try:
        path = tmp_path / "keys.yaml"
        write_private(path, "a: 1\n")
        assert _mode(path) == 0o600
        os.chmod(path, 0o400)  # read-only by choice: stays so
        write_private(path, "a: 2\n")
        assert _mode(path) == 0o400 and path.read_text() == "a: 2\n"
        os.chmod(path, 0o666)
        write_private(path, "a: 3\n")
        assert _mode(path) == 0o600
        assert sorted(p.name for p in tmp_path.iterdir()) == ["keys.yaml"]
    finally:
        os.umask(old)


def test_band_dev_takes_the_user_key_from_the_environment(tmp_path: Path) -> None:
    """A key flag shows in every local account's process list: the variable is the way."""
    port = free_port()
    key = "band_u_" + "e" * 32
    banner = tmp_path / "banner.txt"
    dev = spawn(
        [str(VENV_BIN / "band"), "dev", "--port", str(port), "--db", ":memory:"],
        tmp_path / "dev.log",
        clean_env(BAND_USER_KEY=key),
        tmp_path,
        stdout=banner,
    )
    try:
        wait_http(f"http://127.0.0.1:{port}/openapi.json", dev, tmp_path / "dev.log", timeout=60)
        assert f"BAND_USER_KEY={key}" in banner.read_text()
        assert key not in " ".join(dev.args)  # type: ignore[arg-type]
    finally:
        dev.terminate()
        dev.wait(20)
