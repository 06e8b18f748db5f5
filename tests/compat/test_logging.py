"""``band.logging_config`` and ``band.config.logs`` behave as band-sdk 6.0.1's do."""

from __future__ import annotations

import json
import logging
from collections.abc import Iterator
from pathlib import Path

import pytest

from band import (
    STANDARD_FORMAT,
    LogSettings,
    build_logging_config,
    chatty_logger_levels,
    configure_logging,
    configure_logging_from_env,
)
from band.logging_config import coerce_log_level


@pytest.fixture(autouse=True)
def restore_logging() -> Iterator[None]:
    root = logging.getLogger()
    saved = (root.level, list(root.handlers), logging.getLogger("band").level)
    yield
    root.handlers[:] = saved[1]
    root.setLevel(saved[0])
    logging.getLogger("band").setLevel(saved[2])


def test_build_logging_config_matches_the_official_shape() -> None:
    """The parts band-sdk's dict has for ``build_logging_config(DEBUG)`` (probed)."""
    cfg = build_logging_config(logging.DEBUG)
    assert cfg["version"] == 1 and cfg["disable_existing_loggers"] is False
    assert cfg["formatters"]["console"]["format"] == STANDARD_FORMAT
    assert cfg["formatters"]["console"]["datefmt"] == "%Y-%m-%d %H:%M:%S"
    assert cfg["handlers"]["console"]["class"] == "logging.StreamHandler"
    assert cfg["handlers"]["console"]["stream"] == "ext://sys.stderr"
    assert cfg["root"] == {"level": 30, "handlers": ["console"]}
    assert cfg["loggers"] == {"band": {"level": 10}}


def test_configure_logging_routes_band_records(capsys: pytest.CaptureFixture[str]) -> None:
    configure_logging("debug", stream="stdout", fmt="%(levelname)s %(name)s %(message)s")
    logging.getLogger("band.x").debug("hello")
    logging.getLogger("other").info("hidden")  # root stays at WARNING
    assert capsys.readouterr().out == "DEBUG band.x hello\n"


def test_json_style_and_log_file(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = tmp_path / "sub" / "agent.log"
    configure_logging(
        logging.INFO, style="json", stream="stdout", static_fields={"svc": "a"}, log_file=log
    )
    logging.getLogger("band.y").info("ping %d", 1)
    line = json.loads(capsys.readouterr().out)
    assert (line["level"], line["logger"], line["message"], line["svc"]) == (
        "INFO",
        "band.y",
        "ping 1",
        "a",
    )
    for handler in logging.getLogger().handlers:
        handler.flush()
    assert "ping 1" in log.read_text()


def test_levels_are_checked_like_the_official() -> None:
    assert coerce_log_level(10) == 10 and coerce_log_level("Warning") == "WARNING"
    with pytest.raises(ValueError, match="level must be a valid logging level"):
        coerce_log_level("bogus")
    with pytest.raises(ValueError, match="level must be an int or logging level name"):
        coerce_log_level(True)
    assert chatty_logger_levels(20) == {
        "httpx": 20,
        "httpcore": 20,
        "phoenix_channels_python_client": 20,
    }


def test_log_settings_from_env(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    assert LogSettings().model_dump()["log_level"] == "INFO"
    monkeypatch.setenv("BAND_LOG_LEVEL", "DEBUG")
    monkeypatch.setenv("band_log_root_level", "ERROR")  # case-insensitive, like band-sdk
    monkeypatch.setenv("BAND_LOG_OVERRIDES", '{"myapp": "INFO"}')
    monkeypatch.setenv("BAND_LOG_FILE", "")  # empty values are ignored
    settings = LogSettings()
    assert (settings.log_level, settings.log_root_level, settings.log_file) == (
        "DEBUG",
        "ERROR",
        None,
    )
    cfg = configure_logging_from_env()
    assert cfg["loggers"]["band"] == {"level": 10} and cfg["loggers"]["myapp"] == {"level": 20}
    assert logging.getLogger().level == logging.ERROR
