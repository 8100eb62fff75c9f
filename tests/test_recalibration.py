"""Recalibration: each calibrator against an independent fit, cross-fitting, the advisor."""

from __future__ import annotations

import pickle

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport.bootstrap.paired import paired_replicates, paired_streams
from calreport.metrics.binned import ece
from calreport.metrics.ranking import auc
from calreport.metrics.risk import csr
from calreport.metrics.scoring import brier_score, log_loss
from calreport.metrics.weighted import cwa
from calreport.profile import ConfidenceProfile
from calreport.recalibration import (
    BetaCalibrator,
    IsotonicCalibrator,
    PlattCalibrator,
    RiskAwareIsotonicCalibrator,
    TemperatureScaling,
    VennAbersCalibrator,
    make_calibrator,
)
from calreport.recalibration.crossfit import canonical_order, cross_fit, stratified_folds
from calreport.settings import Settings

sklearn = pytest.importorskip("sklearn")
from sklearn.isotonic import IsotonicRegression  # noqa: E402
from sklearn.linear_model import LogisticRegression  # noqa: E402

TOL = 1e-8


def _binary(n=600, seed=0, power=2.0):
    rng = np.random.default_rng(seed)
    s = rng.uniform(0.02, 0.98, n)
    y = (rng.random(n) < s**power).astype(int)
    return s, y


def _multiclass(n=900, k=4, seed=1):
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)) * 2.0
    true = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=p) for p in true])
    sharp = np.exp(2.0 * logits)  # an overconfident model of the same ranking
    return sharp / sharp.sum(axis=1, keepdims=True), y


def _logistic(X, y, w=None):
    lr = LogisticRegression(C=1e12, solver="newton-cholesky", tol=1e-14, max_iter=1000)
    return lr.fit(X, y, sample_weight=w)


def _logit(s):
    q = np.clip(s, 1e-12, 1 - 1e-12)
    return np.log(q) - np.log1p(-q)


# ---------------------------------------------------------------- each calibrator
@pytest.mark.parametrize("weighted", [False, True])
def test_platt_labels_equals_logistic_regression_on_the_logit(weighted):
    s, y = _binary()
    w = np.random.default_rng(3).uniform(0.2, 2.0, s.size) if weighted else None
    got = PlattCalibrator(targets="labels").fit(s, y, w).predict_proba(s)[:, 1]
    # the calibrator scales weights to mean one; the optimum does not depend on it
    ref = _logistic(_logit(s)[:, None], y, w).predict_proba(_logit(s)[:, None])[:, 1]
    np.testing.assert_allclose(got, ref, atol=TOL, rtol=0)


def test_beta_equals_logistic_regression_on_log_features():
    s, y = _binary(power=0.6, seed=4)
    X = np.column_stack([np.log(s), -np.log1p(-s)])
    lr = _logistic(X, y)
    assert (lr.coef_ > 0).all()  # the constraint a, b >= 0 is inactive here
    got = BetaCalibrator().fit(s, y).predict_proba(s)[:, 1]
    np.testing.assert_allclose(got, lr.predict_proba(X)[:, 1], atol=TOL, rtol=0)


def test_beta_refits_without_a_negative_coefficient():
    # outcomes that fall with ln s near 0 but rise near 1: the free fit has a < 0
    rng = np.random.default_rng(5)
    s = rng.uniform(0.01, 0.99, 800)
    p = np.where(s < 0.5, 0.3 - 0.4 * s, 0.1 + 1.6 * (s - 0.5))
    y = (rng.random(800) < np.clip(p, 0.01, 0.99)).astype(int)
    cal = BetaCalibrator().fit(s, y)
    a, b, _ = cal.maps_[0]
    assert a >= 0 and b >= 0
    assert np.all(np.diff(cal.predict_proba(np.sort(s))[:, 1]) >= -1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_isotonic_equals_scikit_learn(weighted):
    s, y = _binary(n=500, seed=6)
    s = np.round(s, 2)  # ties, pooled by both
    w = np.random.default_rng(7).uniform(0.1, 3.0, s.size) if weighted else None
    test = np.r_[np.linspace(0, 1, 101), s[:50]]
    got = IsotonicCalibrator().fit(s, y, w).predict_proba(test)[:, 1]
    ref = IsotonicRegression(out_of_bounds="clip").fit(s, y, sample_weight=w).predict(test)
    np.testing.assert_allclose(got, ref, atol=TOL, rtol=0)


def test_temperature_minimises_the_log_loss():
    from scipy.optimize import minimize_scalar

    P, y = _multiclass()
    ts = TemperatureScaling().fit(P, y)
    z = np.log(P)

    def nll(beta):
        bz = beta * z
        bz -= bz.max(axis=1, keepdims=True)
        logp = bz - np.log(np.exp(bz).sum(axis=1, keepdims=True))
        return -logp[np.arange(len(y)), y].sum()

    ref = minimize_scalar(nll, bounds=(1e-3, 10), method="bounded",
                          options={"xatol": 1e-13}).x
    assert ts.temperature_ > 1  # the sharpened model is cooled down
    np.testing.assert_allclose(1 / ts.temperature_, ref, atol=1e-7)
    out = ts.predict_proba(P)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)
    assert (out.argmax(axis=1) == P.argmax(axis=1)).all()


def test_temperature_binary_is_platt_without_intercept():
    s, y = _binary(seed=8)
    ts = TemperatureScaling().fit(s, y)
    lr = LogisticRegression(C=1e12, fit_intercept=False, solver="newton-cholesky",
                            tol=1e-14).fit(_logit(s)[:, None], y)
    np.testing.assert_allclose(1 / ts.temperature_, lr.coef_[0, 0], atol=1e-7)


