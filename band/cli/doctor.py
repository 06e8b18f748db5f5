"""``band doctor``: what is installed, which core is active and why, and what conflicts.

It imports nothing of ``band.cli`` but this module, so ``python -m band.cli.doctor`` still runs
when a stray file (another distribution's ``band/cli/__init__.py``) breaks the ``band`` command.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.metadata as metadata
import platform
import sys
import sysconfig
from collections.abc import Iterator
from importlib.machinery import EXTENSION_SUFFIXES
from pathlib import Path

from band._extras import EXTRAS, install_hint, missing_modules
from band._version import __version__

#: The packages this distribution installs: any other distribution owning files in them conflicts.
PACKAGES = ("band", "band_sdk_core")
OURS = "band-open-sdk"
#: Optional accelerators: module -> what falls back without it.
ACCELERATORS = {"httptools": "the REST client's HTTP/1.1 parser (httpx alone without it)"}


def _version(name: str) -> str | None:
    """The installed version of distribution ``name``, or None."""
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None


def core_report() -> tuple[str, list[str]]:
    """Which band_sdk_core implementation is active, why, and the files it runs from."""
    import band_sdk_core
    from band_sdk_core import _compat

    package = Path(band_sdk_core.__file__ or "").parent
    files = [str(Path(band_sdk_core.__file__ or ""))]
    if _compat.USING_EXTENSIONS:
        for name in _compat.COMPILED_MODULES:
            files.append(str(sys.modules[f"band_sdk_core.{name}"].__file__))
        abi = "abi3 (limited API)" if ".abi3." in files[-1] else "version-specific"
        return f"compiled: {len(_compat.COMPILED_MODULES)} Cython modules, {abi}", files
    if sys.implementation.name != "cpython":
        return f"pure Python: {platform.python_implementation()} runs no compiled core", files
    if _compat.env_flag("BAND_SDK_CORE_NO_EXTENSIONS"):
        return "pure Python: BAND_SDK_CORE_NO_EXTENSIONS is set", files
    if not any(p.name.endswith(tuple(EXTENSION_SUFFIXES)) for p in package.iterdir()):
        return (
            "pure Python: this install has no compiled modules (a py3-none-any wheel or a "
            "pure-python build)",
            files,
        )
    try:  # present but not loadable: say why
        for name in _compat.COMPILED_MODULES:
            importlib.import_module(f"band_sdk_core.{name}")
    except ImportError as exc:
        return f"pure Python: the compiled modules do not load ({exc})", files
    return "pure Python", files


def _owned_files(dist: metadata.Distribution) -> Iterator[str]:
    """The files of ``dist`` inside PACKAGES, as paths relative to its site directory."""
    for file in dist.files or ():
        top = file.parts[0] if file.parts else ""
        if top in PACKAGES:
            yield file.as_posix()


def conflicts() -> list[str]:
    """Every other distribution that installed files into ``band`` or ``band_sdk_core``."""
    found = []
    for dist in metadata.distributions():
        name = dist.metadata["Name"] or "?"
        if name.lower().replace("_", "-") == OURS:
            continue
        owned = list(_owned_files(dist))
        if owned:
            found.append(f"{name} {dist.version} owns {len(owned)} files there, e.g. {owned[0]}")
    return found


def record_report() -> list[str]:
    """Files on disk under the packages that our RECORD does not list, and listed ones missing."""
    try:
        dist = metadata.distribution(OURS)
    except metadata.PackageNotFoundError:
        return [f"{OURS} is not installed as a distribution (running from a source tree?)"]
    site = Path(str(dist.locate_file("")))
    listed = set(_owned_files(dist))
    problems = [
        f"missing (deleted by another uninstall?): {p}"
        for p in sorted(listed)
        if not (site / p).exists()
    ]
    for package in PACKAGES:
        for path in sorted((site / package).rglob("*")):
            rel = path.relative_to(site).as_posix()
            if path.is_file() and "__pycache__" not in path.parts and rel not in listed:
                problems.append(f"not ours: {rel}")
    return problems


def report() -> tuple[list[str], bool]:
    """The doctor's lines, and whether everything is consistent."""
    import band_sdk_core

    package = sys.modules["band"]  # imported already: this module is inside it
    core, files = core_report()
    lines = [
        f"{OURS} {__version__} (band_sdk_core {band_sdk_core.__version__})",
        f"python: {platform.python_implementation()} {platform.python_version()} "
        f"({sys.executable}), {sysconfig.get_platform()}"
        + (", free-threaded" if sysconfig.get_config_var("Py_GIL_DISABLED") else ""),
        f"core: {core}",
        "files imported:",
        f"  {package.__file__}",
        *(f"  {f}" for f in files),
        "extras:",
    ]
    for extra in EXTRAS:
        absent = missing_modules(extra)
        state = "installed" if not absent else f"not installed ({install_hint(extra)})"
        lines.append(f"  [{extra}] {state}")
    lines.append("accelerators:")
    for module, role in ACCELERATORS.items():
        version = _version(module)
        lines.append(f"  {module} {version or 'not installed'}: {role}")
    problems = conflicts() + record_report()
    lines.append("conflicts:" if problems else "conflicts: none")
    lines.extend(f"  {p}" for p in problems)
    return lines, not problems


def _run(args: argparse.Namespace) -> int:
    """Print the report; exit 1 when something conflicts."""
    lines, ok = report()
    print("\n".join(lines))
    return 0 if ok else 1


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band doctor``."""
    doctor = sub.add_parser(
        "doctor", help="show what is installed, which core is active and why, and conflicts"
    )
    doctor.set_defaults(func=_run)


if __name__ == "__main__":
    sys.exit(_run(argparse.Namespace()))
