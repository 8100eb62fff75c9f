"""Propositions of Martin-Maroto et al. (2026, arXiv:2605.01796, appendix A.2) about CSR."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from calreport.metrics import binned, risk

#: groups (m, a): m rows at confidence a/m of which exactly a are correct
calibrated_groups = st.lists(
    st.integers(min_value=2, max_value=12).flatmap(
        lambda m: st.tuples(st.just(m), st.integers(min_value=0, max_value=m - 1))),
    min_size=1, max_size=25,
)
#: confidences in [0, 1) with correctness
profiles = st.integers(min_value=2, max_value=200).flatmap(
    lambda n: st.tuples(
        st.lists(st.floats(0.0, 0.999, allow_nan=False), min_size=n, max_size=n),
        st.lists(st.booleans(), min_size=n, max_size=n),
    ))


@settings(max_examples=80, deadline=None)
@given(calibrated_groups)
def test_prop2_pointwise_calibration_gives_csr_one(groups):
    """Prop. 2: within each confidence value c = a/m the accuracy is exactly c."""
    conf = np.concatenate([np.full(m, a / m) for m, a in groups])
    correct = np.concatenate([np.arange(m) < a for m, a in groups])
    # exact up to the eps = 1e-8 clipping of confidences of 0
    assert abs(risk.csr(conf, correct) - 1.0) < 1e-7


@settings(max_examples=100, deadline=None)
@given(profiles)
def test_prop7_jensen_lower_bound(data):
    """Prop. 7: CSR >= (1 - acc) / (1 - E[c | wrong])."""
    conf, correct = map(np.asarray, data)
    wrong = ~correct
    if not wrong.any():
        return
    acc = correct.mean()
    bound = (1 - acc) / (1 - conf[wrong].mean())
    assert risk.csr(conf, correct) >= bound * (1 - 1e-12)


@settings(max_examples=100, deadline=None)
@given(profiles)
def test_prop8_csr_one_bounds_confidence_on_errors(data):
    """Prop. 8 (contrapositive of 7): E[c | wrong] > acc implies CSR > 1."""
    conf, correct = map(np.asarray, data)
    wrong = ~correct
    if wrong.any() and conf[wrong].mean() > correct.mean() + 1e-9:
        assert risk.csr(conf, correct) > 1


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.booleans(), min_size=5, max_size=200).filter(lambda x: not all(x)),
    st.integers(min_value=5, max_value=20),
    st.floats(min_value=1.0, max_value=1e6),
)
def test_prop5_low_ece_unbounded_risk(correct, n_bins, lam):
    """Prop. 5's construction: ECE < 1/N while CSR > Lambda.

    Drop one error i*, give every other row its bin's accuracy (ECE = 0 on them), then
    add i* back at confidence 1 - delta with delta < 1 / (N Lambda).
    """
    correct = np.asarray(correct)
    n = len(correct)
    i_star = int(np.flatnonzero(~correct)[0])
    rest = np.delete(np.arange(n), i_star)
    # put the remaining rows in bins by an arbitrary split; each chunk gets its accuracy
    chunks = np.array_split(rest, min(n_bins, len(rest)))
    conf = np.empty(n)
    for ch in chunks:
        conf[ch] = correct[ch].mean()
    # a chunk of only correct rows has confidence 1: clip as the proof (eps < delta / K)
    k_ones = int((conf[rest] == 1.0).sum())
    delta = 1.0 / (n * lam) / 2
    eps = delta / max(k_ones, 1) / 2
    conf[rest] = np.minimum(conf[rest], 1 - eps)
    conf[i_star] = 1 - delta
    # binning that keeps each chunk's rows together: one bin per distinct confidence
    # value is the limit the proof uses; with our uniform bins identical values share a
    # bin, and distinct chunk accuracies may share a bin too -- both keep sum(acc - c)
    # per bin equal to the proof's, so ECE = (K eps + 1 - delta) / N < 1 / N
    ece = binned.ece(conf, correct.astype(float), n_bins=n_bins)
    assert ece < 1.0 / n
    assert risk.csr(conf, correct, eps=min(eps, delta) / 10) > lam
