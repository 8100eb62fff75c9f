"""The recalibration advisor's out-of-fold tables and its run time.

Data sets shipped with scikit-learn, each model's scores out of sample (5-fold
``cross_val_predict``), then ``df.calib.recalibrate()`` (5 stratified folds of its own,
200 paired-bootstrap replicates, seed 0):

* breast cancer (binary), HistGradientBoostingClassifier;
* digits (10 classes), HistGradientBoostingClassifier;
* wine (3 classes), Gaussian naive Bayes (a classically overconfident model);
* a synthetic overconfident binary model: true probability ``p = expit(z)``, reported
  ``expit(3 z)`` (20,000 rows).

It checks the seed paper's qualitative finding (isotonic riskier than Platt in CSR;
the risk-aware variant no riskier than Platt) on each, measures Platt scaling both ways
(Platt's smoothed targets, the default, and plain maximum likelihood,
``targets="labels"``, on the same folds), and times ``recalibrate()`` on 1e5 binary
rows and on 20 groups x 5e4 rows.

Usage: ``python benchmarks/recalibration.py [--quick]`` (writes the
``recalibration`` section of RESULTS.md).
"""

from __future__ import annotations

import os
import sys
import time

import numpy as np
import pandas as pd
from _common import machine, table, write_section
from scipy.special import expit

import calreport  # noqa: F401  (registers the accessors)

SEVERITY = {"no_evidence": 0, "undetermined": 1, "evidence": 2, "risky": 3}
COLUMNS = ("log_loss", "log_loss_diff", "brier", "ece", "csr", "p_risk", "band", "cwa",
           "auc")


def _oof(model, X, y):
    from sklearn.model_selection import StratifiedKFold, cross_val_predict

    cv = StratifiedKFold(5, shuffle=True, random_state=0)
    return cross_val_predict(model, X, y, cv=cv, method="predict_proba")


def datasets(quick: bool) -> dict[str, pd.DataFrame]:
    from sklearn.datasets import load_breast_cancer, load_digits, load_wine
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.naive_bayes import GaussianNB

    out = {}
    X, y = load_breast_cancer(return_X_y=True)
    P = _oof(HistGradientBoostingClassifier(random_state=0), X, y)
    out["breast cancer, boosted trees (569 rows, binary)"] = pd.DataFrame(
        {"y": y, "p": P[:, 1]})
    X, y = load_digits(return_X_y=True)
    P = _oof(HistGradientBoostingClassifier(random_state=0, max_iter=50 if quick else 100),
             X, y)
    out["digits, boosted trees (1,797 rows, 10 classes)"] = pd.DataFrame(
        P, columns=[f"p_{k}" for k in range(10)]).assign(y=y)
    X, y = load_wine(return_X_y=True)
    P = _oof(GaussianNB(), X, y)
    out["wine, Gaussian naive Bayes (178 rows, 3 classes)"] = pd.DataFrame(
        P, columns=[f"p_{k}" for k in range(3)]).assign(y=y)
    rng = np.random.default_rng(0)
    z = rng.normal(0.0, 1.0, 20_000)
    y = (rng.random(z.size) < expit(z)).astype(int)
    out["synthetic overconfident, scores expit(3 z) (20,000 rows, binary)"] = pd.DataFrame(
        {"y": y, "p": expit(3.0 * z)})
    return out


def accessor(df: pd.DataFrame):
    proba = [c for c in df.columns if c.startswith("p_")] or "p"
    return df.calib(y="y", proba=proba)


def platt_by_labels(df: pd.DataFrame, n_boot: int) -> tuple[float, str]:
    """Out-of-fold CSR and band of Platt scaling by plain maximum likelihood
    (``targets="labels"``), on the advisor's folds (they depend on the seed and the
    group, not on the methods)."""
    from calreport.recalibration import PlattCalibrator, crossfit

    default = crossfit.METHODS["platt"]
    crossfit.METHODS["platt"] = default._replace(
        factory=lambda mc: PlattCalibrator(multiclass=mc, targets="labels"))
    try:
        t = accessor(df).recalibrate(["platt"], n_boot=n_boot, seed=0).table
    finally:
        crossfit.METHODS["platt"] = default
    return float(t.loc["platt", "csr"]), str(t.loc["platt", "band"])


