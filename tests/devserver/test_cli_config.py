"""``band dev agent create --config/--key`` writes the keyed agent_config.yaml (spec 1.1)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml

from band.cli import main

from .conftest import Live


def _create(live: Live, name: str, *extra: str) -> None:
    rc = main(["dev", "agent", "create", name, "--description", f"{name} desc", "--json",
               "--url", live.rest, "--user-key", live.user_key, *extra])  # fmt: skip
    assert rc == 0


def test_writes_and_merges_config(
    live: Live, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cfg = tmp_path / "agent_config.yaml"
    cfg.write_text("other_agent:\n  agent_id: keep-me\n  api_key: band_a_keep\n  role: x\n")
    _create(live, "Echo", "--config", str(cfg), "--key", "my_agent")
    out = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    doc = yaml.safe_load(cfg.read_text())
    assert doc["other_agent"] == {"agent_id": "keep-me", "api_key": "band_a_keep", "role": "x"}
    assert doc["my_agent"] == {"agent_id": out["id"], "api_key": out["api_key"]}
    me = live.agent(doc["my_agent"]["api_key"], "GET", "/api/v1/agent/me").json()["data"]
    assert me["id"] == doc["my_agent"]["agent_id"]

    # re-creating under the same key replaces the credentials; default key is the name
    _create(live, "Echo", "--config", str(cfg), "--key", "my_agent")
    second = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    _create(live, "Helper", "--config", str(cfg))
    doc = yaml.safe_load(cfg.read_text())
    assert doc["my_agent"]["agent_id"] == second["id"] != out["id"]
    assert set(doc) == {"other_agent", "my_agent", "Helper"}
    assert doc["Helper"]["api_key"].startswith("band_a_")


def test_creates_missing_and_empty_config(live: Live, tmp_path: Path) -> None:
    fresh = tmp_path / "new.yaml"
    _create(live, "A", "--config", str(fresh), "--key", "a")
    assert set(yaml.safe_load(fresh.read_text())["a"]) == {"agent_id", "api_key"}
    empty = tmp_path / "empty.yaml"
    empty.write_text("")
    _create(live, "B", "--config", str(empty), "--key", "b")
    assert list(yaml.safe_load(empty.read_text())) == ["b"]


def test_config_untouched_on_failure(live: Live, tmp_path: Path) -> None:
    cfg = tmp_path / "agent_config.yaml"
    cfg.write_text("x: {agent_id: a, api_key: b}\n")
    rc = main(["dev", "agent", "create", "E", "--description", "d", "--url", live.rest,
               "--user-key", "band_u_wrong", "--config", str(cfg)])  # fmt: skip
    assert rc == 1
    assert yaml.safe_load(cfg.read_text()) == {"x": {"agent_id": "a", "api_key": "b"}}
