"""A reference venv the differential tests run, named by an environment variable only.

``make test`` creates each venv and sets its variable; no machine path is assumed. Without it
those tests skip with a reason that says how to get it, and under ``CI`` a skip fails the run
(tests/conftest.py).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def reference_python(
    variable: str, what: str, make_target: str
) -> tuple[Path, pytest.MarkDecorator]:
    """The venv's python (a path that does not exist when ``variable`` is unset) and the skip
    marker for the tests that need it."""
    given = os.environ.get(variable, "").strip()
    python = Path(given) if given else Path(f"{variable}-is-unset")
    requires = pytest.mark.skipif(
        not python.exists(),
        reason=(
            f"{what} venv not found ({variable}={given or 'unset'}); "
            f"`make test` creates it, or run `make {make_target}` and export {variable}"
        ),
    )
    return python, requires
