"""The summary with bootstrap intervals, old code against new, in fresh processes.

Cases (binary labels, Beta(2, 2) scores, as ``bench_bootstrap.py`` draws them):

* ``flat``: ``df.calib.summary(ci=0.95, n_boot=1000)`` on 1e6 rows (target <= 15 s
  on a quiet 2-core machine);
* ``grouped``: ``df.groupby("g").calib.summary(ci=0.95, n_boot=1000)``, 20 groups
  x 5e4 rows;
* ``bootstrap``: ``bootstrap_replicates`` of every batched metric alone, 1e6 rows
  x 1000 replicates;
* ``report20``: ``df.groupby("g").calib.report(ci=0.95)`` of 20 groups x 5e4 rows,
  then ``to_pdf()`` (target <= 20 s);
* ``demo``: ``calreport demo -o d.pdf -o d.html`` through ``calreport.cli.main``,
  imports included (target <= 8 s);
* ``digits``: ``groupby("model").calib(...).summary(ci=0.95)`` on scikit-learn's
  digits, 3 models x 719 held-out rows x 10 classes (target <= 2 s).

Each timing is one call in a fresh process; the old and the new checkout alternate
(old, new, old, new, ...), so a change of the machine's load hits both.  Wall and
CPU seconds (the process's own, which move less with the load), medians, the median
of the same-round ratios, and the load average before and after.

Usage::

    python benchmarks/bench_summary_ci.py [--old PATH] [--rounds 3] [--cases flat grouped]
        [--write]

``PATH`` is a checkout of the code to compare against (e.g. a git worktree of the
base commit); the new code is this checkout.  Without ``--old`` only this checkout
is timed.  ``--write`` puts the table in
benchmarks/RESULTS.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

CASES = {
    "flat": "summary(ci=0.95, n_boot=1000), 1e6 binary rows",
    "grouped": "groupby(g).summary(ci=0.95, n_boot=1000), 20 groups x 5e4 rows",
    "bootstrap": "bootstrap_replicates(every batched metric, n_boot=1000), 1e6 rows",
    "report20": "groupby(g).report(ci=0.95) + to_pdf(), 20 groups x 5e4 rows",
    "demo": "calreport demo -o d.pdf -o d.html, imports included",
    "digits": "groupby(model).summary(ci=0.95), digits, 3 models x 719 rows x 10 classes",
}


def _data(n: int, groups: int = 0):
    import numpy as np
    import pandas as pd

    rng = np.random.default_rng(1)
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p**1.2).astype(np.int64)
    df = pd.DataFrame({"y_true": y, "proba": p})
    if groups:
        df["g"] = np.repeat(np.arange(groups), n // groups)[:n]
    return df


def _digits():
    """Three scikit-learn models' class probabilities on digits' 719 held-out rows."""
    import pandas as pd
    from sklearn.datasets import load_digits
    from sklearn.linear_model import LogisticRegression
    from sklearn.model_selection import train_test_split
    from sklearn.naive_bayes import GaussianNB
    from sklearn.tree import DecisionTreeClassifier

    X, y = load_digits(return_X_y=True)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.4, random_state=0)
    parts = []
    for name, model in (("logistic", LogisticRegression(max_iter=2000)),
                        ("naive_bayes", GaussianNB()),
                        ("tree", DecisionTreeClassifier(max_depth=6, random_state=0))):
        proba = model.fit(X_tr, y_tr).predict_proba(X_te)
        part = pd.DataFrame(proba, columns=[f"proba_{k}" for k in range(10)])
        part["y"], part["model"] = y_te, name
        parts.append(part)
    return pd.concat(parts, ignore_index=True), [f"proba_{k}" for k in range(10)]


def child(case: str) -> None:
    """Time one call of ``case`` in this process and print the seconds."""
    if case == "demo":  # end to end, as the command: the imports count
        import tempfile

        t0, c0 = time.perf_counter(), time.process_time()
        from calreport import cli

        with tempfile.TemporaryDirectory() as tmp:
            cli.main(["demo", "-o", f"{tmp}/d.pdf", "-o", f"{tmp}/d.html"])
        print(time.perf_counter() - t0, time.process_time() - c0)
        return
    import calreport  # noqa: F401
    import calreport.bootstrap as bs
    from calreport.registry import REGISTRY

    warnings.simplefilter("ignore")
    if case == "flat":
        df = _data(1_000_000)
        df.iloc[:2000].calib.summary(ci=0.95, n_boot=20, seed=0, progress=False)  # imports

        def run():
            return df.calib.summary(ci=0.95, n_boot=1000, seed=0, progress=False)
    elif case == "grouped":
        df = _data(1_000_000, groups=20)
        df.iloc[:2000].calib.summary(ci=0.95, n_boot=20, seed=0, progress=False)

        def run():
            return df.groupby("g").calib.summary(ci=0.95, n_boot=1000, seed=0,
                                                 progress=False)
    elif case == "report20":
        df = _data(1_000_000, groups=20)
        df.iloc[:2000].calib.summary(ci=0.95, n_boot=20, seed=0, progress=False)

        def run():
            rep = df.groupby("g").calib.report(ci=0.95, seed=0, progress=False)
            return rep.to_pdf()
    elif case == "digits":
        df, cols = _digits()
        df.iloc[:50].calib(y="y", proba=cols).summary(progress=False)

        def run():
            return df.groupby("model").calib(y="y", proba=cols).summary(
                ci=0.95, seed=0, progress=False)
    else:
        prof = _data(1_000_000).calib.profile()
        names = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]

        def run():
            return bs.bootstrap_replicates(prof, metrics=names, n_boot=1000, seed=0)
    t0, c0 = time.perf_counter(), time.process_time()
    run()
    print(time.perf_counter() - t0, time.process_time() - c0)


def _one(root: Path, case: str) -> tuple[float, float]:
    """Wall and CPU seconds of one call (CPU time moves less with the machine's load)."""
    env = dict(os.environ, PYTHONPATH=str(root))
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--child", case],
                         env=env, capture_output=True, text=True, check=True)
    wall, cpu = out.stdout.split()[-2:]
    return float(wall), float(cpu)