def _brute_force_venn_abers(s, y, w, t):
    """Fit isotonic twice with the test point labelled 0 and 1 (scikit-learn)."""
    out = []
    for label, shift in ((0, -1e-9), (1, 1e-9)):  # ties: p0 below, p1 above
        ir = IsotonicRegression(out_of_bounds="clip").fit(
            np.r_[s, t + shift], np.r_[y, label], sample_weight=np.r_[w, 1.0])
        out.append(ir.predict([t + shift])[0])
    return out


@pytest.mark.parametrize("seed", range(6))
def test_venn_abers_against_brute_force(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 60))
    s = np.round(rng.random(n), 1 if seed % 2 else 6)
    y = (rng.random(n) < s).astype(int)
    w = rng.uniform(0.2, 2.0, n) if seed % 3 == 0 else np.ones(n)
    w = w * n / w.sum()  # the test point weighs one mean calibration row
    va = VennAbersCalibrator().fit(s, y, w, classes=[0, 1])
    tests = np.r_[rng.random(10), s[:5], 0.0, 1.0]
    p0, p1 = va.predict_interval(tests)
    p = va.predict_proba(tests)[:, 1]
    for t, a0, a1, pt in zip(tests, p0, p1, p, strict=True):
        b0, b1 = _brute_force_venn_abers(s, y, w, t)
        assert abs(a0 - b0) < TOL and abs(a1 - b1) < TOL
        assert abs(pt - b1 / (1 - b0 + b1)) < TOL


def test_venn_abers_hand_worked():
    # calibration (0.2, 0), (0.4, 1), (0.6, 0); test 0.5 labelled 1: 0, 1, [1], 0 ->
    # PAV pools 1, 1, 0 -> p1 = 2/3; labelled 0: 0, 1, [0], 0 -> p0 = 1/3
    va = VennAbersCalibrator().fit([0.2, 0.4, 0.6], [0, 1, 0])
    p0, p1 = va.predict_interval([0.5])
    assert p0[0] == pytest.approx(1 / 3) and p1[0] == pytest.approx(2 / 3)
    assert va.predict_proba([0.5])[0, 1] == pytest.approx((2 / 3) / (1 - 1 / 3 + 2 / 3))


def test_risk_aware_isotonic_plateaus_are_jeffreys_means_never_0_or_1():
    s, y = _binary(n=400, seed=9)
    cal = RiskAwareIsotonicCalibrator(level=None).fit(s, y)
    p = cal.predict_proba(np.linspace(0, 1, 1001))[:, 1]
    assert p.min() > 0 and p.max() < 1
    assert np.all(np.diff(p) >= -1e-15)
    # the top plateau of plain isotonic is all positives: (k + 1/2) / (n + 1) instead of 1
    iso = IsotonicRegression().fit(s, y)
    top = iso.predict(s) == iso.predict(s).max()
    assert iso.predict(s).max() == 1.0
    n_top = int(top.sum())
    assert p.max() == pytest.approx((n_top + 0.5) / (n_top + 1.0))


def test_risk_aware_default_takes_the_one_sigma_posterior_bound():
    from scipy.stats import beta

    s, y = _binary(n=400, seed=9)
    p = RiskAwareIsotonicCalibrator().fit(s, y).predict_proba(np.linspace(0, 1, 1001))[:, 1]
    iso = IsotonicRegression().fit(s, y)
    fitted = iso.predict(s)
    n_top = int((fitted == 1.0).sum())  # an error-free top plateau: Beta(n + 1/2, 1/2)
    n_bottom = int((fitted == 0.0).sum())  # an all-negative bottom: Beta(1/2, n + 1/2)
    assert n_top and n_bottom
    assert p.max() == pytest.approx(beta.ppf(1 - 0.8413, n_top + 0.5, 0.5), rel=1e-9)
    assert p.min() == pytest.approx(beta.ppf(0.8413, 0.5, n_bottom + 0.5), rel=1e-9)
    assert np.all(np.diff(p) >= -1e-15)


def test_risk_aware_rejects_a_bad_prior():
    s, y = _binary(n=50)
    with pytest.raises(ValueError, match="`prior` must be a pair"):
        RiskAwareIsotonicCalibrator(prior=(0.0, 1.0)).fit(s, y)


@pytest.mark.parametrize("method", ["platt", "beta", "isotonic", "venn_abers",
                                    "risk_aware_isotonic"])
@pytest.mark.parametrize("multiclass", ["ovr", "top_label"])
def test_multiclass_rows_sum_to_one(method, multiclass):
    P, y = _multiclass(n=300)
    out = make_calibrator(method, multiclass).fit(P, y).predict_proba(P)
    np.testing.assert_allclose(out.sum(axis=1), 1.0, atol=1e-12)
    assert (out >= 0).all()
    if multiclass == "top_label":  # the predicted class stays on top
        top = out[np.arange(len(y)), P.argmax(axis=1)]
        assert (top >= out.max(axis=1)).all()


def test_ovr_is_the_binary_fit_per_class_renormalised():
    P, y = _multiclass(n=300)
    out = PlattCalibrator().fit(P, y).predict_proba(P)
    cols = [PlattCalibrator().fit(P[:, k], (y == k).astype(int)).predict_proba(P[:, k])[:, 1]
            for k in range(P.shape[1])]
    Q = np.column_stack(cols)
    np.testing.assert_allclose(out, Q / Q.sum(axis=1, keepdims=True), atol=1e-12)


