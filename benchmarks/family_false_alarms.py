"""False alarms and power of the family verdicts of a GroupBy, by simulation.

Every row's correctness is drawn from a known truth, so each flag is known to be
right or wrong.

1. False alarms: families of G = 1, 5, 20, 200 calibrated groups
   (``correct ~ Bernoulli(c)``) of 200 or 2,000 rows each, with three confidence
   profiles: "mild" top-label confidences of a K-class model
   (K = 2: ``c = 0.5 + 0.5 Beta(2, 2)``; K = 10: ``c = 0.1 + 0.9 Beta(2, 2)``) and
   "very confident" ones (``c = 1 - 10**-U``, ``U ~ Uniform(1, 3)``).
2. Power: families of 20 groups of which group 0 is overconfident, its accuracy
   ``c**1.5`` or ``c - 0.05`` (clipped to [0, 1]), the other 19 calibrated.

Each family is evaluated once through the accessor,
``df.groupby("g").calib(...).evaluate(["p_risk"], group_kind="subgroups",
adjust="holm")``: each verdict keeps its own band (``band``, the unadjusted reading:
the headline is then the most severe of the groups' and the pooled rows' own bands,
the behaviour of ``adjust=None``) beside the Holm-adjusted one (``band_adjusted``).
The Benjamini-Hochberg bands come from
:func:`calreport.metrics.multiplicity.adjust_verdicts` on the same verdicts, the
function ``adjust="bh"`` calls, with the same re-simulation of a verdict whose
adjusted P_risk is near a level (:func:`~calreport.metrics.multiplicity.resimulated`),
so the three readings share their P_risk values.  The
first runs of every cell also call the accessor with ``adjust=None`` and
``adjust="bh"`` and check that it gives the same bands and headline.

Targets (calibrated families): adjusted headline "risky" <= 0.3 % and flagged
("risky" or "evidence") <= 17 % whatever G; a single test's rates are 0.135 % and
15.9 %.  "Undetermined" is not a false alarm but not green either: reported apart.

Rates carry 95 % Wilson intervals.  Per-group rates pool the groups of all runs
(runs x G trials); the groups of a family are independent before adjustment but not
after it (they share the family's p-values), so those intervals are a lower bound
on the uncertainty of the adjusted per-group rates.

Usage: ``python benchmarks/family_false_alarms.py [--runs 200] [--seed 0] [--quick]``;
prints Markdown tables (``--quick``: a few runs of the small cells).  ``--profiles``,
``--groups``, ``--rows``, ``--power-profiles`` and ``--power-truths`` pick cells; every
cell keeps its seed, so cells run apart give the numbers of the same default run.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))
from _common import machine, table

import calreport  # noqa: F401  (registers the accessor)
from calreport.metrics.multiplicity import adjust_verdicts, resimulated

FLAGS = ("risky", "evidence")
READINGS = ("raw", "holm", "bh")
#: Runs of the accessor checked against ``adjust=None`` and ``adjust="bh"`` per cell.
N_CHECKED = 1


def confidences(profile: str, size: int, rng: np.random.Generator) -> np.ndarray:
    """Top-label confidences of one profile."""
    if profile == "mild K=2":
        return 0.5 + 0.5 * rng.beta(2.0, 2.0, size)
    if profile == "mild K=10":
        return 0.1 + 0.9 * rng.beta(2.0, 2.0, size)
    if profile == "very confident":
        return 1.0 - 10.0 ** -rng.uniform(1.0, 3.0, size)
    raise ValueError(f"unknown confidence profile {profile!r}")


def accuracy(truth: str, c: np.ndarray) -> np.ndarray:
    """Probability of a correct answer given the confidence, for one truth."""
    if truth == "calibrated":
        return c
    if truth == "c^1.5":
        return c**1.5
    if truth == "c - 0.05":
        return np.clip(c - 0.05, 0.0, 1.0)
    raise ValueError(f"unknown truth {truth!r}")


def family_frame(profile: str, n_groups: int, rows: int, bad: str | None,
                 rng: np.random.Generator) -> pd.DataFrame:
    """One family: group 0 follows ``bad`` (when given), the others are calibrated."""
    c = confidences(profile, n_groups * rows, rng)
    acc = c.copy()
    if bad is not None:
        acc[:rows] = accuracy(bad, c[:rows])
    return pd.DataFrame({"g": np.repeat(np.arange(n_groups), rows), "confidence": c,
                         "correct": rng.random(c.size) < acc})


def evaluate(df: pd.DataFrame, adjust: str | None, seed: int):
    return df.groupby("g").calib(conf="confidence", correct="correct").evaluate(
        ["p_risk"], group_kind="subgroups", adjust=adjust, seed=seed)


@dataclass
class Family:
    """The bands of one family under each reading: headline, then one per group."""

    headline: dict[str, str]
    groups: dict[str, list[str]]


def read_family(df: pd.DataFrame, seed: int, check: bool) -> Family:
    """Evaluate once (Holm) and read the raw, Holm and BH bands of the family."""
    res = evaluate(df, "holm", seed)
    # the pooled rows are one more test, except for one group (they are that group),
    # as the accessor's family counts them
    pooled = len(res.groups) > 1
    verdicts = [g.risk for g in res.groups] + ([res.overall.risk] if pooled else [])
    raw = [v.band for v in verdicts]
    holm = [v.band_adjusted for v in verdicts]
    # BH on the same verdicts, re-simulating those near a level as the accessor does
    members = [df[df["g"] == g.key] for g in res.groups] + ([df] if pooled else [])

    def again(i: int, n_sim: int):
        rows = members[i]
        return resimulated(verdicts[i], rows["confidence"].to_numpy(),
                           rows["correct"].to_numpy(), eps=1e-8, seed=seed, n_sim=n_sim)

    bh = [v.band_adjusted for v in adjust_verdicts(verdicts, "bh", resimulate=again)]
    order = ("risky", "evidence", "undetermined", "no_evidence")
    headline = {"raw": min(raw, key=order.index), "holm": res.family["headline"],
                "bh": min(bh, key=order.index)}
    if check:
        for adjust, bands in ((None, raw), ("bh", bh)):
            again = evaluate(df, adjust, seed)
            got = [g.risk.final_band for g in again.groups] + (
                [again.overall.risk.final_band] if pooled else [])
            if got != bands:
                raise AssertionError(f"adjust={adjust!r}: the accessor's bands {got} differ "
                                     f"from those derived here {bands}")
            if again.family["headline"] != headline["raw" if adjust is None else "bh"]:
                raise AssertionError(f"adjust={adjust!r}: headline differs")
    n = len(res.groups)
    return Family(headline, {"raw": raw[:n], "holm": holm[:n], "bh": bh[:n]})


@dataclass
class Tally:
    """Counts of the bands of a cell's families."""

    runs: int = 0
    groups: int = 0
    headline: dict[tuple[str, str], int] = field(default_factory=dict)
    per_group: dict[tuple[str, str], int] = field(default_factory=dict)
    bad: dict[tuple[str, str], int] = field(default_factory=dict)
    seconds: float = 0.0

    def add(self, fam: Family, bad_group: bool) -> None:
        self.runs += 1
        first = 1 if bad_group else 0
        self.groups += len(fam.groups["raw"]) - first
        for r in READINGS:
            self._count(self.headline, r, [fam.headline[r]])
            self._count(self.per_group, r, fam.groups[r][first:])
            if bad_group:
                self._count(self.bad, r, fam.groups[r][:1])

    @staticmethod
    def _count(into: dict[tuple[str, str], int], reading: str, bands: list[str]) -> None:
        for what, hit in (("risky", ("risky",)), ("flagged", FLAGS),
                          ("undetermined", ("undetermined",))):
            into[reading, what] = into.get((reading, what), 0) + sum(b in hit for b in bands)


