"""Mergeable statistics: exact sums, merges in any order, finishing = the NumPy core."""

import subprocess
import sys
from fractions import Fraction

import numpy as np
import pytest
from sklearn.metrics import roc_auc_score

from calreport.metrics import binned, ranking, risk, scoring, selective, weighted
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState, confusion, reliability, summary
from calreport.stats._exact import exact_bincount
from calreport.stats.poisson import poisson_counts

TOL = dict(rel=1e-12, abs=1e-12)


pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


def _binary(n=3000, seed=0, weights=False):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**1.2).astype(int)
    p[:5] = [0.0, 1.0, 0.5, 0.25, 1.0]  # edges of bins and clipping
    w = rng.random(n) * 3 if weights else None
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w)


def _multiclass(n=2000, k=4, seed=1):
    rng = np.random.default_rng(seed)
    proba = rng.dirichlet(np.ones(k), n)
    y = np.array([rng.choice(k, p=row) for row in proba])
    return ConfidenceProfile.from_arrays(y, proba)


def test_exact_sums_equal_brute_force_fractions():
    rng = np.random.default_rng(0)
    x = rng.random(5000) * rng.choice([1e-9, 1.0, 1e8], 5000)
    idx = rng.integers(0, 5, 5000)
    got = exact_bincount(idx, x, 5).to_fraction()
    for j in range(5):
        # each value truncated to the 2^-63 grid, then summed exactly
        ref = sum(Fraction(int(np.floor(np.ldexp(v, 63))), 1 << 63) for v in x[idx == j])
        assert got[j] == ref


def test_exact_sums_reject_negative_values():
    with pytest.raises(ValueError, match="non-negative"):
        exact_bincount(np.zeros(2, int), np.array([1.0, -1.0]), 1)


@pytest.mark.parametrize("weights", [False, True])
def test_binary_summary_equals_core(weights):
    p = _binary(weights=weights)
    t = summary(StatsState.from_profile(p, config=StatsConfig(weights="importance")))
    v = {k: float(a[0]) for k, a in t.values.items()}
    w = p.sample_weight
    s, y = p.view("positive")
    assert v["accuracy"] == pytest.approx(weighted.accuracy(p.correct, sample_weight=w), **TOL)
    assert v["cwa"] == pytest.approx(weighted.cwa(p.conf, p.correct, sample_weight=w), **TOL)
    assert v["gain"] == pytest.approx(weighted.gain(p.conf, p.correct, sample_weight=w), **TOL)
    r = risk.risk_summary(p.conf, p.correct, sample_weight=w, method="normal")
    for name, ref in (("csr", r.csr), ("sigma_csr", r.sigma_csr), ("z_csr", r.z_csr),
                      ("p_risk", r.p_risk)):
        assert v[name] == pytest.approx(ref, **TOL), name
    assert v["ece"] == pytest.approx(binned.ece(s, y, sample_weight=w), **TOL)
    assert v["mce"] == pytest.approx(binned.mce(s, y, sample_weight=w), **TOL)
    assert v["signed_ece"] == pytest.approx(binned.signed_ece(s, y, sample_weight=w), **TOL)
    assert v["brier"] == pytest.approx(scoring.brier_score(y, s, sample_weight=w), **TOL)
    assert v["log_loss"] == pytest.approx(scoring.log_loss(y, s, sample_weight=w), **TOL)
    assert v["top_label_brier"] == pytest.approx(
        scoring.top_label_brier(p.conf, p.correct, sample_weight=w), **TOL)
    assert v["sharpness"] == pytest.approx(scoring.sharpness(p.conf, sample_weight=w), **TOL)
    assert v["cwsa"] == pytest.approx(selective.cwsa(p.conf, p.correct, sample_weight=w), **TOL)
    assert v["cwsa_plus"] == pytest.approx(
        selective.cwsa_plus(p.conf, p.correct, sample_weight=w), **TOL)
    assert v["coverage"] == pytest.approx(selective.coverage(p.conf, sample_weight=w), **TOL)
    assert v["selective_accuracy"] == pytest.approx(
        selective.selective_accuracy(p.conf, p.correct, sample_weight=w), **TOL)
    # bounded: scikit-learn's exact AUC lies within the reported bound
    auc = roc_auc_score(y, s, sample_weight=w)
    assert abs(v["auc"] - auc) <= t.bounds["auc"][0] + 1e-15
    assert 0 < t.bounds["auc"][0] < 1e-3
    cw = roc_auc_score(y, s, sample_weight=p.conf * (1 if w is None else w))
    assert abs(v["cwauc"] - cw) <= t.bounds["cwauc"][0] + 1e-15
    aurc = selective.aurc(p.conf, p.correct, sample_weight=w)
    assert abs(v["aurc"] - aurc) <= t.bounds["aurc"][0] + 1e-15
    assert t.kinds["auc"] == "bounded" and t.kinds["ece"] == "exact"


