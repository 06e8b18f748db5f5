"""SessionConfig beside band-sdk 6.0.1's: the same values from the same environment and
keywords, and the same timings refused.

band-sdk's ``SessionConfig`` is a pydantic-settings model: a field not given is read from the
environment variable of its name, in any case. A deployment configured that way must behave
the same on ours. Each case runs in the official venv and here, and the results are compared.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest
from bandtest.refsdk import requires_refsdk, run_refsdk

from band.runtime.sessionconfig import SessionConfig

pytestmark = requires_refsdk

#: (environment, keywords): each is built by both SDKs
CASES: list[tuple[dict[str, str], dict[str, Any]]] = [
    ({}, {}),
    ({"MAX_CONTEXT_MESSAGES": "20", "idle_resync_seconds": "5"}, {}),
    ({"Max_Context_Messages": "20"}, {"max_context_messages": 9}),  # a keyword wins
    ({"ENABLE_WORKING_STATE": "false", "MAX_CYCLE_SECONDS": "30"}, {}),
    ({"REPORT_TURN_FAILURES_TO_ROOM": "0", "CONTEXT_CACHE_TTL_SECONDS": ""}, {}),  # "": unset
    ({"STOPPED_RESYNC_SECONDS": "7.5", "OWED_RECHECK_SECONDS": "0.25"}, {}),
    ({}, {"working_keep_alive_seconds": 0}),
    ({}, {"working_keep_alive_seconds": 5}),
    ({}, {"working_request_timeout_seconds": 3}),
    ({"WORKING_KEEP_ALIVE_SECONDS": "1.5"}, {}),  # the default timeout (2) above it
    ({}, {"max_cycle_seconds": 0}),
    ({}, {"max_working_state_seconds": -1}),
    ({}, {"enable_working_state": False, "working_keep_alive_seconds": 0}),
    ({"MAX_CONTEXT_MESSAGES": "many"}, {}),
]

#: builds each case's config (or says it was refused) and prints the results as JSON
PROBE = """
import json, os
from band.runtime.sessionconfig import SessionConfig
fields = {name.upper() for name in SessionConfig.model_fields}
out = []
for env, kw in json.loads(CASES):
    for key in [k for k in os.environ if k.upper() in fields]:
        del os.environ[key]
    os.environ.update(env)
    try:
        out.append(SessionConfig(**kw).model_dump(mode="json"))
    except ValueError:
        out.append("refused")
print(json.dumps(out))
"""


def test_the_environment_and_the_timing_rules_match_band_sdk(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    official = json.loads(run_refsdk(PROBE.replace("CASES", repr(json.dumps(CASES)))))
    ours: list[Any] = []
    fields = {name.upper() for name in SessionConfig.model_fields}
    for env, kw in CASES:
        with monkeypatch.context() as patch:
            for key in [k for k in os.environ if k.upper() in fields]:
                patch.delenv(key)
            for key, value in env.items():
                patch.setenv(key, value)
            try:
                ours.append(SessionConfig(**kw).model_dump(mode="json"))
            except ValueError:
                ours.append("refused")
    for case, theirs, mine in zip(CASES, official, ours, strict=True):
        if isinstance(theirs, dict) and isinstance(mine, dict):  # ours has fields of its own
            mine = {name: mine[name] for name in theirs}
        assert mine == theirs, case
    assert official.count("refused") == 7  # the cases are not all of one kind
