#!/usr/bin/env bash
# An experiment, not a shipped build: a venv (first argument) with this checkout installed and the
# runtime's hot-path modules (the socket, the REST client, the delivery pipeline, the turn, the
# trace, the send tools) compiled by Cython as they are, unchanged Python in Cython's pure-Python
# mode. Run it beside ours as the --against interpreter (run.py's tables then label its rows
# "official band-sdk": variant ref is whatever --against names):
#   bash bench/e2e/cython_runtime.sh /tmp/cyvenv
#   .venv/bin/python bench/e2e/run.py --only c,ref --against /tmp/cyvenv/bin/python --rounds 8 -k 30
set -euo pipefail
venv=${1:?usage: cython_runtime.sh VENV}
here=$(cd "$(dirname "$0")/../.." && pwd)
# PYTHON: the interpreter ours runs on (.venv's), to compare like with like
"${PYTHON:-python3}" -m venv "$venv"
"$venv/bin/pip" install --quiet "$here" Cython
# -I: the installed band, not a checkout in the working directory
site=$("$venv/bin/python" -Ic "import band, pathlib; print(pathlib.Path(band.__file__).parent.parent)")
case "$site" in "$venv"/*) ;; *) echo "band is not installed in $venv: $site" >&2; exit 1 ;; esac
cd "$site"
modules=(
    band/client/http11.py band/client/phoenix.py band/client/rest.py band/client/reads.py
    band/runtime/rooms/pipeline.py band/runtime/rooms/turn.py band/runtime/rooms/settlement.py
    band/runtime/rooms/execution.py band/runtime/rooms/preprocess.py band/runtime/rooms/events.py
    band/runtime/rooms/inbox.py band/runtime/rooms/history.py band/runtime/pushes.py
    band/runtime/trace.py band/runtime/tools/agent_tools.py band/runtime/tools/ops.py
    band/runtime/tools/landing.py band/core/wire.py band/core/simple_adapter.py
)
"$venv/bin/cythonize" -i -3 -j 2 "${modules[@]}" >/dev/null
# each module must now import from its extension, not from its .py
"$venv/bin/python" -I - "${modules[@]}" <<'PY'
import importlib, sys
for path in sys.argv[1:]:
    module = importlib.import_module(path[:-3].replace("/", "."))
    assert module.__file__.endswith(".so"), module.__file__
print(f"{len(sys.argv) - 1} modules compiled")
PY