def test_string_labels_and_classes():
    s, y = _binary(n=200)
    labels = np.where(y == 1, "spam", "ham")
    cal = PlattCalibrator().fit(s, labels)
    assert cal.classes_.tolist() == ["ham", "spam"]
    assert set(cal.predict(s)) <= {"ham", "spam"}


def test_sample_weight_integer_equals_repeated_rows():
    s, y = _binary(n=150, seed=10)
    reps = np.random.default_rng(11).integers(0, 4, s.size)
    # Platt's targets count rows, not units (test_platt_targets_count_rows_by_weight)
    for method, make in (("platt", lambda: PlattCalibrator(targets="labels")),
                         ("beta", lambda: make_calibrator("beta")),
                         ("isotonic", lambda: make_calibrator("isotonic"))):
        a = make().fit(s, y, reps).predict_proba(s)
        b = make().fit(np.repeat(s, reps), np.repeat(y, reps)).predict_proba(s)
        np.testing.assert_allclose(a, b, atol=1e-7, err_msg=method)


def test_weights_are_relative():
    # Venn-Abers' test point and the Jeffreys prior weigh one mean row: only the ratios
    # of the weights matter (importance weights), for every method
    s, y = _binary(n=150, seed=12)
    w = np.random.default_rng(13).uniform(0.1, 2.0, s.size)
    for method in ("platt", "temperature", "beta", "isotonic", "venn_abers",
                   "risk_aware_isotonic"):
        a = make_calibrator(method).fit(s, y, w).predict_proba(s)
        b = make_calibrator(method).fit(s, y, 1000.0 * w).predict_proba(s)
        np.testing.assert_allclose(a, b, atol=1e-9, err_msg=method)


@pytest.mark.parametrize("method", ["platt", "temperature", "beta", "isotonic",
                                    "venn_abers", "risk_aware_isotonic"])
def test_pickle_round_trip_and_params(method):
    s, y = _binary(n=200)
    cal = make_calibrator(method).fit(s, y)
    back = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(back.predict_proba(s), cal.predict_proba(s))
    assert back.get_params() == cal.get_params()
    fresh = sklearn.base.clone(cal)
    assert fresh.get_params() == cal.get_params() and not hasattr(fresh, "classes_")


@pytest.mark.parametrize("method", ["none", "platt", "temperature", "beta", "isotonic",
                                    "venn_abers", "risk_aware_isotonic"])
def test_recalibrator_is_the_named_method(method):
    from calreport import Recalibrator

    P, y = _multiclass(n=300)
    rc = Recalibrator(method, multiclass="top_label").fit(P, y)
    ref = make_calibrator(method, "top_label").fit(P, y)
    np.testing.assert_array_equal(rc.predict_proba(P), ref.predict_proba(P))
    assert sklearn.base.clone(rc).get_params() == {"method": method,
                                                   "multiclass": "top_label"}


def test_set_params_rejects_unknown():
    with pytest.raises(ValueError, match="Invalid parameter 'bins'"):
        PlattCalibrator().set_params(bins=3)
    assert PlattCalibrator().set_params(C=2.0).C == 2.0


def test_pipeline_after_a_fitted_model():
    from sklearn.datasets import load_breast_cancer
    from sklearn.ensemble import HistGradientBoostingClassifier
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import FunctionTransformer

    X, y = load_breast_cancer(return_X_y=True)
    model = HistGradientBoostingClassifier(max_iter=30, random_state=0).fit(X[:300],
                                                                            y[:300])
    pipe = make_pipeline(FunctionTransformer(model.predict_proba), VennAbersCalibrator())
    pipe.fit(X[300:450], y[300:450])
    out = pipe.predict_proba(X[450:])
    direct = VennAbersCalibrator().fit(model.predict_proba(X[300:450]), y[300:450])
    np.testing.assert_array_equal(out, direct.predict_proba(model.predict_proba(X[450:])))
    assert pipe.predict(X[450:]).shape == (len(X) - 450,)


def test_errors_name_the_argument():
    s, y = _binary(n=20)
    with pytest.raises(ValueError, match="`scores` must hold probabilities"):
        PlattCalibrator().fit(s * 3, y)
    with pytest.raises(ValueError, match="`y` has 19 labels for 20"):
        PlattCalibrator().fit(s, y[:-1])
    with pytest.raises(ValueError, match="`sample_weight` must be finite and non-negative"):
        PlattCalibrator().fit(s, y, -np.ones(20))
    with pytest.raises(ValueError, match="not fitted yet"):
        PlattCalibrator().predict_proba(s)
    with pytest.raises(ValueError, match="`multiclass` must be one of"):
        PlattCalibrator(multiclass="pairwise").fit(s, y)
    with pytest.raises(ValueError, match="Unknown recalibration method 'sigmoid'"):
        make_calibrator("sigmoid")


