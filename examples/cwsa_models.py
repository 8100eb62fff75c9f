"""The synthetic models of the CWSA paper and their tau sweeps.

Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025). Trust, or
Don't Predict: Introducing the CWSA Family for Confidence-Aware Model Evaluation.
arXiv preprint. arXiv:2505.18622.

Section 4.2 of the paper builds five stylised three-class models on 1,000 rows;
section 5 sweeps the selection threshold tau from 0.5 to 0.99 and prints, for three of
them, selective accuracy, CWSA, CWSA+ and coverage (Tables 1-3).  This script builds
the same models, runs the sweep with ``df.groupby("model").calib.selective()`` and
:func:`calreport.metrics.selective.selective_sweep`, and prints our numbers next to
the paper's.  Run ``python examples/cwsa_models.py`` (``--quick`` for fewer
repetitions).

The models (section 4.2; appendix A.4: confidences are uniform on an interval, hits
are Bernoulli with a fixed probability).  Each row first draws ``hit ~
Bernoulli(0.9)``; a hit predicts the true class, a miss predicts a uniformly drawn
class, which is the true one a third of the time, so accuracy is 0.9 + 0.1 / 3 =
0.933 (the paper's tables show 0.938 and 0.943; this is also how the authors'
published simulation draws misses).  The interval of the confidence:

==============  ==================================================================
calibrated      U(0.8, 1) for a hit, U(0.5, 0.7) for a miss
overconfident   U(0.9, 1) for every row
underconfident  U(0.4, 0.6) for every row (the paper only says "uniformly low";
                the interval is the published code's and reproduces the text's
                "CWSA+ peaks at only 0.095")
random          predicted class uniform, independent of the truth; U(0.3, 1)
perfect         always right, confidence exactly 1
==============  ==================================================================

How the tables are read.  The published code (github.com/jay-gatz/CWSA at commit
c55d6fb, ``Metrics/cwsa.py``) divides CWSA
by N -- ``normalize="all"``, i.e. coverage x the paper's formula -- while CWSA+
divides by |S_tau| as the paper's formula; the tables follow the code.  Their rows
are points of the grid ``linspace(0.5, 0.99, 20)`` printed with rounded labels (the
"0.70" row is tau = 0.6547, see ``_paper_tables.CWSA_ROW_GRID_INDEX``).  Each table
is one sample of 1,000 rows, so we compare with the mean of ``R`` samples and
measure the gap in standard deviations of one sample:
``z = (mean - paper) / (s sqrt(1 + 1/R))``.
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import pandas as pd

import calreport  # noqa: F401  (registers the df.calib accessors)
from calreport.metrics import selective
from calreport.references import short

HERE = Path(__file__).resolve().parent

SEED = 20250524
MODELS = ("calibrated", "overconfident", "underconfident", "random", "perfect")
N_CLASSES = 3
P_HIT = 0.9
TAUS = selective.DEFAULT_TAUS  # linspace(0.5, 0.99, 20), the published grid

#: Columns compared with the paper: (our sweep column, paper column index, label).
COMPARED = (("selective_accuracy", 0, "sel.acc"), ("cwsa_all", 1, "CWSA(/N)"),
            ("cwsa_plus", 2, "CWSA+"), ("coverage", 3, "coverage"))


def load_paper_tables() -> ModuleType:
    """Import ``examples/_paper_tables.py`` (works when this file is imported too)."""
    spec = importlib.util.spec_from_file_location("_paper_tables", HERE / "_paper_tables.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def simulate_model(model: str, n: int = 1000, *,
                   seed: int | np.random.SeedSequence = SEED) -> pd.DataFrame:
    """One synthetic model of Shahnazari et al. (2025), section 4.2 (see the module docstring).

    Draw order: true classes, hits, the classes of the misses, confidences.
    """
    if model not in MODELS:
        raise ValueError(f"`model` must be one of {MODELS}, got {model!r}.")
    rng = np.random.default_rng(seed)
    y_true = rng.integers(0, N_CLASSES, n)
    if model == "random":
        hit = np.zeros(n, dtype=bool)
    elif model == "perfect":
        hit = np.ones(n, dtype=bool)
    else:
        hit = rng.random(n) < P_HIT
    guess = rng.integers(0, N_CLASSES, n)
    y_pred = np.where(hit, y_true, guess)
    if model == "calibrated":
        conf = np.where(hit, rng.uniform(0.8, 1.0, n), rng.uniform(0.5, 0.7, n))
    elif model == "overconfident":
        conf = rng.uniform(0.9, 1.0, n)
    elif model == "underconfident":
        conf = rng.uniform(0.4, 0.6, n)
    elif model == "random":
        conf = rng.uniform(0.3, 1.0, n)
    else:
        conf = np.ones(n)
    return pd.DataFrame({"model": model, "y_true": y_true, "y_pred": y_pred,
                         "confidence": conf})


def simulate_models(n: int = 1000, *, seed: int = SEED, rep: int = 0) -> pd.DataFrame:
    """All five models, one sample each (repetition ``rep`` of the seed)."""
    frames = [simulate_model(m, n, seed=np.random.SeedSequence(seed, spawn_key=(i, rep)))
              for i, m in enumerate(MODELS)]
    return pd.concat(frames, ignore_index=True)


def sweep(frame: pd.DataFrame, taus: Sequence[float] = TAUS) -> pd.DataFrame:
    """Selective sweep per model: the accessor's columns plus ``cwsa_all`` (CWSA / N).

    Returns a frame indexed by (model, tau).
    """
    calib = frame.groupby("model", sort=False).calib(y="y_true", pred="y_pred",
                                                     conf="confidence")
    out = calib.selective(taus=taus)
    published = []
    for model, prof in calib.profiles().items():
        s = selective.selective_sweep(prof.conf, prof.correct, taus=taus, normalize="all")
        published.append(pd.Series(s["cwsa"], index=pd.MultiIndex.from_product(
            [[model], s["tau"]], names=out.index.names)))
    out["cwsa_all"] = pd.concat(published)
    return out


def repeated_sweeps(reps: int, *, n: int = 1000, seed: int = SEED) -> pd.DataFrame:
    """``reps`` independent samples of every model: frame indexed by (rep, model, tau)."""
    return pd.concat({r: sweep(simulate_models(n, seed=seed, rep=r)) for r in range(reps)},
                     names=["rep"])


def compare_with_paper(sweeps: pd.DataFrame, tables: ModuleType) -> pd.DataFrame:
    """Mean over repetitions, single-sample spread and z for every printed cell."""
    grid = np.asarray(TAUS)
    rows = []
    for model, table in tables.CWSA_TABLES.items():
        for label, ref in table.items():
            tau = grid[tables.CWSA_ROW_GRID_INDEX[label]]
            cell = sweeps.xs((model, tau), level=("model", "tau"))
            for col, i, name in COMPARED:
                x = cell[col].to_numpy(dtype=np.float64)
                x = x[~np.isnan(x)]
                mean = float(x.mean()) if x.size else math.nan
                sd = float(x.std(ddof=1)) if x.size > 1 else math.nan
                if sd > 0:
                    z = (mean - ref[i]) / (sd * math.sqrt(1.0 + 1.0 / x.size))
                else:  # every repetition gave the same value (e.g. selective accuracy 1)
                    z = 0.0 if mean == ref[i] else math.copysign(math.inf, mean - ref[i])
                rows.append({"model": model, "row": label, "tau": tau, "column": name,
                             "ours": mean, "sd_one_sample": sd, "paper": ref[i], "z": z})
    return pd.DataFrame(rows)


def _print_one_sample(one: pd.DataFrame) -> None:
    print("\nOne sample per model (N = 1000), sweep over the published grid; cwsa = the "
          "paper's formula (/|S_tau|), cwsa_all = the published code (/N)")
    cols = ["coverage", "selective_accuracy", "cwsa", "cwsa_all", "cwsa_plus", "n_selected"]
    with pd.option_context("display.width", 120, "display.max_rows", 200,
                           "display.float_format", "{:.4f}".format):
        for model in MODELS:
            print(f"\n[{model}]")
            print(one.loc[model, cols].to_string())


def _print_comparison(comp: pd.DataFrame) -> None:
    print(f"\nSide by side with {short('Shahnazari2025')}, Tables 1-3 (ours: mean of the "
          "repetitions; z in "
          "standard deviations of one sample; '!' |z| > 3)")
    for model, sub in comp.groupby("model", sort=False):
        table = {"calibrated": 1, "overconfident": 2, "random": 3}[str(model)]
        print(f"\nTable {table}: {model}")
        head = "".join(f"{name:>22}" for _, _, name in COMPARED)
        print(f"{'row':>5}{'tau':>8}{head}")
        print(f"{'':13}" + "".join(f"{'ours':>9}{'paper':>8}{'z':>5}" for _ in COMPARED))
        for (label, tau), r in sub.groupby(["row", "tau"], sort=False):
            cells = ""
            for _, _, name in COMPARED:
                x = r[r["column"] == name].iloc[0]
                mark = "!" if abs(x["z"]) > 3 else " "
                zt = f"{x['z']:+.0f}" if math.isfinite(x["z"]) else "inf"
                cells += f"{x['ours']:>9.4f}{x['paper']:>8.4f}{zt:>4}{mark}"
            print(f"{label:>5.2f}{tau:>8.4f}{cells}")


def qualitative_checks(one_or_mean: pd.DataFrame) -> list[tuple[str, bool, str]]:
    """The paper's qualitative statements (section 5), checked on a sweep indexed by
    (model, tau).  Returns (statement, holds, numbers)."""
    s = one_or_mean
    lo = TAUS[0]

    def at(model: str, tau: float, col: str) -> float:
        return float(s.loc[(model, tau), col])

    out = []
    oc = [at("overconfident", t, "selective_accuracy") for t in TAUS]
    out.append(("overconfident: selective accuracy stays flat (within 0.03) over tau",
                max(oc) - min(oc) < 0.03, f"range {min(oc):.4f}-{max(oc):.4f}"))
    ocw = np.array([at("overconfident", t, "cwsa_all") for t in TAUS])
    out.append(("overconfident: CWSA (/N) falls at every step from tau 0.5 to 0.99",
                bool(np.all(np.diff(ocw) < 0)), f"{ocw[0]:.4f} -> {ocw[-1]:.4f}"))
    rnd = s.xs("random", level="model")["cwsa"].dropna()
    out.append(("random: CWSA negative at every threshold", bool((rnd < 0).all()),
                f"max {rnd.max():.4f}"))
    rp = s.xs("random", level="model")["cwsa_plus"].dropna()
    out.append(("random: CWSA+ stays low (below 0.25)", bool((rp < 0.25).all()),
                f"max {rp.max():.4f}"))
    uc = s.xs("underconfident", level="model")["cwsa_plus"].fillna(0.0)
    out.append(("underconfident: CWSA+ peaks near 0.095 (below 0.12)", uc.max() < 0.12,
                f"peak {uc.max():.4f}"))
    pf = s.xs("perfect", level="model")[["cwsa", "cwsa_plus", "coverage"]]
    out.append(("perfect: CWSA = CWSA+ = coverage = 1 at every threshold",
                bool(np.allclose(pf.to_numpy(), 1.0)), f"min {pf.to_numpy().min():.4f}"))
    cal = at("calibrated", lo, "cwsa_plus")
    out.append(("CWSA+ ranks calibrated above random and underconfident at tau = 0.5",
                cal > max(at("random", lo, "cwsa_plus"), at("underconfident", lo, "cwsa_plus")),
                f"{cal:.4f} vs {at('random', lo, 'cwsa_plus'):.4f}, "
                f"{at('underconfident', lo, 'cwsa_plus'):.4f}"))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="30 repetitions instead of 300")
    parser.add_argument("--reps", type=int, default=None)
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    reps = args.reps or (30 if args.quick else 300)
    tables = load_paper_tables()
    start = time.perf_counter()
    print(f"The synthetic models of {short('Shahnazari2025')}, arXiv:2505.18622, section 4.2, "
          "with calreport")
    print(f"N = 1000 per model, {N_CLASSES} classes, P(hit) = {P_HIT}; {reps} repetitions; "
          f"seed {args.seed}")

    one = sweep(simulate_models(seed=args.seed))
    _print_one_sample(one)

    many = repeated_sweeps(reps, seed=args.seed)
    comp = compare_with_paper(many, tables)
    _print_comparison(comp)

    print("\nCalibrated model: what section 4.2's description implies for coverage "
          "(hits U(0.8, 1), misses U(0.5, 0.7), P(hit) = 0.9):")
    for label in (0.60, 0.70, 0.80):
        tau = TAUS[tables.CWSA_ROW_GRID_INDEX[label]]
        expected = P_HIT * min(1.0, (1.0 - max(tau, 0.8)) / 0.2) + (1 - P_HIT) * max(
            0.0, (0.7 - tau) / 0.2)
        print(f"  tau {tau:.4f}: expected coverage {expected:.3f}, Table 1 prints "
              f"{tables.CWSA_TABLES['calibrated'][label][3]:.3f}")

    print("\nQualitative statements of section 5, on the mean of the repetitions:")
    mean = many.groupby(level=["model", "tau"]).mean()
    for text, holds, numbers in qualitative_checks(mean):
        print(f"  [{'yes' if holds else 'NO '}] {text}: {numbers}")
    print("  (not a claim of the paper: at tau = 0.5 CWSA+ ranks the overconfident model "
          f"above the calibrated one, {mean.loc[('overconfident', TAUS[0]), 'cwsa_plus']:.4f} "
          f"vs {mean.loc[('calibrated', TAUS[0]), 'cwsa_plus']:.4f}; the paper's Tables 1-2 "
          "too: 0.8486 vs 0.7456)")

    n_ok = int((comp["z"].abs() <= 3).sum())
    print(f"\ncells within 3 single-sample SDs of the paper: {n_ok} / {len(comp)}")
    for model, sub in comp.groupby("model", sort=False):
        print(f"  {model:<14}{int((sub['z'].abs() <= 3).sum()):>3} / {len(sub)}")
    print(f"\nelapsed {time.perf_counter() - start:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
