"""The fast paths of the accessor: each one equals the plain computation it replaces."""

from __future__ import annotations

import importlib

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport import _labels as lab
from calreport import _validate as v
from calreport.metrics import risk, selective
from calreport.metrics._bins import _assign, _assign_uniform, _uniform_edges
from calreport.profile import ConfidenceProfile

summary_module = importlib.import_module("calreport.summary")


# ------------------------------------------------------------------ uniform bins
@pytest.mark.parametrize("n_bins", [1, 2, 3, 7, 10, 15, 20, 100, 1000, 4097])
def test_uniform_bins_by_arithmetic_equal_the_binary_search(n_bins: int) -> None:
    edges = _uniform_edges(n_bins)
    rng = np.random.default_rng(n_bins)
    # every edge, its neighbouring floats, m * (1 / M) (one ulp off m / M), 0, 1, -0.0
    near = np.concatenate([edges, np.nextafter(edges, -1.0), np.nextafter(edges, 2.0),
                           np.arange(n_bins + 1) * (1.0 / n_bins), [0.0, -0.0, 1.0]])
    s = np.clip(np.concatenate([near, rng.random(20_000), np.linspace(0, 1, 10_001)]),
                -0.0, 1.0)
    np.testing.assert_array_equal(_assign_uniform(s, n_bins), _assign(s, edges))


def test_uniform_bins_hand_worked() -> None:
    # M = 4: (0, .25] -> 0 (with 0), (.25, .5] -> 1, (.5, .75] -> 2, (.75, 1] -> 3
    s = np.array([0.0, 0.25, 0.2500000001, 0.5, 0.75, 0.7500001, 1.0])
    assert _assign_uniform(s, 4).tolist() == [0, 0, 1, 1, 2, 3, 3]


# --------------------------------------------------------------- binary outcome
def test_binary_outcome_values() -> None:
    assert lab.binary_outcome(np.array([1.0, 0.0, 1.0]), "y").tolist() == [1.0, 0.0, 1.0]
    assert lab.binary_outcome(np.array([True, False]), "y").tolist() == [1.0, 0.0]
    assert lab.binary_outcome([1, 0], "y").dtype == np.float64


@pytest.mark.parametrize("bad, match", [
    (np.array([1.0, 0.5, 2.0]), r"`outcome` must hold 0/1 or True/False; 2 values are "
                                r"neither \(first at position 1: 0.5\)"),
    (np.array([1.0, np.nan]), r"`outcome` has 1 missing value .*position 1"),
    (np.array([1.0, np.inf]), r"`outcome` has 1 infinite value"),
])
def test_binary_outcome_errors_match_check_binary_indicator(bad: np.ndarray,
                                                            match: str) -> None:
    with pytest.raises(ValueError, match=match):
        lab.binary_outcome(bad, "outcome")
    with pytest.raises(ValueError, match=match):
        lab.check_binary_indicator(bad, "outcome")


# ------------------------------------------------------------------------- AURC
def _brute_aurc(c: np.ndarray, ok: np.ndarray) -> float:
    # every row is charged the error rate of the rows at least as confident as itself
    return float(np.mean([np.mean(~ok[c >= ci]) for ci in c]))


@pytest.mark.parametrize("seed", range(20))
def test_aurc_packed_sort_equals_brute_force_and_weighted_path(seed: int) -> None:
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 60))
    c = np.round(rng.random(n), 1)  # many ties
    c[0] = -0.0 if n > 2 else c[0]
    ok = rng.random(n) < 0.6
    fast = selective.aurc(c, ok)
    assert fast == pytest.approx(_brute_aurc(c, ok), abs=1e-12)
    assert fast == pytest.approx(selective.aurc(c, ok, sample_weight=np.ones(n)), abs=1e-12)


def test_aurc_hand_worked_and_extremes() -> None:
    # (0 + 2 * 1/3 + 1/2) / 4 = 0.2916...
    assert selective.aurc([0.9, 0.8, 0.8, 0.6], [1, 1, 0, 0]) == pytest.approx(7 / 24)
    assert selective.aurc([0.3, 0.9], [1, 1]) == 0.0
    assert selective.aurc([0.3, 0.9], [0, 0]) == 1.0
    assert selective.aurc([1.0], [0]) == 1.0


# ------------------------------------------------------------------------- CWSA
@pytest.mark.parametrize("tau", [0.0, 0.5, 0.9])
def test_cwsa_unweighted_equals_brute_force_and_unit_weights(tau: float) -> None:
    rng = np.random.default_rng(7)
    c = np.round(rng.random(500), 2)
    ok = rng.random(500) < 0.7
    sel = c >= tau
    phi = (c[sel] - tau) / (1 - tau)
    brute = np.mean(phi * (2 * ok[sel] - 1))
    brute_plus = np.mean(phi * ok[sel])
    assert selective.cwsa(c, ok, tau=tau) == pytest.approx(brute, abs=1e-12)
    assert selective.cwsa_plus(c, ok, tau=tau) == pytest.approx(brute_plus, abs=1e-12)
    ones = np.ones(500)
    assert selective.cwsa(c, ok, tau=tau, sample_weight=ones) == pytest.approx(brute, abs=1e-12)


