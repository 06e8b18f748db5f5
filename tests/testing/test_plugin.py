"""The pytest plugin: a user's test file gets ``band_platform`` and ``band_fake_tools`` from
``pytest -p band.testing`` or from the installed entry point, and runs a real agent."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from bandtest.process import run_ok

USER_TESTS = """
import re

from band.core import SimpleAdapter


class Shout(SimpleAdapter):
    async def on_message(self, msg, tools, history, participants_msg, contacts_msg, *,
                         is_session_bootstrap, room_id):
        text = re.sub(r"@\\[\\[[^\\]]+\\]\\]\\s*", "", msg.content).strip()
        await tools.send_message(text.upper() + "!", [msg.sender_id])


def test_shout(band_platform):
    bot = band_platform.run_agent(Shout(), name="Shout")
    room = band_platform.room(bot)
    assert room.ask(bot, "hello").text == "HELLO!"


def test_unit(band_fake_tools):
    import asyncio
    from band.core.types import PlatformMessage
    from datetime import datetime, UTC

    msg = PlatformMessage("m1", "r1", "hey", "u1", "User", "Ann", "text", {}, datetime.now(UTC))
    asyncio.run(Shout().on_message(msg, band_fake_tools, None, None, None,
                                   is_session_bootstrap=True, room_id="r1"))
    band_fake_tools.assert_message_sent(content="HEY!", mentions=["u1"], count=1)
    assert band_fake_tools.turn.replied
"""


def run_pytest(tmp_path: Path, *args: str, autoload: bool) -> subprocess.CompletedProcess[str]:
    (tmp_path / "test_user_agent.py").write_text(USER_TESTS)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    if not autoload:
        env["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_dash_p_band_testing_loads_the_fixtures(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "-p", "band.testing", autoload=False)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout


def test_the_entry_point_loads_them_without_asking(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, autoload=True)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "2 passed" in done.stdout
    # and both ways together register it once
    both = run_pytest(tmp_path, "-p", "band.testing", autoload=True)
    assert both.returncode == 0, both.stdout + both.stderr


def test_without_the_plugin_the_fixtures_are_missing(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, autoload=False)
    assert done.returncode == 1
    assert "fixture 'band_platform' not found" in done.stdout


def test_the_band_timeout_option_is_offered(tmp_path: Path) -> None:
    done = run_pytest(tmp_path, "-p", "band.testing", "--help", autoload=False)
    assert "--band-timeout" in done.stdout


def test_the_readme_example_runs(tmp_path: Path) -> None:
    # the testing tutorial of the docs site (the README's section moved there)
    page = Path(__file__).parents[2] / "docs" / "tutorials" / "testing.md"
    section = page.read_text().split("# Testing your agent", 1)[1]
    example = section.split("```python\n", 1)[1].split("```", 1)[0]
    (tmp_path / "test_readme_example.py").write_text(example)
    env = {k: v for k, v in os.environ.items() if k != "PYTEST_DISABLE_PLUGIN_AUTOLOAD"}
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "test_readme_example.py",
    ]
    done = run_ok(argv, cwd=tmp_path, env=env, timeout=120)
    assert "1 passed" in done.stdout
