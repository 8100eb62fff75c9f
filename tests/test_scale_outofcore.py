"""Out-of-core verdicts, tests, Murphy terms, samples, exact AUC and the report."""

import math
import warnings

import numpy as np
import pandas as pd
import pytest
from _profiles import labelled_frame
from sklearn.metrics import roc_auc_score

import calreport  # noqa: F401
from calreport.accumulator import Accumulator
from calreport.metrics import clinical, risk, scoring
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState
from calreport.stats.exact_auc import auc_from_tables, merge_tables, score_tables
from calreport.stats.verdict import murphy, risk_verdicts, spiegelhalter

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


def _profile(n, seed, power=1.2, ones=0, weights=None, kind="importance"):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**power).astype(int)
    p[:ones] = 1.0  # certainty claims (positive class at probability 1)
    w = None
    if weights == "importance":
        w = rng.random(n) * 5
    elif weights == "frequency":
        w = rng.integers(1, 4, n).astype(float)
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w, weights=kind,
                                         normalize_weights=False)


def _split_state(p, parts, cfg):
    """The state of a profile cut into ``parts`` consecutive batches, merged."""
    state, seen = None, 0
    for rows in np.array_split(np.arange(p.n), parts):
        s = StatsState.from_profile(p.take(rows) if p.sample_weight is None
                                    else _take_raw(p, rows), config=cfg,
                                    row_offsets={(): seen})
        seen += rows.size
        state = s if state is None else state + s
    return state


def _take_raw(p, rows):
    return ConfidenceProfile(conf=p.conf[rows], correct=p.correct[rows],
                             y_true=p.y_true[rows], y_pred=p.y_pred[rows],
                             proba=p.proba[rows], classes=p.classes, score=p.score[rows],
                             sample_weight=p.sample_weight[rows], weights=p.weights)


CASES = {
    # normal approximation valid (no confident rows), no certainty claims
    "normal": dict(n=3000, seed=0, power=1.0),
    # heavy-tailed null: the core simulates its rows of largest variance
    "heavy": dict(n=30000, seed=1, power=0.8),
    # certainty claims, one of them wrong
    "certain": dict(n=5000, seed=2, ones=3),
    "importance": dict(n=4000, seed=3, power=0.9, weights="importance"),
    "frequency": dict(n=4000, seed=4, power=0.9, weights="frequency", kind="frequency"),
    # few rows: every row is kept, the core's own test runs on them
    "small": dict(n=150, seed=5, power=0.7),
}


@pytest.mark.parametrize("case", list(CASES))
def test_verdict_equals_risk_summary(case):
    kw = CASES[case]
    p = _profile(**kw)
    cfg = StatsConfig(weights=kw.get("kind", "importance"), heavy_rows=512)
    got = risk_verdicts(_split_state(p, 4, cfg))[0]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ref = risk.risk_summary(p.conf, p.correct, sample_weight=p.sample_weight,
                                weights=kw.get("kind", "importance"), seed=0)
    assert got.band == ref.band, (got.band_reason, ref.band_reason)
    assert got.p_risk_method == ref.p_risk_method
    for f in ("csr", "sigma_csr", "z_csr", "n_for_power", "n_certain",
              "n_certain_wrong", "certain_error_upper", "n_eff", "lindeberg_ratio",
              "null_skewness"):
        a, b = getattr(got, f), getattr(ref, f)
        assert (math.isnan(a) and math.isnan(b)) or a == pytest.approx(b, rel=1e-9), f
    # Monte Carlo P_risk: the same rows drawn in the same order from the same seed
    assert got.p_risk == pytest.approx(ref.p_risk, rel=1e-9, abs=1e-12)
    assert got.power == pytest.approx(ref.power, rel=1e-9, abs=1e-12)


def test_heavy_case_uses_the_split_monte_carlo():
    p = _profile(**CASES["heavy"])
    got = risk_verdicts(StatsState.from_profile(p, config=StatsConfig(heavy_rows=512)))[0]
    assert got.p_risk_method == "monte_carlo"
    assert "rows of largest variance" in got.method_reason