def _commit(root: Path) -> str:
    out = subprocess.run(["git", "-C", str(root), "rev-parse", "--short", "HEAD"],
                         capture_output=True, text=True)
    return out.stdout.strip() or "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--old", type=Path, help="checkout of the code to compare against")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--cases", nargs="+", default=["flat", "grouped"], choices=list(CASES))
    ap.add_argument("--write", action="store_true", help="write benchmarks/RESULTS.md")
    ap.add_argument("--child", choices=list(CASES), help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.child:
        child(args.child)
        return
    from _common import machine, table, write_section

    new_root = HERE.parent
    load0 = os.getloadavg()
    rows = []
    for case in args.cases:
        old, new = [], []
        for _ in range(args.rounds):
            if args.old is not None:
                old.append(_one(args.old, case))
            new.append(_one(new_root, case))
            print(case, f"old {old[-1] if old else '-'} s, new {new[-1]} s (wall, cpu)",
                  flush=True)
        for k, kind in enumerate(("wall", "CPU")):
            n_s = [x[k] for x in new]
            if old:
                o_s = [x[k] for x in old]
                ratio = statistics.median(o / n for o, n in zip(o_s, n_s, strict=True))
                rows.append([f"{CASES[case]} ({kind})", statistics.median(o_s),
                             statistics.median(n_s), ratio, " / ".join(
                                 f"{o:.1f}:{n:.1f}" for o, n in zip(o_s, n_s, strict=True))])
            else:
                rows.append([f"{CASES[case]} ({kind})", "", statistics.median(n_s), "",
                             " / ".join(f"{n:.1f}" for n in n_s)])
    load1 = os.getloadavg()
    body = (
        "## Summary with bootstrap intervals: old against new (`bench_summary_ci.py`)\n\n"
        f"Machine: {machine(('calreport', 'numpy', 'scipy', 'pandas'))}\n\n"
        "Command: `python benchmarks/bench_summary_ci.py "
        + (f"--old <checkout of {_commit(args.old)}> " if args.old else "")
        + f"--rounds {args.rounds} --cases {' '.join(args.cases)} "
        f"--write` at commit {_commit(new_root)}; load average (1, 5, 15 min) "
        f"{' '.join(f'{x:.1f}' for x in load0)} before, "
        f"{' '.join(f'{x:.1f}' for x in load1)} after.\n\n"
        + table(["case", "old s (median)", "new s (median)", "old/new (median of rounds)",
                 "rounds old:new s"], rows)
    )
    print(body)
    if args.write:
        write_section("summary_ci", body)


if __name__ == "__main__":
    main()
