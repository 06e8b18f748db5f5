"""Logging setup for agent processes, at band-sdk's import path ``band.logging_config``.

``configure_logging(level)`` installs one console handler on the root logger (root at
``root_level``), sets the ``band`` logger to ``level`` and quiets the chatty HTTP loggers;
``build_logging_config`` returns the same as a :func:`logging.config.dictConfig` dict.
Styles: ``standard`` (text), ``json`` (one JSON object a line, stdlib only) and ``rich``
(needs the optional ``rich`` package).
"""

from __future__ import annotations

import enum
import json
import logging
import logging.config
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Literal

from band._signature import parameters_of
from band.core.exceptions import BandConfigError

__all__ = [
    "CHATTY_LOGGERS",
    "STANDARD_FORMAT",
    "FileStyle",
    "FormatStyle",
    "JsonFormatter",
    "LogLevel",
    "LogStream",
    "LoggingConfig",
    "LoggingStyle",
    "build_logging_config",
    "chatty_logger_levels",
    "coerce_log_level",
    "configure_logging",
    "level_value",
]

#: The default text format.
STANDARD_FORMAT = "%(asctime)s [%(levelname)s] %(name)s: %(message)s"
DEFAULT_DATEFMT = "%Y-%m-%d %H:%M:%S"
#: Third-party loggers that flood DEBUG output; they follow the band level, never below INFO
#: unless band itself is at DEBUG.
CHATTY_LOGGERS: tuple[str, ...] = ("httpcore", "httpx", "phoenix_channels_python_client")

LogLevel = int | str
LoggingConfig = dict[str, Any]


class LoggingStyle(enum.StrEnum):
    """How console (and file) records are rendered."""

    STANDARD = "standard"
    RICH = "rich"
    JSON = "json"


FileStyle = Literal[LoggingStyle.STANDARD, LoggingStyle.JSON]


class LogStream(enum.StrEnum):
    """Where console records go."""

    STDERR = "stderr"
    STDOUT = "stdout"


class FormatStyle(enum.StrEnum):
    """The ``fmt`` placeholder style (as :class:`logging.Formatter` ``style``)."""

    PERCENT = "%"
    BRACE = "{"
    DOLLAR = "$"