# ------------------------------------------------------------------ cross-fitting
def test_cross_fit_never_scores_a_row_with_its_own_fit():
    hypothesis = pytest.importorskip("hypothesis")
    st = pytest.importorskip("hypothesis.strategies")

    @hypothesis.settings(max_examples=40, deadline=None)
    @hypothesis.given(n=st.integers(10, 80), k=st.integers(2, 5), seed=st.integers(0, 99))
    def check(n, k, seed):
        rng = np.random.default_rng(seed)
        s = rng.random(n)
        y = np.r_[0, 1, rng.integers(0, 2, n - 2)]
        P = np.column_stack([1 - s, s])
        order = canonical_order(P, y, None)
        folds = stratified_folds(y, k, seed, order)
        out = cross_fit("isotonic", P, y, None, folds)
        for f in np.unique(folds):
            train = folds != f
            # a calibrator fitted without fold f scores fold f exactly as cross_fit did
            ref = IsotonicCalibrator().fit(P[train], y[train], classes=[0, 1])
            np.testing.assert_array_equal(out[folds == f], ref.predict_proba(P[folds == f]))
            # and flipping the labels of fold f's rows does not change their scores
            y2 = y.copy()
            y2[folds == f] = 1 - y2[folds == f]
            ref2 = IsotonicCalibrator().fit(P[train], y2[train], classes=[0, 1])
            np.testing.assert_array_equal(ref2.predict_proba(P[folds == f]),
                                          out[folds == f])

    check()


def test_folds_are_stratified():
    y = np.r_[np.zeros(50, int), np.ones(23, int)]
    folds = stratified_folds(y, 5, 0, np.arange(y.size))
    for k in (0, 1):
        counts = np.bincount(folds[y == k], minlength=5)
        assert counts.max() - counts.min() <= 1


# -------------------------------------------------------------------- the advisor
def _frame(n=800, seed=0):
    s, y = _binary(n=n, seed=seed)
    return pd.DataFrame({"y": y, "p": s})


def _replicate_counts(n, n_boot, seed, order):
    """Each replicate's counts of the rows in their input order, drawn again from the
    streams the paired replicates use (counts refer to the rows in ``order``)."""
    sampler, streams = paired_streams(seed, n, n_boot)
    drawn = sampler.draw_block(streams, 0, n_boot).astype(float)
    counts = np.empty_like(drawn)
    counts[:, order] = drawn
    return counts


@pytest.mark.parametrize("kind", ["multiclass", "binary_ties", "frequency", "importance"])
def test_paired_replicates_are_the_library_metrics_of_the_resampled_rows(kind):
    weights = {"weights": kind} if kind in ("frequency", "importance") else {}
    if kind != "binary_ties":
        P, y = _multiclass(n=300)
        cal = P ** 0.5 / (P ** 0.5).sum(axis=1, keepdims=True)  # a second "method"
    else:
        s, y = _binary(n=300)
        P, cal = np.round(s, 2), np.round(np.sqrt(s), 2)
    rng = np.random.default_rng(3)
    sw = (None if not weights else rng.integers(1, 4, 300).astype(float)
          if kind == "frequency" else rng.uniform(0.2, 3.0, 300))
    profiles = {"none": ConfidenceProfile.from_arrays(y, P, sample_weight=sw, **weights),
                "other": ConfidenceProfile.from_arrays(y, cal, sample_weight=sw, **weights)}
    order = np.random.default_rng(7).permutation(300)
    seed = np.random.SeedSequence(4)
    names = ["log_loss", "brier", "ece", "csr", "cwa", "auc"]
    reps = paired_replicates(profiles, Settings(), names, n_boot=3, seed=seed, order=order)
    counts = _replicate_counts(300, 3, seed, order)
    for key, proba in (("none", P), ("other", cal)):
        prof = profiles[key]
        score, outcome = prof.view()
        for r, c in enumerate(counts):  # the same counts for both methods: paired
            w = c if sw is None else c * sw
            want = {"log_loss": log_loss(y, proba, sample_weight=w),
                    "brier": brier_score(y, proba, sample_weight=w),
                    "csr": csr(prof.conf, prof.correct, sample_weight=w),
                    "cwa": cwa(prof.conf, prof.correct, sample_weight=w),
                    "ece": ece(score, outcome, sample_weight=w),
                    "auc": auc(y, proba, sample_weight=w)}
            for m in names:
                assert reps[key][m][r] == pytest.approx(want[m], abs=1e-12), (key, m, r)


def test_paired_replicates_do_not_depend_on_the_input_row_order():
    s, y = _binary(n=400)
    prof = ConfidenceProfile.from_arrays(y, s)
    perm = np.random.default_rng(1).permutation(400)
    shuffled = ConfidenceProfile.from_arrays(y[perm], s[perm])
    a = paired_replicates({"m": prof}, Settings(), ["brier", "auc"], n_boot=20, seed=3,
                          order=canonical_order(s[:, None], y, None))
    b = paired_replicates({"m": shuffled}, Settings(), ["brier", "auc"], n_boot=20, seed=3,
                          order=canonical_order(s[perm][:, None], y[perm], None))
    for m in ("brier", "auc"):
        np.testing.assert_allclose(a["m"][m], b["m"][m], rtol=0, atol=1e-12)


def test_table_values_are_the_library_summary_of_the_out_of_fold_scores():
    df = _frame()
    res = df.calib(y="y", proba="p").recalibrate(["platt"], n_boot=20)
    none = res.table.loc["none"]
    direct = df.calib(y="y", proba="p").summary(["log_loss", "brier", "ece", "csr", "cwa",
                                                 "auc"])
    for k in ("log_loss", "brier", "ece", "csr", "cwa", "auc"):
        assert none[k] == pytest.approx(direct[k], abs=1e-12)


def test_none_against_itself_is_exactly_zero():
    res = _frame().calib(y="y", proba="p").recalibrate(n_boot=30)
    none = res.table.loc["none"]
    for k in ("log_loss", "brier", "ece", "csr", "cwa", "auc"):
        assert none[f"{k}_diff"] == 0.0
        assert none[f"{k}_diff_low"] == 0.0 and none[f"{k}_diff_high"] == 0.0


