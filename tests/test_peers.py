"""Cross-checks against peer libraries where the definitions overlap.

Each test states the convention it relies on.  scikit-learn and statsmodels are
required (the ``test`` extra and a core dependency); relplot, fairlearn and calzone
are optional peers, skipped when absent.

Conventions, read from each peer's source (scikit-learn ``sklearn/calibration.py``;
relplot 1.0.3, github.com/apple/ml-calibration, ``src/relplot/metrics.py``; calzone
0.1.0, github.com/DIDSR/calzone, ``calzone/metrics.py``; the CWSA authors' code,
github.com/jay-gatz/CWSA at commit c55d6fb, ``Metrics/cwsa.py``):

* scikit-learn ``calibration_curve``: positive-class view, edges ``linspace(0, 1,
  M + 1)`` ("uniform") or ``np.percentile`` ("quantile"), membership by
  ``searchsorted(edges[1:-1], p)``, i.e. ``(lo, hi]`` with 0 in the first bin; it
  returns only the non-empty bins.  calreport's bins are the same, so the non-empty
  bins must coincide, also for scores on an edge.
* relplot ``binnedECE``: bin ``int(f * B)``, i.e. ``[lo, hi)``, with ``f = 1`` in an
  extra bin, and ``sum_b |sum_{i in b} (f_i - y_i)| / N``, which is the
  count-weighted ECE.  With no score on an edge the two conventions put every score
  in the same bin and the ECEs are equal; with scores on edges they differ.
* calzone: bins ``(lo, hi]`` for every bin, so a score of exactly 0 falls in no bin
  and its ECE divides by the binned count; Spiegelhalter's Z without clipping; Cox
  intercept / slope by logistic regression on ``logit(clip(p, 1e-7))``.
* The CWSA authors' published code divides CWSA by N (``normalize="all"``) and
  CWSA+ by ``|S_tau|``; the paper (Shahnazari et al. (2025, arXiv:2505.18622),
  sections 3.2-3.3) divides both by ``|S_tau|``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from sklearn.calibration import calibration_curve
from sklearn.metrics import accuracy_score, brier_score_loss, log_loss, roc_auc_score
from statsmodels.stats.proportion import proportion_confint

import calreport  # noqa: F401  (registers the accessors)
from calreport.metrics import binned, clinical, ranking, scoring, selective

# ----------------------------------------------------------------------- test data
SEED = 20240611


def _binary(n: int = 2000, seed: int = SEED) -> tuple[np.ndarray, np.ndarray]:
    """Continuous positive-class scores (no score on a bin edge) and outcomes drawn
    from a miscalibrated curve, so that every metric is away from its ideal."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.5, n)
    y = (rng.random(n) < p**1.3).astype(np.int64)
    return p, y


