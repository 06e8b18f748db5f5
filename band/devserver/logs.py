"""Logging helpers: never let an API key reach a log line."""

from __future__ import annotations

import logging
import re

_PATTERNS = (
    (re.compile(r"(api_key=)[^&\s\"']+"), r"\1[redacted]"),
    (re.compile(r"band_[ua]_[A-Za-z0-9_-]+"), "band_[redacted]"),
)
LOGGERS = ("uvicorn.access", "uvicorn.error", "band")


def redact(text: str) -> str:
    """Replace API keys in ``text``."""
    for pattern, repl in _PATTERNS:
        text = pattern.sub(repl, text)
    return text


class RedactKeys(logging.Filter):
    """A filter that rewrites records so they carry no API keys."""

    def filter(self, record: logging.LogRecord) -> bool:
        """Redact the formatted message in place."""
        message = record.getMessage()
        cleaned = redact(message)
        if cleaned != message:
            record.msg, record.args = cleaned, None
        return True


def install_redaction() -> None:
    """Attach ``RedactKeys`` to the uvicorn and band loggers (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactKeys) for f in logger.filters):
            logger.addFilter(RedactKeys())