def test_row_order_does_not_change_results():
    df = _frame(seed=3)
    a = df.calib(y="y", proba="p").recalibrate(n_boot=30, seed=1).table
    shuffled = df.sample(frac=1.0, random_state=5)
    b = shuffled.calib(y="y", proba="p").recalibrate(n_boot=30, seed=1).table
    pd.testing.assert_frame_equal(a, b, rtol=1e-9, atol=1e-12)


def test_group_order_does_not_change_results():
    df = pd.concat([_frame(300, 1).assign(g="a"), _frame(300, 2).assign(g="b")])
    a = df.groupby("g").calib(y="y", proba="p").recalibrate(["platt", "isotonic"],
                                                            n_boot=20)
    b = df.groupby("g", sort=False).calib(y="y", proba="p")
    flipped = pd.concat([df[df.g == "b"], df[df.g == "a"]]).groupby("g", sort=False)
    b = flipped.calib(y="y", proba="p").recalibrate(["platt", "isotonic"], n_boot=20)
    for key in ("a", "b"):
        pd.testing.assert_frame_equal(a.table.loc[key], b.table.loc[key], rtol=1e-9,
                                      atol=1e-12)
        assert a.recommended[key] == b.recommended[key]
    alone = df[df.g == "a"].calib(y="y", proba="p").recalibrate(["platt", "isotonic"],
                                                                n_boot=20)
    del alone  # a group's seed comes from its key, not from the frame: not compared


def test_recommendation_never_worsens_the_band_and_says_why():
    df = _frame(n=1500)
    res = df.calib(y="y", proba="p").recalibrate(n_boot=50)
    severity = {"no_evidence": 0, "undetermined": 1, "evidence": 2, "risky": 3}
    t = res.table
    best = res.recommended
    assert severity[t.loc[best, "band"]] <= severity[t.loc["none", "band"]]
    assert best != "none" and t.loc[best, "log_loss_diff"] < 0  # s**2 is far off
    assert "log loss" in res.reason
    assert "recommended" in repr(res) and "<table" in res._repr_html_()


def _table(rows: dict) -> pd.DataFrame:
    """An advisor table: method -> (log loss, interval of the change, band)."""
    base = rows["none"][0]
    out = pd.DataFrame({m: {"log_loss": ll, "log_loss_diff": ll - base,
                            "log_loss_diff_low": lo, "log_loss_diff_high": hi,
                            "band": band, "csr": 1.0}
                        for m, (ll, lo, hi, band) in rows.items()}).T
    return out.astype({c: float for c in out.columns if c != "band"})


def _reps(spread: dict) -> dict:
    """Replicates of each method's log loss: its value plus a shared noise times a
    method's own spread (0.1: tells apart at 0.05, 0.001: does not)."""
    z = np.random.default_rng(0).standard_normal(400)
    own = np.random.default_rng(1).standard_normal((len(spread), 400))
    return {m: {"log_loss": ll + 0.3 * z + sd * own[i]}
            for i, (m, (ll, sd)) in enumerate(spread.items())}


def test_advisor_rule_hand_worked():
    """The simplest method the intervals cannot tell from the lowest log loss."""
    from calreport.recalibration.advisor import _recommend
    rows = {"none": (0.50, 0.0, 0.0, "risky"),
            "temperature": (0.402, -0.2, -0.05, "no_evidence"),
            "platt": (0.401, -0.2, -0.05, "no_evidence"),
            "beta": (0.400, -0.2, -0.05, "undetermined"),
            "isotonic": (0.300, -0.3, -0.1, "evidence")}
    tight = {m: (v[0], 0.001) for m, v in rows.items()}
    # isotonic is lowest by 0.1, far beyond the noise (0.001): it alone
    pick, why = _recommend(_table(rows), 0.95, _reps(tight))
    assert pick == "isotonic" and "the largest gain" in why
    # without it, the parametric methods are 0.001 apart, within the noise: the
    # simplest (temperature scaling, one parameter) rather than the lowest (beta)
    rows.pop("isotonic")
    tight.pop("isotonic")
    pick, why = _recommend(_table(rows), 0.95, _reps(tight))
    assert pick == "temperature"
    assert "simplest method whose log loss cannot be told apart" in why
    assert "beta calibration's 0.4" in why and "Platt scaling" in why
    # no method's gain established (every interval of the change includes 0) and none
    # improves the band: no recalibration is the simplest
    rows = {"none": (0.50, 0.0, 0.0, "no_evidence"),
            "temperature": (0.49, -0.05, 0.03, "no_evidence"),
            "beta": (0.48, -0.06, 0.02, "no_evidence")}
    wide = {m: (v[0], 0.05) for m, v in rows.items()}
    pick, why = _recommend(_table(rows), 0.95, _reps(wide))
    assert pick == "none" and "Keep the scores as they are" in why
    # an established gain of any method keeps a recalibration (the simplest alike)
    rows["temperature"] = (0.49, -0.05, -0.001, "no_evidence")
    assert _recommend(_table(rows), 0.95, _reps(wide))[0] == "temperature"
    # so does a method that improves the band, gain established or not
    rows = {"none": (0.50, 0.0, 0.0, "evidence"),
            "temperature": (0.49, -0.05, 0.03, "no_evidence"),
            "beta": (0.48, -0.06, 0.02, "evidence")}
    assert _recommend(_table(rows), 0.95, _reps(wide))[0] == "temperature"
    # methods told apart: the lowest, even when its gain is not established
    tight = {m: (v[0], 0.001) for m, v in rows.items()}
    assert _recommend(_table(rows), 0.95, _reps(tight))[0] == "beta"


