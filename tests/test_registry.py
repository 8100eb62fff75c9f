"""The registry drives these checks over every metric.

* every bootstrap kernel, run with resampling counts, equals the core computation
  on the resampled rows (``np.repeat``), under every setting that changes the metric;
* every registry metric has its accessor method, whose docstring shows the
  registry's formula and references;
* the entries are well formed (directions, reference keys, settings fields).
"""

from __future__ import annotations

import dataclasses
import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport import references
from calreport.accessor import CalibAccessor, GroupByCalibAccessor
from calreport.bootstrap import bootstrap_intervals
from calreport.bootstrap.kernels import Kernels
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY
from calreport.settings import Settings
from calreport.summary import summarize

KERNEL = [m for m, spec in REGISTRY.items() if spec.interval.kind == "bootstrap"]


def _binary(n=300, seed=0, ties=False, weights=False):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    if ties:
        p = np.round(p, 1)
    y = (rng.random(n) < p**1.3).astype(int)
    w = rng.uniform(0.2, 3.0, n) if weights else None
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w)


def _multi(n=300, k=4, seed=1):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in proba])
    return ConfidenceProfile.from_arrays(y, proba)


def _top_label(n=300, seed=2):
    rng = np.random.default_rng(seed)
    c = np.round(rng.uniform(0.3, 1.0, n), 3)
    return ConfidenceProfile.from_arrays(conf=c, correct=rng.random(n) < c)


PROFILES = {
    "binary": _binary,
    "ties": lambda: _binary(ties=True),
    "weighted": lambda: _binary(weights=True),
    "multi": _multi,
    "top_label": _top_label,
}

#: Every setting that changes some metric, with values away from the defaults.
SETTINGS = [
    Settings(p_risk_method="normal"),
    Settings(p_risk_method="normal", view="top_label", n_bins=7, tau=0.7, eps=1e-3,
             min_count=5),
    Settings(p_risk_method="normal", strategy="quantile", n_bins=10, tau=0.3, eps=0.05),
]


def _repeated(prof: ConfidenceProfile, counts: np.ndarray) -> ConfidenceProfile:
    """The resampled data set itself: row i repeated counts[i] times."""
    return prof.take(np.repeat(np.arange(prof.n), counts.astype(np.int64)))


@pytest.mark.parametrize("kind", list(PROFILES))
@pytest.mark.parametrize("s", SETTINGS, ids=["default", "changed", "quantile"])
def test_kernel_equals_core_on_resampled_rows(kind, s):
    prof = PROFILES[kind]()
    if s.view == "top_label" or prof.score is None:
        s = s.replace(view=None) if prof.score is None else s
    k = Kernels(prof, s, KERNEL)
    rng = np.random.default_rng(5)
    counts = rng.poisson(1.0, size=(4, prof.n))
    counts[0] = 1  # the identity replicate
    batched = k.evaluate_counts(counts[:, k.first_rows].astype(np.uint8))
    assert set(batched) == {m for m in KERNEL if REGISTRY[m].missing_need(prof) is None}
    for r in range(counts.shape[0]):
        # quantile edges are fixed from the full sample across replicates: the core
        # recomputes them, so the binned metrics are compared on the identity only
        names = [m for m in batched if not (r and s.strategy == "quantile" and m in
                                            ("ece", "mce", "signed_ece"))]
        ref = summarize(_repeated(prof, counts[r]), metrics=names, settings=s).values
        for name in names:
            assert batched[name][r] == pytest.approx(ref[name], rel=1e-9, abs=1e-12,
                                                     nan_ok=True), (kind, name, r)


def test_p_risk_has_no_interval_whatever_its_method():
    """P_risk is a probability about the rows, not an estimate: no interval, and the
    reason points to z's."""
    prof = _binary(n=60)
    for method in ("normal", "monte_carlo"):
        s = Settings(p_risk_method=method)
        res = summarize(prof, metrics=["csr", "z_csr", "p_risk"], settings=s)
        out = bootstrap_intervals(prof, res, n_boot=50, seed=0, return_replicates=True)
        assert np.isnan(out.intervals["p_risk"][0])
        assert "z_csr's interval" in out.reasons["p_risk"]
        assert not np.isnan(out.intervals["z_csr"][0])


REFIT = [m for m, spec in REGISTRY.items() if spec.interval.kind == "refit"]


def test_refit_metrics_get_refitting_bootstrap_intervals():
    prof = _binary(n=400)
    res = summarize(prof, metrics=REFIT)
    out = bootstrap_intervals(prof, res, n_boot=30, seed=0, return_replicates=True,
                              refit=True)
    for m in REFIT:
        lo, hi = out.intervals[m]
        assert lo <= hi and m not in out.reasons, (m, out.reasons.get(m))
        assert out.replicates[m].shape == (30,)
    # refit=None: the default rule, which refits 400 rows
    again = bootstrap_intervals(prof, res, n_boot=30, seed=0, refit=None)
    assert again == out.intervals
    off = bootstrap_intervals(prof, res, n_boot=30, seed=0, return_replicates=True,
                              refit=False)
    for m in REFIT:
        assert np.isnan(off.intervals[m][0]) and "refit=False" in off.reasons[m]


@pytest.mark.parametrize("name", REFIT)
def test_refit_replicate_is_the_core_on_resampled_rows(name):
    """One refit replicate equals the core metric on the rows it drew."""
    from calreport.bootstrap.intervals import _refit_one
    from calreport.bootstrap.kernels import canonical_order

    prof = _binary(n=300) if REGISTRY[name].missing_need(_binary(n=10)) is None else _multi()
    prof = prof.take(canonical_order(prof))
    res = summarize(prof, metrics=[name])
    out = {name: np.full(1, np.nan)}
    rng = np.random.default_rng(3)
    _refit_one(prof, res, [name], 0, rng, "multinomial", out)
    rows = np.sort(np.random.default_rng(3).integers(0, prof.n, prof.n))
    ref = summarize(prof.take(rows), metrics=[name]).values[name]
    assert out[name][0] == pytest.approx(ref, rel=1e-12, nan_ok=True)