def test_too_few_heavy_rows_kept_falls_back_to_normal_and_says_so():
    p = _profile(**CASES["heavy"])
    got = risk_verdicts(StatsState.from_profile(p, config=StatsConfig(heavy_rows=4)))[0]
    assert got.p_risk_method == "normal"
    assert "rows of largest variance kept out of core" in got.method_reason


@pytest.mark.parametrize("multiclass", [False, True])
def test_spiegelhalter_and_murphy_equal_the_core(multiclass):
    if multiclass:
        rng = np.random.default_rng(7)
        proba = rng.dirichlet(np.ones(3), 2000)
        y = (proba.cumsum(axis=1) < rng.random((2000, 1))).sum(axis=1)
        p = ConfidenceProfile.from_arrays(y, proba)
    else:
        p = _profile(2500, 8)
    st = _split_state(p, 3, StatsConfig())
    s, o = p.view(None)
    ref = clinical.spiegelhalter_z(s, o)
    got = spiegelhalter(st)
    assert got["spiegelhalter_z"][0] == pytest.approx(ref.z, rel=1e-12)
    assert got["spiegelhalter_pvalue"][0] == pytest.approx(ref.pvalue, rel=1e-9)
    m = murphy(st)
    want = scoring.murphy_decomposition(s, o)
    for k in ("reliability", "resolution", "uncertainty", "within_bin", "brier"):
        assert m[k][0] == pytest.approx(want[k], rel=1e-12, abs=1e-14), k


def test_sample_and_top_errors_do_not_depend_on_the_batches():
    p = _profile(6000, 9)
    cfg = StatsConfig(sample_size=500, top_errors=7)
    one, many = _split_state(p, 1, cfg), _split_state(p, 9, cfg)
    for a, b in ((one.sample[()], many.sample[()]), (one.top[()], many.top[()])):
        oa, ob = np.lexsort((a["conf"], a["u"])), np.lexsort((b["conf"], b["u"]))
        for f in ("u", "conf", "correct", "score"):
            np.testing.assert_array_equal(a[f][oa], b[f][ob])
    # the sample is uniform: its mean score is close to the whole mean
    assert abs(one.sample[()]["score"].mean() - p.score.mean()) < 0.05
    # the top errors are the wrong rows of largest 1 / (1 - c)
    size = np.where(~p.correct, 1.0 / (1.0 - np.clip(p.conf, 1e-8, 1 - 1e-8)), 0.0)
    np.testing.assert_allclose(np.sort(one.top[()]["size"]), np.sort(size)[-7:], rtol=0)


def test_exact_auc_equals_scikit_learn_and_merges():
    rng = np.random.default_rng(10)
    p = np.round(rng.random(5000), 2)  # many ties
    y = (rng.random(5000) < p).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    codes = np.zeros(5000, dtype=np.intp)
    whole = score_tables(prof, codes, [()])
    parts = None
    for rows in np.array_split(rng.permutation(5000), 6):
        parts = merge_tables(parts, score_tables(prof.take(rows), codes[rows], [()]))
    a = auc_from_tables(whole, [()])[0][0]
    b = auc_from_tables(parts, [()])[0][0]
    assert a == b
    assert a == pytest.approx(roc_auc_score(y, p), rel=1e-13)


@pytest.fixture(scope="module")
def frame():
    return labelled_frame(12, 2400, 0.85, ["a", "b", "c"])


