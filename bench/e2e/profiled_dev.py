"""``band dev`` under cProfile (``run.py --profile-platform``): SIGUSR1 starts, SIGUSR2 stops.

    python bench/e2e/profiled_dev.py STATS dev --port ... (the ``band`` command's arguments)

The stats are written to ``STATS`` when the platform exits (the harness stops it with SIGTERM,
which uvicorn turns into a clean shutdown). Read them with bench/e2e/layers.py --platform.
"""

import cProfile
import signal
import sys
import time

from band.cli import main

if __name__ == "__main__":
    stats, argv = sys.argv[1], sys.argv[2:]
    # CPU time, not wall-clock: on a shared machine a preempted call would count the wait
    profiler = cProfile.Profile(time.process_time)
    signal.signal(signal.SIGUSR1, lambda *_: profiler.enable())
    signal.signal(signal.SIGUSR2, lambda *_: profiler.disable())
    # uvicorn shuts down on SIGTERM, then raises it again under the handler it found: this one
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    try:
        code = main(argv)
    finally:
        profiler.disable()
        profiler.dump_stats(stats)
    raise SystemExit(code)
