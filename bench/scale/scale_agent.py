"""The scale bench's agent: bench/e2e's echo agent, announcing when ``Agent.run()`` starts.

The same script runs under our SDK and the official one (both expose ``band.Agent``); the line
``RUN <unix time>`` on stdout is the start of the subscribe clock.
"""

import asyncio
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "e2e"))

from echo_agent import Echo

from band import Agent

if __name__ == "__main__":
    agent = Agent.create(
        adapter=Echo(),
        agent_id=os.environ["BAND_E2E_AGENT_ID"],
        api_key=os.environ["BAND_E2E_AGENT_KEY"],
    )
    print(f"RUN {time.time():.6f}", flush=True)
    asyncio.run(agent.run())