def test_recommendation_does_not_change_with_the_seed():
    """Methods within noise of each other trade places from seed to seed; their
    simplest does not (the lowest-log-loss rule named beta for seeds 0, 1 and 3 of
    these rows and Platt scaling for seed 2)."""
    from calreport.datasets import load_breast_cancer

    df = load_breast_cancer()
    raw = df[df["calibration"] == "raw"]
    acc = raw.calib(y="y_true", proba="proba_benign", pos_label="benign")
    picks = {str(acc.recalibrate(seed=s, n_boot=100, progress=False).recommended)
             for s in range(4)}
    assert picks == {"temperature"}


def test_measured_coverage_is_carried_and_printed():
    import html

    from calreport.recalibration.advisor import INTERVAL_COVERAGE, coverage_note

    # the statement names the scores the recommendation uses and the study behind it
    for words in ("log loss", "Brier", "ECE", "CSR", "recalibration_coverage"):
        assert words in INTERVAL_COVERAGE
    df = _frame()
    res = df.calib(y="y", proba="p").recalibrate(["platt"], n_boot=200)
    assert res.options["coverage"] == INTERVAL_COVERAGE
    assert isinstance(res.options["coverage"], str)
    assert f"Interval coverage: {INTERVAL_COVERAGE}" in repr(res)
    assert html.escape(INTERVAL_COVERAGE) in res._repr_html_()
    grouped = pd.concat([_frame(200, 1).assign(g="a"), _frame(200, 2).assign(g="b")])
    res = grouped.groupby("g").calib(y="y", proba="p").recalibrate(["platt"], n_boot=20)
    note = res.options["coverage"]
    assert note == coverage_note(0.95, 20) and note.endswith(INTERVAL_COVERAGE)
    assert "20 add Monte Carlo error" in note and note in repr(res)
    res = df.calib(y="y", proba="p").recalibrate(["platt"], n_boot=20, ci=0.9)
    assert res.options["coverage"].startswith("Coverage not measured at the 90 % level")
    assert res.options["coverage"] in repr(res)


def test_fit_returns_the_shipped_calibrator():
    df = _frame()
    res = df.calib(y="y", proba="p").recalibrate(["platt", "isotonic"], n_boot=20)
    cal = res.fit()
    ref = make_calibrator(res.recommended).fit(df["p"].to_numpy(), df["y"].to_numpy())
    np.testing.assert_allclose(cal.predict_proba(df["p"]), ref.predict_proba(df["p"]),
                               atol=1e-12)
    grouped = df.assign(g=np.arange(len(df)) % 2).groupby("g").calib(y="y", proba="p")
    fits = grouped.recalibrate(["platt"], n_boot=20).fit(method="platt")
    assert set(fits) == {0, 1}


def test_multiclass_advisor_and_weights():
    P, y = _multiclass(n=600)
    df = pd.DataFrame(P, columns=[f"p_{k}" for k in range(4)]).assign(
        y=y, w=np.random.default_rng(0).uniform(0.5, 2, 600))
    res = df.calib(y="y", proba=[f"p_{k}" for k in range(4)], weight="w").recalibrate(
        ["temperature", "platt"], n_boot=20)
    assert res.table.loc["temperature", "log_loss_diff"] < 0  # the model is too sharp
    assert list(res.table.index) == ["none", "temperature", "platt"]


def test_advisor_errors():
    acc = _frame().calib(y="y", proba="p")
    with pytest.raises(ValueError, match="`methods` names unknown methods"):
        acc.recalibrate(["sigmoid"])
    with pytest.raises(ValueError, match="`n_splits` must be an integer >= 2"):
        acc.recalibrate(n_splits=1)
    with pytest.raises(ValueError, match="`ci` must be a level"):
        acc.recalibrate(ci=95)
    conf_only = pd.DataFrame({"conf": [0.9, 0.8] * 10, "correct": [1, 0] * 10})
    with pytest.raises(ValueError, match="needs true labels and class probabilities"):
        conf_only.calib(conf="conf", correct="correct").recalibrate()


# ------------------------------------------------------------------------ the CLI
def test_cli_writes_the_calibrators_and_the_table(tmp_path, capsys):
    from calreport.cli import main

    df = pd.concat([_frame(400, 1).assign(model="a"), _frame(400, 2).assign(model="b")])
    data = tmp_path / "data.csv"
    df.to_csv(data, index=False)
    out, tab = tmp_path / "calibrator.pkl", tmp_path / "table.csv"
    code = main(["recalibrate", str(data), "--by", "model", "-o", str(out), "--table",
                 str(tab), "--methods", "platt,isotonic", "--n-boot", "20"])
    assert code == 0
    printed = capsys.readouterr().out
    assert "recommended for a:" in printed and "recommended for b:" in printed
    with open(out, "rb") as fh:
        fitted = pickle.load(fh)
    assert set(fitted) == {"a", "b"}
    api = df.groupby("model").calib(y="y", proba="p").recalibrate(["platt", "isotonic"],
                                                                  n_boot=20)
    for key, cal in fitted.items():
        ref = api.fit(group=key)
        np.testing.assert_array_equal(cal.predict_proba([0.2, 0.7]),
                                      ref.predict_proba([0.2, 0.7]))
    table = pd.read_csv(tab, index_col=[0, 1])
    assert table.shape[0] == 6 and "log_loss_diff_high" in table.columns