# ------------------------------------------------------------------ the methods
def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", text or "").strip()


@pytest.mark.parametrize("name", list(REGISTRY))
def test_every_metric_has_its_method_with_formula_and_references(name):
    spec = REGISTRY[name]
    for cls in (CalibAccessor, GroupByCalibAccessor):
        method = getattr(cls, name, None)
        assert callable(method), f"{cls.__name__} has no method {name}()"
    doc = _norm(inspect.getdoc(getattr(CalibAccessor, name)))
    assert _norm(spec.formula) in doc
    for ref in spec.references:
        assert _norm(ref.text()) in doc, (name, ref.key)
    sig = inspect.signature(getattr(CalibAccessor, name))
    assert set(sig.parameters) - {"self"} == set(spec.settings), name


def test_method_equals_summary_column():
    df = pd.DataFrame({"y_true": np.r_[np.zeros(50), np.ones(50)].astype(int),
                       "proba": np.linspace(0.01, 0.99, 100)})
    summ = df.calib.summary(p_risk_method="normal")
    for name in REGISTRY:
        spec = REGISTRY[name]
        kw = {"p_risk_method": "normal"} if "p_risk_method" in spec.settings else {}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            val = getattr(df.calib, name)(**kw)
        assert val == pytest.approx(summ[name], nan_ok=True), name


# ------------------------------------------------------------------ the entries
@pytest.mark.parametrize("name", list(REGISTRY))
def test_entry_is_well_formed(name):
    spec = REGISTRY[name]
    assert spec.name == name and re.fullmatch(r"[a-z][a-z0-9_]*", name)
    assert spec.direction in ("higher", "lower", "target")
    assert (spec.target is not None) == (spec.direction == "target")
    assert spec.references and all(r.key in references.REFERENCES for r in spec.references)
    fields = {f.name for f in dataclasses.fields(Settings)}
    assert set(spec.settings) <= fields
    assert spec.needs <= {"labels", "proba", "unweighted", "counts"}
    assert spec.interval.kind in ("bootstrap", "refit", "none")
    if spec.interval.kind == "none":
        assert spec.interval.reason
    elif spec.interval.kind == "bootstrap":
        assert spec.interval.finish is not None
    assert "\\" not in spec.formula and "$" not in spec.formula  # no LaTeX


def test_intervals_stay_in_the_metric_range():
    """Basic and analytic intervals are clipped to the registry's bounds (DeLong to
    [0, 1], a basic ECE interval at 0)."""
    prof = _binary(n=80)
    res = summarize(prof, settings=Settings(p_risk_method="normal"))
    for method in ("basic", "analytic", "percentile"):
        iv = bootstrap_intervals(prof, res, n_boot=60, seed=0, method=method, refit=False)
        for name, (lo, hi) in iv.items():
            if name in REGISTRY and not np.isnan(lo):
                a, b = REGISTRY[name].bounds
                assert a <= lo <= hi <= b, (method, name, lo, hi)
    # a near-perfect ranking: DeLong's normal interval would pass 1
    y = np.r_[np.zeros(30), np.ones(30)].astype(int)
    s = np.r_[np.linspace(0.01, 0.45, 30), np.linspace(0.44, 0.99, 30)]
    p = ConfidenceProfile.from_arrays(y, s)
    r = summarize(p, metrics=["auc"])
    lo, hi = bootstrap_intervals(p, r, method="analytic")["auc"]
    assert hi == 1.0 and lo < 1.0


def test_refit_default_skips_large_profiles_with_a_reason(monkeypatch):
    from calreport.bootstrap import intervals

    monkeypatch.setattr(intervals, "REFIT_ROWS", 100)
    prof = _binary(n=300)
    res = summarize(prof, metrics=["accuracy", "smece"])
    out = bootstrap_intervals(prof, res, n_boot=20, seed=0, return_replicates=True,
                              refit=None)
    assert np.isnan(out.intervals["smece"][0])
    assert "refit=True" in out.reasons["smece"] and "300 rows" in out.reasons["smece"]
    forced = bootstrap_intervals(prof, res, n_boot=20, seed=0, refit=True)
    assert not np.isnan(forced["smece"][0])


def test_refit_default_counts_every_group_of_the_call(monkeypatch):
    """One rule (``refit_by_default``) over all groups: 3 groups of 60 rows refit
    under a limit of 3 groups, and none of them does under a limit of 2."""
    from calreport.bootstrap import intervals

    rng = np.random.default_rng(5)
    c = rng.uniform(0.5, 1.0, 180)
    df = pd.DataFrame({"g": np.repeat(["a", "b", "c"], 60), "conf": c,
                       "correct": rng.random(180) < c})
    acc = df.groupby("g").calib(conf="conf", correct="correct")
    kw = dict(metrics=["smece"], ci=0.95, n_boot=20, seed=0, progress=False, refit=None)
    monkeypatch.setattr(intervals, "REFIT_GROUPS", 3)
    assert acc.summary(**kw)["smece", "ci_low"].notna().all()
    monkeypatch.setattr(intervals, "REFIT_GROUPS", 2)
    out = acc.summary(**kw)
    assert out["smece", "ci_low"].isna().all()
    why = out.attrs["reasons"]["a", "smece"]
    assert "3 groups, 180 rows" in why and "refit=True" in why
