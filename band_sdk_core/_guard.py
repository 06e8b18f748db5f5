"""Refuse to import beside the official band-sdk or band-sdk-core, which own the same packages.

Both install ``band`` and ``band_sdk_core`` into one site-packages: whichever was installed
last overwrote the other's files and left the rest, a mix that half-imports. The check reads
only directory listings of ``sys.path`` (no importlib.metadata, no file contents), once per
process, so it costs well under a millisecond.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable

#: The distribution both packages belong to here.
OURS = "band-open-sdk"
#: normalized project name (as in a ``.dist-info`` directory name) -> the name pip knows
OFFICIAL = {"band_sdk": "band-sdk", "band_sdk_core": "band-sdk-core"}
METADATA_SUFFIXES = (".dist-info", ".egg-info")


def official_distributions(paths: Iterable[str] | None = None) -> list[tuple[str, str, str]]:
    """``(name, version, directory)`` of each official distribution installed on ``paths``."""
    found: list[tuple[str, str, str]] = []
    for entry in sys.path if paths is None else paths:
        try:
            names = os.listdir(entry or ".")
        except OSError:  # a zip file, a directory that does not exist
            continue
        for name in names:
            if not name.endswith(METADATA_SUFFIXES):
                continue
            project, _, rest = name.rpartition(".")[0].partition("-")
            official = OFFICIAL.get(project.lower().replace("-", "_").replace(".", "_"))
            if official is not None:
                found.append((official, rest.partition("-")[0], os.path.abspath(entry or ".")))
    return found


def conflict_message(found: list[tuple[str, str, str]]) -> str:
    """The one line that names both sides and the fix."""
    theirs = ", ".join(f"{name} {version}" for name, version, _ in found)
    where = ", ".join(sorted({directory for _, _, directory in found}))
    names = " ".join(sorted({name for name, _, _ in found}))
    return (
        f"{OURS} cannot be imported next to the official {theirs} (installed in {where}): "
        f"both install the 'band' and 'band_sdk_core' packages, so the files on disk are a mix "
        f"of the two. Fix: pip uninstall -y {names} {OURS} && pip install {OURS}"
    )


def check() -> None:
    """Raise ImportError when an official distribution shares this environment."""
    found = official_distributions()
    if found:
        raise ImportError(conflict_message(found), name="band_sdk_core")


# at import, before the package's other modules load: a mixed install stops here with the fix
check()
