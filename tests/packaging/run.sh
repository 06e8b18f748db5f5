#!/usr/bin/env bash
# What each platform gets, proved on this machine (`make test-dist`, called by .ci/run). Every
# install below runs in a fresh venv with NO C compiler on PATH, except the one step that
# needs one ("a compile that fails, then a reinstall with a compiler"):
#   1. pure build: `--config-settings=pure-python=true` from the sdist with an index holding only
#      setuptools (so Cython is never asked for) yields py3-none-any; installed with --no-deps,
#      band_sdk_core alone (zero dependencies: what PyPy or a no-wheel platform gets) passes
#      tests/core;
#   2. a compiled build without a compiler fails with the one line naming the pure switch and
#      caches nothing; the same install with a compiler and the same pip cache ends compiled;
#   3. the base install of that cp312-abi3 wheel (taken from the pip cache) on 3.13: every
#      dependency a wheel (--only-binary :all:), the closure has no rpds-py, cryptography or
#      cffi; `band demo` (band.Agent, SimpleAdapter, the tools and band dev) and `band dev`
#      work; band-mcp, the ACP adapter and `band demo --acp` print the extra's hint; `band
#      doctor` is clean;
#   4. the same wheel passes tests/core on 3.13 with the compiled core required;
#   5. the official band-sdk 6.0.1 and then ours: importing band or band_sdk_core raises the
#      guard's one line; its fix leaves a working install that `band doctor` finds clean, and
#      `python -m band.cli.doctor` names a file another distribution left in band/;
#   6. twine check --strict, check-wheel-contents and abi3audit --strict (the wheels workflow's).
# Interpreters: PYTHON312 / PYTHON313, else pyenv's 3.12 / 3.13; a missing one fails loudly.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/../.." && pwd)"
PY="${PY:-$ROOT/.venv/bin/python}"
case "$PY" in /*) ;; *) PY="$ROOT/$PY" ;; esac  # the steps below run from $WORK
WORK="${DIST_WORK:-$ROOT/build/dist-test}"
# how many modules the core compiles, read from its own list (a written-down count goes stale)
MODULES="$("$PY" -c 'import ast, sys
tree = ast.parse(open(sys.argv[1]).read())
names = next(n.value for n in tree.body if isinstance(n, ast.Assign)
             and getattr(n.targets[0], "id", "") == "COMPILED_MODULES")
print(len(names.elts))' "$ROOT/band_sdk_core/_compat.py")"
rm -rf "$WORK" && mkdir -p "$WORK"
START=$SECONDS
step() { printf '\n== test-dist [%ss]: %s\n' "$((SECONDS - START))" "$*"; }
fail() { echo "test-dist: $*" >&2; exit 1; }
export PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INPUT=1

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

# A PATH with no compiler on it: each venv's bin and a few basic tools, nothing else.
NOCC_BIN="$WORK/nocc-bin"
mkdir -p "$NOCC_BIN"
for tool in sh bash env uname cat ls rm mkdir cp mv sed grep tar gzip; do
    ln -sf "$(command -v "$tool")" "$NOCC_BIN/$tool"
done
nocc() {  # nocc VENV CMD...: run CMD with VENV's bin and no compiler on PATH
    local venv="$1"; shift
    env -u CC -u CXX -u LDSHARED PATH="$venv/bin:$NOCC_BIN" "$@"
}
nocc "$WORK" sh -c 'command -v gcc || command -v cc || command -v clang' >/dev/null \
    && fail "a compiler is still reachable on the no-compiler PATH"
venv() { "$1" -m venv "$2" && "$2/bin/python" -m pip install --quiet --upgrade pip; }

step "sdist"
"$PY" -m build --version >/dev/null 2>&1 || "$PY" -m pip install --quiet build
(cd "$ROOT" && "$PY" -m build --sdist --outdir "$WORK/dist" . >"$WORK/sdist.log" 2>&1) || {
    tail -30 "$WORK/sdist.log"; fail "the sdist did not build"; }
SDIST="$(ls "$WORK"/dist/*.tar.gz)"
echo "built $SDIST"

step "1. pure-python=true: no Cython, no compiler, py3-none-any; band_sdk_core alone passes"
"$PY" -m pip download --quiet --only-binary :all: --dest "$WORK/setuptools-only" "setuptools>=77"
ls "$WORK/setuptools-only" | grep -qiv '^setuptools-' && fail "more than setuptools downloaded"
venv "$PY" "$WORK/pure-venv"
nocc "$WORK/pure-venv" pip wheel -v --no-deps --no-index --find-links "$WORK/setuptools-only" \
    --config-settings=pure-python=true --wheel-dir "$WORK/pure" "$SDIST" >"$WORK/pure.log" 2>&1 || {
    tail -40 "$WORK/pure.log"; fail "the pure build failed (did it ask for Cython?)"; }
grep -qi "cython" "$WORK/pure.log" && { grep -i cython "$WORK/pure.log" | head; fail "Cython in the pure build"; }
PURE="$(ls "$WORK"/pure/*.whl)"
case "$PURE" in *-py3-none-any.whl) echo "built $(basename "$PURE") with no Cython and no compiler" ;;
    *) fail "expected a py3-none-any wheel, got $PURE" ;; esac
# band_sdk_core has no dependencies: --no-deps is what a platform without msgspec wheels can use
nocc "$WORK/pure-venv" pip install --quiet --no-deps "$PURE"
(cd "$WORK" && nocc "$WORK/pure-venv" python -Ic '
import band_sdk_core, importlib.metadata as m
assert band_sdk_core.USING_EXTENSIONS is False
print("band_sdk_core", band_sdk_core.__version__, "imports with no dependency installed")')
nocc "$WORK/pure-venv" pip install --quiet --only-binary :all: pytest hypothesis
(cd "$WORK" && nocc "$WORK/pure-venv" python -Im pytest -q -p no:cacheprovider -m "not compiled" \
    "$ROOT/tests/core")

step "2. a compile that fails (no compiler), then a reinstall with a compiler and the same cache"
CACHE="$WORK/pip-cache"
venv "$PY312" "$WORK/fail312"
if nocc "$WORK/fail312" pip install --cache-dir "$CACHE" --no-deps "$SDIST" \
    >"$WORK/fail.log" 2>&1; then
    fail "the compiled build succeeded without a compiler (a pure wheel under a compiled tag?)"
fi
grep -m1 "band_sdk_core: cannot compile the accelerators" "$WORK/fail.log" \
    || { tail -30 "$WORK/fail.log"; fail "no one-line reason in the failed build's log"; }
grep -q "pure-python=true" "$WORK/fail.log" || fail "the failure does not name the pure switch"
[ -z "$(find "$CACHE" -name 'band_open_sdk-*.whl' 2>/dev/null)" ] || fail "a failed build was cached"
"$WORK/fail312/bin/pip" install --quiet --cache-dir "$CACHE" --no-deps "$SDIST" \
    || fail "the build with a compiler failed"
(cd "$WORK" && fail312/bin/python -Ic '
import band_sdk_core
assert band_sdk_core.USING_EXTENSIONS is True, "the reinstall kept a pure core"
print("compiled core after the reinstall with a compiler")')
ABI3="$(find "$CACHE" -name 'band_open_sdk-*-cp312-abi3-*.whl' | head -n1)"
[ -n "$ABI3" ] || fail "no cp312-abi3 wheel in the pip cache"
cp "$ABI3" "$WORK/dist/" && ABI3="$WORK/dist/$(basename "$ABI3")"
echo "cached $(basename "$ABI3")"
# no debug info in the release modules (the -g0 and -s build flags): no .debug_info section
"$PY" - "$ABI3" "$WORK/unpacked" "$MODULES" <<'PYEOF'
import sys, zipfile
wheel = zipfile.ZipFile(sys.argv[1])
modules = [n for n in wheel.namelist() if n.endswith(".so")]
expected = int(sys.argv[3])
assert len(modules) == expected, f"expected {expected} compiled modules in the wheel, found {modules}"
wheel.extractall(sys.argv[2], modules)
PYEOF
command -v readelf >/dev/null || fail "readelf (binutils) is needed to check the debug info"
for f in "$WORK"/unpacked/band_sdk_core/*.so; do
    readelf -S "$f" | grep -q '\.debug_info' && fail "$f carries debug info"
done
echo "compiled modules: $(du -ch "$WORK"/unpacked/band_sdk_core/*.so | tail -n1 | cut -f1) in all"

step "3. the base install on 3.13: wheels only, a lean closure, an agent and band dev, the hints"
venv "$PY313" "$WORK/t313"
nocc "$WORK/t313" pip install --quiet --only-binary :all: "$ABI3"
nocc "$WORK/t313" pip list --format=freeze >"$WORK/base-closure.txt"
echo "base closure: $(grep -vc '^pip==' "$WORK/base-closure.txt") distributions: $(tr '\n' ' ' <"$WORK/base-closure.txt")"
for banned in rpds-py rpds_py cryptography cffi mcp agent-client-protocol agent_client_protocol \
    jsonschema pyjwt anthropic openai; do
    grep -qi "^$banned==" "$WORK/base-closure.txt" && fail "$banned is in the base install's closure"
done
(cd "$WORK" && nocc "$WORK/t313" python -Ic '
import band, band_sdk_core
from band import Agent
from band.core import SimpleAdapter
import band.testing
assert band_sdk_core.USING_EXTENSIONS is True
print("import band, band.Agent, SimpleAdapter, band.testing: ok")')
(cd "$WORK" && nocc "$WORK/t313" band demo --timeout 120 >"$WORK/demo.log" 2>&1) \
    || { cat "$WORK/demo.log"; fail "band demo failed on the base install"; }
grep "step 6/6" "$WORK/demo.log"
# `band dev` itself, as a user starts it: up on a free loopback port, answering the human API
PORT="$(nocc "$WORK/t313" python -Ic '
import socket
with socket.socket() as s:
    s.bind(("127.0.0.1", 0))
    print(s.getsockname()[1])')"
pushd "$WORK" >/dev/null
# env, not the nocc function: $! must be band dev's own pid (env execs it), not a subshell's
env -u CC -u CXX -u LDSHARED PATH="$WORK/t313/bin:$NOCC_BIN" \
    band dev --port "$PORT" --db :memory: >"$WORK/dev.log" 2>&1 &
DEV=$!
popd >/dev/null
trap 'kill "$DEV" 2>/dev/null || true' EXIT
nocc "$WORK/t313" python -Ic '
import re, sys, time, httpx
log, url = sys.argv[1], f"http://127.0.0.1:{sys.argv[2]}"
deadline = time.monotonic() + 120  # generous: a loaded machine; it returns as soon as it is up
while time.monotonic() < deadline:
    key = re.search(r"^BAND_USER_KEY=(\S+)$", open(log).read(), re.M)
    if key:
        try:
            r = httpx.get(f"{url}/api/v1/me/chats", headers={"X-API-Key": key[1]}, timeout=5)
        except httpx.TransportError:
            pass
        else:
            assert r.status_code == 200, r.text
            print("band dev answers on", url)
            break
    time.sleep(0.2)
else:
    raise SystemExit("band dev did not come up: " + open(log).read())' "$WORK/dev.log" "$PORT"
kill "$DEV"
wait "$DEV" || true  # band dev ends on SIGTERM (its status is uvicorn's, not checked)
trap - EXIT
expect_hint() {  # expect_hint EXTRA LOG: the one line naming the extra, no traceback
    grep -q "pip install 'band-open-sdk\[$1\]'" "$2" || { cat "$2"; fail "no [$1] hint"; }
    grep -q "Traceback" "$2" && { cat "$2"; fail "a traceback instead of the [$1] hint"; }
    [ "$(wc -l <"$2")" -eq 1 ] || { cat "$2"; fail "more than one line for the [$1] hint"; }
    echo "hint: $(cat "$2")"
}
(cd "$WORK" && nocc "$WORK/t313" band-mcp >"$WORK/mcp.log" 2>&1) && fail "band-mcp ran without [mcp]"
expect_hint mcp "$WORK/mcp.log"
(cd "$WORK" && nocc "$WORK/t313" band demo --acp >"$WORK/acp.log" 2>&1) \
    && fail "band demo --acp ran without [acp]"
expect_hint acp "$WORK/acp.log"
(cd "$WORK" && nocc "$WORK/t313" python -Ic '
try:
    from band.adapters import ACPClientAdapter
except ImportError as exc:
    print(exc)
else:
    raise SystemExit("the ACP adapter imported without [acp]")' >"$WORK/acp-import.log" 2>&1)
expect_hint acp "$WORK/acp-import.log"

(cd "$WORK" && nocc "$WORK/t313" band doctor >"$WORK/doctor-base.log") \
    || { cat "$WORK/doctor-base.log"; fail "band doctor failed on the base install"; }
for line in "core: compiled: $MODULES Cython modules, abi3 (limited API)" \
    "  [mcp] not installed (pip install 'band-open-sdk[mcp]')" "conflicts: none"; do
    grep -qxF "$line" "$WORK/doctor-base.log" || { cat "$WORK/doctor-base.log"; fail "doctor: no '$line'"; }
done

step "4. the cp312-abi3 wheel on 3.13, compiled core required, tests/core"
nocc "$WORK/t313" pip install --quiet --only-binary :all: pytest hypothesis
(cd "$WORK" && BAND_SDK_CORE_REQUIRE_EXTENSIONS=1 nocc "$WORK/t313" python -Im pytest -q \
    -p no:cacheprovider "$ROOT/tests/core")

step "5. the official band-sdk 6.0.1, then ours: the guard; then its fix"
venv "$PY" "$WORK/official"
nocc "$WORK/official" pip install --quiet --only-binary :all: "band-sdk==6.0.1"
nocc "$WORK/official" pip install --quiet --only-binary :all: "$PURE"
for module in band band_sdk_core; do
    (cd "$WORK" && nocc "$WORK/official" python -Ic "import $module" >"$WORK/guard.log" 2>&1) \
        && fail "import $module worked beside the official band-sdk"
    tail -n1 "$WORK/guard.log" >"$WORK/guard-line.log"
    for part in "ImportError: band-open-sdk cannot be imported" "band-sdk 6.0.1" \
        "band-sdk-core 2.8.0" "pip uninstall -y band-sdk band-sdk-core band-open-sdk"; do
        grep -qF "$part" "$WORK/guard-line.log" || { cat "$WORK/guard.log"; fail "guard: no '$part'"; }
    done
    echo "import $module: $(cat "$WORK/guard-line.log")"
done
# the fix the message gives, as it gives it (band-client-rest stays: it owns band_rest only)
nocc "$WORK/official" pip uninstall --quiet -y band-sdk band-sdk-core band-open-sdk
nocc "$WORK/official" pip install --quiet --only-binary :all: "$PURE"
(cd "$WORK" && nocc "$WORK/official" band doctor >"$WORK/doctor.log") \
    || { cat "$WORK/doctor.log"; fail "band doctor found a conflict after the fix"; }
grep -q "conflicts: none" "$WORK/doctor.log" || { cat "$WORK/doctor.log"; fail "doctor: conflicts"; }
grep "^core:" "$WORK/doctor.log"
# a file another distribution left in band/ (band-sdk's band/docker/provision.py, band-kit's:
# not ours; band/cli/trigger.py was the example until ours got that path too): doctor names it
SITE="$(nocc "$WORK/official" python -Ic 'import sysconfig; print(sysconfig.get_paths()["purelib"])')"
mkdir -p "$SITE/band/docker" && : >"$SITE/band/docker/provision.py"
# (python -m band.cli.doctor loads no other command: it runs even when the band command does not)
(cd "$WORK" && nocc "$WORK/official" python -Im band.cli.doctor >"$WORK/doctor-stray.log") \
    && { cat "$WORK/doctor-stray.log"; fail "band doctor exited 0 with a stray file in band/"; }
grep -qxF "  not ours: band/docker/provision.py" "$WORK/doctor-stray.log" \
    || { cat "$WORK/doctor-stray.log"; fail "band doctor did not name the stray file"; }
echo "doctor: $(grep -F 'not ours' "$WORK/doctor-stray.log")"
step "6. the checks of the wheels workflow's check job, on the sdist and both wheels"
venv "$PY" "$WORK/checks"
"$WORK/checks/bin/pip" install --quiet --only-binary :all: twine check-wheel-contents abi3audit
"$WORK/checks/bin/twine" check --strict "$SDIST" "$PURE" "$ABI3"
# W009: two top-level packages (band and band_sdk_core) on purpose; W002: the web view's vendored
# DOMPurify carries its Apache-2.0 licence text, the same file as the project's own LICENSE
"$WORK/checks/bin/check-wheel-contents" --ignore W009,W002 "$PURE" "$ABI3"
"$WORK/checks/bin/abi3audit" --strict --summary "$ABI3"
step "all passed in $((SECONDS - START))s"