def test_accumulator_report_equals_the_pandas_report(frame):
    acc = Accumulator(y="y", proba="proba", by="g", sample_size=500, top_errors=10)
    for rows in np.array_split(np.arange(len(frame)), 5):
        acc.update(frame.iloc[rows])
    rep = acc.report(timestamp="2026-01-01T00:00:00Z")
    got = rep.context
    # the pandas report reads its verdicts from this result (figures aside)
    ref = frame.groupby("g").calib.evaluate()
    bands = {g.name: g.band for g in ref.groups}
    for f in got["groups"]:
        sub = frame[frame["g"] == f["name"]]
        assert f["band"] == bands[f["name"]]
        assert f["n_errors"] == float(((sub["proba"] > 0.5) != sub["y"]).sum())
    assert got["overall"]["band"] == ref.overall.band
    assert got["drivers"], "flagged groups list their largest CSR terms"
    for d in got["drivers"]:
        sub = frame[frame["g"] == d["group"]]
        c = np.maximum(sub["proba"], 1 - sub["proba"]).to_numpy()
        contrib = np.where((sub["proba"] > 0.5) != sub["y"], 1 / (1 - c), 0.0) / len(sub)
        top = np.argsort(-contrib, kind="stable")[:10]
        assert [r["row"] for r in d["rows"]] == [str(i) for i in sub.index[top]]
        assert d["csr"] == pytest.approx(contrib.sum(), rel=1e-12)
        assert d["share_top"] == pytest.approx(contrib[top].sum() / contrib.sum(), rel=1e-12)
    notes = {n["name"]: n["text"] for n in got["data"]["notes"]}
    assert "auc (error at most" in notes["Bounded metrics"]
    assert "uniform sample of 500 rows per group" in notes["Sampled metrics"]
    md = rep.to_markdown()
    assert "Bounded metrics" in md and "Sampled metrics" in md


def test_state_with_sample_round_trips_through_json(frame):
    acc = Accumulator(y="y", proba="proba", by="g", sample_size=300, top_errors=5)
    acc.update(frame)
    back = Accumulator.from_bytes(acc.to_bytes())
    assert back.state.equals(acc.state)
    for key in acc.state.keys:
        for f, arr in acc.state.sample[key].items():
            np.testing.assert_array_equal(back.state.sample[key][f], arr)
        np.testing.assert_array_equal(back.state.top[key]["row"], acc.state.top[key]["row"])
    pd.testing.assert_frame_equal(back.summary(), acc.summary())
    for a, b in zip(back.evaluate().groups, acc.evaluate().groups, strict=True):
        assert (a.band, a.risk.p_risk, a.risk.power) == (b.band, b.risk.p_risk,
                                                               b.risk.power)


def test_scores_and_tests_tables(frame):
    acc = Accumulator(y="y", proba="proba", classes=[0, 1]).update(frame)
    from calreport.stats.frames import calibration_tests_frame, scores_frame

    s = scores_frame(acc.state, ())
    ref = frame.calib(y="y", proba="proba").scores()
    for k in ("top_label_brier", "sharpness", "murphy_reliability", "murphy_resolution",
              "murphy_uncertainty", "murphy_within_bin"):
        assert s[k] == pytest.approx(ref[k], rel=1e-12, abs=1e-15), k
    t = calibration_tests_frame(acc.state, ())
    ref = frame.calib(y="y", proba="proba").calibration_tests()
    assert t["spiegelhalter_z"] == pytest.approx(ref["spiegelhalter_z"], rel=1e-12)
    assert "hl_statistic" in t.attrs["dropped"]


