"""``band new NAME``: a project with an agent, its config template, a passing test, a README."""

from __future__ import annotations

import argparse
import importlib.util
import re
from importlib import resources
from pathlib import Path

from band._extras import install_hint, missing_modules

from .options import CommandError

__all__ = ["add"]

#: --model (also the extra it needs) -> (module, adapter class, config class, key variable)
MODELS = {
    "anthropic": ("anthropic", "AnthropicAdapter", "AnthropicAdapterConfig", "ANTHROPIC_API_KEY"),
    "openai": ("openai", "OpenAIAdapter", "OpenAIAdapterConfig", "OPENAI_API_KEY"),
}

#: the project's files, as templates (``{name}``, ``{key}``, ``{cls}`` and the like filled in)
TEMPLATES = resources.files(__package__) / "templates"


def _template(name: str) -> str:
    """The text of ``templates/NAME.tmpl``."""
    return (TEMPLATES / f"{name}.tmpl").read_text("utf-8")


def _new(args: argparse.Namespace) -> int:
    """Write the project; refuse a directory that exists and is not empty."""
    name = args.name.strip()
    if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_-]*", name):
        raise CommandError(
            f"NAME must start with a letter and hold letters, digits, - or _ (not {name!r})",
            code=2,
        )
    where = Path(args.dir or name)
    if where.exists() and any(where.iterdir()):
        raise CommandError(f"{where} exists and is not empty: pick another NAME or --dir")
    key = name.lower().replace("-", "_")
    cls = "".join(part.capitalize() for part in re.split(r"[-_]", name)) or "Agent"
    files = {
        "agent_config.yaml.example": _template("agent_config.yaml.example"),
        ".gitignore": _template("gitignore"),
    }
    if args.model == "none":
        files["agent.py"] = _template("echo_agent.py")
        files["test_agent.py"] = _template("echo_test.py")
        what, extra, nokey, export = "", "", "", ""
    else:
        module, adapter, config, key_env = MODELS[args.model]
        files["agent.py"] = (
            _template("model_agent.py").replace("{adapter}", adapter).replace("{config}", config)
        )
        files["agent.py"] = files["agent.py"].replace("{module}", module)
        files["agent.py"] = files["agent.py"].replace("{key_env}", key_env)
        files["test_agent.py"] = _template("model_test.py")
        what = f" backed by {adapter} (it reads {key_env})"
        extra, nokey = f"[{args.model}]", " and no model key"
        export = f"\nexport {key_env}=..."
    files["README.md"] = (
        _template("README.md")
        .replace("{what}", what)
        .replace("{extra}", extra)
        .replace("{nokey}", nokey)
        .replace("{export}", export)
    )
    where.mkdir(parents=True, exist_ok=True)
    for filename, template in files.items():
        text = template.replace("{name}", name).replace("{key}", key).replace("{cls}", cls)
        (where / filename).write_text(text.replace("{{", "{").replace("}}", "}"), "utf-8")
    print(f"created {where}/: {', '.join(sorted(files))}")
    print(f"next: {_next_step(where, args.model)}   (then see README.md to run it on band dev)")
    return 0


def _next_step(where: Path, model: str) -> str:
    """The command that runs the new project's test here: what it needs installed, then pytest."""
    # a fresh venv has neither the model's extra nor pytest: the test would fail on an import
    install = []
    if model != "none" and missing_modules(model):
        install.append(install_hint(model))
    if importlib.util.find_spec("pytest") is None:
        install.append("pip install pytest")
    return " && ".join([*install, f"cd {where}", "pytest"])


def add(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Register ``band new``."""
    new = sub.add_parser(
        "new",
        help="create an agent project (agent, config template, a passing test, README)",
        description=(
            "Create NAME/ with agent.py, test_agent.py (passes at once: pytest), "
            "agent_config.yaml.example, .gitignore and README.md."
        ),
    )
    new.add_argument("name", metavar="NAME", help="the agent's name (and the directory's)")
    new.add_argument(
        "--model",
        choices=["none", *MODELS],
        default="none",
        help="none: an echo agent; anthropic/openai: a model agent (default: %(default)s)",
    )
    new.add_argument("--dir", default=None, help="where to create it (default: ./NAME)")
    new.set_defaults(func=_new)
