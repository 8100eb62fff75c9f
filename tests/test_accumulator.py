"""Streaming accumulator: batches add up to the whole frame; states store and merge."""

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401
from calreport.accumulator import Accumulator

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


@pytest.fixture(scope="module")
def frame():
    rng = np.random.default_rng(4)
    n = 5000
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    return pd.DataFrame({"y": y, "proba": p, "model": rng.choice(["m1", "m2"], n)})


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
