"""Check every comparison in the generated C that can reach Cython's float/int helper.

Usage: ``python tests/cross/float_int_sites.py C_DIR``. Cython 3 compares two Python objects
through ``__Pyx_PyObject_Compare*`` helpers that test the operands' types at run time; an exact
float on the left against an exact int on the right goes to ``__Pyx_PyObject_CompareFloatInt*``,
whose limited-API path (the cp312-abi3 wheels) reads the int into a C ``long``: on a 32-bit target
every int from 2**31 to 2**53 then overflows and the comparison answers as if the int were past
2**53 (``x != int(x)`` was true for every float below 2**53). So the sources never compare a float
with an int: a float is compared with a float (C doubles or float constants), an int with an int.

This lists each source line whose C calls a helper that can reach the float/int path and checks
it against float_int_sites.txt, the reviewed list (one ``module: source line`` with the reason
no float meets an int there). It fails on a line the list does not have (a new comparison to
review: make its operands C-typed, or of one Python type, then list it) and on a listed line
that is gone. A helper typed ``float`` against ``int`` or ``object`` always fails.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

REVIEWED = Path(__file__).with_name("float_int_sites.txt")
HELPER = re.compile(r"^static (?:CYTHON_INLINE )?[\w ]+\*? ?(__Pyx_\w+)\(.*\{\s*$")
SOURCE = re.compile(r'^\s*/\* "(band_sdk_core/[^"]+\.(?:pyx?|pxd))":(\d+)$')


def helpers_reaching(lines: list[str]) -> set[str]:
    """The names of the helpers whose bodies call the float/int helper, directly or not."""
    bodies: dict[str, str] = {}
    index = 0
    while index < len(lines):
        match = HELPER.match(lines[index])
        if match:
            end = lines.index("}", index)
            bodies[match.group(1)] = "\n".join(lines[index + 1 : end])
            index = end
        index += 1
    reaching = {name for name in bodies if name.startswith("__Pyx_PyObject_CompareFloatInt")}
    grown = True
    while grown:
        grown = False
        for name, body in bodies.items():
            if name not in reaching and any(f"{other}(" in body for other in reaching):
                reaching.add(name)
                grown = True
    return reaching


def sites(c_file: Path, repo: Path) -> dict[str, set[str]]:
    """``{"module: source line": {helper, ...}}`` for each comparison reaching the helper."""
    lines = c_file.read_text().splitlines()
    reaching = helpers_reaching(lines)
    if not reaching:
        return {}
    calls = re.compile(r"\b(" + "|".join(map(re.escape, reaching)) + r")\(")
    found: dict[str, set[str]] = {}
    where = None
    in_helper = False
    for line in lines:
        if HELPER.match(line):
            in_helper = True
        elif line == "}":
            in_helper = False
        match = SOURCE.match(line)
        if match:
            source = (repo / match.group(1)).read_text().splitlines()
            code = source[int(match.group(2)) - 1].split("  #", 1)[0].strip()
            where = f"{match.group(1)}: {code}"
        call = calls.search(line)
        if call and not in_helper and not line.startswith("static") and where:
            found.setdefault(where, set()).add(call.group(1))
    return found


def main(c_dir: Path) -> int:
    """Print the sites; 1 when one is new, typed float against int, or a listed one is gone."""
    repo = Path(__file__).resolve().parents[2]
    found: dict[str, set[str]] = {}
    for c_file in sorted(c_dir.rglob("*.c")):
        found.update(sites(c_file, repo))
    reviewed = {
        line.split("  #", 1)[0].strip()
        for line in REVIEWED.read_text().splitlines()
        if line.strip() and not line.startswith("#")
    }
    failed = 0
    for where, helpers in sorted(found.items()):
        typed = sorted(h for h in helpers if re.search(r"_float_(int|object)$", h))
        if typed:
            print(f"float compared with an int: {where} ({', '.join(typed)})")
            failed = 1
        elif where not in reviewed:
            print(f"not reviewed (can a float meet an int here?): {where}")
            failed = 1
    for where in sorted(reviewed - set(found)):
        print(f"listed but gone (remove it from {REVIEWED.name}): {where}")
        failed = 1
    print(f"{len(found)} comparison lines can reach the float/int helper; {len(reviewed)} reviewed")
    return failed


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))
