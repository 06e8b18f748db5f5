"""The PEP 517 backend of band-open-sdk: setuptools, asking for Cython only when it compiles.

pyproject.toml names it with ``backend-path = ["build_backend"]``. One switch, read by every
hook: ``pure-python`` (``pip install --config-settings=pure-python=true``, ``python -m build
-C pure-python=true``), else ``BAND_SDK_CORE_NO_EXTENSIONS``, else pure exactly when the
interpreter is not CPython. A pure build needs neither Cython nor a C compiler and yields the
``py3-none-any`` wheel. A compiled build compiles every accelerator or fails with one line
naming the switch (setup.py): it never yields a pure wheel under a platform tag, so pip's wheel
cache never holds a silent fallback that a later install with a compiler would reuse.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator, Mapping
from contextlib import contextmanager

from setuptools import build_meta as _setuptools

#: The build requirement of a compiled build only (a pure build must not download or build it).
CYTHON = "Cython>=3.1,<4"
SETTING = "pure-python"
#: setup.py reads the decision from here (it runs in this process, inside each hook).
ENV = "BAND_SDK_CORE_NO_EXTENSIONS"
TRUE = frozenset({"1", "true", "yes", "on", "t", "y"})
FALSE = frozenset({"0", "false", "no", "off", "f", "n"})

ConfigSettings = Mapping[str, "str | list[str] | None"] | None


def _truth(source: str, value: str) -> bool:
    """Read a switch's value; anything but a clear yes or no stops the build."""
    text = value.strip().lower()
    if text in TRUE:
        return True
    if text in FALSE:
        return False
    raise ValueError(f"{source}={value!r}: use true or false")


def pure_python(config_settings: ConfigSettings = None) -> bool:
    """Whether this build is pure Python: the config setting, the variable, the interpreter."""
    setting = (config_settings or {}).get(SETTING)
    if isinstance(setting, list):  # repeated on the command line: the last one wins
        setting = setting[-1] if setting else None
    if setting is not None:
        return _truth(SETTING, setting) if setting.strip() else True  # a bare -C pure-python
    value = next((v for k, v in os.environ.items() if k.upper() == ENV), None)
    if value is not None and value.strip():
        return _truth(ENV, value)
    return sys.implementation.name != "cpython"


@contextmanager
def _decided(pure: bool) -> Iterator[None]:
    """Run a setuptools hook with setup.py told the decision (restored afterwards)."""
    saved = os.environ.get(ENV)
    os.environ[ENV] = "1" if pure else "0"
    try:
        yield
    finally:
        if saved is None:
            del os.environ[ENV]
        else:
            os.environ[ENV] = saved


def get_requires_for_build_wheel(config_settings: ConfigSettings = None) -> list[str]:
    """setuptools' own requirements, plus Cython when this build compiles."""
    # setup.py runs here before Cython is installed: it must not look for extensions yet
    with _decided(True):
        requires = list(_setuptools.get_requires_for_build_wheel(config_settings))
    return requires if pure_python(config_settings) else [*requires, CYTHON]


def get_requires_for_build_editable(config_settings: ConfigSettings = None) -> list[str]:
    """As for a wheel."""
    return get_requires_for_build_wheel(config_settings)


def get_requires_for_build_sdist(config_settings: ConfigSettings = None) -> list[str]:
    """An sdist holds sources only: never Cython."""
    with _decided(True):
        return list(_setuptools.get_requires_for_build_sdist(config_settings))


def prepare_metadata_for_build_wheel(
    metadata_directory: str, config_settings: ConfigSettings = None
) -> str:
    """The metadata does not depend on the compiled modules: computed without them."""
    with _decided(True):
        return _setuptools.prepare_metadata_for_build_wheel(metadata_directory, config_settings)


def prepare_metadata_for_build_editable(
    metadata_directory: str, config_settings: ConfigSettings = None
) -> str:
    """As for a wheel."""
    with _decided(True):
        return _setuptools.prepare_metadata_for_build_editable(metadata_directory, config_settings)


#: compiled extensions: kept in build/lib between builds (build_ext rebuilds them when stale)
EXTENSION_SUFFIXES = (".so", ".pyd")


def drop_stale_sources(build_dir: str = "build") -> int:
    """Delete every file but compiled extensions from ``build_dir``'s lib folders; return the count.

    pip builds in the source tree, and setuptools copies the sources into ``build/lib*`` without
    removing what an earlier build left there: a module since moved or deleted would ride along
    in the next wheel. build_py copies the current sources again, so only they are shipped.
    """
    dropped = 0
    if not os.path.isdir(build_dir):
        return dropped
    for entry in os.listdir(build_dir):
        lib = os.path.join(build_dir, entry)
        if not (entry.startswith("lib") and os.path.isdir(lib)):
            continue
        for folder, _, files in os.walk(lib):
            for name in files:
                if not name.endswith(EXTENSION_SUFFIXES):
                    os.remove(os.path.join(folder, name))
                    dropped += 1
    return dropped


def build_wheel(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    """The compiled wheel, or the py3-none-any wheel when the build is pure."""
    pure = pure_python(config_settings)
    print(f"band-open-sdk: {'pure-Python' if pure else 'compiled'} build", file=sys.stderr)
    drop_stale_sources()
    with _decided(pure):
        return _setuptools.build_wheel(wheel_directory, config_settings, metadata_directory)


def build_editable(
    wheel_directory: str,
    config_settings: ConfigSettings = None,
    metadata_directory: str | None = None,
) -> str:
    """An editable install, compiled or pure as a wheel would be."""
    with _decided(pure_python(config_settings)):
        return _setuptools.build_editable(wheel_directory, config_settings, metadata_directory)


def build_sdist(sdist_directory: str, config_settings: ConfigSettings = None) -> str:
    """The source distribution (no generated C: the compiled build cythonizes)."""
    with _decided(True):
        return _setuptools.build_sdist(sdist_directory, config_settings)
