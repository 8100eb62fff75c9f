"""Linearized bootstrap replicates of the AUC, cwAUC and AURC (large samples).

The derivatives are checked against central differences of the core metrics, the
replicates against the exact ones on the same weights, and the rule and the words
every output prints against the thresholds.
"""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest
from scipy import special

import calreport  # noqa: F401
from calreport.bootstrap import bootstrap_replicates
from calreport.bootstrap._linear import (
    LINEAR_ROWS,
    LINEAR_SIDE,
    auc_influence,
    aurc_influence,
)
from calreport.bootstrap.kernels import Kernels
from calreport.interval_rules import LINEARIZED, coverage, interval_note
from calreport.metrics.ranking import auc, weighted_auc
from calreport.metrics.risk_coverage import aurc
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings
from calreport.summary import summarize

PAIRS = ["auc", "cwauc", "delta_auc", "aurc"]
S = Settings(p_risk_method="normal")


def _fd(f, w, eps=1e-6):
    """Central differences of ``f`` by each weight."""
    out = np.empty(w.size)
    for i in range(w.size):
        up, down = w.copy(), w.copy()
        up[i] += eps
        down[i] -= eps
        out[i] = (f(up) - f(down)) / (2 * eps)
    return out


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_derivatives_are_those_of_the_core_metrics(seed):
    # tied scores and confidences, unequal weights: every branch of the formulas
    rng = np.random.default_rng(seed)
    n = 80
    s = np.round(rng.random(n), 1)
    pos = rng.random(n) < s
    conf = np.round(0.5 + rng.random(n) / 2, 1)
    w = rng.random(n) + 0.2
    a, c, da, dc = auc_influence(s, pos, conf, w)
    assert a == pytest.approx(weighted_auc(pos, s, weight=w), abs=1e-14)
    assert c == pytest.approx(weighted_auc(pos, s, weight=w * conf), abs=1e-14)
    np.testing.assert_allclose(da, _fd(lambda u: weighted_auc(pos, s, weight=u), w),
                               atol=1e-8)
    np.testing.assert_allclose(dc, _fd(lambda u: weighted_auc(pos, s, weight=u * conf), w),
                               atol=1e-8)
    wrong = rng.random(n) < 0.3
    r, dr = aurc_influence(conf, wrong, w)
    assert r == pytest.approx(aurc(conf, ~wrong, sample_weight=w), abs=1e-14)
    np.testing.assert_allclose(dr, _fd(lambda u: aurc(conf, ~wrong, sample_weight=u), w),
                               atol=1e-8)
    # degree 0 in the weights: the derivatives sum to 0 (Euler), so a replicate of
    # counts 1 is the estimate itself
    assert abs(np.dot(w, da)) < 1e-14 and abs(np.dot(w, dr)) < 1e-14


def _profile(kind: str, n: int, rng: np.random.Generator) -> ConfidenceProfile:
    if kind == "10-class":
        logits = 1.5 * rng.standard_normal((n, 10))
        p = special.softmax(logits, axis=1)
        y = (rng.random(n)[:, None] > np.cumsum(p, axis=1)).sum(axis=1).clip(0, 9)
        return ConfidenceProfile.from_arrays(y, p, classes=list(range(10)))
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < p).astype(int)
    w = rng.exponential(1.0, n) if kind == "weighted" else None
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w)


@pytest.mark.parametrize("kind", ["binary", "weighted", "10-class"])
def test_replicates_agree_with_the_exact_ones_on_the_same_weights(kind):
    # the neglected term shrinks as 1/sqrt(n): at the smallest linearized sample the
    # replicates are within a fifth of a standard deviation of the exact ones (measured
    # at most 0.17), at 2,000 rows they are not (0.12-0.27): the bound can fail
    rng = np.random.default_rng(5)
    prof = _profile(kind, LINEAR_ROWS, rng)
    w = rng.poisson(1.0, (100, prof.n)).astype(float)
    if prof.sample_weight is not None:
        w *= prof.sample_weight
    exact = Kernels(prof, S, PAIRS).evaluate(w)
    lin = Kernels(prof, S, PAIRS, linearize=True)
    got = lin.evaluate(w)
    for m in PAIRS:
        assert np.abs(got[m] - exact[m]).max() < 0.25 * exact[m].std(), m
    # the centre is the estimate: replicates of counts 1
    one = lin.evaluate(np.ones((1, prof.n)) if prof.sample_weight is None
                       else prof.sample_weight[None, :])
    point = summarize(prof, metrics=PAIRS, settings=S).values
    for m in PAIRS:
        assert one[m][0] == pytest.approx(point[m], abs=1e-12), m