def _multiclass(n: int = 1500, k: int = 4, seed: int = SEED
                ) -> tuple[np.ndarray, np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 1.5
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    # outcomes drawn from sharpened probabilities: the scores are underconfident
    truth = proba**1.2 / (proba**1.2).sum(axis=1, keepdims=True)
    y = (rng.random((n, 1)) > truth.cumsum(axis=1)).sum(axis=1)
    return proba, y


#: A hand-checkable example: every score is an exact binary fraction and four of them
#: sit on an edge of 4 equal-width bins, so the (lo, hi] and [lo, hi) conventions give
#: different bins (worked out in test_binned_ece_differs_from_relplot_on_the_edges).
EDGE_P = np.array([0.0, 0.25, 0.25, 0.5, 0.6, 0.75, 1.0, 1.0])
EDGE_Y = np.array([0, 1, 0, 1, 1, 0, 1, 0])


# ------------------------------------------------------------------------- sklearn
@pytest.mark.parametrize("strategy", ["uniform", "quantile"])
@pytest.mark.parametrize("n_bins", [5, 10, 15])
def test_reliability_table_matches_sklearn_calibration_curve(strategy: str,
                                                             n_bins: int) -> None:
    """Non-empty bins of ``reliability_table`` are sklearn's bins, in order."""
    p, y = _binary()
    prob_true, prob_pred = calibration_curve(y, p, n_bins=n_bins, strategy=strategy)
    t = binned.reliability_table(p, y, n_bins=n_bins, strategy=strategy)
    full = t.count > 0
    np.testing.assert_allclose(t.mean_outcome[full], prob_true, rtol=0, atol=1e-12)
    np.testing.assert_allclose(t.mean_score[full], prob_pred, rtol=0, atol=1e-12)


def test_reliability_table_matches_sklearn_with_scores_on_edges() -> None:
    """Both libraries use (lo, hi] with 0 in the first bin: edges agree too."""
    prob_true, prob_pred = calibration_curve(EDGE_Y, EDGE_P, n_bins=4)
    t = binned.reliability_table(EDGE_P, EDGE_Y, n_bins=4)
    np.testing.assert_array_equal(t.count, [3, 1, 2, 2])  # {0,.25,.25} {.5} {.6,.75} {1,1}
    np.testing.assert_allclose(t.mean_outcome, prob_true, atol=1e-15)
    np.testing.assert_allclose(t.mean_score, prob_pred, atol=1e-15)


def test_reliability_table_wilson_intervals_match_statsmodels() -> None:
    p, y = _binary(500)
    t = binned.reliability_table(p, y, n_bins=10, alpha=0.05)
    full = t.count > 0
    hits = np.rint(t.mean_outcome[full] * t.count[full])
    low, high = proportion_confint(hits, t.count[full], alpha=0.05, method="wilson")
    np.testing.assert_allclose(t.ci_low[full], low, atol=1e-12)
    np.testing.assert_allclose(t.ci_high[full], high, atol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_auc_and_cwauc_match_sklearn_binary(weighted: bool) -> None:
    """sklearn's weighted AUC is pair-weighted (w_i w_j): with w = confidence it is
    the cwAUC of Martin-Maroto et al. (2026, arXiv:2605.01796), Proposition 15; ties
    count one half in both."""
    p, y = _binary()
    p = np.round(p, 2)  # ties
    conf = np.maximum(p, 1.0 - p)
    w = np.random.default_rng(1).uniform(0.5, 2.0, p.size) if weighted else None
    assert ranking.auc(y, p, sample_weight=w) == pytest.approx(
        roc_auc_score(y, p, sample_weight=w), rel=1e-12)
    cw_weight = conf if w is None else conf * w
    assert ranking.cwauc(y, p, conf, sample_weight=w) == pytest.approx(
        roc_auc_score(y, p, sample_weight=cw_weight), rel=1e-12)


def test_auc_and_cwauc_match_sklearn_multiclass() -> None:
    proba, y = _multiclass()
    conf = proba.max(axis=1)
    assert ranking.auc(y, proba) == pytest.approx(
        roc_auc_score(y, proba, multi_class="ovr", average="macro"), rel=1e-12)
    per_class = [roc_auc_score(y == k, proba[:, k], sample_weight=conf)
                 for k in range(proba.shape[1])]
    assert ranking.cwauc(y, proba, conf) == pytest.approx(np.mean(per_class), rel=1e-12)


@pytest.mark.parametrize("kind", ["binary", "multiclass"])
def test_brier_and_log_loss_match_sklearn(kind: str) -> None:
    if kind == "binary":
        p, y = _binary()
        proba = p
    else:
        proba, y = _multiclass()
    w = np.random.default_rng(2).uniform(0.0, 3.0, y.size)
    labels = None if kind == "binary" else np.arange(proba.shape[1])
    assert scoring.brier_score(y, proba) == pytest.approx(
        brier_score_loss(y, proba, labels=labels), rel=1e-12)
    assert scoring.brier_score(y, proba, sample_weight=w) == pytest.approx(
        brier_score_loss(y, proba, sample_weight=w, labels=labels), rel=1e-12)
    assert scoring.log_loss(y, proba) == pytest.approx(
        log_loss(y, proba, labels=labels), rel=1e-12)
    assert scoring.log_loss(y, proba, sample_weight=w) == pytest.approx(
        log_loss(y, proba, sample_weight=w, labels=labels), rel=1e-12)


def test_two_column_brier_is_sklearn_scale_by_half() -> None:
    """sklearn >= 1.7 halves the K-column sum for two classes (``scale_by_half``)."""
    p, y = _binary()
    two = np.column_stack([1.0 - p, p])
    assert scoring.brier_score(y, two) == pytest.approx(brier_score_loss(y, p), rel=1e-12)


# ------------------------------------------------------------------------- relplot
def test_binned_ece_matches_relplot_off_the_edges() -> None:
    """No score on an edge: relplot's [lo, hi) bins and our (lo, hi] bins coincide."""
    metrics = pytest.importorskip("relplot.metrics")
    p, y = _binary()
    for n_bins in (10, 15, 20):
        ours = binned.ece(p, y, n_bins=n_bins)
        assert ours == pytest.approx(metrics.binnedECE(p, y, nbins=n_bins), rel=1e-12)


def test_binned_ece_differs_from_relplot_on_the_edges() -> None:
    """The convention difference on EDGE_P, worked by hand:
    (lo, hi] bins {0, .25, .25}, {.5}, {.6, .75}, {1, 1} give ECE 0.29375; relplot's
    [lo, hi) bins {0}, {.25, .25}, {.5, .6}, {.75}, {1, 1} give 0.39375:
    (|0-0| + |.5-1| + |1.1-2| + |.75-0| + |2-1|) / 8 = (0 + .5 + .9 + .75 + 1) / 8."""
    metrics = pytest.importorskip("relplot.metrics")
    assert binned.ece(EDGE_P, EDGE_Y, n_bins=4) == pytest.approx(0.29375, abs=1e-15)
    assert metrics.binnedECE(EDGE_P, EDGE_Y, nbins=4) == pytest.approx(0.39375, abs=1e-15)


# ---------------------------------------------------------------------- fairlearn
def test_groupby_accessor_matches_fairlearn_metric_frame() -> None:
    """Per-group metrics of ``df.groupby(keys).calib`` are fairlearn's ``by_group``,
    with two grouping keys and a custom confidence-weighted metric."""
    fl_metrics = pytest.importorskip("fairlearn.metrics")
    rng = np.random.default_rng(3)
    p, y = _binary(1200)
    df = pd.DataFrame({"y": y, "proba": p, "site": rng.choice(["a", "b", "c"], p.size),
                       "sex": rng.choice(["f", "m"], p.size)})
    got = df.groupby(["site", "sex"]).calib(y="y", proba="proba").summary(
        ["accuracy", "cwa"])
    y_pred = (p >= 0.5).astype(int)
    conf = np.maximum(p, 1.0 - p)

    def cwa(y_true: np.ndarray, y_hat: np.ndarray, conf: np.ndarray) -> float:
        # Martin-Maroto et al. (2026, arXiv:2605.01796), Definition 4, written out
        # independently
        return float(np.sum(conf * (y_true == y_hat)) / np.sum(conf))

    frame = fl_metrics.MetricFrame(
        metrics={"accuracy": accuracy_score, "cwa": cwa}, y_true=y, y_pred=y_pred,
        sensitive_features=df[["site", "sex"]], sample_params={"cwa": {"conf": conf}})
    ref = frame.by_group
    for key in ref.index:
        assert got.loc[key, "accuracy"] == pytest.approx(ref.loc[key, "accuracy"], rel=1e-12)
        assert got.loc[key, "cwa"] == pytest.approx(ref.loc[key, "cwa"], rel=1e-12)
    assert len(got) == len(ref)


# ------------------------------------------------------------------------- calzone
def test_clinical_tests_match_calzone() -> None:
    """Spiegelhalter's Z, the Cox intercept / slope and HL over equal-width groups.

    No score is exactly 0, so calzone's (lo, hi] bins lose no row and the HL groups
    coincide with ours; every group holds both outcomes, so calzone's clipping of the
    group rates to [1e-7, 1 - 1e-7] is inactive.
    """
    cz = pytest.importorskip("calzone.metrics")
    p, y = _binary(5000)
    proba = np.column_stack([1.0 - p, p])
    z, pval = clinical.spiegelhalter_z(p, y)
    cz_z, cz_p = cz.spiegelhalter_z_test(y, proba)
    assert z == pytest.approx(cz_z, rel=1e-10)
    assert pval == pytest.approx(cz_p, rel=1e-8)

    cox = clinical.cox_calibration(p, y)
    slope, intercept, slope_ci, intercept_ci = cz.cox_regression_analysis(y, proba)
    assert cox.slope == pytest.approx(slope, rel=1e-6)
    assert cox.intercept == pytest.approx(intercept, rel=1e-6, abs=1e-9)
    np.testing.assert_allclose(cox.slope_ci, slope_ci, rtol=1e-6)
    np.testing.assert_allclose(cox.intercept_ci, intercept_ci, rtol=1e-6, atol=1e-9)

    rel, conf, _, counts = cz.reliability_diagram(y, proba, num_bins=10, class_to_plot=1)
    assert counts.sum() == p.size and np.all((rel > 0) & (rel < 1))
    cz_hl, cz_hl_p, cz_df = cz.hosmer_lemeshow_test(rel, conf, counts)
    hl = clinical.hosmer_lemeshow(p, y, n_groups=10, strategy="uniform")
    assert hl.statistic == pytest.approx(cz_hl, rel=1e-10)
    assert hl.df == cz_df
    assert hl.pvalue == pytest.approx(cz_hl_p, rel=1e-8)

    cz_ece, _ = cz.calculate_ece_mce(rel, conf, counts)
    assert binned.ece(p, y, n_bins=10) == pytest.approx(cz_ece, rel=1e-12)


def test_calzone_ece_drops_a_score_of_zero() -> None:
    """A score of exactly 0 falls in no calzone bin and its ECE divides by the binned
    count (7 of 8 rows in the hand example): 0.335714; ours keeps it: 0.29375."""
    cz = pytest.importorskip("calzone.metrics")
    proba = np.column_stack([1.0 - EDGE_P, EDGE_P])
    rel, conf, _, counts = cz.reliability_diagram(EDGE_Y, proba, num_bins=4,
                                                  class_to_plot=1)
    mask = counts > 0
    cz_ece, _ = cz.calculate_ece_mce(rel[mask], conf[mask], counts[mask])
    assert counts.sum() == 7
    assert cz_ece == pytest.approx(2.35 / 7, abs=1e-12)  # 0.335714...
    assert binned.ece(EDGE_P, EDGE_Y, n_bins=4) == pytest.approx(0.29375, abs=1e-15)


# ----------------------------------------------------------------------------- CWSA
def _cwsa_published(conf: np.ndarray, correct: np.ndarray, tau: float
                    ) -> tuple[float, float]:
    """CWSA and CWSA+ as the authors' published code computes them
    (github.com/jay-gatz/CWSA at commit c55d6fb, ``Metrics/cwsa.py``), written as an
    explicit loop: CWSA averages the per-row scores over
    all N rows (rejected rows score 0), CWSA+ over the accepted rows; an empty
    acceptance set gives 0 for both."""
    scores, plus, accepted = [], [], 0
    for c, ok in zip(conf, correct, strict=True):
        if c >= tau:
            phi = (c - tau) / (1.0 - tau)
            scores.append(phi * (1.0 if ok else -1.0))
            plus.append(phi * (1.0 if ok else 0.0))
            accepted += 1
        else:
            scores.append(0.0)
    if accepted == 0:
        return 0.0, 0.0
    return sum(scores) / len(conf), sum(plus) / accepted


def _cwsa_paper(conf: np.ndarray, correct: np.ndarray, tau: float) -> tuple[float, float]:
    """Shahnazari et al. (2025, arXiv:2505.18622), sections 3.2-3.3: both means over
    S_tau = {c >= tau} (NaN when empty)."""
    sel = conf >= tau
    if not sel.any():
        return float("nan"), float("nan")
    phi = (conf[sel] - tau) / (1.0 - tau)
    ok = correct[sel].astype(float)
    return float(np.mean(phi * (2 * ok - 1))), float(np.mean(phi * ok))


@pytest.mark.parametrize("tau", [0.0, 0.5, 0.7, 0.9, 0.99])
def test_cwsa_published_normalisation_and_paper_form(tau: float) -> None:
    rng = np.random.default_rng(4)
    conf = rng.uniform(0.3, 1.0, 400)
    correct = rng.random(400) < conf
    pub_cwsa, pub_plus = _cwsa_published(conf, correct, tau)
    pap_cwsa, pap_plus = _cwsa_paper(conf, correct, tau)
    assert selective.cwsa(conf, correct, tau=tau, normalize="all") == pytest.approx(
        pub_cwsa, abs=1e-12)
    assert selective.cwsa(conf, correct, tau=tau) == pytest.approx(pap_cwsa, abs=1e-12)
    # CWSA+ is normalised by |S_tau| in both the code and the paper
    assert selective.cwsa_plus(conf, correct, tau=tau) == pytest.approx(pub_plus, abs=1e-12)
    assert pub_plus == pytest.approx(pap_plus, abs=1e-12)
    cov = selective.coverage(conf, tau=tau)
    assert pub_cwsa == pytest.approx(cov * pap_cwsa, abs=1e-12)


def test_cwsa_empty_selection_conventions() -> None:
    """No confidence reaches tau: the published code returns 0, the paper's formula
    is 0/0 (NaN in calreport's default)."""
    conf = np.array([0.2, 0.4, 0.6])
    correct = np.array([1, 0, 1])
    assert _cwsa_published(conf, correct, 0.9) == (0.0, 0.0)
    assert selective.cwsa(conf, correct, tau=0.9, normalize="all") == 0.0
    assert np.isnan(selective.cwsa(conf, correct, tau=0.9))
    assert np.isnan(selective.cwsa_plus(conf, correct, tau=0.9))