def tables(quick: bool) -> tuple[str, list[str], dict[str, int]]:
    parts, checks = [], []
    tally = {"data": 0, "iso_riskier": 0, "risk_band_ok": 0, "risk_csr_ok": 0,
             "platt_risky": 0, "labels_risky": 0, "targets_lower": 0, "platt_under": 0}
    for name, df in datasets(quick).items():
        t0 = time.perf_counter()
        res = accessor(df).recalibrate(n_boot=50 if quick else 200, seed=0)
        took = time.perf_counter() - t0
        t = res.table
        rows = [[m, *[t.loc[m, c] for c in COLUMNS]] for m in t.index]
        parts.append(f"**{name}** ({took:.1f} s)\n\n" + table(["method", *COLUMNS], rows)
                     + f"\n\nRecommended: **{res.recommended}**. {res.reason}\n")
        iso, platt, risk = (t.loc[m, "csr"] for m in ("isotonic", "platt",
                                                      "risk_aware_isotonic"))
        sev = {m: SEVERITY[t.loc[m, "band"]] for m in ("platt", "risk_aware_isotonic")}
        ml_csr, ml_band = platt_by_labels(df, 50 if quick else 200)
        checks.append(f"| {name} | {platt:.4g} ({t.loc['platt', 'band']}) | "
                      f"{ml_csr:.4g} ({ml_band}) | {iso:.4g} "
                      f"({t.loc['isotonic', 'band']}) | {risk:.4g} "
                      f"({t.loc['risk_aware_isotonic', 'band']}) | "
                      f"{'yes' if iso > platt else 'no'} | "
                      f"{'yes' if sev['risk_aware_isotonic'] <= sev['platt'] else 'no'} | "
                      f"{'yes' if risk <= platt else 'no'} |")
        tally["data"] += 1
        tally["iso_riskier"] += iso > platt
        tally["risk_band_ok"] += sev["risk_aware_isotonic"] <= sev["platt"]
        tally["risk_csr_ok"] += risk <= platt
        tally["platt_risky"] += t.loc["platt", "band"] == "risky"
        tally["labels_risky"] += ml_band == "risky"
        tally["targets_lower"] += platt < ml_csr
        tally["platt_under"] += platt < 1
    return "\n".join(parts), checks, tally


def synthetic(n: int, groups: int, seed: int = 1) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.0, n * groups)
    y = (rng.random(z.size) < expit(z)).astype(int)
    return pd.DataFrame({"y": y, "p": expit(2.0 * z), "g": np.repeat(np.arange(groups), n)})


def timings(quick: bool) -> list[list[object]]:
    rows = []
    cases = [(100_000, 1)] if quick else [(100_000, 1), (50_000, 20)]
    for n, groups in cases:
        df = synthetic(n, groups)
        acc = (df.calib(y="y", proba="p") if groups == 1
               else df.groupby("g").calib(y="y", proba="p"))
        t0 = time.perf_counter()
        acc.recalibrate(n_boot=200, seed=0)
        every = time.perf_counter() - t0
        t0 = time.perf_counter()
        acc.recalibrate(["platt", "isotonic"], n_boot=200, seed=0)
        two = time.perf_counter() - t0
        load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
        rows.append([f"{groups} x {n:,}", f"{every:.1f}", f"{two:.1f}", f"{load:.1f}"])
    return rows


def main() -> None:
    quick = "--quick" in sys.argv
    body, checks, tally = tables(quick)
    n = tally["data"]
    summary = (
        f"\n\nMeasured: isotonic regression has a larger out-of-fold CSR than Platt "
        f"scaling on {tally['iso_riskier']} of {n} data sets (its end plateaus output 0 or "
        "1, so one wrong prediction there costs 1/eps). The risk-aware isotonic's band "
        f"is no worse than Platt's on {tally['risk_band_ok']} of {n}, and its CSR is at "
        f"most Platt's on {tally['risk_csr_ok']} of {n} (a CSR below 1 is "
        "underconfidence, not risk: the band, read from P_risk, is the criterion). "
        f"Platt scaling is 'risky' on {tally['platt_risky']} of {n} with Platt's targets "
        "(the default: (N+ + 1)/(N+ + 2) for the positive rows, 1/(N- + 2) for the "
        "negative ones, as scikit-learn's sigmoid calibration) and on "
        f"{tally['labels_risky']} of {n} by plain maximum likelihood "
        "(`targets=\"labels\"`): a one-vs-rest fit on few rows whose scores separate a "
        "class has no finite maximum-likelihood slope and outputs probabilities of 0 or "
        "1, while the targets, strictly inside (0, 1), keep the slope finite. They pull "
        "the probabilities toward 1/2: Platt's CSR is lower with them than by plain "
        f"maximum likelihood on {tally['targets_lower']} of {n}, and below 1 "
        f"(underconfidence) on {tally['platt_under']} of {n}.")
    times = timings(quick)
    text = (
        "## Recalibration advisor (`benchmarks/recalibration.py`)\n\n"
        f"{machine()}\n\n"
        "Each model's scores are out of sample (5-fold `cross_val_predict`); "
        "`recalibrate()` cross-fits every method on 5 stratified folds of its own "
        "(seed 0) and gives each difference against `none` on the same rows with a "
        f"{'50' if quick else '200'}-replicate paired bootstrap (`log_loss_diff` shown; "
        "every metric's difference and interval are in `.table`).\n\n" + body +
        "\n### The seed paper's qualitative finding\n\n"
        "| data | CSR Platt | CSR Platt, plain maximum likelihood | CSR isotonic | "
        "CSR risk-aware isotonic | isotonic riskier than Platt (CSR) | risk-aware band "
        "no worse than Platt's | risk-aware CSR <= Platt's |\n"
        "|---|---|---|---|---|---|---|---|\n"
        + "\n".join(checks) + summary +
        "\n\n### Time of `recalibrate()` (every method; Platt and isotonic only)\n\n"
        + table(["rows", "all 7 methods (s)", "none, platt, isotonic (s)",
                 "load average (1 min)"], times)
        + "\n\n200 paired-bootstrap replicates, 5 folds, binary synthetic scores "
        "`expit(2 z)`.\n")
    write_section("recalibration", text)


if __name__ == "__main__":
    main()
