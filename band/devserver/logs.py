"""Logging helpers: never let an API key reach a log line."""

from __future__ import annotations

import logging
import re
from collections.abc import Mapping

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
        """Redact the message and its arguments in place, keeping the record's shape.

        The arguments stay a tuple (or mapping) of the same length: uvicorn's access formatter
        unpacks them (client, method, path, version, status), so replacing them with None made
        it raise and print a traceback in place of the access line.
        """
        message = record.getMessage()
        if redact(message) == message:
            return True
        if isinstance(record.msg, str):
            record.msg = redact(record.msg)
        if isinstance(record.args, tuple):
            record.args = tuple(_scrub(a) for a in record.args)
        elif isinstance(record.args, Mapping):
            record.args = {k: _scrub(v) for k, v in record.args.items()}
        cleaned = record.getMessage()
        if redact(cleaned) != cleaned:  # a key inside an argument that is not a string
            record.msg, record.args = redact(cleaned), ()
        return True


def _scrub(value: object) -> object:
    return redact(value) if isinstance(value, str) else value


def install_redaction() -> None:
    """Attach ``RedactKeys`` to the uvicorn and band loggers (idempotent)."""
    for name in LOGGERS:
        logger = logging.getLogger(name)
        if not any(isinstance(f, RedactKeys) for f in logger.filters):
            logger.addFilter(RedactKeys())
