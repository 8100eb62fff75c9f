"""The functional summary API and its settings."""

from __future__ import annotations

import math

import numpy as np
import pytest
from sklearn.metrics import brier_score_loss, log_loss, roc_auc_score

from calreport import ConfidenceProfile, summary
from calreport.registry import REGISTRY as METRICS
from calreport.settings import Settings
from calreport.summary import summarize


def _data(n=500, seed=0):
    rng = np.random.default_rng(seed)
    p = rng.uniform(0, 1, n)
    y = (rng.random(n) < p).astype(int)
    return y, p


def test_functional_summary_matches_sklearn():
    y, p = _data()
    out = summary(y, p)
    assert out["n"] == 500
    assert out["auc"] == pytest.approx(roc_auc_score(y, p))
    assert out["brier"] == pytest.approx(brier_score_loss(y, p))
    assert out["log_loss"] == pytest.approx(log_loss(y, p))
    acc = np.mean((p >= 0.5) == (y == 1))
    assert out["accuracy"] == pytest.approx(acc)
    assert list(out)[:3] == ["n", "n_dropped", "n_clipped"]
    assert set(METRICS) <= set(out)


def test_functional_summary_with_ci():
    y, p = _data()
    out = summary(y, p, metrics=["accuracy", "ece"], ci=0.95, n_boot=100, seed=3)
    val, lo, hi = out["accuracy"]
    assert lo <= val <= hi


def test_unknown_metric():
    y, p = _data(50)
    with pytest.raises(ValueError, match=r"Unknown metric\(s\) \['eec'\]"):
        summary(y, p, metrics=["eec"])


@pytest.mark.parametrize(
    ("kw", "match"),
    [({"n_bins": 0}, "`n_bins` must be a positive integer"),
     ({"strategy": "equal"}, "`strategy` must be one of"),
     ({"tau": 1.0}, r"`tau` must be in \[0, 1\)"),
     ({"view": "positive_class"}, "`view` must be one of")],
)
def test_settings_validation(kw, match):
    with pytest.raises(ValueError, match=match):
        Settings(**kw)


def test_reasons_for_undefined_metrics():
    prof = ConfidenceProfile.from_arrays(conf=[0.6, 0.7, 0.8], correct=[1, 1, 0])
    res = summarize(prof)
    assert math.isnan(res.values["brier"])
    assert "probabilities" in res.reasons["brier"]
    assert math.isnan(res.values["tce_bpm"]) and "tce_bpm" in res.reasons


def test_weights_integer_equal_repetition():
    y, p = _data(200, seed=5)
    w = np.random.default_rng(1).integers(1, 4, 200)
    names = list(METRICS)
    a = summarize(ConfidenceProfile.from_arrays(y, p, sample_weight=w, weights="frequency"),
                  metrics=names).values
    b = summary(np.repeat(y, w), np.repeat(p, w), metrics=names)
    for m in names:
        # smooth ECE adds a small constant to its smoothed density (relplot's
        # convention), so weights equal repeated rows to about 1e-7 there
        rel = 1e-6 if m == "smece" else 1e-9
        if m == "p_risk":
            # simulated for this profile (CSR <= 1 is now read, not set to 0): counts
            # and repeated rows draw different streams; equal within Monte Carlo error
            assert a[m] == pytest.approx(b[m], abs=0.04), m
            continue
        assert a[m] == pytest.approx(b[m], rel=rel, nan_ok=True), m
