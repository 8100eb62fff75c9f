"""Run every benchmark in one go and rewrite benchmarks/RESULTS.md.

Each script times calreport side by side with its peers on the same data in one run
and replaces its own section of RESULTS.md.  Usage: ``python benchmarks/run.py
[--quick]`` (``--quick``: small sizes, prints only).
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
SCRIPTS = [
    "bench_core.py",       # AUC + cwAUC vs scikit-learn (1e6 binary, 2e5 x 10 classes)
    "bench_summary.py",    # summary() at 1e5 / 1e6, memory peak, ECE vs peers
    "bench_local.py",      # LCS / ICI at 1e5 / 1e6
    "bench_bpm.py",        # TCE_bpm at 1e4 / 5e4 vs the published objective
    "bench_bootstrap.py",  # B = 1000 at 1e6; 3 groups x 1e5 vs fairlearn MetricFrame
    "bench_report.py",     # report rendering, 3 groups x 1e5, B = 200
]


def main() -> int:
    extra = sys.argv[1:]
    failed = []
    for name in SCRIPTS:
        path = HERE / name
        if not path.exists():
            print(f"== {name}: missing, skipped")
            continue
        print(f"== {name}", flush=True)
        t0 = time.perf_counter()
        code = subprocess.call([sys.executable, str(path), *extra])
        print(f"== {name}: exit {code} in {time.perf_counter() - t0:.1f} s", flush=True)
        if code:
            failed.append(name)
    if failed:
        print("failed: " + ", ".join(failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
