"""Compile the optional band_sdk_core accelerators; install pure Python otherwise.

Switches (read at build time): BAND_SDK_CORE_NO_EXTENSIONS=1 builds a pure
wheel; BAND_SDK_CORE_CYTHON_TRACE=1 builds with line tracing (full API);
BAND_SDK_CORE_NO_LIMITED_API=1 builds against the full API on 3.12+.
Without Cython, or when the C compiler fails, the pure-Python package installs.
"""

import os
import sys
import sysconfig

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

PACKAGE = "band_sdk_core"
# compiled module -> source. A .py source (the pure implementation) is compiled in
# pure-Python mode and typed by "<compiled module>.pxd" next to it; _ordered_c.pyx,
# the compiled-only ordered map, is plain Cython.
ACCELERATED = {
    "_linked_c": "_linked_py.py",  # first: the base classes the next three cimport
    "_ordered_c": "_ordered_c.pyx",
    "_retry_c": "_retry_py.py",
    "_claims_c": "_claims_py.py",
    "_roster_c": "_roster_py.py",
    "_session_c": "_session_py.py",
    "_turn_c": "_turn_py.py",
    "_json_c": "_json_py.py",
    "_payload_c": "_payload_py.py",
    "_delivery_c": "_delivery_py.py",
    "_activity_c": "_activity_py.py",
    "_subscriptions_c": "_subscriptions_py.py",
    "_decisions_c": "_decisions_py.py",
}


def flag(name):
    # band_sdk_core._compat.env_flag's rule (the package cannot be imported before it is built)
    wanted = name.upper()
    value = next((v for k, v in os.environ.items() if k.upper() == wanted), "")
    return value.strip().lower() in {"1", "true", "yes", "on", "t", "y"}


PURE = flag("BAND_SDK_CORE_NO_EXTENSIONS") or sys.implementation.name != "cpython"
TRACE = flag("BAND_SDK_CORE_CYTHON_TRACE")
LIMITED = (
    sys.version_info >= (3, 12)
    and not sysconfig.get_config_var("Py_GIL_DISABLED")
    and not TRACE
    and not flag("BAND_SDK_CORE_NO_LIMITED_API")
)


REQUIRE = flag("BAND_SDK_CORE_REQUIRE_EXTENSIONS")
HOW = "install a C compiler (and Cython) and reinstall, or use a published wheel"


def fallback(why):
    """Say once, on one line, that the pure-Python core is being installed instead."""
    print(
        f"band_sdk_core: not compiling {', '.join(ACCELERATED)} ({why}); "
        f"installing the pure-Python core. For the compiled core: {HOW}.",
        file=sys.stderr,
    )


class optional_build_ext(build_ext):
    """Build the accelerators, or fall back to pure Python on any build failure.

    setuptools' own ``optional=True`` misses some failures (a missing ``gcc`` is an
    OSError from spawn on some paths), so every error is caught here, as websockets
    and aiohttp do; BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 turns the fallback off.
    """

    def run(self):
        self.failed = []
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - any build failure means "install pure"
            if REQUIRE:
                raise
            fallback(f"{type(exc).__name__}: {exc}")
            return
        if self.failed:
            fallback(self.failed[0])

    def build_extension(self, ext):
        try:
            super().build_extension(ext)
        except Exception as exc:  # noqa: BLE001
            if REQUIRE:
                raise
            self.failed.append(f"{ext.name}: {type(exc).__name__}: {exc}")


def extensions():
    if PURE:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError:
        if REQUIRE:
            raise
        fallback("Cython is not available")
        return []
    # heap types (PyType_FromSpec) everywhere: the classes report module "band_sdk_core".
    # Set here, not per source: a "# distutils: define_macros" line in a source replaces
    # these macros, Py_LIMITED_API included, and the abi3 build silently uses private API.
    macros = [("CYTHON_USE_TYPE_SPECS", "1")]
    if LIMITED:
        macros.append(("Py_LIMITED_API", "0x030C0000"))
    if TRACE:
        macros.append(("CYTHON_TRACE_NOGIL", "1"))
    modules = [
        Extension(
            f"{PACKAGE}.{name}",
            [f"{PACKAGE}/{src}"],
            define_macros=macros,
            py_limited_api=LIMITED,
            optional=not REQUIRE,  # no compiler: pure install
        )
        for name, src in ACCELERATED.items()
    ]
    return cythonize(
        modules,
        compiler_directives={
            "language_level": 3,
            "embedsignature": True,
            "boundscheck": False,
            "wraparound": False,
            "linetrace": TRACE,
        },
        quiet=True,
    )


options = {"bdist_wheel": {"py_limited_api": "cp312"}} if LIMITED and not PURE else {}
setup(ext_modules=extensions(), options=options, cmdclass={"build_ext": optional_build_ext})
