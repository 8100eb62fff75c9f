"""The paired z-test of two models' row terms and its Wald interval.

:func:`calreport.compare.compare_groups` tests the difference in CSR and in log loss
between a model and its baseline on the same rows with :func:`paired_z_test` (the
Diebold-Mariano form) and reports :func:`wald_interval`, the interval that test does
not reject, so interval and p-value never disagree.  :data:`COVERAGE` is what
benchmarks/compare_size.py measured of compare()'s intervals and tests (a comparison
prints :data:`COVERAGE_BINARY` or :data:`COVERAGE_MULTICLASS`, the part for its models).
All are re-exported by :mod:`calreport.compare`.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

__all__ = ["BELOW_NOMINAL_BINARY", "BELOW_NOMINAL_MULTICLASS", "COVERAGE", "COVERAGE_BINARY",
           "COVERAGE_MULTICLASS", "paired_z_test", "wald_interval"]

# Where compare()'s interval missed the truth far more often than 5 % in the study
# (benchmarks/compare_size.py): between a model and a very confident, sharper one.
_CSR_BINARY, _CSR_MULTICLASS, _ECE_MULTICLASS = "24-33 %", "63-78 %", "99-100 %"
#: Metric -> its caveat, printed beside its interval when the models are binary.
BELOW_NOMINAL_BINARY = {
    "csr": f"missed the truth in {_CSR_BINARY} of study runs between a model and a very "
           f"confident, sharper one"}
#: The same for multiclass models.
BELOW_NOMINAL_MULTICLASS = {
    "csr": f"missed the truth in {_CSR_MULTICLASS} of study runs between a model and a "
           f"very confident, sharper one",
    "ece": f"missed the true 0 in {_ECE_MULTICLASS} of study runs between a model and a "
           f"very confident, sharper one (the sample ECEs' biases differ)"}

#: What the size and coverage study (benchmarks/compare_size.py, 500 runs a cell;
#: sections ``compare``, ``compare_multiclass`` and ``compare_other`` of
#: benchmarks/RESULTS.md) measured of compare()'s intervals and tests between binary
#: models.  Every cell where an interval missed the truth in more than 6 % of runs is
#: named (for the percentile intervals: counted, the worst named; each cell is in
#: RESULTS.md).  compare() prints it when the models are binary.
COVERAGE_BINARY = (
    "in benchmarks/compare_size.py (500 runs a cell, 200 to 5,000 rows, 95 % intervals) "
    "under nulls of two equally calibrated, correlated binary models: when the two are "
    "alike (exchangeable, mildly or very confident) the Wald interval of the CSR "
    "difference missed the true 0 in 2.6-4.2 % of runs, as often as the z-test rejected "
    "it (the paired percentile interval it replaces: 5.2-9.6 %); for log loss the Wald "
    "interval missed in 3.6-6.4 % of runs in every cell (percentile: 4.2-7.4 %; a binary "
    "model's top-label log loss is its log loss).  Caveat for CSR: between two different "
    "calibrated models, one sharper, its interval missed the true 0 in 7.8-9.6 % of runs "
    "(mildly sharper) and " + _CSR_BINARY + " (very confident, many confidences above "
    "0.99), and so "
    "did every other interval tried and the z-test: a sharp model has a sample CSR "
    "usually below its expected value (which rare errors at confidences near 1 carry), "
    "so a lower CSR of the sharper model is weak evidence that it is less risky.  Paired "
    "percentile intervals (200 replicates in the study; compare()'s default is 1,000): "
    "accuracy, Brier and AUC missed the true difference in 5.4-7.8 %, 3.2-7.4 % and "
    "3.8-7.8 % of runs (above 6 % in 7, 5 and 3 of 12 cells; worst: 7.8 % for accuracy "
    "at 5,000 rows and for AUC at 1,000 rows, alike models); ECE's interval missed the "
    "true 0 of the population binned ECE in at most 0.2 % of runs between alike models "
    "and 0.2-4.6 % between different ones")
#: The same for multiclass models (3 and 10 classes); compare() prints it when the
#: models have more than two classes.
COVERAGE_MULTICLASS = (
    "in benchmarks/compare_size.py (500 runs a cell, 3 and 10 classes, 300 and 3,000 "
    "rows, 95 % intervals) under nulls of two exactly calibrated, correlated multiclass "
    "models: when the two are alike the Wald interval missed the true 0 in 3.4-7.0 % of "
    "runs for top-label log loss (above 6 %: 7.0 % at 10 classes, 3,000 rows), 3.2-5.8 % "
    "for log loss and 1.6-6.6 % for CSR (above 6 %: 6.6 % at 3 classes, 3,000 rows), as "
    "often as the z-test rejected it; between a model and a sharper one it missed the "
    "true difference in 4.4-7.0 % of runs for top-label log loss (above 6 %: 6.2 % at 3 "
    "classes, 300 rows and 7.0 % at 10 classes, 3,000 rows, both very confident) and "
    "4.8-6.4 % for log loss (above 6 %: 6.4 % at 10 classes, 3,000 rows, very "
    "confident).  Caveat for CSR: between a model and a sharper one its interval missed "
    "the truth in 6.4-9.0 % of runs at 3 classes, 300 rows and at 10 classes, 300 and "
    "3,000 rows (5.4 % at 3 classes, 3,000 rows) when mildly sharper, and in "
    + _CSR_MULTICLASS + " when "
    "the sharper model gives 4-15 % of its rows a confidence above 1 - 1e-8, where CSR "
    "clips: a sharp model has a sample CSR usually below its expected value, so a lower "
    "CSR of the sharper model is weak evidence that it is less risky.  Paired percentile "
    "intervals (200 replicates in the study; compare()'s default is 1,000): accuracy, "
    "Brier and AUC missed the true difference in 4.2-9.4 %, 4.2-7.6 % and 4.8-8.2 % of "
    "runs (above 6 % in 7, 7 and 10 of 16 cells; worst: accuracy 9.4 % at 10 classes, "
    "3,000 rows, a model against a sharper one).  Caveat for ECE: its interval missed "
    "the true 0 of the population binned ECE in at most 0.2 % of runs between alike "
    "models and 0.2-0.4 % between a model and a mildly sharper one, but in "
    + _ECE_MULTICLASS + " "
    "between a model and a very confident, sharper one: it is an interval of the "
    "difference of the two sample ECEs, whose upward biases differ between models of "
    "different sharpness, so there an ECE difference is not evidence of a calibration "
    "difference")
#: Both statements: what the study measured of every comparison.
COVERAGE = (f"binary models, {COVERAGE_BINARY}.  Multiclass models, "
            f"{COVERAGE_MULTICLASS}")


def paired_z_test(terms: np.ndarray, base_terms: np.ndarray,
                  weight: np.ndarray | None = None) -> tuple[float, float, float]:
    """Paired two-sided z-test of the difference of two weighted means of row terms.

    Parameters
    ----------
    terms, base_terms : ndarray, shape (N,)
        Per-row terms of the model and of the baseline on the same rows.
    weight : ndarray, shape (N,), optional
        Importance weights shared by both (frequency weights: pass repeated rows).

    Returns
    -------
    difference, standard_error, p_value : float

    Notes
    -----
    With ``d_i = terms_i - base_terms_i`` and weights ``w_i``,
    ``D = sum w d / sum w`` and
    ``SE^2 = n / (n - 1) * sum w^2 (d - D)^2 / (sum w)^2`` (the delta-method, or
    sandwich, variance of a ratio of sums whose denominator both share; ``n`` rows
    of positive weight), ``p = 2 Phi(-|D| / SE)``.  Unweighted, this is the paired
    t statistic read against the normal, the Diebold-Mariano test of equal
    expected loss.  ``SE = 0`` gives p = 1 when ``D = 0`` (identical models), else 0.

    References
    ----------
    Diebold, F. X. & Mariano, R. S. (1995). Comparing Predictive Accuracy.
    doi:10.1080/07350015.1995.10524599.

    Examples
    --------
    >>> d, se, p = paired_z_test(np.array([1.0, 2.0, 3.0]), np.array([1.0, 2.0, 3.0]))
    >>> d, se, p
    (0.0, 0.0, 1.0)
    """
    d = np.asarray(terms, dtype=np.float64) - np.asarray(base_terms, dtype=np.float64)
    w = np.ones_like(d) if weight is None else np.asarray(weight, dtype=np.float64)
    keep = w > 0
    d, w = d[keep], w[keep]
    n = d.size
    total = w.sum()
    if n < 2 or not total > 0:
        return math.nan, math.nan, math.nan
    diff = float(np.dot(w, d) / total)
    var = float(np.dot(w * w, (d - diff) ** 2)) / (total * total) * n / (n - 1)
    se = math.sqrt(var)
    if not np.isfinite(diff) or not np.isfinite(se):
        return diff, se, math.nan
    if se == 0.0:
        return diff, se, 1.0 if diff == 0.0 else 0.0
    return diff, se, float(special.erfc(abs(diff) / se / math.sqrt(2.0)))


def wald_interval(difference: float, standard_error: float, ci: float = 0.95
                  ) -> tuple[float, float, str]:
    """The Wald interval of :func:`paired_z_test`: ``difference +- z SE``.

    Parameters
    ----------
    difference, standard_error : float
        ``D`` and ``SE`` of :func:`paired_z_test`.
    ci : float, default 0.95
        Level; ``z = Phi^-1((1 + ci) / 2)``.

    Returns
    -------
    low, high : float
    reason : str
        Why the bounds are NaN ("" when they are not).

    Notes
    -----
    The interval is the set of differences ``delta`` the z-test does not reject at
    level ``1 - ci`` (``2 Phi(-|D - delta| / SE) >= 1 - ci``), so it excludes 0
    exactly when the test's p-value is below ``1 - ci`` (up to rounding when
    ``|D| / SE`` equals ``z`` to the last digits), and the interval and the p-value
    never contradict each other.  ``SE = 0`` gives ``[D, D]``.  It is compare()'s
    interval of the CSR and log loss differences: CSR's row terms
    ``(1 - correct) / (1 - c)`` are heavy-tailed for confident models, where the
    paired percentile, BCa and bootstrap-t intervals missed a true 0 too often
    (:data:`calreport.compare.WALD`, :data:`calreport.compare.COVERAGE`).

    Examples
    --------
    >>> lo, hi, _ = wald_interval(2.0, 1.0, 0.95)
    >>> round(lo, 6), round(hi, 6)
    (0.040036, 3.959964)
    """
    if not (math.isfinite(difference) and math.isfinite(standard_error)):
        return math.nan, math.nan, ("no interval: the z-test's difference or standard "
                                    "error is undefined (fewer than 2 rows of positive "
                                    "weight)")
    half = float(special.ndtri(0.5 + ci / 2.0)) * standard_error
    return difference - half, difference + half, ""