def test_multiclass_summary_and_confusion_equal_core():
    p = _multiclass()
    st = StatsState.from_profile(p)
    t = summary(st)
    v = {k: float(a[0]) for k, a in t.values.items()}
    assert v["brier"] == pytest.approx(scoring.brier_score(p.y_true, p.proba), **TOL)
    assert v["log_loss"] == pytest.approx(scoring.log_loss(p.y_true, p.proba), **TOL)
    assert v["ece"] == pytest.approx(binned.ece(p.conf, p.correct), **TOL)
    per_auc, per_cw = ranking.auc_cwauc(p.y_true, p.proba, p.conf)
    assert abs(v["auc"] - per_auc.mean()) <= t.bounds["auc"][0]
    assert abs(v["cwauc"] - per_cw.mean()) <= t.bounds["cwauc"][0]
    m = confusion(st)
    np.testing.assert_allclose(m["confusion"][0], weighted.confusion_matrix(
        p.y_true, p.y_pred, n_classes=4), rtol=1e-12)
    np.testing.assert_allclose(m["cw_confusion"][0], weighted.confusion_matrix(
        p.y_true, p.y_pred, n_classes=4, weights=p.conf), rtol=1e-12)


def test_reliability_table_equals_core():
    p = _binary()
    s, y = p.view("positive")
    ref = binned.reliability_table(s, y)
    got = reliability(StatsState.from_profile(p))
    np.testing.assert_array_equal(got["count"][0], ref.count)
    for name in ("mean_score", "mean_outcome", "gap", "ci_low", "ci_high"):
        np.testing.assert_allclose(got[name][0], getattr(ref, name), rtol=1e-12, atol=1e-14)


def test_importance_weights_are_scale_invariant_and_unit_weights_match():
    p = _binary(weights=True)
    w = p.sample_weight
    base = summary(StatsState.from_profile(p)).values
    scaled = ConfidenceProfile.from_arrays(p.y_true, p.score, sample_weight=w * 1000.0)
    big = summary(StatsState.from_profile(scaled)).values
    for name in ("csr", "sigma_csr", "z_csr", "p_risk", "ece", "accuracy"):
        assert big[name][0] == pytest.approx(base[name][0], rel=1e-12)
    # sigma with importance weights: sqrt(sum w^2 c/(1-c)) / sum w
    c = np.clip(p.conf, 1e-8, 1 - 1e-8)
    assert base["sigma_csr"][0] == pytest.approx(
        np.sqrt((w * w * c / (1 - c)).sum()) / w.sum(), rel=1e-12)


def test_merge_in_any_order_is_bitwise_identical():
    p = _binary(n=4000)
    rng = np.random.default_rng(3)
    codes = rng.integers(0, 3, p.n)
    keys = ["x", "y", "z"]
    whole = StatsState.from_profile(p, codes=codes, keys=keys)
    cuts = np.array_split(rng.permutation(p.n), 5)
    parts = [StatsState.from_profile(p.take(c), codes=codes[c], keys=keys) for c in cuts]
    a = ((parts[0] + parts[1]) + parts[2]) + (parts[3] + parts[4])
    b = parts[4] + (parts[2] + (parts[0] + (parts[3] + parts[1])))
    assert a.equals(whole) and b.equals(whole)
    assert a.keys == ["x", "y", "z"]


