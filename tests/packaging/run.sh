#!/usr/bin/env bash
# What each platform gets, proved on this machine (`make test-dist`, called by .ci/run):
#   1. the sdist with NO C compiler installs the pure-Python core and passes a core-test slice;
#   2. the wheel built on CPython 3.12 is cp312-abi3, installs on 3.13 and passes tests/core
#      there with the compiled core required;
#   3. the py3-none-any wheel installs and passes tests/core with the pure core.
# Interpreters: PYTHON312 / PYTHON313, else pyenv's 3.12 / 3.13; a missing one fails loudly.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
case "$PY" in /*) ;; *) PY="$ROOT/$PY" ;; esac  # the steps below run from $WORK
WORK="${DIST_WORK:-$ROOT/build/dist-test}"
rm -rf "$WORK" && mkdir -p "$WORK"
step() { printf '\n== test-dist: %s\n' "$*"; }

find_python() {  # find_python 3.12 -> path of a working CPython 3.12 interpreter
    local want="$1" var="PYTHON${1/./}" cand root
    if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
    root="$(pyenv root 2>/dev/null || echo "$HOME/.pyenv")"
    # pyenv's own builds first: its shims answer "command not found" for a version not selected
    for cand in "$root"/versions/"$want"*/bin/python"$want" "$(command -v "python$want" || true)"; do
        if [ -x "$cand" ] && "$cand" -c "import sys; assert sys.version_info[:2] == (${want/./, })" \
            2>/dev/null; then echo "$cand"; return; fi
    done
    echo "test-dist: no CPython $want found (set $var)" >&2
    return 1
}
PY312="$(find_python 3.12)"
PY313="$(find_python 3.13)"
CORE_SLICE=(tests/core/test_retry.py tests/core/test_payload.py tests/core/test_session.py)

step "sdist"
"$PY" -m build --version >/dev/null 2>&1 || "$PY" -m pip install --quiet build
(cd "$ROOT" && "$PY" -m build --sdist --outdir "$WORK/dist" . >/dev/null)
SDIST="$(ls "$WORK"/dist/*.tar.gz)"
echo "built $SDIST"

step "sdist without a C compiler -> pure-Python core"
"$PY" -m venv "$WORK/nocc"
NOCC_BIN="$WORK/nocc-bin"  # a PATH with no compiler on it: only the venv and basic tools
mkdir -p "$NOCC_BIN"
for tool in sh bash env uname cat ls rm mkdir cp mv sed grep tar gzip; do
    ln -sf "$(command -v "$tool")" "$NOCC_BIN/$tool"
done
env PATH="$WORK/nocc/bin:$NOCC_BIN" CC=/bin/false CXX=/bin/false LDSHARED=/bin/false \
    "$WORK/nocc/bin/pip" install -v "$SDIST" pytest hypothesis >"$WORK/nocc.log" 2>&1 || {
    tail -40 "$WORK/nocc.log"; echo "test-dist: the sdist did not install without a compiler"; exit 1; }
# the one line a user sees (with pip -v) that says what was not compiled and why
grep -m1 "band_sdk_core: not compiling" "$WORK/nocc.log" || {
    echo "test-dist: no fallback line in the build log"; exit 1; }
(cd "$WORK" && env PATH="$WORK/nocc/bin:$NOCC_BIN" nocc/bin/python -Ic '
import band, band_sdk_core
assert band_sdk_core.USING_EXTENSIONS is False, "a compiled module was installed"
print("imported band", band.__version__, "with the pure-Python core")')
(cd "$WORK" && BAND_SDK_CORE_NO_EXTENSIONS=1 nocc/bin/python -Im pytest -q -p no:cacheprovider \
    -m "not compiled" "${CORE_SLICE[@]/#/$ROOT/}")

step "cp312-abi3 wheel built on $PY312, tested on $PY313"
"$PY312" -m venv "$WORK/b312"
"$WORK/b312/bin/pip" install --quiet build
(cd "$WORK" && BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 b312/bin/python -m build --wheel \
    --outdir "$WORK/abi3" "$SDIST" >/dev/null)
WHEEL="$(ls "$WORK"/abi3/*.whl)"
case "$WHEEL" in *-cp312-abi3-*.whl) echo "built $(basename "$WHEEL")" ;;
    *) echo "test-dist: expected a cp312-abi3 wheel, got $WHEEL"; exit 1 ;; esac
"$PY313" -m venv "$WORK/t313"
"$WORK/t313/bin/pip" install --quiet "$WHEEL" pytest hypothesis
(cd "$WORK" && BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 t313/bin/python -Im pytest -q \
    -p no:cacheprovider "$ROOT/tests/core")

step "py3-none-any wheel"
(cd "$WORK" && BAND_SDK_CORE_NO_EXTENSIONS=1 "$PY" -m build --wheel --outdir "$WORK/pure" \
    "$SDIST" >/dev/null)
PURE="$(ls "$WORK"/pure/*.whl)"
case "$PURE" in *-py3-none-any.whl) echo "built $(basename "$PURE")" ;;
    *) echo "test-dist: expected a py3-none-any wheel, got $PURE"; exit 1 ;; esac
"$PY" -m venv "$WORK/pure-venv"
"$WORK/pure-venv/bin/pip" install --quiet "$PURE" pytest hypothesis
(cd "$WORK" && pure-venv/bin/python -Ic \
    "import band_sdk_core as b; assert b.USING_EXTENSIONS is False")
(cd "$WORK" && pure-venv/bin/python -Im pytest -q -p no:cacheprovider -m "not compiled" \
    "$ROOT/tests/core")
step "all passed"
