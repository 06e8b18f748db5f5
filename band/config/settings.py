"""Platform URLs from ``BAND_REST_URL`` and ``BAND_WS_URL``, with Band Cloud defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass

__all__ = ["DEFAULT_REST_URL", "DEFAULT_WS_URL", "PlatformSettings"]

DEFAULT_REST_URL = "https://app.band.ai"
DEFAULT_WS_URL = "wss://app.band.ai/api/v1/socket/websocket"


def _env(environ: Mapping[str, str], name: str) -> str | None:
    """The variable ``name`` matched case-insensitively; empty values count as unset."""
    wanted = name.upper()
    for key, value in environ.items():
        if key.upper() == wanted and value.strip():
            return value.strip()
    return None


@dataclass(frozen=True, slots=True)
class PlatformSettings:
    """Where the platform is: the REST base URL and the Phoenix socket URL."""

    rest_url: str = DEFAULT_REST_URL
    ws_url: str = DEFAULT_WS_URL

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PlatformSettings:
        """Read the environment (``os.environ`` by default); unset or empty keeps the default."""
        env = os.environ if environ is None else environ
        return cls(
            rest_url=_env(env, "BAND_REST_URL") or DEFAULT_REST_URL,
            ws_url=_env(env, "BAND_WS_URL") or DEFAULT_WS_URL,
        )

    def resolve(
        self, *, rest_url: str | None = None, ws_url: str | None = None
    ) -> PlatformSettings:
        """These settings with explicit, non-empty arguments taking precedence."""
        return PlatformSettings(rest_url=rest_url or self.rest_url, ws_url=ws_url or self.ws_url)