def test_the_rule_linearizes_large_samples_with_both_sides_large():
    rng = np.random.default_rng(0)
    n = LINEAR_ROWS
    p = rng.uniform(0.05, 0.95, n)
    y = (rng.random(n) < p).astype(int)
    big = ConfidenceProfile.from_arrays(y, p)
    assert bootstrap_replicates(big, metrics=PAIRS, n_boot=16, seed=0).linearized == tuple(
        PAIRS)
    small = ConfidenceProfile.from_arrays(y[:-1], p[:-1])
    assert bootstrap_replicates(small, metrics=PAIRS, n_boot=16, seed=0).linearized == ()
    assert bootstrap_replicates(big, metrics=PAIRS, n_boot=16, seed=0,
                                linearize=False).linearized == ()
    # one positive short of the side: the AUC family stays exact, the AURC (its
    # errors are many) is linearized
    y_rare = np.zeros(n, dtype=int)
    y_rare[: LINEAR_SIDE - 1] = 1
    rare = ConfidenceProfile.from_arrays(y_rare, p)
    assert bootstrap_replicates(rare, metrics=PAIRS, n_boot=16, seed=0).linearized == (
        "aurc",)


def test_every_output_names_the_linearized_intervals():
    rng = np.random.default_rng(1)
    n = LINEAR_ROWS
    p = rng.beta(2.0, 2.0, n + 500)
    df = pd.DataFrame({"y": (rng.random(n + 500) < p).astype(int), "p": p,
                       "g": ["big"] * n + ["small"] * 500})
    acc = df.groupby("g").calib(y="y", proba="p")
    res = acc.evaluate(metrics=["auc", "aurc", "accuracy"], ci=0.95, n_boot=50, seed=0,
                       progress=False)
    by = {g.name: g for g in res.groups}
    assert by["big"].interval_methods["auc"] == "percentile, linearized"
    assert by["small"].interval_methods["auc"] == "percentile"
    assert by["big"].interval_methods["accuracy"] == "percentile"
    text = res.interval_notes()["auc"]["text"]
    assert text.startswith("percentile bootstrap, measured")
    assert ("; in the groups large enough to be linearized, percentile bootstrap of "
            "linearized (first-order) replicates, measured") in text
    data = json.loads(json.dumps(res.to_dict()))
    big = next(g for g in data["groups"] if g["name"] == "big")
    assert big["metrics"]["aurc"]["ci_method"] == "percentile, linearized"
    rep = acc.report(metrics=["auc", "aurc", "accuracy", "ece", "csr"], ci=0.95, n_boot=50,
                     seed=0, progress=False)
    html = rep.to_html()
    assert "Linearized replicates" in html and "Efron (1982)" in html


def test_the_linearized_coverage_is_measured_for_every_method():
    assert LINEARIZED["study"]["sizes"] == [LINEAR_ROWS]
    for m in PAIRS:
        for method in ("percentile", "basic", "upper", "lower"):
            c = coverage(m, f"{method}, linearized")
            assert c.measured and len(c.cells) == len(LINEARIZED["cells"]), (m, method)
    note = interval_note("auc", "percentile, linearized")
    assert note["coverage"].startswith(("measured", "BELOW NOMINAL"))
    assert note["text"].startswith("percentile bootstrap of linearized")


def test_macro_auc_of_the_kernels_is_the_core_macro_auc():
    rng = np.random.default_rng(3)
    prof = _profile("10-class", 3000, rng)
    got = Kernels(prof, S, ["auc"], linearize=True).linear["auc"]
    assert got == pytest.approx(auc(prof.y_true, prof.proba), abs=1e-12)


def test_the_memory_bounded_mode_keeps_the_exact_replicates(monkeypatch):
    # above _MATRIX_BYTES of per-row columns the tiles bound the memory; the
    # derivatives (8 bytes a row each, and their computation's) would not be
    import calreport.bootstrap.kernels as bs

    rng = np.random.default_rng(2)
    p = rng.uniform(0.05, 0.95, LINEAR_ROWS)
    prof = ConfidenceProfile.from_arrays((rng.random(LINEAR_ROWS) < p).astype(int), p)
    assert bootstrap_replicates(prof, metrics=PAIRS, n_boot=16, seed=0).linearized
    monkeypatch.setattr(bs, "_MATRIX_BYTES", 0)
    assert bootstrap_replicates(prof, metrics=PAIRS, n_boot=16, seed=0).linearized == ()


def test_the_quoted_coverage_is_the_table_of_the_study():
    # every output quotes calreport/coverage_linearized.json: it must be the table
    # benchmarks/RESULTS.md shows (written together by the study's --write)
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "RESULTS.md").read_text(
        encoding="utf-8")
    section = text.split("<!-- begin:linearized_bootstrap -->")[1].split(
        "<!-- end:linearized_bootstrap -->")[0]
    rows = 0
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) > 2 and cells[0] in PAIRS and " / " in cells[2]:
            quoted = LINEARIZED["coverage"][cells[0]][cells[1]]
            assert [float(c.split(" / ")[0]) for c in cells[2:]] == quoted, cells[:2]
            rows += 1
    assert rows == 16