def test_cli_usage_errors(tmp_path, capsys):
    from calreport.cli import main

    data = tmp_path / "data.csv"
    _frame(100).to_csv(data, index=False)
    code = main(["recalibrate", str(data), "-o", str(tmp_path / "x.pkl"), "--methods",
                 "platt,sigmoid"])
    assert code == 2
    assert "unknown methods ['sigmoid']" in capsys.readouterr().err
    code = main(["recalibrate", str(data), "-o", str(tmp_path / "nowhere" / "x.pkl")])
    assert code == 2
    assert "folder does not exist" in capsys.readouterr().err


# ------------------------------------------------- Platt's targets (Platt 1999, 2.2)
def _sklearn_sigmoid(s, y, w=None):
    """scikit-learn's CalibratedClassifierCV(method="sigmoid") on a frozen model whose
    decision function is logit(s): the same feature as PlattCalibrator's."""
    import warnings

    from sklearn.base import BaseEstimator, ClassifierMixin
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.frozen import FrozenEstimator

    class LogitModel(ClassifierMixin, BaseEstimator):
        def fit(self, X, y):
            self.classes_ = np.array([0, 1])
            return self

        def decision_function(self, X):
            return _logit(np.asarray(X)[:, 0])

        def predict(self, X):
            return (self.decision_function(X) > 0).astype(int)

    X = s[:, None]
    with warnings.catch_warnings():
        # "FrozenEstimator does not accept sample_weight": the model is not refitted
        warnings.simplefilter("ignore", UserWarning)
        cal = CalibratedClassifierCV(FrozenEstimator(LogitModel().fit(X, y)),
                                     method="sigmoid").fit(X, y, sample_weight=w)
    return cal.predict_proba(X)[:, 1]


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("weighted", [False, True])
def test_platt_default_equals_scikit_learn_sigmoid(seed, weighted):
    s, y = _binary(seed=seed)
    w = np.random.default_rng(seed + 20).uniform(0.2, 2.0, s.size) if weighted else None
    if w is not None:
        w = w / w.mean()  # scikit-learn's N+ and N- are the weights as given
    cal = PlattCalibrator().fit(s, y, w)
    assert cal.get_params()["targets"] == "platt"
    np.testing.assert_allclose(cal.predict_proba(s)[:, 1], _sklearn_sigmoid(s, y, w),
                               atol=TOL, rtol=0)


def test_platt_targets_count_rows_by_weight():
    from calreport.recalibration.parametric import platt_targets

    y = np.array([1.0, 1.0, 1.0, 0.0])
    np.testing.assert_allclose(platt_targets(y, np.ones(4)), [0.8, 0.8, 0.8, 1 / 3])
    # a row of weight zero adds nothing; the calibrator scales weights to mean one
    w = np.array([1.0, 0.0, 1.0, 2.0])
    np.testing.assert_allclose(platt_targets(y, w), [0.75, 0.75, 0.75, 0.25])
    # integer (frequency) weights: the same fit as scikit-learn's on the weights scaled
    # to mean one, and as any other scale of them (only the ratios matter)
    s, yb = _binary(n=150, seed=10)
    reps = np.random.default_rng(11).integers(1, 4, s.size).astype(float)
    got = PlattCalibrator().fit(s, yb, reps).predict_proba(s)[:, 1]
    np.testing.assert_allclose(got, _sklearn_sigmoid(s, yb, reps / reps.mean()),
                               atol=TOL, rtol=0)
    np.testing.assert_allclose(
        got, PlattCalibrator().fit(s, yb, 7.0 * reps).predict_proba(s)[:, 1],
        atol=1e-12, rtol=0)


def test_platt_separable_fold_keeps_a_finite_slope():
    rng = np.random.default_rng(30)
    s = np.r_[rng.uniform(0.05, 0.45, 20), rng.uniform(0.55, 0.95, 10)]
    y = np.r_[np.zeros(20), np.ones(10)].astype(int)
    a, b = PlattCalibrator().fit(s, y).maps_[0]
    assert np.isfinite(a) and np.isfinite(b) and 0 < a < 10
    p = PlattCalibrator().fit(s, y).predict_proba(s)[:, 1]
    assert ((p > 0) & (p < 1)).all()
    # within Platt's targets' range: no certainty the 30 rows cannot support
    assert p.min() > 1e-3 and p.max() < 1 - 1e-3
    # scikit-learn's L-BFGS-B stops at a gradient of 1e-6 (here 1.3e-7 on the slope,
    # ours 1.1e-8): the two differ by 1.0e-8 on this ill-conditioned fit
    np.testing.assert_allclose(p, _sklearn_sigmoid(s, y), atol=1e-7, rtol=0)
    # plain maximum likelihood runs the slope off toward infinity: 0 and 1
    a_ml, _ = PlattCalibrator(targets="labels").fit(s, y).maps_[0]
    assert a_ml > 10 * a
    p_ml = PlattCalibrator(targets="labels").fit(s, y).predict_proba(s)[:, 1]
    assert p_ml.min() < 1e-12
    # one-vs-rest on three classes: each column finite, rows inside (0, 1)
    P = np.column_stack([s, 1 - s, np.full_like(s, 0.5)])
    P /= P.sum(axis=1, keepdims=True)
    out = PlattCalibrator().fit(P, np.where(y == 1, 0, 1)).predict_proba(P)
    assert ((out > 0) & (out < 1)).all()


