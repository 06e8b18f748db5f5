"""``LogSettings``: logging options from ``BAND_LOG_*`` environment variables."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from pydantic_settings import BaseSettings, SettingsConfigDict

from band.logging_config import (
    DEFAULT_DATEFMT,
    FileStyle,
    FormatStyle,
    LoggingConfig,
    LoggingStyle,
    LogLevel,
    LogStream,
    configure_logging,
)

__all__ = ["LogSettings", "configure_logging_from_env", "configure_stderr_logging"]


class LogSettings(BaseSettings):
    """``BAND_LOG_LEVEL``, ``BAND_LOG_FILE``, ... (case-insensitive; empty values ignored)."""

    model_config = SettingsConfigDict(
        env_prefix="BAND_", case_sensitive=False, extra="ignore", env_ignore_empty=True
    )

    log_level: str = "INFO"
    log_root_level: str = "WARNING"
    log_file: Path | None = None
    log_file_level: str | None = None
    log_max_bytes: int = 0
    log_backups: int = 1
    log_console_style: LoggingStyle = LoggingStyle.STANDARD
    log_file_style: FileStyle = LoggingStyle.STANDARD
    log_stream: LogStream = LogStream.STDERR
    #: per-logger levels, e.g. ``BAND_LOG_OVERRIDES='{"band.runtime": "DEBUG"}'``
    log_overrides: dict[str, str] = {}


def configure_logging_from_env(
    *,
    extra_loggers: Mapping[str, LogLevel] | None = None,
    json_fields: Sequence[str] | None = None,
    static_fields: Mapping[str, object] | None = None,
    fmt: str | None = None,
    fmt_style: FormatStyle = FormatStyle.PERCENT,
    datefmt: str = DEFAULT_DATEFMT,
) -> LoggingConfig:
    """:func:`band.logging_config.configure_logging` with :class:`LogSettings` from the env.

    ``BAND_LOG_OVERRIDES`` wins over ``extra_loggers`` for a logger both name. Returns the
    ``dictConfig`` applied.
    """
    settings = LogSettings()
    loggers: dict[str, LogLevel] = {**(extra_loggers or {}), **settings.log_overrides}
    return configure_logging(
        settings.log_level,
        style=settings.log_console_style,
        root_level=settings.log_root_level,
        stream=settings.log_stream,
        datefmt=datefmt,
        fmt=fmt,
        fmt_style=fmt_style,
        extra_loggers=loggers,
        json_fields=json_fields,
        static_fields=static_fields,
        log_file=settings.log_file,
        max_bytes=settings.log_max_bytes,
        backup_count=settings.log_backups,
        file_style=settings.log_file_style,
        file_level=settings.log_file_level,
    )


def configure_stderr_logging(level: str | None = None) -> LoggingConfig:
    """:func:`configure_logging_from_env`'s settings, ``level`` over ``BAND_LOG_LEVEL``, and
    always to stderr: for commands whose stdout is their output (``band-trigger``'s room id,
    ``band-acp``'s protocol)."""
    settings = LogSettings()
    return configure_logging(
        level or settings.log_level,
        style=settings.log_console_style,
        root_level=settings.log_root_level,
        stream=LogStream.STDERR,
        extra_loggers=settings.log_overrides,
        log_file=settings.log_file,
        max_bytes=settings.log_max_bytes,
        backup_count=settings.log_backups,
        file_style=settings.log_file_style,
        file_level=settings.log_file_level,
    )
