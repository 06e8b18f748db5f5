"""Our ``band.testing`` and model adapters against the official band-sdk 6.0.1 (its venv):
every official name is here, with the same parameters. Facts are read from the official
package (imported where it can be, its source parsed where an optional extra is missing)."""

from __future__ import annotations

import ast
import inspect
import json
import subprocess
from pathlib import Path
from typing import Any

from bandtest.refsdk import REFSDK_PYTHON, requires_refsdk

import band.testing
from band.adapters.anthropic import AnthropicAdapter, AnthropicAdapterConfig
from band.testing import FakeAgentTools

#: official names that need the strands extra (a framework this SDK has no adapter for)
STRANDS_ONLY = {"ErrorTurn", "ScriptedStrandsModel", "ScriptedTurn", "TextTurn", "ToolTurn"}

PROBE = """
import inspect, json, band.testing as t
from band.testing import FakeAgentTools
def params(f):
    return [p.name for p in inspect.signature(f).parameters.values()]
methods = {
    name: params(member)
    for name, member in vars(FakeAgentTools).items()
    if not name.startswith("_") and callable(member)
}
props = [n for n, m in vars(FakeAgentTools).items() if isinstance(m, property)]
print(json.dumps({"all": list(t.__all__), "methods": methods, "properties": props,
                  "init": params(FakeAgentTools.__init__)}))
"""


def official(code: str) -> Any:
    out = subprocess.run(
        [str(REFSDK_PYTHON), "-I", "-c", code], capture_output=True, text=True, timeout=120
    )
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout)


def params(f: Any) -> list[str]:
    return [p.name for p in inspect.signature(f).parameters.values()]


@requires_refsdk
def test_band_testing_has_every_official_name() -> None:
    ref = official(PROBE)
    missing = set(ref["all"]) - STRANDS_ONLY - set(band.testing.__all__)
    assert not missing
    for name in set(ref["all"]) - STRANDS_ONLY:
        assert getattr(band.testing, name) is not None


@requires_refsdk
def test_fake_agent_tools_has_the_official_members_and_parameters() -> None:
    ref = official(PROBE)
    assert params(FakeAgentTools.__init__) == ref["init"]
    for name, ref_params in ref["methods"].items():
        ours = getattr(FakeAgentTools, name, None)
        assert ours is not None, f"FakeAgentTools.{name} is missing"
        # ours may take more keywords (send_message's attachment_ids), in the same order first
        assert params(ours)[: len(ref_params)] == ref_params, name
    for name in ref["properties"]:
        assert isinstance(getattr(FakeAgentTools, name), property), name


def _official_source(relative: str) -> ast.Module:
    where = official(
        "import importlib.util, json; "
        "print(json.dumps(importlib.util.find_spec('band').submodule_search_locations[0]))"
    )
    return ast.parse(Path(where, relative).read_text())


@requires_refsdk
def test_anthropic_adapter_config_and_signature_match_the_official() -> None:
    # the official module imports anthropic at once, and the official venv has no such extra:
    # read its field names, defaults and parameters from the source
    tree = _official_source("adapters/anthropic.py")
    classes = {n.name: n for n in tree.body if isinstance(n, ast.ClassDef)}
    fields = {
        s.target.id: ast.unparse(s.value) if s.value is not None else None
        for s in classes["AnthropicAdapterConfig"].body
        if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)
    }
    assert list(fields) == list(AnthropicAdapterConfig.model_fields)
    ours = AnthropicAdapterConfig()
    assert fields["max_tokens"] == str(ours.max_tokens) == "4096"
    assert fields["custom_section"] == repr(ours.custom_section)
    assert fields["include_base_instructions"] == str(ours.include_base_instructions)
    assert "repr=False" in str(fields["provider_key"])
    assert AnthropicAdapterConfig.model_fields["provider_key"].repr is False
    init = next(
        f
        for f in classes["AnthropicAdapter"].body
        if isinstance(f, ast.FunctionDef) and f.name == "__init__"
    )
    ref_params = [a.arg for a in init.args.args + init.args.kwonlyargs]
    ref_params.append(init.args.kwarg.arg if init.args.kwarg else "")
    assert params(AnthropicAdapter.__init__) == ref_params
    default_model = official(
        "import json; from band.core.defaultmodels import ANTHROPIC_MODEL; "
        "print(json.dumps(ANTHROPIC_MODEL))"
    )
    assert ours.model == default_model
