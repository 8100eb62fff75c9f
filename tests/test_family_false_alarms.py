"""The family verdicts of a GroupBy keep false alarms at a single test's rate.

A fast version of ``benchmarks/family_false_alarms.py``: calibrated families whose
rows are drawn with ``correct ~ Bernoulli(c)``, so any flag is a false alarm.  The
confidences stay within [0.6, 0.8], where every group's P_risk is the normal reading
(no Monte Carlo), which keeps 60 families to seconds.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from statsmodels.stats.multitest import multipletests

import calreport  # noqa: F401  (registers the accessor)
from calreport.metrics.multiplicity import adjust_p_values

N_FAMILIES = 60
N_GROUPS = 20
ROWS = 200
SEVERITY = ("risky", "evidence", "undetermined", "no_evidence")
FLAGS = ("risky", "evidence")


def calibrated_family(rng: np.random.Generator) -> pd.DataFrame:
    c = rng.uniform(0.6, 0.8, N_GROUPS * ROWS)
    return pd.DataFrame({"g": np.repeat(np.arange(N_GROUPS), ROWS), "confidence": c,
                         "correct": rng.random(c.size) < c})


def test_adjusted_headline_false_alarms_stay_near_one_test():
    # 21 tests (20 groups and the pooled rows), each flagged with probability
    # 1 - Phi(1) = 15.9 % under calibration: the raw headline, the most severe of the
    # own bands, is flagged in about 1 - 0.841^21 = 97 % of calibrated families (less
    # where the pooled rows and the groups agree); Holm's family-wise bound keeps the
    # adjusted headline's rate at or below 15.9 % (standard error over 60 families
    # about 4.7 points, so 25 % is two of them away).
    rng = np.random.default_rng(20240611)
    raw_flagged = adjusted_flagged = 0
    for seed in range(N_FAMILIES):
        res = calibrated_family(rng).groupby("g").calib(
            conf="confidence", correct="correct").evaluate(
                ["p_risk"], group_kind="subgroups", adjust="holm", seed=seed)
        verdicts = [g.risk for g in res.groups] + [res.overall.risk]
        # the normal reading except where z > 2 with a skewed null (then simulated)
        assert all(v.p_risk_method == "normal" or v.z_csr > 2 for v in verdicts)
        assert res.family["n_tests"] == N_GROUPS + 1
        raw = min((v.band for v in verdicts), key=SEVERITY.index)
        raw_flagged += raw in FLAGS
        adjusted_flagged += res.family["headline"] in FLAGS
    assert adjusted_flagged / N_FAMILIES <= 0.25
    assert raw_flagged / N_FAMILIES >= 0.8


def _p_values_with_ties(rng: np.random.Generator, size: int) -> np.ndarray:
    # values drawn from a few distinct levels (0 and 1 among them) so ties are common
    levels = np.concatenate([[0.0, 1.0], rng.random(4), rng.random(3) * 1e-3])
    return rng.choice(levels, size)


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize(("method", "statsmodels_method"),
                         [("holm", "holm"), ("bh", "fdr_bh")])
def test_adjusted_p_values_equal_statsmodels(seed, method, statsmodels_method):
    rng = np.random.default_rng(seed)
    p = _p_values_with_ties(rng, int(rng.integers(1, 40)))
    expected = multipletests(p, method=statsmodels_method)[1]
    np.testing.assert_allclose(adjust_p_values(p, method), expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("method", ["holm", "bh"])
def test_adjusted_p_values_skip_nan(method):
    # a NaN member is not tested: the others are adjusted as a family of the rest
    rng = np.random.default_rng(7)
    p = _p_values_with_ties(rng, 12)
    with_nan = np.insert(p, [0, 5, 12], np.nan)
    out = adjust_p_values(with_nan, method)
    assert np.isnan(out[[0, 6, 14]]).all()
    np.testing.assert_array_equal(out[~np.isnan(with_nan)], adjust_p_values(p, method))
