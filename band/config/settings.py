"""Platform URLs from ``BAND_REST_URL`` and ``BAND_WS_URL``, with Band Cloud defaults."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from .env import DEFAULT_REST_URL, DEFAULT_WS_URL, env_value

__all__ = ["DEFAULT_REST_URL", "DEFAULT_WS_URL", "PlatformSettings"]


@dataclass(frozen=True, slots=True)
class PlatformSettings:
    """Where the platform is: the REST base URL and the Phoenix socket URL."""

    rest_url: str = DEFAULT_REST_URL
    ws_url: str = DEFAULT_WS_URL

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> PlatformSettings:
        """Read the environment (``os.environ`` by default); unset or empty keeps the default."""
        return cls(
            rest_url=env_value("BAND_REST_URL", environ) or DEFAULT_REST_URL,
            ws_url=env_value("BAND_WS_URL", environ) or DEFAULT_WS_URL,
        )

    def resolve(
        self, *, rest_url: str | None = None, ws_url: str | None = None
    ) -> PlatformSettings:
        """These settings with explicit, non-empty arguments taking precedence."""
        return PlatformSettings(rest_url=rest_url or self.rest_url, ws_url=ws_url or self.ws_url)
