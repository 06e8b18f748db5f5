"""Compile the band_sdk_core accelerators, or build the pure-Python core when asked to.

build_backend/band_build.py (the PEP 517 backend) decides and sets BAND_SDK_CORE_NO_EXTENSIONS
to 1 (pure: no Cython, no compiler, a py3-none-any wheel) or 0 (compile). A compiled build
that cannot compile stops with one line naming the pure switch: it never falls back to a pure
wheel under a platform tag (pip would cache that wheel and reuse it once a compiler exists).
BAND_SDK_CORE_CYTHON_TRACE=1 builds with line tracing (full API);
BAND_SDK_CORE_NO_LIMITED_API=1 builds against the full API on 3.12+.
"""

import os
import sys
import sysconfig
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.errors import CompileError

PACKAGE = "band_sdk_core"
# compiled module -> source. A .py source (the pure implementation) is compiled in
# pure-Python mode and typed by "<compiled module>.pxd" next to it; _ordered_c.pyx,
# the compiled-only ordered map, _strmap_c.pyx, the compiled-only str-keyed table, and
# _typename_c.pyx, the compiled classes' C names, are plain Cython.
ACCELERATED = {
    "_linked_c": "_linked_py.py",  # first: the base classes the next three cimport
    "_strmap_c": "_strmap_c.pyx",
    "_ordered_c": "_ordered_c.pyx",
    "_typename_c": "_typename_c.pyx",
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
    "_push_c": "_push_py.py",
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
HOW = (
    "install a C compiler and retry, or build the pure-Python core: "
    "pip install --config-settings=pure-python=true band-open-sdk "
    "(or BAND_SDK_CORE_NO_EXTENSIONS=1)"
)
# no debug info in release modules (8.6 MB of .so with it, 1.8 MB without); traced builds keep it
UNIX = os.name != "nt"
COMPILE_ARGS = ["-g0"] if UNIX and not TRACE else []
LINK_ARGS = ["-s"] if sys.platform.startswith("linux") and not TRACE else []
# x87 (i386) keeps doubles in 80-bit registers; this rounds every assignment and cast to double,
# so the compiled core computes what the pure one (and the reference) does. Added when the
# compiler takes it (gcc does; old clang does not).
EXCESS_PRECISION = "-fexcess-precision=standard"
DIRECTIVES = {
    "language_level": 3,
    "embedsignature": True,
    "boundscheck": False,
    "wraparound": False,
    "linetrace": TRACE,
}


def accepts(compiler, option):
    """True when ``compiler`` compiles a trivial C file with ``option`` and no warning."""
    with tempfile.TemporaryDirectory() as tmp:
        source = os.path.join(tmp, "probe.c")
        with open(source, "w") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            compiler.compile([source], output_dir=tmp, extra_postargs=[option, "-Werror"])
        except CompileError:
            return False
    return True


class strict_build_ext(build_ext):
    """Build every accelerator; on any failure stop with one line saying what to do."""

    def build_extensions(self):
        if UNIX and accepts(self.compiler, EXCESS_PRECISION):
            for ext in self.extensions:
                ext.extra_compile_args = [*ext.extra_compile_args, EXCESS_PRECISION]
        super().build_extensions()

    def run(self):
        try:
            super().run()
        except Exception as exc:  # noqa: BLE001 - whatever failed, the advice is the same
            raise CompileError(
                f"band_sdk_core: cannot compile the accelerators "
                f"({type(exc).__name__}: {exc}); {HOW}"
            ) from exc


def extensions():
    if PURE:
        return []
    try:
        from Cython.Build import cythonize
    except ImportError as exc:  # the backend asks for Cython whenever it compiles
        raise SystemExit(f"band_sdk_core: Cython is not installed; {HOW}") from exc
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
            extra_compile_args=COMPILE_ARGS,
            extra_link_args=LINK_ARGS,
        )
        for name, src in ACCELERATED.items()
    ]
    return cythonize(
        modules,
        compiler_directives=DIRECTIVES,
        quiet=True,
    )


# tests/cross/cythonize.py reads ACCELERATED and DIRECTIVES from here without building
if __name__ == "__main__":
    options = {"bdist_wheel": {"py_limited_api": "cp312"}} if LIMITED and not PURE else {}
    setup(ext_modules=extensions(), options=options, cmdclass={"build_ext": strict_build_ext})