def coerce_log_level(value: LogLevel, *, name: str = "level") -> LogLevel:
    """``value`` checked: ints as given, names upper-cased; ValueError naming ``name`` else."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{name} must be an int or logging level name")
    if isinstance(value, int):
        return value
    upper = value.strip().upper()
    if not isinstance(logging.getLevelName(upper), int):
        raise ValueError(f"{name} must be a valid logging level")
    return upper


def level_value(level: LogLevel) -> int:
    """``level`` as a number."""
    checked = coerce_log_level(level)
    return checked if isinstance(checked, int) else int(logging.getLevelName(checked))


def chatty_logger_levels(level: LogLevel = "WARNING") -> dict[str, LogLevel]:
    """The level of each chatty third-party logger: the level given for band."""
    return dict.fromkeys(CHATTY_LOGGERS, level)


class JsonFormatter(logging.Formatter):
    """One JSON object per record: time, level, logger, message, plus chosen and fixed fields."""

    def __init__(
        self,
        fields: Sequence[str] | None = None,
        static: Mapping[str, object] | None = None,
        datefmt: str | None = None,
    ) -> None:
        super().__init__(datefmt=datefmt)
        self.fields = tuple(fields or ())
        self.static = dict(static or {})

    def format(self, record: logging.LogRecord) -> str:
        out: dict[str, Any] = {
            "time": self.formatTime(record, self.datefmt),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        for name in self.fields:
            if hasattr(record, name):
                out[name] = getattr(record, name)
        out.update(self.static)
        if record.exc_info:
            out["exc_info"] = self.formatException(record.exc_info)
        return json.dumps(out, default=str)


def _formatter(
    style: LoggingStyle,
    *,
    fmt: str | None,
    fmt_style: FormatStyle,
    datefmt: str,
    json_fields: Sequence[str] | None,
    static_fields: Mapping[str, object] | None,
) -> dict[str, Any]:
    if style == LoggingStyle.JSON:
        return {
            "()": JsonFormatter,
            "fields": list(json_fields or ()),
            "static": dict(static_fields or {}),
            "datefmt": datefmt,
        }
    return {"format": fmt or STANDARD_FORMAT, "datefmt": datefmt, "style": str(fmt_style)}


def build_logging_config(
    level: LogLevel = logging.INFO,
    *,
    style: LoggingStyle = LoggingStyle.STANDARD,
    root_level: LogLevel = logging.WARNING,
    stream: LogStream = LogStream.STDERR,
    datefmt: str = DEFAULT_DATEFMT,
    fmt: str | None = None,
    fmt_style: FormatStyle = FormatStyle.PERCENT,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, object] | None = None,
    log_file: Path | str | None = None,
    max_bytes: int = 0,
    backup_count: int = 1,
    file_style: FileStyle | None = None,
    file_level: LogLevel | None = None,
) -> LoggingConfig:
    """The ``dictConfig`` dict :func:`configure_logging` applies (arguments as there)."""
    style = LoggingStyle(style)
    stream = LogStream(stream)
    fmt_style = FormatStyle(fmt_style)
    band_level = level_value(level)
    common: dict[str, Any] = {
        "fmt": fmt,
        "fmt_style": fmt_style,
        "datefmt": datefmt,
        "json_fields": json_fields,
        "static_fields": static_fields,
    }
    console: dict[str, Any]
    if style == LoggingStyle.RICH:
        try:
            import rich.logging  # noqa: F401 -- only checks it is installed
        except ImportError:
            raise BandConfigError(
                "Logging style 'rich' requires the optional dependency 'rich' (pip install rich)"
            ) from None
        formatters = {"console": {"format": "%(message)s", "datefmt": datefmt}}
        console = {"class": "rich.logging.RichHandler", "formatter": "console"}
    else:
        formatters = {"console": _formatter(style, **common)}
        console = {
            "class": "logging.StreamHandler",
            "formatter": "console",
            "stream": f"ext://sys.{stream.value}",
        }
    handlers: dict[str, Any] = {"console": console}
    if log_file is not None:
        fstyle = LoggingStyle(file_style) if file_style is not None else style
        if fstyle == LoggingStyle.RICH:
            raise BandConfigError("file_style must be 'standard' or 'json'")
        formatters["file"] = _formatter(fstyle, **common)
        handlers["file"] = {
            "class": "logging.handlers.RotatingFileHandler",
            "formatter": "file",
            "filename": str(log_file),
            "maxBytes": max_bytes,
            "backupCount": backup_count,
            "encoding": "utf-8",
        }
        if file_level is not None:
            handlers["file"]["level"] = level_value(file_level)
    loggers: dict[str, Any] = {"band": {"level": band_level}}
    for name, lvl in (extra_loggers or {}).items():
        loggers[name] = {"level": level_value(lvl)}
    return {
        "version": 1,
        "disable_existing_loggers": False,
        "formatters": formatters,
        "handlers": handlers,
        "root": {"level": level_value(root_level), "handlers": list(handlers)},
        "loggers": loggers,
    }


@parameters_of(build_logging_config)
def configure_logging(*args: Any, **kwargs: Any) -> LoggingConfig:
    """Route logs to the console (and ``log_file``): ``band`` at ``level``, the rest at
    ``root_level``. Replaces the root handlers a previous call installed; returns the
    ``dictConfig`` applied."""
    config = build_logging_config(*args, **kwargs)
    log_file = config["handlers"].get("file", {}).get("filename")
    if log_file is not None:
        Path(log_file).expanduser().parent.mkdir(parents=True, exist_ok=True)
    logging.config.dictConfig(config)
    return config