def test_group_equals_subset_alone():
    p = _binary(n=3000)
    codes = np.arange(p.n) % 2
    st = summary(StatsState.from_profile(p, codes=codes, keys=[10, 20]))
    alone = summary(StatsState.from_profile(p.take(codes == 1)))
    for name, arr in st.values.items():
        np.testing.assert_allclose(arr[1], alone.values[name][0], rtol=1e-15, equal_nan=True)


def test_merging_different_settings_raises():
    p = _binary(n=100)
    a = StatsState.from_profile(p)
    b = StatsState.from_profile(p, config=StatsConfig(n_bins=10))
    with pytest.raises(ValueError, match="different settings"):
        a + b
    c = StatsState.from_profile(_multiclass(n=50))
    with pytest.raises(ValueError, match="differently shaped"):
        a + c


def test_config_validation_messages():
    with pytest.raises(ValueError, match=r"`tau`=0\.33 must be one of `taus`"):
        StatsConfig(tau=0.33)
    with pytest.raises(ValueError, match="`weights` must be"):
        StatsConfig(weights="counts")


def test_poisson_counts_are_counter_based_and_poisson():
    a = poisson_counts(11, 0, 200_000)
    assert (poisson_counts(11, 1234, 500) == a[1234:1734]).all()
    # Poisson(1): mean 1, variance 1, P(0) = exp(-1)
    assert a.mean() == pytest.approx(1.0, abs=0.01)
    assert a.var() == pytest.approx(1.0, abs=0.02)
    assert (a == 0).mean() == pytest.approx(np.exp(-1), abs=0.005)


def test_bootstrap_does_not_depend_on_the_split():
    p = _binary(n=3000)
    codes = np.arange(p.n) % 3
    cfg = StatsConfig(n_boot=50, seed=5)
    whole = StatsState.from_profile(p, config=cfg, codes=codes, keys=["a", "b", "c"])
    first = StatsState.from_profile(p.take(np.arange(1000)), config=cfg, codes=codes[:1000],
                                    keys=["a", "b", "c"])
    rest = StatsState.from_profile(p.take(np.arange(1000, p.n)), config=cfg,
                                   codes=codes[1000:], keys=["a", "b", "c"],
                                   row_offsets=first.row_counts())
    merged = rest + first
    np.testing.assert_allclose(merged.boot, whole.boot, rtol=1e-12)
    lo, hi = summary(merged, ci=0.9).intervals["accuracy"]
    acc = summary(merged).values["accuracy"]
    assert (lo < acc).all() and (acc < hi).all()


def test_stats_import_does_not_import_pandas():
    # the package __init__ (pandas accessor) is bypassed: only these modules are checked
    code = ("import sys, types; sys.modules['pandas'] = None; "
            "pkg = types.ModuleType('calreport'); pkg.__path__ = ['calreport']; "
            "sys.modules['calreport'] = pkg; import calreport.stats.state, "
            "calreport.stats.finish, calreport.stats.poisson; print('ok')")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         cwd=__file__.rsplit("/tests/", 1)[0])
    assert out.stdout.strip() == "ok", out.stderr