def test_platt_one_class_is_platts_constant():
    s = np.linspace(0.1, 0.9, 8)
    p = PlattCalibrator().fit(s, np.ones(8, int), classes=[0, 1]).predict_proba(s)
    np.testing.assert_allclose(p[:, 1], 9 / 10)  # (N+ + 1) / (N+ + 2)
    from sklearn.calibration import _sigmoid_calibration

    a, b = _sigmoid_calibration(_logit(s), np.ones(8))
    np.testing.assert_allclose(p[:, 1], 1 / (1 + np.exp(a * _logit(s) + b)), atol=TOL)
    p = PlattCalibrator().fit(s, np.zeros(8, int), classes=[0, 1]).predict_proba(s)
    np.testing.assert_allclose(p[:, 1], 1 / 10)  # 1 / (N- + 2)
    lab = PlattCalibrator(targets="labels").fit(s, np.ones(8, int), classes=[0, 1])
    np.testing.assert_allclose(lab.predict_proba(s)[:, 1], 8.5 / 9)  # Jeffreys


def test_platt_targets_option_is_a_parameter():
    s, y = _binary(n=200)
    cal = PlattCalibrator(targets="labels", C=3.0).fit(s, y)
    assert cal.get_params() == {"multiclass": "ovr", "C": 3.0, "targets": "labels"}
    back = pickle.loads(pickle.dumps(cal))
    np.testing.assert_array_equal(back.predict_proba(s), cal.predict_proba(s))
    fresh = sklearn.base.clone(cal)
    assert fresh.get_params() == cal.get_params() and not hasattr(fresh, "maps_")
    assert PlattCalibrator().set_params(targets="labels").targets == "labels"
    with pytest.raises(ValueError, match="`targets` must be one of"):
        PlattCalibrator(targets="smoothed").fit(s, y)
    # the ridge applies to either fit and shrinks the slope
    a_free = PlattCalibrator().fit(s, y).maps_[0][0]
    a_ridge = PlattCalibrator(C=0.01).fit(s, y).maps_[0][0]
    assert 0 < a_ridge < a_free


def test_the_printed_table_reads_in_decimals():
    rng = np.random.default_rng(0)
    s = rng.beta(2, 2, 5000)
    df = pd.DataFrame({"y": (rng.random(5000) < s ** 1.5).astype(int), "p": s})
    res = df.calib(y="y", proba="p").recalibrate(["temperature", "isotonic"], n_boot=50,
                                                 progress=False)
    # a column of differences spans 1e-4 to 1e-2 here: pandas alone would print it in
    # scientific notation
    assert (res.table["log_loss_diff_high"].abs() < 1e-3).any()
    table = repr(res).split("\n\n")[0]
    assert "e-0" not in table and "e+0" not in table
    value = res.table.loc["isotonic", "log_loss_diff_high"]
    expected = f"{value:.4f}" if round(value, 4) != 0 else "0.0000"
    line = next(ln for ln in table.splitlines() if ln.startswith("isotonic"))
    assert line.split()[4] == expected  # method, log loss, its change, low, high
    assert "e-0" not in res._repr_html_().split("Interval coverage")[0]


def test_a_nan_interval_says_why_in_the_result_and_its_outputs():
    # group "b" has no positive row: its AUC, and so the paired difference's interval,
    # is undefined; group "a"'s intervals are all defined
    rng = np.random.default_rng(3)
    s = rng.uniform(0.05, 0.95, 400)
    y = (rng.random(400) < s).astype(int)
    y[200:] = 0
    df = pd.DataFrame({"y": y, "p": s, "g": np.repeat(["a", "b"], 200)})
    res = df.groupby("g").calib(y="y", proba="p").recalibrate(["platt"], n_boot=40,
                                                              progress=False)
    assert np.isnan(res.table.loc[("b", "platt"), "auc_diff_low"])
    assert not res.table.loc["a", ["auc_diff_low", "auc_diff_high"]].isna().any().any()
    # every NaN interval of the table has its reason, the baseline row's included
    nan = {(g, m, c.removesuffix("_diff_low")) for (g, m), row in res.table.iterrows()
           for c in res.table.columns if c.endswith("_diff_low") and np.isnan(row[c])}
    assert set(res.interval_reasons) == nan == {("b", "none", "auc"), ("b", "platt", "auc")}
    why = res.interval_reasons[("b", "platt", "auc")]
    assert why == "auc is undefined: needs both positives and negatives of at least one class"
    line = f"No interval for auc_diff (b / none, b / platt): {why}."
    assert line in repr(res)
    assert line in res._repr_html_()
    alone = df[df["g"] == "a"].calib(y="y", proba="p").recalibrate(
        ["platt"], n_boot=40, progress=False)
    assert alone.interval_reasons == {} and "No interval" not in repr(alone)


def test_a_paired_interval_needs_half_of_the_replicates():
    from calreport.bootstrap.paired import paired_interval

    base = np.zeros(51)
    reps = np.full(51, np.nan)
    reps[:25] = np.arange(25.0)  # 25 of 51: fewer than half
    low, high, why = paired_interval(reps, base, 0.9)
    assert np.isnan(low) and np.isnan(high)
    assert why == "fewer than half of the 51 paired replicates define the difference"
    low, high, why = paired_interval(reps[1:], base[1:], 0.9)  # 24 of 50
    assert np.isnan(low) and why
    reps[25] = 25.0  # 26 of 51
    low, high, why = paired_interval(reps, base, 0.9)
    # numpy's linear quantiles of 0 .. 25 at 0.05 and 0.95
    assert why == "" and (low, high) == pytest.approx((1.25, 23.75), abs=1e-12)