def wilson(k: int, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95 % Wilson interval of a binomial proportion."""
    if n == 0:
        return math.nan, math.nan
    p = k / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    # at k = 0 (k = n) the bound is 0 (1) exactly; the formula leaves rounding there
    return (0.0 if k == 0 else mid - half), (1.0 if k == n else mid + half)


def rate(k: int, n: int) -> str:
    """``k / n`` in percent with its Wilson interval."""
    lo, hi = wilson(k, n)
    return f"{100 * k / n:.3g} ({100 * lo:.2g}-{100 * hi:.3g})"


def run_cell(profile: str, n_groups: int, rows: int, runs: int, bad: str | None,
             seed_seq: np.random.SeedSequence) -> Tally:
    tally = Tally()
    t0 = time.perf_counter()
    for i, child in enumerate(seed_seq.spawn(runs)):
        rng = np.random.default_rng(child)
        df = family_frame(profile, n_groups, rows, bad, rng)
        fam = read_family(df, int(rng.integers(2**31)), check=i < N_CHECKED)
        tally.add(fam, bad is not None)
    tally.seconds = time.perf_counter() - t0
    return tally


#: Runs of a false-alarm cell as a fraction of ``--runs``, where a full share is slow
#: (seconds per family measured here: very confident G = 200 x 2,000 rows ~18 s).
RUN_SHARE = {("mild K=2", 200, 200): 0.5, ("mild K=10", 200, 200): 0.5,
             ("very confident", 20, 200): 0.25, ("very confident", 20, 2000): 0.25,
             ("very confident", 200, 200): 0.1, ("very confident", 200, 2000): 0.04}


PROFILES = ("mild K=2", "mild K=10", "very confident")


def false_alarm_cells(quick: bool) -> list[tuple[str, int, int]]:
    if quick:
        return [(p, g, 200) for p in PROFILES for g in (1, 20)]
    return [(p, g, n) for p in PROFILES for g in (1, 5, 20, 200) for n in (200, 2000)]


def false_alarm_tables(cells: list[tuple[str, int, int, Tally]]) -> str:
    head = ["confidences", "G", "rows/group", "runs"]
    h_rows, g_rows = [], []
    for profile, g, n, t in cells:
        key = [profile, g, n, t.runs]
        h_rows.append([*key, *(rate(t.headline[r, w], t.runs) for r, w in (
            ("raw", "risky"), ("holm", "risky"), ("bh", "risky"), ("raw", "flagged"),
            ("holm", "flagged"), ("bh", "flagged"), ("raw", "undetermined"),
            ("holm", "undetermined"))), f"{t.seconds / t.runs:.2f}"])
        g_rows.append([*key, *(rate(t.per_group[r, w], t.groups) for r, w in (
            ("raw", "risky"), ("holm", "risky"), ("raw", "flagged"), ("holm", "flagged"),
            ("bh", "flagged"), ("raw", "undetermined"), ("holm", "undetermined")))])
    headline = table([*head, "risky raw", "risky Holm", "risky BH", "flagged raw",
                      "flagged Holm", "flagged BH", "undet. raw", "undet. Holm",
                      "s/family"], h_rows)
    per_group = table([*head, "risky raw", "risky Holm", "flagged raw", "flagged Holm",
                       "flagged BH", "undet. raw", "undet. Holm"], g_rows)
    return ("Headline of calibrated families, % of runs (95 % Wilson interval); flagged "
            "= risky or evidence:\n\n" + headline
            + "\n\nPer group (pooled rows excluded), % of groups (runs x G):\n\n"
            + per_group)


def power_tables(cells: list[tuple[str, str, int, Tally]]) -> str:
    rows = []
    for profile, bad, n, t in cells:
        rows.append([profile, bad, n, t.runs,
                     rate(t.headline["raw", "flagged"], t.runs),
                     rate(t.headline["holm", "flagged"], t.runs),
                     rate(t.headline["bh", "flagged"], t.runs),
                     rate(t.bad["raw", "flagged"], t.runs),
                     rate(t.bad["holm", "flagged"], t.runs),
                     rate(t.bad["bh", "flagged"], t.runs),
                     rate(t.bad["holm", "risky"], t.runs),
                     rate(t.per_group["raw", "flagged"], t.groups),
                     rate(t.per_group["holm", "flagged"], t.groups),
                     rate(t.per_group["bh", "flagged"], t.groups)])
    return ("Families of 20 groups, group 0 overconfident; flagged = risky or evidence, "
            "% (95 % Wilson interval):\n\n" + table(
                ["confidences", "bad group's accuracy", "rows/group", "runs",
                 "headline raw", "headline Holm", "headline BH", "bad group raw",
                 "bad group Holm", "bad group BH", "bad group risky Holm",
                 "calibrated group raw", "calibrated group Holm",
                 "calibrated group BH"], rows))


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=200,
                    help="families per cell (fewer in the slow cells: see RUN_SHARE)")
    ap.add_argument("--power-runs", type=int, default=100, help="families per power cell")
    ap.add_argument("--seed", type=int, default=0, help="master seed")
    ap.add_argument("--quick", action="store_true", help="a few runs of the small cells")
    ap.add_argument("--no-power", action="store_true", help="false alarms only")
    ap.add_argument("--power-only", action="store_true", help="power only")
    ap.add_argument("--profiles", nargs="+", choices=PROFILES, default=PROFILES,
                    help="confidence profiles of the false-alarm cells")
    ap.add_argument("--groups", nargs="+", type=int, help="only cells of these group counts")
    ap.add_argument("--power-profiles", nargs="+", choices=PROFILES[:2],
                    help="only power cells of these confidence profiles")
    ap.add_argument("--power-truths", nargs="+", choices=("c^1.5", "c - 0.05"),
                    help="only power cells of these bad-group accuracies")
    ap.add_argument("--rows", nargs="+", type=int,
                    help="only cells (false-alarm and power) of these group sizes")
    args = ap.parse_args(argv)
    runs, power_runs = (10, 10) if args.quick else (args.runs, args.power_runs)
    master = np.random.SeedSequence(args.seed)
    fa_seeds, power_seeds = master.spawn(2)
    started = time.perf_counter()
    print(f"Machine: {machine()}\n", flush=True)

    # every cell keeps its seed whichever cells are run: parts of the default run can
    # be run apart and give the same numbers
    cells = false_alarm_cells(args.quick)
    done = []
    for (profile, g, n), seq in zip(cells, fa_seeds.spawn(len(cells)), strict=True):
        if args.power_only or profile not in args.profiles:
            continue
        if (args.groups and g not in args.groups) or (args.rows and n not in args.rows):
            continue
        r = max(1, round(runs * RUN_SHARE.get((profile, g, n), 1.0)))
        t = run_cell(profile, g, n, r, None, seq)
        done.append((profile, g, n, t))
        print(f"<!-- {profile} G={g} rows={n}: {r} runs in {t.seconds:.0f} s -->", flush=True)
    if done:
        print("\n" + false_alarm_tables(done) + "\n", flush=True)

    if not args.no_power:
        p_cells = [(p, b, n) for p in ("mild K=2", "mild K=10")
                   for b in ("c^1.5", "c - 0.05") for n in (200, 2000)]
        if args.quick:
            p_cells = p_cells[:2]
        p_done = []
        for (profile, bad, n), seq in zip(p_cells, power_seeds.spawn(len(p_cells)),
                                          strict=True):
            if (args.power_profiles and profile not in args.power_profiles) or (
                    args.power_truths and bad not in args.power_truths) or (
                    args.rows and n not in args.rows):
                continue
            t = run_cell(profile, 20, n, power_runs, bad, seq)
            p_done.append((profile, bad, n, t))
            print(f"<!-- power {profile} {bad} rows={n}: {power_runs} runs in "
                  f"{t.seconds:.0f} s -->", flush=True)
        if p_done:
            print("\n" + power_tables(p_done) + "\n", flush=True)
    print(f"Wall time: {time.perf_counter() - started:.0f} s", flush=True)


if __name__ == "__main__":
    main()
