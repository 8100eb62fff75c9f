"""Propositions of Martin-Maroto et al. (2026, arXiv:2605.01796, appendix A.3) about cwA
and the cw counts, as properties."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calreport.metrics import weighted

#: (K, y_true, y_pred, conf) with codes in 0..K-1 and conf in (0, 1]
labelled = st.integers(min_value=2, max_value=6).flatmap(
    lambda k: st.integers(min_value=1, max_value=120).flatmap(
        lambda n: st.tuples(
            st.just(k),
            st.lists(st.integers(0, k - 1), min_size=n, max_size=n),
            st.lists(st.integers(0, k - 1), min_size=n, max_size=n),
            st.lists(st.floats(0.01, 1.0, allow_nan=False), min_size=n, max_size=n),
        )))


def _arrays(data):
    k, y, pred, conf = data
    return k, np.asarray(y), np.asarray(pred), np.asarray(conf)


@settings(max_examples=100, deadline=None)
@given(labelled)
def test_prop9_cwa_is_accuracy_plus_covariance(data):
    """Prop. 9: cwA = acc + Cov(c, correct) / mean(c)."""
    _, y, pred, conf = _arrays(data)
    ok = y == pred
    cov = np.mean(conf * ok) - conf.mean() * ok.mean()
    assert np.isclose(weighted.cwa(conf, ok), ok.mean() + cov / conf.mean(), atol=1e-12)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.booleans(), min_size=1, max_size=100), st.floats(0.01, 1.0))
def test_corollary10_flat_profile(correct, c):
    """Corollary 10: a flat confidence profile gives cwA = accuracy."""
    ok = np.asarray(correct)
    assert np.isclose(weighted.cwa(np.full(len(ok), c), ok), ok.mean(), atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(labelled)
def test_prop11_structural_relations(data):
    k, y, pred, conf = _arrays(data)
    cts = weighted.cw_confusion(y, pred, conf, n_classes=k)
    total = conf.sum()
    np.testing.assert_allclose(cts.p, cts.tp + cts.fn, atol=1e-9)
    np.testing.assert_allclose(cts.n, cts.fp + cts.tn, atol=1e-9)
    np.testing.assert_allclose(cts.p + cts.n, total, rtol=1e-12)
    np.testing.assert_allclose(cts.tp + cts.fp + cts.fn + cts.tn, total, rtol=1e-12)


@settings(max_examples=100, deadline=None)
@given(labelled)
def test_prop13_cwa_from_counts(data):
    k, y, pred, conf = _arrays(data)
    cts = weighted.cw_confusion(y, pred, conf, n_classes=k)
    assert np.isclose(weighted.cwa(conf, y == pred), cts.tp.sum() / cts.p.sum(), atol=1e-12)


@settings(max_examples=100, deadline=None)
@given(labelled)
def test_prop14_per_class_accuracy_sum(data):
    """Prop. 14: sum_k cwAcc^(k) = (K - 2) + 2 cwA (and the classical remark)."""
    k, y, pred, conf = _arrays(data)
    cw = weighted.classification_metrics(y, pred, conf, n_classes=k, average=None)
    assert np.isclose(cw["class_accuracy"].sum(), (k - 2) + 2 * weighted.cwa(conf, y == pred))
    cl = weighted.classification_metrics(y, pred, n_classes=k, average=None)
    assert np.isclose(cl["class_accuracy"].sum(), (k - 2) + 2 * np.mean(y == pred))


@settings(max_examples=60, deadline=None)
@given(labelled)
def test_unit_confidence_recovers_classical(data):
    k, y, pred, _ = _arrays(data)
    ones = np.ones(len(y))
    a = weighted.classification_metrics(y, pred, ones, n_classes=k, average=None)
    b = weighted.classification_metrics(y, pred, n_classes=k, average=None)
    for key in ("precision", "recall", "f1", "specificity"):
        np.testing.assert_allclose(a[key], b[key], equal_nan=True)


@settings(max_examples=80, deadline=None)
@given(labelled, st.floats(min_value=-300, max_value=300), st.integers(0, 2 ** 32 - 1))
def test_weighted_metrics_invariant_to_weight_scale(data, log10_scale, seed):
    """Relative weights: multiplying all weights by 10**s (s in [-300, 300]) changes nothing."""
    k, y, pred, conf = _arrays(data)
    w = np.random.default_rng(seed).uniform(0.1, 1.0, len(y))
    a = weighted.classification_metrics(y, pred, conf, n_classes=k, sample_weight=w)
    b = weighted.classification_metrics(y, pred, conf, n_classes=k,
                                        sample_weight=w * 10.0 ** log10_scale)
    for key in a:
        assert np.isclose(a[key], b[key], rtol=1e-9, atol=1e-12, equal_nan=True), key
    ok = y == pred
    assert np.isclose(weighted.cwa(conf, ok, sample_weight=w),
                      weighted.cwa(conf, ok, sample_weight=w * 10.0 ** log10_scale))
