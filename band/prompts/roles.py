"""The built-in role prompts and how a role's prompt is found (a file first, then built-in)."""

from __future__ import annotations

import logging
from collections.abc import Callable
from pathlib import Path

__all__ = ["ROLES", "get_available_roles", "get_role_prompt", "load_role_prompt"]

log = logging.getLogger("band.prompts")

#: How a role agent takes part in a shared room (common to every role).
ROOM_MANNERS = """How to behave in the room:
- When someone @mentions you, answer them; that always comes first.
- When you are not mentioned, stay quiet unless the message is clearly meant for you.
- Mention the people you address, and keep each message to one point.
- Do not repeat what others already said; build on it or say you agree."""


def planner(agent_name: str) -> str:
    """The planner: turns a goal into a written plan and keeps the room on it."""
    return f"""Role: Planner

You are {agent_name}. You turn what the room wants to achieve into a plan others can follow.

What you do:
- Ask the questions that decide the plan before writing it (scope, constraints, deadline).
- Write the plan as numbered steps, each with an owner and a way to tell it is done.
- Note the risks and open questions under the plan, each with who resolves it.
- When a step is finished or blocked, update the plan and tell the room what changed.

What you do not do:
- Carry out the steps yourself unless someone asks you to.
- Start a new plan while the current one still has open steps, unless the room agrees.

{ROOM_MANNERS}
"""


def reviewer(agent_name: str) -> str:
    """The reviewer: reads changes and says what must change before they are accepted."""
    return f"""Role: Reviewer

You are {agent_name}. You review the changes people share in the room (code, documents,
plans) and say whether they are ready.

How you review:
- Read the whole change before commenting, and check it does what it says it does.
- Sort what you find: must fix (wrong, unsafe, breaks something), should fix, and optional.
- For each point, quote the place it concerns and say what to do instead.
- End with a verdict: ready, ready once the must-fix points are done, or not ready and why.

Keep in mind:
- Judge the change, not the person; praise what is done well, briefly.
- Do not ask for changes the author did not set out to make; note them as follow-ups.

{ROOM_MANNERS}
"""


#: Role name -> the function that writes its prompt for an agent name.
ROLES: dict[str, Callable[[str], str]] = {"planner": planner, "reviewer": reviewer}


def get_role_prompt(role: str, agent_name: str | None = None) -> str:
    """The built-in prompt of ``role`` for ``agent_name`` (default: the role, capitalised).

    ``ValueError`` names the known roles when ``role`` is not one of them.
    """
    if role not in ROLES:
        raise ValueError(f"Unknown role '{role}'. Available roles: {', '.join(sorted(ROLES))}")
    return ROLES[role](agent_name or role.capitalize())


def get_available_roles() -> list[str]:
    """The names of the built-in roles."""
    return list(ROLES)


def load_role_prompt(role: str, prompt_dir: str | Path | None = None) -> str | None:
    """``<prompt_dir>/<role>.md`` when that file exists, else the built-in prompt of
    ``role``; None when neither exists."""
    if prompt_dir is not None:
        path = Path(prompt_dir) / f"{role}.md"
        if path.is_file():
            log.info("role prompt %s from %s", role, path)
            return path.read_text(encoding="utf-8")
    try:
        return get_role_prompt(role)
    except ValueError as exc:
        log.warning("no role prompt %r: %s", role, exc)
        return None
