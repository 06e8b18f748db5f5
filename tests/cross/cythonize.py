"""Write the C of every compiled module, as setup.py's build makes it, for a cross compiler.

Usage: ``python tests/cross/cythonize.py OUT``. Prints one ``module path.c`` line per module
(setup.py's ACCELERATED order). Cython's C is one file for every target and Python version: the
limited API and the word size are chosen by the C preprocessor when the target compiles it.
"""

from __future__ import annotations

import os
import runpy
import sys
from pathlib import Path

from Cython.Build import cythonize
from setuptools import Extension

REPO = Path(__file__).resolve().parents[2]


def main(out: Path) -> None:
    """Cythonize every accelerator into ``out`` and print where each one's C is."""
    os.chdir(REPO)
    setup = runpy.run_path("setup.py", run_name="band_cross")  # defines, does not build
    package = setup["PACKAGE"]
    extensions = [
        Extension(f"{package}.{name}", [f"{package}/{source}"])
        for name, source in setup["ACCELERATED"].items()
    ]
    built = cythonize(
        extensions, compiler_directives=setup["DIRECTIVES"], build_dir=str(out), quiet=True
    )
    for extension in built:
        print(extension.name.rsplit(".", 1)[1], Path(extension.sources[0]).resolve())


if __name__ == "__main__":
    main(Path(sys.argv[1]).resolve())
