"""How fast the command line answers ``--help`` and a usage error.

Times, in fresh processes, ``calreport --help``, ``calreport summary`` (a usage error:
no file) and ``calreport summary --help`` beside ``python -c "import calreport"`` (and
that import followed by a first ``df.calib`` call, which loads the metrics), and
prints the median wall time and CPU time (user + system) of ``--runs`` interleaved runs
of each.  The target: under 1 s, the command adding little to the package import.

Usage: ``python benchmarks/bench_cli.py --runs 7``.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, table

COMMANDS = {
    "import calreport": "import calreport",
    "import calreport, then a first df.calib call":
        "import calreport, pandas as pd; pd.DataFrame({'y': [0, 1], 'p': [0.2, 0.7]})"
        ".calib.ece()",
    "calreport --help": "import sys; from calreport.cli import main; sys.exit(main(['--help']))",
    "calreport summary (usage error)":
        "import sys; from calreport.cli import main; sys.exit(main(['summary']))",
    "calreport summary --help":
        "import sys; from calreport.cli import main; sys.exit(main(['summary', '--help']))",
}


def run(code: str) -> tuple[float, float]:
    """Wall and CPU seconds of ``python -c code`` in a fresh process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], capture_output=True, check=False)
    wall = time.perf_counter() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return wall, (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="interleaved runs of each")
    args = parser.parse_args()
    times: dict[str, list[tuple[float, float]]] = {k: [] for k in COMMANDS}
    for _ in range(args.runs):
        for name, code in COMMANDS.items():
            times[name].append(run(code))
    print(machine())
    print(f"load average {os.getloadavg()[0]:.2f}; {args.runs} interleaved runs, medians\n")
    rows = [(name, f"{statistics.median(w for w, _ in t):.2f} s",
             f"{statistics.median(c for _, c in t):.2f} s") for name, t in times.items()]
    print(table(("command", "wall", "CPU"), rows))


if __name__ == "__main__":
    main()
