"""``band demo``: a local platform, an SDK agent and one room, shown end to end in a terminal.

``adapter`` holds the demo's deterministic SimpleAdapter, ``acp_agent`` the demo ACP agent
that ``band demo --acp`` launches, ``platform`` the in-process local platform, ``watch`` the
room printer and ``run`` the steps; ``cli`` plugs the subcommand into ``band``.
"""
