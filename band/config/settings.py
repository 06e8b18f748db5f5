"""Platform URLs from ``BAND_REST_URL`` and ``BAND_WS_URL``, with Band Cloud defaults."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from dataclasses import dataclass

from .env import DEFAULT_REST_URL, DEFAULT_WS_URL, env_value

__all__ = ["DEFAULT_REST_URL", "DEFAULT_WS_URL", "PlatformSettings", "add_url_options"]


class _Unset(str):
    """A keyword's default that equals the Band Cloud URL but tells "not given" apart.

    band-sdk's keywords default to the Cloud URLs (callers and signature checks see that
    value); an explicit ``BAND_REST_URL=DEFAULT_REST_URL`` still wins over the environment.
    """

    __slots__ = ()


_REST_UNSET = _Unset(DEFAULT_REST_URL)
_WS_UNSET = _Unset(DEFAULT_WS_URL)


def _pick(given: str | None, alias: str, name: str, default: str) -> str:
    """An explicit argument, else the keyword alias, else the environment, else the default."""
    if given:
        return given
    if not isinstance(alias, _Unset) and alias:
        return alias
    return env_value(name) or default


@dataclass(frozen=True, slots=True, init=False)
class PlatformSettings:
    """Where the platform is: the REST base URL and the Phoenix socket URL.

    Each URL is the argument given (``rest_url``/``ws_url``, or band-sdk's keyword names
    ``BAND_REST_URL``/``BAND_WS_URL``), else the environment variable of that name (any case;
    blank counts as unset), else Band Cloud's.
    """

    rest_url: str
    ws_url: str

    def __init__(
        self,
        rest_url: str | None = None,
        ws_url: str | None = None,
        *,
        BAND_WS_URL: str = _WS_UNSET,
        BAND_REST_URL: str = _REST_UNSET,
    ) -> None:
        rest = _pick(rest_url, BAND_REST_URL, "BAND_REST_URL", DEFAULT_REST_URL)
        ws = _pick(ws_url, BAND_WS_URL, "BAND_WS_URL", DEFAULT_WS_URL)
        object.__setattr__(self, "rest_url", rest)  # frozen: set once here
        object.__setattr__(self, "ws_url", ws)

    @property
    def BAND_REST_URL(self) -> str:
        """``rest_url`` under band-sdk's name."""
        return self.rest_url

    @property
    def BAND_WS_URL(self) -> str:
        """``ws_url`` under band-sdk's name."""
        return self.ws_url

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


def add_url_options(parser: argparse.ArgumentParser, *, socket: bool = True) -> None:
    """``--rest-url`` (and ``--ws-url`` with ``socket``) as band-sdk's commands take them:
    the flag, else ``BAND_REST_URL``/``BAND_WS_URL``, else Band Cloud's."""
    settings = PlatformSettings.from_env()
    parser.add_argument(
        "--rest-url",
        default=settings.rest_url,
        help=f"the platform's REST URL (BAND_REST_URL; default {DEFAULT_REST_URL})",
    )
    if socket:
        parser.add_argument(
            "--ws-url",
            default=settings.ws_url,
            help=f"the platform's socket URL (BAND_WS_URL; default {DEFAULT_WS_URL})",
        )