# ------------------------------------------------------------------ validation
def test_check_probability_messages_unchanged() -> None:
    with pytest.raises(ValueError, match=r"`p` has 1 missing value .*first at position 1"):
        v.check_probability([0.2, np.nan, 2.0], "p")
    with pytest.raises(ValueError, match=r"`p` has 1 infinite value"):
        v.check_probability([0.2, np.inf], "p")
    with pytest.raises(ValueError, match=r"`p` has 2 values outside \[0, 1\] \(first at "
                                         r"position 0: -0.1\)"):
        v.check_probability([-0.1, 0.5, 1.5], "p")
    assert v.check_probability([-0.0, 1.0], "p").tolist() == [0.0, 1.0]


@pytest.mark.parametrize("k", [2, 3, 16, 17, 40])
def test_row_sum_check_by_columns(k: int) -> None:
    rng = np.random.default_rng(k)
    p = rng.dirichlet(np.ones(k), size=200)
    np.testing.assert_allclose(v._row_sums(p), p.sum(axis=1), rtol=0, atol=1e-15)
    assert v.check_proba_matrix(p, "proba") is not None
    p[[3, 50]] *= 1.01
    with pytest.raises(ValueError, match=r"`proba`: 2 rows of 200 do not sum to 1 within "
                                         r"0.0001 \(first at row 3: sum = 1.01\)"):
        v.check_proba_matrix(p, "proba")


def test_class_codes_fast_path_returns_a_new_array() -> None:
    y = np.array([0, 2, 1])
    out = v.check_class_codes(y, 3)
    assert out.tolist() == [0, 2, 1] and not np.shares_memory(out, y)
    with pytest.raises(ValueError, match=r"1 value that is not a class code 0..2"):
        v.check_class_codes(np.array([0, 3]), 3)


def test_integer_labels_zero_to_k_are_encoded_without_aliasing() -> None:
    y = np.array([0, 1, 2, 1])
    codes = lab.encode_labels(y, np.array([0, 1, 2]), "y_true")
    assert codes.tolist() == [0, 1, 2, 1] and not np.shares_memory(codes, y)
    # gaps and offsets still map through the lookup table
    assert lab.encode_labels(np.array([5, 7]), np.array([5, 7]), "y").tolist() == [0, 1]


def test_count_clipped_equals_clip_confidence() -> None:
    rng = np.random.default_rng(0)
    for eps in (1e-8, 0.1, 0.49):
        c = np.concatenate([rng.random(100), [0.0, 1.0, eps, 1 - eps,
                                              np.nextafter(eps, 0), np.nextafter(1 - eps, 2)]])
        expected = risk.clip_confidence(c, eps=eps, warn=False)[1]
        assert summary_module._count_clipped(c, eps) == expected


# ------------------------------------------------------------------------ profile
def test_take_with_positions_and_masks() -> None:
    rng = np.random.default_rng(1)
    proba = rng.dirichlet(np.ones(3), size=10)
    prof = ConfidenceProfile.from_arrays(rng.integers(0, 3, 10), proba)
    rows = np.array([4, 0, 9, 4])
    part = prof.take(rows)
    np.testing.assert_array_equal(part.proba, prof.proba[rows])
    np.testing.assert_array_equal(part.conf, prof.conf[rows])
    mask = np.arange(10) % 3 == 0
    np.testing.assert_array_equal(prof.take(mask).y_true, prof.y_true[mask])
    with pytest.raises(IndexError, match="boolean index"):
        prof.take(mask[:5])


def test_view_is_built_once_and_read_only() -> None:
    prof = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.1, 0.8, 0.6, 0.3])
    s1, y1 = prof.view("positive")
    s2, y2 = prof.view()
    assert y1 is y2 and s1 is s2
    assert y1.tolist() == [0.0, 1.0, 1.0, 0.0]
    with pytest.raises(ValueError, match="read-only"):
        y1[0] = 1.0


def test_frame_is_not_mutated_and_profile_does_not_follow_it() -> None:
    df = pd.DataFrame({"y_true": [0, 1, 1, 0], "proba": [0.1, 0.8, 0.6, 0.3]})
    before = df.copy(deep=True)
    prof = df.calib.profile()
    df.calib.summary()
    pd.testing.assert_frame_equal(df, before)
    df.loc[0, "proba"] = 0.9
    df.loc[1, "y_true"] = 0
    assert prof.score.tolist() == [0.1, 0.8, 0.6, 0.3]
    assert prof.y_true.tolist() == [0, 1, 1, 0]
    assert df.calib.profile().score[0] == 0.9  # a new call reads the new values

