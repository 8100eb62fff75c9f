"""Saving and loading an Accumulator: time and size of ``to_bytes`` / ``from_bytes``.

Builds a 10-group binary state (``--rows`` rows, default settings, so every group
keeps its smooth-ECE masses and heavy rows; ``--n-boot`` replicates and a
``--sample-size`` sample per group) and prints the median wall time of five calls of
``to_bytes``, ``from_bytes`` and their JSON forms, the payload sizes and, with
``--key``, the same with an HMAC-SHA256 digest.

Usage: ``python benchmarks/bench_state_io.py --rows 1000000``.
"""

from __future__ import annotations

import argparse
import inspect
import os
import sys

import numpy as np
import pandas as pd

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from _common import machine, median_time

from calreport import Accumulator


def build(rows: int, groups: int, n_boot: int, sample_size: int) -> Accumulator:
    rng = np.random.default_rng(0)
    p = rng.random(rows)
    frame = pd.DataFrame({"y": (rng.random(rows) < p).astype(int), "p": p,
                          "g": rng.integers(0, groups, rows)})
    acc = Accumulator(y="y", proba="p", by="g", classes=[0, 1], n_boot=n_boot,
                      sample_size=sample_size)
    return acc.update(frame)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=float, default=1e6)
    parser.add_argument("--groups", type=int, default=10)
    parser.add_argument("--n-boot", type=int, default=100)
    parser.add_argument("--sample-size", type=int, default=2000)
    parser.add_argument("--key", action="store_true", help="also time with a digest")
    args = parser.parse_args()
    print(machine())
    acc = build(int(args.rows), args.groups, args.n_boot, args.sample_size)
    keyed = "key" in inspect.signature(Accumulator.to_bytes).parameters
    variants = [("no key", {})]
    if args.key and keyed:
        variants.append(("HMAC key", {"key": b"0123456789abcdef"}))
    for label, kw in variants:
        t_dump, blob = median_time(lambda kw=kw: acc.to_bytes(**kw), repeat=5, warmup=1)
        t_load, back = median_time(lambda kw=kw, blob=blob: Accumulator.from_bytes(blob, **kw),
                                   repeat=5, warmup=1)
        t_jdump, text = median_time(lambda kw=kw: acc.to_json(**kw), repeat=5, warmup=1)
        t_jload, _ = median_time(lambda kw=kw, text=text: Accumulator.from_json(text, **kw),
                                 repeat=5, warmup=1)
        assert back.state.equals(acc.state)
        print(f"{label}: {args.groups} groups, {int(args.rows):,} rows | "
              f"to_bytes {t_dump * 1e3:.1f} ms, from_bytes {t_load * 1e3:.1f} ms, "
              f"{len(blob) / 2**20:.2f} MiB | to_json {t_jdump * 1e3:.1f} ms, "
              f"from_json {t_jload * 1e3:.1f} ms, {len(text) / 2**20:.2f} MiB")


if __name__ == "__main__":
    main()
