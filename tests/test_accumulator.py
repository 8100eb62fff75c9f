"""Streaming accumulator: batches add up to the whole frame; states store and merge."""

import numpy as np
import pandas as pd
import pytest
from _profiles import labelled_frame

import calreport  # noqa: F401
from calreport.accumulator import Accumulator

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


@pytest.fixture(scope="module")
def frame():
    return labelled_frame(4, 5000, 1.0, ["m1", "m2"], column="model")


def _split(frame, k):
    return [frame.iloc[rows] for rows in np.array_split(np.arange(len(frame)), k)]


def _acc(**kw):
    return Accumulator(y="y", proba="proba", by="model", classes=[0, 1], **kw)


def test_ten_batches_equal_whole_frame(frame):
    whole = _acc().update(frame)
    acc = _acc()
    for batch in _split(frame, 10):
        acc.update(batch)
    assert acc.state.equals(whole.state)
    ref = frame.groupby("model").calib.summary()
    got = acc.summary()
    for name in ("accuracy", "cwa", "csr", "sigma_csr", "ece", "brier", "log_loss", "cwsa"):
        np.testing.assert_allclose(got[name], ref[name], rtol=1e-12)


def test_accumulators_merge_in_any_order(frame):
    parts = [_acc().update(b) for b in _split(frame, 4)]
    a = (parts[0] + parts[1]) + (parts[2] + parts[3])
    b = parts[3] + (parts[1] + (parts[2] + parts[0]))
    assert a.state.equals(b.state)
    pd.testing.assert_frame_equal(a.summary(), b.summary(), check_exact=True)


def test_json_and_bytes_round_trip(frame):
    acc = _acc(n_boot=20, seed=3).update(frame.iloc[:2000])
    for restored in (Accumulator.from_json(acc.to_json()),
                     Accumulator.from_bytes(acc.to_bytes())):
        assert restored.state.equals(acc.state)
        np.testing.assert_array_equal(restored.state.boot, acc.state.boot)
        restored.update(frame.iloc[2000:])
        assert restored.state.equals(_acc(n_boot=20, seed=3).update(frame).state)


def test_bootstrap_over_batches_equals_whole(frame):
    whole = _acc(n_boot=30, seed=1).update(frame)
    acc = _acc(n_boot=30, seed=1)
    for batch in _split(frame, 10):
        acc.update(batch)
    np.testing.assert_allclose(acc.state.boot, whole.state.boot, rtol=1e-12)
    out = acc.summary(ci=0.95)
    assert ("accuracy", "ci_low") in out.columns


def test_arrays_and_classes_fixed_up_front():
    acc = Accumulator(classes=["neg", "pos"])
    acc.update(y_true=["pos", "neg"], proba=[0.8, 0.3])
    acc.update(y_true=["pos", "pos"], proba=[0.6, 0.2])  # a batch without "neg"
    s = acc.summary()
    assert s["n"] == 4 and s["accuracy"] == 0.75


def test_classes_of_the_first_batch_are_enforced():
    acc = Accumulator()
    acc.update(y_true=[0, 1, 2], proba=np.eye(3))
    with pytest.raises(ValueError, match="needs exactly two classes"):
        acc.update(y_true=[0, 1], proba=[0.2, 0.8])


def test_empty_accumulator_raises():
    with pytest.raises(ValueError, match="holds no rows yet"):
        Accumulator().summary()


def test_ici_on_the_sample_equals_pandas_when_the_group_fits(frame):
    acc = _acc(sample_size=5000).update(frame)
    got = acc.calibration_error()
    ref = frame.groupby("model").calib.calibration_error()
    np.testing.assert_allclose(got[["ici", "e50", "e90", "emax"]],
                               ref[["ici", "e50", "e90", "emax"]], rtol=1e-9)
    with pytest.raises(ValueError, match="sample_size=20000"):
        _acc().update(frame).calibration_error()


@pytest.mark.parametrize("weight", [None, "w"])
def test_equal_mass_bins_bounded_in_one_pass(frame, weight):
    """strategy="quantile": the pandas equal-mass ECE and MCE lie within the reported
    bound; the bound is small for continuous scores; the signed ECE is exact."""
    df = frame.assign(w=np.random.default_rng(9).gamma(2.0, 2.0, len(frame)))
    acc = Accumulator(y="y", proba="proba", by="model", classes=[0, 1], weight=weight)
    for part in _split(df, 10):
        acc.update(part)
    got = acc.summary(strategy="quantile")
    ref = df.groupby("model").calib(y="y", proba="proba", weight=weight).summary(
        strategy="quantile")
    # 2,500 rows a group: about one row per edge can sit on the wrong side
    for m, small in (("ece", 0.02), ("mce", 0.1)):
        err = (got[m] - ref[m]).abs()
        assert (err <= got[f"{m}_bound"]).all(), m
        assert (got[f"{m}_bound"] < small).all(), m
        assert not np.allclose(got[m], acc.summary()[m])  # not the uniform bins
    np.testing.assert_allclose(got["signed_ece"], ref["signed_ece"], rtol=1e-12)
    assert "signed_ece_bound" not in got
    with pytest.raises(ValueError, match="`strategy` must be"):
        acc.summary(strategy="equal")


