"""Seeded synthetic predictions with a known calibration truth.

Three generators from the source papers, each returning a pandas DataFrame whose
column names ``df.calib`` recognises:

* :func:`beyond_ece_profile` -- the ten confidence distributions x eight calibration
  modes of Martin-Maroto et al. (2026, arXiv:2605.01796), section 3.1 and appendix
  Table 4;
* :func:`distorted_binary` -- the logistic data-generating process of Fernandes
  Machado et al. (2024, arXiv:2402.07790) with its alpha / gamma distortions;
* :func:`bpm_simulation` -- Dong et al. (2025, arXiv:2412.10658), section 4 and
  Algorithm 3 (confidences from a Beta law, hits from a preset calibration curve),
  with :func:`true_tce`, the exact true calibration error of the preset.

Every generator takes ``seed``: an int, a :class:`numpy.random.SeedSequence` or a
:class:`numpy.random.Generator` (used as is), never the global NumPy state.  The
same seed gives the same frame with a given NumPy version (NumPy does not promise
identical streams across versions).  Besides the role columns, each frame holds
``true_proba``, the true probability of the event the row predicts.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pandas as pd
from scipy import special

from calreport import _validate as v
from calreport.metrics.bpm import BpmFit, tce_integral

__all__ = [
    "BPM_CURVES",
    "CALIBRATION_MODES",
    "DISTRIBUTIONS",
    "PAPER_LABELS",
    "beyond_ece_profile",
    "bpm_simulation",
    "distorted_binary",
    "true_tce",
]

SeedLike = int | np.random.SeedSequence | np.random.Generator | None

#: Confidence distributions of Martin-Maroto et al. (2026), appendix Table 4.
DISTRIBUTIONS: tuple[str, ...] = (
    "uniform", "skew_high", "skew_low", "bimodal", "tight_high", "tight_low",
    "normal", "log_uniform_low", "log_uniform_high", "bell",
)

#: Calibration modes ``p_true(c)`` of Martin-Maroto et al. (2026), appendix Table 4.
CALIBRATION_MODES: tuple[str, ...] = (
    "random", "perfect", "underconf_linear", "underconf_sqrt", "random_over",
    "overconf_sqrt", "overconf_half", "random_under",
)

#: Names of the distributions and modes as printed in the paper's tables.
PAPER_LABELS: dict[str, str] = {
    "uniform": "Uniform", "skew_high": "Skew High", "skew_low": "Skew Low",
    "bimodal": "Bimodal", "tight_high": "Tight Hi", "tight_low": "Tight Lo",
    "normal": "Normal", "log_uniform_low": "Log-Uniform Low",
    "log_uniform_high": "Log-Uniform High", "bell": "Bell",
    "random": "Random 0.5", "perfect": "Perfect", "underconf_linear": "Underconf 0.2+0.8c",
    "underconf_sqrt": "Underconf sqrt(c)", "random_over": "Random over c",
    "overconf_sqrt": "Overconf 1-sqrt(1-c)", "overconf_half": "Overconf 0.5c",
    "random_under": "Random under c",
}

#: Preset calibration curves of :func:`bpm_simulation`: coefficients ``(a, b, c)`` of
#: ``logit g(s) = c + a ln s - b ln(1 - s)``, or a function for curves outside that family.
BPM_CURVES: dict[str, tuple[float, float, float] | Callable[[np.ndarray], np.ndarray]] = {
    # sigmoid(-0.88 + 0.49 logit s), with Beta(1.1233, 0.1147) confidences: a strongly
    # overconfident curve on mostly near-certain confidences (true TCE_1 = 0.130714)
    "tcebpm": (0.49, 0.49, -0.88),
    "calibrated": (1.0, 1.0, 0.0),
    # g(s) = s^2, outside the family (true TCE_1 = 1/6 under uniform confidences)
    "square": np.square,
}

#: Coefficients of the linear predictor of Fernandes Machado et al. (2024)
#: (``a = [0.1, 0.05, 0.2, -0.05]``).
_DGP_COEF = np.array([0.1, 0.05, 0.2, -0.05])


def _rng(seed: SeedLike) -> np.random.Generator:
    return np.random.default_rng(seed)


# ------------------------------------------ Martin-Maroto et al. (2026), Table 4
def _draw_confidence(distribution: str, n: int, rng: np.random.Generator) -> np.ndarray:
    if distribution == "uniform":
        return rng.random(n)
    if distribution == "skew_high":
        return rng.beta(3.0, 0.5, n)
    if distribution == "skew_low":
        return rng.beta(0.5, 3.0, n)
    if distribution == "bimodal":
        high = rng.random(n) < 0.5
        return np.where(high, rng.beta(3.0, 0.5, n), rng.beta(0.5, 3.0, n))
    if distribution == "tight_high":
        return rng.uniform(0.8, 1.0, n)
    if distribution == "tight_low":
        return rng.uniform(0.0, 0.2, n)
    if distribution == "normal":
        # N(0.7, 0.1^2) truncated to [0, 1), by inversion of the normal CDF
        lo, hi = special.ndtr((0.0 - 0.7) / 0.1), special.ndtr((1.0 - 0.7) / 0.1)
        c = 0.7 + 0.1 * special.ndtri(lo + (hi - lo) * rng.random(n))
        return np.clip(c, 0.0, np.nextafter(1.0, 0.0))
    if distribution == "log_uniform_low":
        return np.exp(rng.uniform(np.log(1e-4), np.log1p(-1e-6), n))
    if distribution == "log_uniform_high":
        return -np.expm1(rng.uniform(np.log(1e-6), np.log(0.9), n))
    if distribution == "bell":
        return rng.beta(5.0, 5.0, n)
    raise AssertionError(distribution)  # unreachable: validated by the caller


def _p_correct(mode: str, c: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    if mode == "random":
        return np.full_like(c, 0.5)
    if mode == "perfect":
        return c.copy()
    if mode == "underconf_linear":
        return 0.2 + 0.8 * c
    if mode == "underconf_sqrt":
        return np.sqrt(c)
    if mode == "random_over":
        return c + (1.0 - c) * rng.random(c.shape[0])
    if mode == "overconf_sqrt":
        return 1.0 - np.sqrt(1.0 - c)
    if mode == "overconf_half":
        return 0.5 * c
    if mode == "random_under":
        return c * rng.random(c.shape[0])
    raise AssertionError(mode)  # unreachable: validated by the caller


def beyond_ece_profile(distribution: str, mode: str, n: int, *,
                       seed: SeedLike = None) -> pd.DataFrame:
    """Binary predictions from a confidence distribution and a calibration mode.

    Parameters
    ----------
    distribution : str
        One of :data:`DISTRIBUTIONS`.
    mode : str
        One of :data:`CALIBRATION_MODES`.
    n : int
        Number of rows.
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``).

    Returns
    -------
    pandas.DataFrame
        Columns ``y_true``, ``y_pred`` (int 0/1), ``confidence`` (confidence in
        ``y_pred``), ``correct`` (bool) and ``true_proba`` (``p_true(c)``, the
        probability that the prediction is correct).

    Raises
    ------
    ValueError
        Unknown distribution or mode, ``n < 1``.

    Notes
    -----
    Martin-Maroto et al. (2026, arXiv:2605.01796), section 3.1 and appendix Table 4.
    Confidences ``c``:

    ============  ===============================================================
    uniform       U(0, 1)
    skew_high     Beta(3, 0.5)
    skew_low      Beta(0.5, 3)
    bimodal       1/2 Beta(0.5, 3) + 1/2 Beta(3, 0.5)
    tight_high    U(0.8, 1)
    tight_low     U(0, 0.2)
    normal        N(0.7, 0.1^2) truncated to [0, 1)
    log_uniform_low   exp(u), u ~ U(ln 1e-4, ln(1 - 1e-6))
    log_uniform_high  1 - exp(u), u ~ U(ln 1e-6, ln 0.9)
    bell          Beta(5, 5)
    ============  ===============================================================

    Calibration modes ``p_true(c)``: random 0.5; perfect c; underconf_linear
    0.2 + 0.8 c; underconf_sqrt sqrt(c); random_over U(c, 1); overconf_sqrt
    1 - sqrt(1 - c); overconf_half 0.5 c; random_under U(0, c) (the random modes draw
    one uniform per row).  The predicted class is uniform on {0, 1},
    ``correct ~ Bernoulli(p_true(c))`` and ``y_true = y_pred`` if correct, else
    ``1 - y_pred``.  The table's "support [0, 1)" of the normal distribution is read as
    truncation (clipping would put an atom at 1 holding 0.13 % of the rows).  Draw
    order: confidences, predicted classes, the modes' uniforms, the hits.

    References
    ----------
    .. [1] Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
       ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
       arXiv preprint. arXiv:2605.01796. Section 3.1 and appendix Table 4.

    Examples
    --------
    >>> df = beyond_ece_profile("uniform", "perfect", 1000, seed=0)
    >>> list(df.columns)
    ['y_true', 'y_pred', 'confidence', 'correct', 'true_proba']
    >>> bool(abs(df["correct"].mean() - 0.5) < 0.05)
    True
    """
    v.check_option(distribution, "distribution", DISTRIBUTIONS)
    v.check_option(mode, "mode", CALIBRATION_MODES)
    n = v.check_positive_int(n, "n")
    rng = _rng(seed)
    c = _draw_confidence(distribution, n, rng)
    y_pred = rng.integers(0, 2, n)
    p_true = _p_correct(mode, c, rng)
    correct = rng.random(n) < p_true
    y_true = np.where(correct, y_pred, 1 - y_pred)
    return pd.DataFrame({"y_true": y_true.astype(np.int64), "y_pred": y_pred.astype(np.int64),
                         "confidence": c, "correct": correct, "true_proba": p_true})


# ------------------------------------------- Fernandes Machado et al. (2024)
def distorted_binary(n: int, *, alpha: float = 1.0, gamma: float = 1.0,
                     seed: SeedLike = None) -> pd.DataFrame:
    """Binary outcomes of a logistic model and scores distorted by alpha / gamma.

    Parameters
    ----------
    n : int
        Number of rows (the paper uses 2,000).
    alpha : float, default 1
        Power applied to the true probability (``> 0``).
    gamma : float, default 1
        Factor applied to the linear predictor (``> 0``).
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``).

    Returns
    -------
    pandas.DataFrame
        Columns ``y_true`` (int 0/1), ``proba`` (the distorted score) and
        ``true_proba`` (``P(y = 1 | x)``).

    Raises
    ------
    ValueError
        ``n < 1`` or non-positive ``alpha`` / ``gamma``.

    Notes
    -----
    Fernandes Machado et al. (2024, arXiv:2402.07790), simulation set-up ("data
    generating process" and "forcing poor calibration"), after Gutman et al. (2022)::

        x_i ~ U(0, 1)^4,  eps_i ~ N(0, 0.5^2),  eta_i = a . x_i + eps_i,
        a = (0.1, 0.05, 0.2, -0.05),  p_i = sigmoid(eta_i),  y_i ~ Bernoulli(p_i),
        score_i = sigmoid(gamma * eta_i) ** alpha.

    ``alpha = gamma = 1`` gives the calibrated score ``p_i``; the paper studies
    alpha, gamma in {1/3, 1, 3} one at a time (setting both combines them).  The
    printed linear predictor of the distortion shows ``-0.1 x_1`` where the model has
    ``a_1 = +0.1``; the model's ``a`` is used in both places so that ``gamma = 1`` is
    calibrated.  Draw order: ``x`` (n x 4), ``eps``, the outcomes' uniforms.

    References
    ----------
    .. [1] Fernandes Machado, A., Charpentier, A., Flachaire, E., Gallic, E. & Hu, F.
       (2024). From Uncertainty to Precision: Enhancing Binary Classifier
       Performance through Calibration. arXiv preprint. arXiv:2402.07790.
       Simulation set-up: data generating process and forcing poor
       calibration.

    Examples
    --------
    >>> df = distorted_binary(2000, alpha=3.0, seed=0)
    >>> bool((df["proba"] <= df["true_proba"]).all())    # alpha > 1 lowers the scores
    True
    """
    n = v.check_positive_int(n, "n")
    alpha = v.check_positive_number(alpha, "alpha")
    gamma = v.check_positive_number(gamma, "gamma")
    rng = _rng(seed)
    x = rng.random((n, 4))
    eta = x @ _DGP_COEF + rng.normal(0.0, 0.5, n)
    p_true = special.expit(eta)
    y = rng.random(n) < p_true
    score = special.expit(gamma * eta) ** alpha
    return pd.DataFrame({"y_true": y.astype(np.int64), "proba": score, "true_proba": p_true})


# ---------------------------------------------------------- Dong et al. (2025)
def _curve(curve: Any) -> BpmFit | Callable[[np.ndarray], np.ndarray]:
    if isinstance(curve, str):
        curve = BPM_CURVES[v.check_option(curve, "curve", tuple(BPM_CURVES))]
    if isinstance(curve, tuple | list) and len(curve) == 3:
        return BpmFit(*(float(t) for t in curve))
    if isinstance(curve, BpmFit) or callable(curve):
        return curve
    raise TypeError(
        "`curve` must be a preset name "
        f"({', '.join(repr(k) for k in BPM_CURVES)}), a tuple (a, b, c) or a function "
        f"of the confidence; got {type(curve).__name__}."
    )


def bpm_simulation(n: int, *, curve: Any = "tcebpm",
                   beta: tuple[float, float] = (1.1233, 0.1147),
                   seed: SeedLike = None) -> pd.DataFrame:
    """Calibration data from a preset curve and a Beta confidence law (binomial process).

    Parameters
    ----------
    n : int
        Number of rows.
    curve : str, tuple (a, b, c) or callable, default "tcebpm"
        True calibration curve ``g``: a name of :data:`BPM_CURVES`, the coefficients of
        ``logit g(s) = c + a ln s - b ln(1 - s)``, or a vectorised function on [0, 1].
    beta : (float, float), default (1.1233, 0.1147)
        Shape parameters of the Beta law of the confidences.
    seed : int, SeedSequence or Generator, optional
        Randomness (``numpy.random.default_rng(seed)``).

    Returns
    -------
    pandas.DataFrame
        Columns ``confidence``, ``correct`` (bool) and ``true_proba`` (``g(confidence)``),
        rows in ascending confidence.

    Raises
    ------
    ValueError
        ``n < 1``, unknown preset, invalid Beta parameters.

    Notes
    -----
    Dong et al. (2025, arXiv:2412.10658), section 4 and Algorithm 3:
    ``s_i ~ Beta(alpha, beta)``, ``correct_i ~ Bernoulli(g(s_i))``.  The default
    preset is ``g(s) = sigmoid(-0.88 + 0.49 logit s)`` with Beta(1.1233, 0.1147), the
    reference simulation of calreport's TCE_bpm tests: the confidences are drawn and
    sorted first, then one uniform per row decides the hits, so ``seed`` reproduces
    a simulation written the same way (same NumPy version; one that clips ``s`` at
    ``1 - 1e-10`` before applying ``g`` can differ at a confidence of exactly 1, with
    probability about 0.2 % per 5,000 rows).  Its true TCE is :func:`true_tce`.

    References
    ----------
    .. [1] Dong, J., Jiang, Z., Pan, D. & Yu, Z. (2025). Combining Priors with
       Experience: Confidence Calibration Based on Binomial Process Modeling.
       Proceedings of the AAAI Conference on Artificial Intelligence 39.
       arXiv:2412.10658. Section 4 and Algorithm 3.

    Examples
    --------
    >>> df = bpm_simulation(1000, seed=0)
    >>> list(df.columns), bool(df["confidence"].is_monotonic_increasing)
    (['confidence', 'correct', 'true_proba'], True)
    """
    n = v.check_positive_int(n, "n")
    al, be = v.check_beta_shape(beta[0], beta[1], "`beta`")
    g = _curve(curve)
    rng = _rng(seed)
    s = np.sort(rng.beta(al, be, n))
    p_true = np.clip(np.asarray(g(s), dtype=np.float64), 0.0, 1.0)
    correct = rng.random(n) < p_true
    return pd.DataFrame({"confidence": s, "correct": correct, "true_proba": p_true})


def true_tce(curve: Any = "tcebpm", beta: tuple[float, float] = (1.1233, 0.1147),
             p: float = 1.0) -> float:
    """Exact true calibration error of a :func:`bpm_simulation` preset.

    Parameters
    ----------
    curve : str, tuple (a, b, c) or callable, default "tcebpm"
        The true calibration curve (as in :func:`bpm_simulation`).
    beta : (float, float), default (1.1233, 0.1147)
        Shape parameters of the Beta law of the confidences.
    p : float, default 1
        Norm order ``p >= 1``.

    Returns
    -------
    float
        ``(int_0^1 |g(x) - x|^p Beta(x; alpha, beta) dx)^(1/p)``.

    Notes
    -----
    The true calibration error of Dong et al. (2025, arXiv:2412.10658), section 2.3
    (Eq. 2), with the known curve and density, integrated by
    :func:`calreport.metrics.bpm.tce_integral`.  The default preset has true
    TCE_1 = 0.130714 (the same integral by ``scipy.integrate.quad`` and by
    ``mpmath.quad`` at 15 digits, SciPy 1.17.1, mpmath 1.3.0).

    References
    ----------
    .. [1] Dong, J., Jiang, Z., Pan, D. & Yu, Z. (2025). Combining Priors with
       Experience: Confidence Calibration Based on Binomial Process Modeling.
       Proceedings of the AAAI Conference on Artificial Intelligence 39.
       arXiv:2412.10658. Section 2.3 (Eq. 2).

    Examples
    --------
    >>> round(true_tce(), 6)
    0.130714
    >>> round(true_tce("square", (1.0, 1.0)), 6)
    0.166667
    """
    al, be = v.check_beta_shape(beta[0], beta[1], "`beta`")
    return tce_integral(_curve(curve), (al, be), p=p)
