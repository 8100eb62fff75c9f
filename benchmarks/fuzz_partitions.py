"""Partition-invariance campaign: ``python benchmarks/fuzz_partitions.py --n 2000``.

Draws ``--n`` seeded frames, each cut at random points
(``tests/properties/partition_cases.py``: binary and 3-4 classes, no weights,
importance weights with zeros on a common scale from 1e-300 to 1e300, frequency
weights, group keys present in some parts only), computes the pandas summary and
the Dask, Polars and Accumulator summaries from the parts, and prints, per path,
how many calls gave the pandas answer (``correct``), the pandas error (``same
error``) or anything else (``unexpected``), then the unexpected ones by root cause
with the seeds that reproduce them:

    >>> import partition_cases as pc                                 # doctest: +SKIP
    >>> pc.run_case(pc.make_case(seed))                              # doctest: +SKIP

``--minutes`` stops early (the table then says how many frames ran).
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "properties")]

import partition_cases as pc  # noqa: E402

KINDS = ("correct", "same error", "unexpected")


def root_cause(detail: str) -> str:
    """The detail of an unexpected outcome without its numbers: one line per cause."""
    m = re.match(r"(\w+) = ", detail)
    if m:
        return f"wrong {m.group(1)}"
    return re.sub(r"[-+]?\d[\d.e+-]*", "#", detail)[:100]


def run(n: int, start: int, minutes: float | None) -> dict:
    t0 = time.perf_counter()
    counts: dict[str, Counter] = {path: Counter() for path in pc.PATHS}
    causes: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
    errors: Counter = Counter()
    frames = 0
    for seed in range(start, start + n):
        if minutes is not None and time.perf_counter() - t0 > 60 * minutes:
            break
        for path, (kind, detail) in pc.run_case(pc.make_case(seed)).items():
            counts[path][kind] += 1
            if kind == "unexpected":
                causes[root_cause(detail)][path].append(seed)
            elif kind == "same error":
                errors[root_cause(detail)] += 1
        frames += 1
    return {"frames": frames, "seconds": time.perf_counter() - t0, "counts": counts,
            "causes": causes, "errors": errors}


def table(res: dict) -> str:
    lines = [f"{res['frames']} frames, {res['seconds']:.0f} s", "",
             "| path | calls | correct | same error | unexpected |",
             "| --- | ---: | ---: | ---: | ---: |"]
    total: Counter = Counter()
    for path, c in res["counts"].items():
        total.update(c)
        lines.append(f"| {path} | {sum(c.values())} | " + " | ".join(
            str(c[k]) for k in KINDS) + " |")
    lines.append(f"| all | {sum(total.values())} | " + " | ".join(
        str(total[k]) for k in KINDS) + " |")
    lines += ["", "| unexpected: root cause | paths (calls) | reproducer seeds |",
              "| --- | --- | --- |"]
    if not res["causes"]:
        lines.append("| (none) | | |")
    for cause, paths in sorted(res["causes"].items(),
                               key=lambda kv: -sum(len(s) for s in kv[1].values())):
        seeds = sorted({s for v in paths.values() for s in v})
        where = ", ".join(f"{p} ({len(v)})" for p, v in paths.items())
        lines.append(f"| {cause} | {where} | {', '.join(map(str, seeds[:8]))} |")
    lines += ["", "| same error as pandas | calls |", "| --- | ---: |"]
    lines += [f"| {cause} | {k} |" for cause, k in res["errors"].most_common()]
    return "\n".join(lines)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="frames to draw")
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--minutes", type=float, default=None, help="stop after this long")
    args = ap.parse_args()
    print(table(run(args.n, args.start, args.minutes)))


if __name__ == "__main__":
    main()