def test_equal_mass_bound_holds_under_ties_and_weights():
    from calreport.metrics import binned
    from calreport.profile import ConfidenceProfile
    from calreport.stats import StatsConfig, StatsState
    from calreport.stats.equal_mass import ece_quantile_bounded

    rng = np.random.default_rng(3)
    for n, kind, decimals in [(400, None, None), (30000, "importance", None),
                              (30000, "frequency", 2), (5000, None, 1)]:
        p = rng.random(n) ** 2 if decimals is None else np.round(rng.random(n), decimals)
        y = (rng.random(n) < p).astype(int)
        w = (None if kind is None else rng.gamma(2, 3, n) if kind == "importance"
             else rng.integers(0, 4, n).astype(float))
        prof = ConfidenceProfile.from_arrays(y, p, sample_weight=w,
                                             weights=kind or "importance",
                                             normalize_weights=False)
        st = StatsState.from_profile(prof, config=StatsConfig(weights=kind or "importance"))
        for view in ("positive", "top_label"):
            val, bound = ece_quantile_bounded(st, view=view)
            s, o = prof.view(view)
            wn = None if w is None else w / w.max() if kind == "importance" else w
            for m, fn in (("ece", binned.ece), ("mce", binned.mce)):
                exact = fn(s, o, strategy="quantile", sample_weight=wn)
                assert abs(val[m][0] - exact) <= bound[m][0], (n, kind, decimals, view, m)


def test_hosmer_lemeshow_is_nan_with_the_fix_named(frame):
    acc = _acc()
    acc.update(frame)
    t = acc.calibration_tests()
    ref = frame.groupby("model").calib(y="y", proba="proba").calibration_tests()
    np.testing.assert_allclose(t["spiegelhalter_z"], ref["spiegelhalter_z"], rtol=1e-12)
    assert "hl_statistic" not in t
    assert "second pass" in t.attrs["dropped"]["hl_statistic"]
    assert "ddf.calib.calibration_tests()" in t.attrs["dropped"]["hl_statistic"]


def test_independent_accumulators_with_replicates_need_distinct_streams(frame):
    """Two accumulators built apart number their rows from 0: merged, their rows would
    draw the same Poisson counts (the same rows twice gave a narrower interval than one
    accumulator of both copies), so the merge is refused with the fix; distinct streams
    merge, and their replicates are those of the rows' own positions."""
    a_rows, b_rows = frame.iloc[:2500], frame.iloc[2500:]
    with pytest.raises(ValueError, match=r"stream=<day number>"):
        _acc(n_boot=30, seed=2).update(a_rows) + _acc(n_boot=30, seed=2).update(b_rows)
    day1 = _acc(n_boot=30, seed=2, stream=1).update(a_rows)
    day2 = _acc(n_boot=30, seed=2, stream=2).update(b_rows)
    merged = Accumulator.from_bytes(day1.to_bytes()) + day2
    # the exact sums: those of all rows
    assert merged.state.equals(_acc(n_boot=30, seed=2).update(frame).state)
    # day 2's replicates are those of its rows at stream 2's positions, whatever merged
    alone = _acc(n_boot=30, seed=2, stream=2).update(b_rows.iloc[:900]).update(b_rows.iloc[900:])
    np.testing.assert_allclose(alone.state.boot, day2.state.boot, rtol=1e-12)
    np.testing.assert_allclose(merged.state.boot, day1.state.boot + day2.state.boot,
                               rtol=1e-12)
    assert (merged.summary(ci=0.9)[("accuracy", "ci_low")] > 0).all()
    # the same stream twice is refused too, but states without replicates or sample merge
    with pytest.raises(ValueError, match="Cannot merge"):
        day1 + _acc(n_boot=30, seed=2, stream=1).update(b_rows)
    plain = _acc().update(a_rows) + _acc().update(b_rows)
    assert plain.state.equals(_acc().update(frame).state)
    # continuing a stored state needs no stream: it takes the positions after its rows
    later = Accumulator.from_bytes(day1.to_bytes()).update(b_rows)
    assert later.stream == 1
    with pytest.raises(ValueError, match="`stream` must be"):
        _acc(stream=-1)


def test_accumulators_grouped_differently_do_not_merge(frame):
    with pytest.raises(ValueError, match="grouped by \\['model'\\] with one grouped by \\[\\]"):
        _acc().update(frame) + Accumulator(y="y", proba="proba", classes=[0, 1]).update(frame)


def test_frequency_weights_must_be_counts_out_of_core(frame):
    df = frame.assign(w=np.linspace(0.5, 3.0, len(frame)))
    with pytest.raises(ValueError, match=r"frequency weights .* not a whole number"):
        Accumulator(y="y", proba="proba", weight="w", weights="frequency").update(df)
    ok = Accumulator(y="y", proba="proba", weight="w", weights="frequency").update(
        df.assign(w=np.ceil(df["w"])))
    # n counts the units of frequency weights (the repeated rows), as pandas
    assert ok.summary()["n"] == ok.summary()["n_eff"] == np.ceil(df["w"]).sum()


def test_update_refuses_a_batch_that_is_not_a_frame():
    # numpy's array_split of a DataFrame gives arrays under pandas 3: a clear error,
    # not an AttributeError from deep inside the role inference
    acc = Accumulator(y="y", proba="p")
    with pytest.raises(TypeError, match=r"`batch` must be a pandas DataFrame.*ndarray"):
        acc.update(np.array([[0, 0.2], [1, 0.7]]))
    assert acc.state is None