@pytest.mark.parametrize("decimals", [None, 2])  # continuous scores, and heavy ties
def test_equal_mass_bins_and_hosmer_lemeshow_by_a_second_pass(decimals):
    from calreport.metrics import binned
    from calreport.stats import quantile

    rng = np.random.default_rng(13)
    n = 12000
    p = rng.random(n) if decimals is None else np.round(rng.random(n), decimals)
    y = (rng.random(n) < p**1.2).astype(int)
    prof = ConfidenceProfile.from_arrays(y, p)
    codes = rng.integers(0, 3, n).astype(np.intp)
    keys = [0, 1, 2]
    st = StatsState.from_profile(prof, codes=codes, keys=keys)
    for view in ("positive", "top_label"):
        pl = quantile.plan(st, view=view, n_bins=15, n_groups=10)
        second = None
        for rows in np.array_split(rng.permutation(n), 5):
            second = quantile.merge(second, quantile.collect(prof.take(rows), codes[rows],
                                                             keys, pl))
        e = quantile.ece_quantile(st, second, pl)
        h = quantile.hosmer_lemeshow(st, second, pl)
        for gi in keys:
            s, o = prof.take(np.flatnonzero(codes == gi)).view(view)
            assert e["ece"][gi] == pytest.approx(binned.ece(s, o, strategy="quantile"),
                                                 rel=1e-12, abs=1e-15)
            assert e["mce"][gi] == pytest.approx(binned.mce(s, o, strategy="quantile"),
                                                 rel=1e-12)
            ref = clinical.hosmer_lemeshow(s, o)
            assert h["hl_statistic"][gi] == pytest.approx(ref.statistic, rel=1e-12)
            assert h["hl_df"][gi] == ref.df


@pytest.mark.parametrize("kind", ["importance", "frequency"])
@pytest.mark.parametrize("decimals", [None, 2])
def test_weighted_equal_mass_bins_and_hosmer_lemeshow(kind, decimals):
    """Weighted quantile edges from weight positions, against the pandas functions on
    the whole group (importance weights divided by the group's largest, as the
    accessor does; frequency weights as counts, zero weights included)."""
    from calreport.metrics import binned
    from calreport.stats import quantile

    rng = np.random.default_rng(17)
    n = 9000
    p = rng.random(n) if decimals is None else np.round(rng.random(n), decimals)
    y = (rng.random(n) < p**1.2).astype(int)
    w = (rng.gamma(2.0, 3.0, n) if kind == "importance"
         else rng.integers(0, 4, n).astype(np.float64))
    w[rng.random(n) < 0.05] = 0.0

    def sub(rows):
        return ConfidenceProfile.from_arrays(y[rows], p[rows], sample_weight=w[rows],
                                             weights=kind, normalize_weights=False)

    codes = rng.integers(0, 3, n).astype(np.intp)
    keys = [0, 1, 2]
    st = StatsState.from_profile(sub(np.arange(n)), codes=codes, keys=keys,
                                 config=StatsConfig(weights=kind))
    chunks = np.array_split(rng.permutation(n), 5)
    w_max = quantile.merge_max(*[quantile.weight_max(sub(r), codes[r], keys) for r in chunks])
    for view in ("positive", "top_label"):
        pl = quantile.plan(st, view=view, n_bins=15, n_groups=10, w_max=w_max)
        second = None
        for rows in chunks:
            second = quantile.merge(second, quantile.collect(sub(rows), codes[rows], keys, pl))
        e = quantile.ece_quantile(st, second, pl)
        h = quantile.hosmer_lemeshow(st, second, pl)
        for gi in keys:
            sel = np.flatnonzero(codes == gi)
            s, o = sub(sel).view(view)
            wn = w[sel] / w[sel].max() if kind == "importance" else w[sel]
            assert e["ece"][gi] == pytest.approx(
                binned.ece(s, o, strategy="quantile", sample_weight=wn), rel=1e-12)
            assert e["mce"][gi] == pytest.approx(
                binned.mce(s, o, strategy="quantile", sample_weight=wn), rel=1e-12)
            ref = clinical.hosmer_lemeshow(s, o, sample_weight=wn)
            assert h["hl_statistic"][gi] == pytest.approx(ref.statistic, rel=1e-11)
            assert h["hl_df"][gi] == ref.df
    # importance-weighted Hosmer-Lemeshow without the largest weights: NaN, not a guess
    pl = quantile.plan(st, view="positive", w_max=None)
    second = quantile.collect(sub(np.arange(n)), codes, keys, pl)
    hl = quantile.hosmer_lemeshow(st, second, pl)["hl_statistic"]
    assert np.isnan(hl).all() == (kind == "importance")


