"""Every printed interval contains its estimate, a gate on a bound is never looser than
the gate on the value, one-sided bounds read as such everywhere, and each bound's
Monte Carlo standard error is what the spread between seeds says."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calreport  # noqa: F401  (registers the accessor)
from calreport.interval_rules import coverage_text, read_interval
from calreport.registry import REGISTRY
from calreport.report.formatting import _fmt_ci

QUICK = ["accuracy", "cwa", "csr", "z_csr", "ece", "mce", "signed_ece", "brier", "auc",
         "classwise_ece", "debiased_ece", "corp_mcb", "corp_dsc", "corp_unc"]


def _frame(seed: int, n: int, shift: float) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p).astype(int)
    s = 1 / (1 + np.exp(-(1.3 * np.log(p / (1 - p)) + shift)))
    return pd.DataFrame({"y": y, "p": s, "g": rng.integers(0, 2, n)})


@given(seed=st.integers(0, 10_000), n=st.integers(20, 400), shift=st.floats(-1, 1))
@settings(max_examples=12, deadline=None)
def test_the_estimate_is_inside_its_interval_and_bound_gates_are_never_looser(seed, n, shift):
    df = _frame(seed, n, shift)
    res = df.calib(y="y", proba="p").evaluate(metrics=QUICK, ci=0.95, n_boot=40, seed=seed)
    g = res.groups[0]
    for m in QUICK:
        v, (lo, hi) = g.get(m), g.intervals.get(m, (math.nan, math.nan))
        if math.isnan(v) or math.isnan(lo):
            continue
        assert lo <= v <= hi, (m, lo, v, hi)
        # any threshold: where "m > t" fails a release, "m.ci_high > t" fails it too
        # (for a lower bound: "m < t" and "m.ci_low < t")
        op, stat = ("<", "ci_low") if g.interval_methods[m] == "lower" else (">", "ci_high")
        for t in (v - 1e-9, v, lo, hi):
            value_fails = res.check([f"{m}{op}{t!r}"])[0].failed
            bound_fails = res.check([f"{m}.{stat}{op}{t!r}"])[0].failed
            assert bound_fails or not value_fails, (m, t)


def test_read_interval_widens_to_the_estimate_and_clips_to_the_range():
    reps = np.linspace(0.10, 0.20, 201)
    b = read_interval(reps, 0.05, 0.95, "percentile", (0.0, 1.0))
    assert b.low[0] == 0.05 and b.high[0] == pytest.approx(0.1975)
    b = read_interval(reps, 0.05, 0.95, "basic", (0.0, 1.0))  # 2v - q: [-0.1, -0.0..]
    assert b.low[0] == 0.0 and b.high[0] == 0.05
    b = read_interval(reps, 0.15, 0.95, "lower", (0.0, 0.25))
    assert b.low[0] == pytest.approx(0.105) and b.high[0] == 0.25 and b.se_high[0] == 0
    few = read_interval(np.r_[0.1, np.full(9, np.nan)], 0.1, 0.95, "upper", (0, 1))
    assert np.isnan(few.low[0]) and np.isnan(few.high[0])
    with pytest.raises(ValueError, match="no interval method 'bca'"):
        read_interval(reps, 0.1, 0.95, "bca", (0, 1))


def test_monte_carlo_error_of_a_bound_matches_the_spread_between_seeds():
    df = _frame(3, 800, 0.3)
    acc = df.calib(y="y", proba="p")
    highs, ses = [], []
    for seed in range(40):
        r = acc.evaluate(metrics=["ece", "accuracy"], ci=0.95, n_boot=200, seed=seed)
        g = r.groups[0]
        highs.append(g.get("ece", "ci_high"))
        ses.append(g.get("ece", "ci_high_mcse"))
    ratio = np.std(highs, ddof=1) / np.mean(ses)
    assert 0.6 < ratio < 1.6, ratio


def test_every_output_carries_method_coverage_replicates_and_monte_carlo_error():
    df = _frame(1, 500, 0.3)
    acc = df.calib(y="y", proba="p")
    s = acc.summary(metrics=["ece", "accuracy", "p_risk"], ci=0.95, n_boot=100, seed=0)
    assert list(s.columns) == ["value", "ci_low", "ci_high", "ci_low_mcse", "ci_high_mcse",
                               "replicates", "method", "coverage"]
    assert s.loc["ece", "method"] == "upper" and s.loc["ece", "ci_low"] == 0.0
    assert s.loc["ece", "coverage"] == coverage_text("ece", "upper")
    assert s.loc["ece", "replicates"] == 100 and s.loc["ece", "ci_high_mcse"] > 0
    assert s.loc["ece", "ci_low_mcse"] == 0.0  # the fixed end of a one-sided bound
    assert math.isnan(s.loc["p_risk", "ci_low"])
    assert "probability about these rows" in s.attrs["reasons"]["p_risk"]
    assert s.attrs["intervals"]["ece"]["one_sided"] is True
    grouped = df.groupby("g").calib(y="y", proba="p").summary(
        metrics=["ece"], ci=0.95, n_boot=100, seed=0)
    assert ("ece", "ci_high_mcse") in grouped.columns
    assert grouped.attrs["intervals"]["ece"]["coverage"] == coverage_text("ece", "upper")
    doc = json.loads(acc.report(metrics=["ece", "accuracy"], ci=0.95, n_boot=100,
                                seed=0).to_json())
    entry = next(g for g in doc["result"]["groups"])["metrics"]["ece"] if "result" in doc \
        else doc["groups"][0]["metrics"]["ece"]
    assert entry["ci_method"] == "upper" and entry["ci_one_sided"] is True
    assert entry["ci_coverage"] == coverage_text("ece", "upper")
    assert entry["ci_replicates"] == 100 and entry["ci_high_mcse"] > 0


def test_a_gate_on_the_fixed_end_of_a_one_sided_bound_is_refused():
    res = _frame(1, 300, 0.3).calib(y="y", proba="p").evaluate(
        metrics=["ece"], ci=0.95, n_boot=50, seed=0)
    with pytest.raises(ValueError, match=r"ece's ci_low, the fixed end of its one-sided"):
        res.check(["ece.ci_low>0.01"])
    out = res.check(["ece.ci_high>0.5"])[0]
    assert "one-sided upper bound" in out.note and "Monte Carlo s.e." in out.note


def test_one_sided_bounds_print_as_bounds():
    assert _fmt_ci(0.0, 0.0332, "ece") == "≤ 0.0332"
    assert _fmt_ci(0.2471, 0.25, "corp_unc") == "≥ 0.2471"
    assert _fmt_ci(0.01, 0.0332, "ece", "percentile") == "0.0100 to 0.0332"
    assert REGISTRY["ece"].interval.method == "upper"


def test_an_interval_of_no_spread_or_below_the_studys_sizes_says_so_in_every_output():
    # 15 correct predictions out of 15: accuracy 1 in every resample, an interval
    # [1, 1]; the coverage study measured 300 and 3,000 rows.  The exact 95 % lower
    # bound of 15/15 is 0.78: the interval must not pass as a measured 95 % one.
    rng = np.random.default_rng(0)
    p = np.r_[rng.uniform(0.7, 0.95, 8), rng.uniform(0.05, 0.3, 7)]
    df = pd.DataFrame({"y": (p > 0.5).astype(int), "p": p})
    acc = df.calib(y="y", proba="p")
    s = acc.summary(["accuracy", "ece"], ci=0.95, seed=0)
    assert (s.loc["accuracy", "ci_low"], s.loc["accuracy", "ci_high"]) == (1.0, 1.0)
    cov = s.loc["accuracy", "coverage"]
    assert "no spread: every resample gave the same value" in cov
    assert "coverage not measured below 300 rows (this group: 15)" in cov
    res = acc.evaluate(["accuracy"], ci=0.95, seed=0)
    entry = res.to_dict()["groups"][0]["metrics"]["accuracy"]
    assert entry["ci_caveat"].startswith("no spread") and "below 300 rows" in entry["ci_caveat"]
    (gate,) = res.check(["accuracy.ci_low<0.9"])
    assert not gate.failed and "no spread" in gate.note
    md = acc.report(metrics=["accuracy"], ci=0.95, seed=0, timestamp="2026-01-01").to_markdown()
    assert ("The intervals' coverage was measured on groups of 300 and 3,000 rows; these "
            "15 rows are fewer, where it is not known.") in md
    assert "(1.0000 to 1.0000; no spread: every resample gave the same value" in md
    # 3,000 rows with spread: no caveat
    big = pd.DataFrame({"p": rng.random(3000)})
    big["y"] = (rng.random(3000) < big["p"]).astype(int)
    assert big.calib(y="y", proba="p").evaluate(["accuracy"], ci=0.95, seed=0).to_dict()[
        "groups"][0]["metrics"]["accuracy"]["ci_caveat"] == ""


def test_a_grouped_summary_and_the_cli_name_the_groups_whose_intervals_claim_less(tmp_path,
                                                                                   capsys):
    from calreport.cli import main

    rng = np.random.default_rng(0)
    p = np.r_[rng.uniform(0.7, 0.95, 8), rng.uniform(0.05, 0.3, 7), rng.random(400)]
    y = np.r_[(p[:15] > 0.5).astype(int), (rng.random(400) < p[15:]).astype(int)]
    df = pd.DataFrame({"y": y, "p": p, "g": ["small"] * 15 + ["big"] * 400})
    s = df.groupby("g").calib(y="y", proba="p").summary(["accuracy", "ece"], ci=0.95, seed=0)
    caveats = s.attrs["interval_caveats"]
    assert set(caveats) == {"small"} and set(caveats["small"]) == {"accuracy", "ece"}
    assert caveats["small"]["accuracy"].startswith("no spread")
    csv = tmp_path / "d.csv"
    df.to_csv(csv, index=False)
    assert main(["summary", str(csv), "--y", "y", "--proba", "p", "--by", "g", "--ci", "0.95",
                 "--metrics", "accuracy,ece"]) == 0
    out = capsys.readouterr().out
    assert ("group small: coverage not measured below 300 rows (this group: 15) "
            "(accuracy, ece)") in out
    assert "group big" not in out
    (flat,) = [ln for ln in out.splitlines() if "group small: no spread" in ln]
    assert flat.endswith("(accuracy)")


def test_the_out_of_core_summary_names_the_same_caveats():
    from calreport import Accumulator

    rng = np.random.default_rng(0)
    p = np.r_[rng.uniform(0.7, 0.95, 8), rng.uniform(0.05, 0.3, 7), rng.random(400)]
    y = np.r_[(p[:15] > 0.5).astype(int), (rng.random(400) < p[15:]).astype(int)]
    df = pd.DataFrame({"y": y, "p": p, "g": ["small"] * 15 + ["big"] * 400})
    acc = Accumulator(y="y", proba="p", by="g", classes=[0, 1], n_boot=200).update(df)
    ooc = acc.summary(ci=0.95).attrs["interval_caveats"]
    pan = df.groupby("g").calib(y="y", proba="p").summary(ci=0.95, seed=0).attrs[
        "interval_caveats"]
    for m in ("accuracy", "csr", "brier"):
        assert ooc["small"][m] == pan["small"][m], m
    assert ooc["small"]["accuracy"].startswith("no spread")
    assert "accuracy" not in ooc.get("big", {})
