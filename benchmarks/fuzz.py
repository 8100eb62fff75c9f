"""Long hostile-input campaign: ``python benchmarks/fuzz.py --n 20000 [--out FILE]``.

Draws ``--n`` seeded frames (``tests/properties/fuzz_strategies.py``), makes the
accessor calls on each (the CLI on one frame in ten, intervals on one in five),
classifies every call as correct / clean error / unclear message / unexpected and
prints a table with the unexpected and unclear cases grouped by root cause, each
with the seed that reproduces it:

    >>> import fuzz_strategies as fs                     # doctest: +SKIP
    >>> fs.run_case(fs.make_case(seed))                  # doctest: +SKIP

``--minutes`` stops early (the table then says how many frames ran).
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT), str(ROOT / "tests" / "properties")]

import fuzz_strategies as fs  # noqa: E402


def run(n: int, start: int, minutes: float | None) -> dict:
    t0 = time.perf_counter()
    counts: Counter = Counter()
    causes: dict = defaultdict(list)
    frames = 0
    for seed in range(start, start + n):
        if minutes is not None and time.perf_counter() - t0 > 60 * minutes:
            break
        case = fs.make_case(seed)
        for out in fs.run_case(case, cli=seed % 10 == 0, ci=seed % 5 == 0):
            counts[out.kind] += 1
            if out.kind in ("unexpected", "unclear"):
                causes[(out.kind, out.cause)].append((seed, out.call, out.detail, case.tags))
        frames += 1
    return {"frames": frames, "counts": counts, "causes": causes,
            "seconds": time.perf_counter() - t0, "start": start}


def _shard(args: tuple[int, int, float | None]) -> dict:
    return run(*args)


def run_parallel(n: int, start: int, minutes: float | None, jobs: int) -> dict:
    """``run`` over ``jobs`` processes, each on a contiguous block of seeds."""
    if jobs <= 1:
        return run(n, start, minutes)
    import multiprocessing as mp

    size = -(-n // jobs)
    blocks = [(min(size, n - i * size), start + i * size, minutes) for i in range(jobs)
              if n - i * size > 0]
    t0 = time.perf_counter()
    with mp.get_context("spawn").Pool(len(blocks)) as pool:
        parts = pool.map(_shard, blocks)
    counts: Counter = Counter()
    causes: dict = defaultdict(list)
    for part in parts:
        counts.update(part["counts"])
        for key, hits in part["causes"].items():
            causes[key].extend(hits)
    ranges = ", ".join(f"{p['start']}..{p['start'] + p['frames'] - 1}" for p in parts)
    return {"frames": sum(p["frames"] for p in parts), "counts": counts, "causes": causes,
            "seconds": time.perf_counter() - t0, "start": start, "ranges": ranges}


def table(res: dict) -> str:
    c = res["counts"]
    calls = sum(c.values())
    seeds = res.get("ranges") or f"{res['start']}..{res['start'] + res['frames'] - 1}"
    lines = [
        f"Hostile-input campaign: seeds {seeds}, {res['seconds']:.0f} s",
        "",
        "| frames | calls | correct | clean error | unclear message | unexpected |",
        "|---:|---:|---:|---:|---:|---:|",
        f"| {res['frames']} | {calls} | {c['correct']} | {c['clean']} | {c['unclear']} "
        f"| {c['unexpected']} |",
        "",
    ]
    if res["causes"]:
        lines += ["| kind | calls | root cause | reproducer (seed, call, tags) |",
                  "|---|---:|---|---|"]
        for (kind, cause), hits in sorted(res["causes"].items(), key=lambda kv: -len(kv[1])):
            seed, call, detail, tags = min(hits, key=lambda h: len(h[3]))
            cell = (f"`make_case({seed})` {call}; {', '.join(tags)}; {detail}"
                    .replace("|", "/").replace("\n", " ").replace("\r", " "))
            lines.append(f"| {kind} | {len(hits)} | {cause.replace('|', '/')} | {cell} |")
    else:
        lines.append("No unexpected outcome and no unclear message.")
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=20000, help="number of frames")
    ap.add_argument("--start", type=int, default=0, help="first seed")
    ap.add_argument("--minutes", type=float, help="stop after this many minutes")
    ap.add_argument("--jobs", type=int, default=1, help="worker processes")
    ap.add_argument("--out", help="also write the table (Markdown) to this file")
    args = ap.parse_args(argv)
    res = run_parallel(args.n, args.start, args.minutes, args.jobs)
    text = table(res)
    print(text)
    if args.out:
        Path(args.out).write_text(text, encoding="utf-8")
    return 1 if res["counts"]["unexpected"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