@pytest.mark.parametrize("weights", [False, True])
def test_the_state_sums_every_row_column_by_name(weights):
    # the state holds sum w * col of every per-row column of the registry's sum form
    # (signed ones by their two parts), so a metric whose finisher reads a new
    # column merges out of core with no code in calreport.stats
    from calreport._finishers import COLUMNS, row_columns
    from calreport.settings import Settings
    from calreport.stats.config import SCALARS, column_sums

    p = _binary(n=500, weights=weights)
    cfg = StatsConfig(weights="importance")
    sums = StatsState.from_profile(p, config=cfg).sums["scalar"].to_float()[0]
    got = column_sums(lambda name: sums[SCALARS.index(name)])
    rc = row_columns(p, Settings(eps=cfg.eps, tau=cfg.tau))
    w = np.ones(p.n) if p.sample_weight is None else p.sample_weight
    assert set(rc) == set(COLUMNS) and (rc["cwsa"] < 0).any()
    for name in COLUMNS:
        want = float(sum(Fraction(float(x)) for x in w * rc[name]))
        assert got[name] == pytest.approx(want, rel=1e-14, abs=1e-12), name
    assert got["w2"] == pytest.approx(float((w * w).sum()), rel=1e-14)


@pytest.mark.parametrize("weights", [False, True])
def test_each_replicate_of_a_state_is_the_core_metric_on_its_resampled_rows(weights):
    # replicate b counts row i k_ib times: its metrics are the registry's point
    # computations on the rows repeated k_ib times (weights kept), for every metric
    # finished from the sums
    from calreport.registry import REGISTRY, MetricCache
    from calreport.settings import Settings
    from calreport.stats.config import key_seed
    from calreport.stats.poisson import replicate_metrics
    from calreport.stats.sums import EXTRAS, SUM_FORM

    p = _binary(n=400, weights=weights)
    cfg = StatsConfig(n_boot=4, seed=3, n_bins=15)
    reps = replicate_metrics(StatsState.from_profile(p, config=cfg))
    counts = poisson_counts(key_seed(cfg.seed, ()), 0, p.n * 4).reshape(p.n, 4)
    assert "top_label_log_loss" in SUM_FORM
    s = Settings(eps=cfg.eps, tau=cfg.tau, n_bins=cfg.n_bins)
    for b in range(4):
        rep = p.take(np.repeat(np.arange(p.n), counts[:, b]))
        for name in (m for m in SUM_FORM if m != "p_risk"):
            want = REGISTRY[name].compute(rep, s, MetricCache())
            assert reps[name][0, b] == pytest.approx(want, rel=1e-12, abs=1e-12), (name, b)
        assert reps["top_label_brier"][0, b] == pytest.approx(scoring.top_label_brier(
            rep.conf, rep.correct, sample_weight=rep.sample_weight), rel=1e-12), b
        assert set(EXTRAS) <= set(reps)


def test_a_state_leaves_what_its_data_cannot_define_nan_with_the_registrys_reason():
    # a (conf, correct) state has no probabilities: the metrics that need them are
    # NaN, point and replicates, with the reason the pandas path gives
    from calreport.registry import REGISTRY
    from calreport.stats.finish import KINDS

    p = ConfidenceProfile.from_arrays(conf=[0.6, 0.7, 0.8, 0.9] * 25, correct=[1, 0, 1, 1] * 25)
    t = summary(StatsState.from_profile(p, config=StatsConfig(n_boot=20)), ci=0.9)
    needs = {m: REGISTRY[m].missing_need(p) for m in KINDS if m in REGISTRY}
    assert {m for m, why in needs.items() if why} >= {"brier", "log_loss", "auc",
                                                     "classwise_ece"}
    for m, why in needs.items():
        if why:
            assert np.isnan(t.values[m][0]) and t.reasons[m] == [why], m
            if m in t.intervals:
                assert np.isnan(t.intervals[m][0][0]), m
        else:
            assert not np.isnan(t.values[m][0]), m


def test_a_column_with_negative_terms_not_declared_signed_is_named(monkeypatch):
    # exact sums hold non-negative values: an undeclared signed column is an error
    # that names it and the fix, not the fixed-point layer's generic refusal
    from calreport.stats import accumulate

    monkeypatch.setattr(accumulate, "SIGNED", frozenset())
    with pytest.raises(ValueError, match=r"per-row column 'cwsa' has negative terms .*"
                                         r"declare it in calreport._finishers.SIGNED"):
        StatsState.from_profile(_binary(n=200))
