"""The ``band`` command line, one module per command group.

``dev`` (the local platform and its people and agents), ``demo``, ``doctor``, ``rooms`` (rooms
from a terminal); ``options`` declares what they share, ``app`` builds the parser and turns
expected failures into one line, ``human`` is the human API on band.client, ``local`` the one
door to band.devserver.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence

__all__ = ["build_parser", "main"]


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``band`` console script (``band = band.cli:main``)."""
    # imported here: ``python -m band.cli.doctor`` loads this package without the commands
    from .app import main as run

    return run(argv)


def build_parser() -> argparse.ArgumentParser:
    """The ``band`` argument parser (see :func:`band.cli.app.build_parser`)."""
    from .app import build_parser as build

    return build()
