"""The calibration tests with p-values as summary metrics: registry computations, the
accessor methods and the columns of ``calibration_tests()``.

The Kolmogorov-Smirnov and Kuiper tests on cumulative differences
(:mod:`calreport.metrics.cumulative`) and adaptive T-Cal
(:mod:`calreport.metrics.tcal`) run on the profile's calibration view: the positive
class of a binary model, the top-label confidence against correctness otherwise
(a test of top-label calibration only). The sample weights keep the profile's
declared meaning (importance or frequency).

Columns they add to ``calibration_tests()``: ``ecce_ks`` / ``ecce_ks_p`` and
``ecce_kuiper`` / ``ecce_kuiper_p``, the Kolmogorov-Smirnov and Kuiper statistics of
the cumulative differences (outcome − score in order of score, divided by their
standard deviation under calibration) and their asymptotic p-values; ``ecce_mad`` /
``ecce_r``, the same maximum and range in probability units; ``tcal_p``, adaptive
T-Cal's Monte Carlo p-value (1,000 null draws, or 99 when their p-value is
above 0.2; seed 0; exact at any n; a seeded subsample of 10,000 rows above that),
``tcal_dpe`` and ``tcal_bins``, the debiased squared ℓ2-ECE and bin count of the level
that decides it. The three p-values are
also summary metrics (registry entries ``ecce_ks_p``, ``ecce_kuiper_p``, ``tcal_p``),
so ``summary()``, the JSON, the report and gates such as
``--fail-on "ecce_ks_p<0.01"`` read them. Their size at α = 5 % is measured by
``benchmarks/calibration_tests_size.py`` (table in ``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from calreport.metrics import cumulative, tcal

if TYPE_CHECKING:
    from calreport.profile import ConfidenceProfile
    from calreport.settings import Settings

__all__ = ["CalibrationTestMethods", "ecce_compute", "grouped_test", "tcal_compute",
           "test_columns"]

#: Null replicates of T-Cal in summaries and ``calibration_tests()``.
TCAL_DRAWS = 1000

# the registry entries' texts (the formulas also head the methods' Notes below)
ECCE_KS_FORMULA = (
    "p = P(max over t in [0, 1] of |B(t)| ≥ max_k |C_k| / σ), B a standard Brownian "
    "motion; C_k = Σ_{j ≤ k} wⱼ (yⱼ − sⱼ) over the rows in order of score (tied scores "
    "one step), σ² = Σ wⱼ² sⱼ (1 − sⱼ) (wⱼ for frequency weights)")
ECCE_KUIPER_FORMULA = (
    "p = P(max B − min B over [0, 1] ≥ (max_k C_k − min_k C_k) / σ), C₀ = 0, with the "
    "cumulative differences C_k and σ of ecce_ks_p")
TCAL_FORMULA = (
    "DPE_m = Σ_b (n_b / n) Σ_{i ≠ j in b} eᵢ eⱼ / (n_b (n_b − 1)), e = y − s, over m "
    "equal-width bins, m = 2, 4, …, 2^L, L = ⌊2 log₂(n / √ln n)⌋; p = Monte Carlo "
    "p-value of the largest standardised DPE_m under yᵢ ~ Bernoulli(sᵢ), 1,000 draws "
    "(99 when their p-value is above 0.2), at most 10,000 rows (a seeded subsample above)")
ECCE_NAN = "every score is 0 or 1: the cumulative differences have no variance"
P_VALUE_NO_INTERVAL = ("a p-value has no interval; the test's size at 5 % is measured in "
                       "benchmarks/calibration_tests_size.py")
SAMPLED_TEST_NOTE = ("the test on a fixed-size uniform sample per group (valid, less "
                     "powerful than on every row)")


def _weights(p: ConfidenceProfile) -> dict[str, Any]:
    return {"sample_weight": p.sample_weight, "weights": p.weights}


def _ecce(p: ConfidenceProfile, view: str | None) -> Any:
    return cumulative.ecce_test(*p.view(view), **_weights(p))


def _tcal(p: ConfidenceProfile, view: str | None, seed: int) -> Any:
    return tcal.tcal_test(*p.view(view), n_draws=TCAL_DRAWS, seed=seed, **_weights(p))


def ecce_compute(field: str) -> Callable[[ConfidenceProfile, Settings, Any], float]:
    """Registry ``compute`` of one field of :func:`~calreport.metrics.cumulative.ecce_test`
    (one test per profile and view, shared through the cache)."""
    def compute(p: ConfidenceProfile, s: Settings, cache: Any) -> float:
        key = ("ecce", s.view)
        values = cache.values if cache is not None else {}
        if key not in values:
            values[key] = _ecce(p, s.view)
        return float(getattr(values[key], field))
    return compute


def tcal_compute(p: ConfidenceProfile, s: Settings, cache: Any) -> float:
    """Registry ``compute`` of the adaptive T-Cal p-value."""
    return float(_tcal(p, s.view, s.mc_seed).pvalue)


def grouped_test(name: str) -> Callable[..., tuple[np.ndarray, dict[int, str]]]:
    """Grouped kernel of a test's p-value (:mod:`calreport._segmented`): every group's
    value, each computed on that group's rows alone (in their input order, with the
    summary's seed), and the reason of each undefined group."""
    def kernel(p: ConfidenceProfile, codes: np.ndarray, n_groups: int, s: Settings,
               cache: dict[str, Any]) -> tuple[np.ndarray, dict[int, str]]:
        score, outcome = p.view(s.view)
        order = np.argsort(codes, kind="stable")
        cuts = np.searchsorted(codes[order], np.arange(n_groups + 1))
        out, why = np.full(n_groups, np.nan), {}
        for g in range(n_groups):
            rows = order[cuts[g]:cuts[g + 1]]
            if rows.size == 0:
                continue
            w = None if p.sample_weight is None else p.sample_weight[rows]
            key = ("tests", name if name == "tcal_p" else "ecce", g)
            try:
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore", RuntimeWarning)
                    if key not in cache:
                        kw = {"sample_weight": w, "weights": p.weights}
                        cache[key] = (
                            tcal.tcal_test(score[rows], outcome[rows], n_draws=TCAL_DRAWS,
                                           seed=s.mc_seed, **kw)
                            if name == "tcal_p" else
                            cumulative.ecce_test(score[rows], outcome[rows], **kw))
            except ValueError as exc:
                why[g] = str(exc)
                continue
            field = {"ecce_ks_p": "ks_pvalue", "ecce_kuiper_p": "kuiper_pvalue",
                     "tcal_p": "pvalue"}[name]
            out[g] = float(getattr(cache[key], field))
            if math.isnan(out[g]):
                why[g] = ECCE_NAN
        return out, why
    return kernel


def test_columns(p: ConfidenceProfile, view: str | None, seed: int = 0) -> dict[str, float]:
    """The new tests' columns of ``calibration_tests()``; NaN where undefined."""
    out = dict.fromkeys(("ecce_ks", "ecce_ks_p", "ecce_kuiper", "ecce_kuiper_p", "ecce_mad",
                         "ecce_r", "tcal_p", "tcal_dpe", "tcal_bins"), math.nan)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        try:
            e = _ecce(p, view)
            out.update(ecce_ks=e.ks_statistic, ecce_ks_p=e.ks_pvalue,
                       ecce_kuiper=e.kuiper_statistic, ecce_kuiper_p=e.kuiper_pvalue,
                       ecce_mad=e.ecce_mad, ecce_r=e.ecce_range)
            t = _tcal(p, view, seed)
            out.update(tcal_p=t.pvalue, tcal_dpe=t.statistic, tcal_bins=float(t.n_bins))
        except ValueError:
            pass
    return out


class CalibrationTestMethods:
    """Mixin of :class:`calreport._metric_methods.MetricMethods`: one method per test
    p-value in the registry."""

    def _metric(self, name: str, **settings: Any) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError

    def ecce_ks_p(self, *, view: str | None = None) -> Any:
        """ECCE Kolmogorov-Smirnov p-value.

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column; top label otherwise, a test of top-label calibration only).

        Notes
        -----
        p = P(max over t in [0, 1] of |B(t)| ≥ max_k |C_k| / σ), B a standard Brownian
        motion; C_k = Σ_{j ≤ k} wⱼ (yⱼ − sⱼ) over the rows in order of score (tied
        scores one step), σ² = Σ wⱼ² sⱼ (1 − sⱼ) (wⱼ for frequency weights)

        References
        ----------
        Arrieta-Ibarra, I., Gujral, P., Tannen, J., Tygert, M. & Xu, C. (2022). Metrics
        of Calibration for Probabilistic Predictions. Journal of Machine Learning
        Research 23(351), 1-54. arXiv:2205.09680. section 2.
        Tygert, M. (2022). Calibration of P-values for Calibration and for Deviation of a
        Subpopulation from the Full Population. arXiv preprint. arXiv:2202.00100.
        section 2.
        """
        return self._metric("ecce_ks_p", view=view)

    def ecce_kuiper_p(self, *, view: str | None = None) -> Any:
        """ECCE Kuiper p-value.

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column; top label otherwise, a test of top-label calibration only).

        Notes
        -----
        p = P(max B − min B over [0, 1] ≥ (max_k C_k − min_k C_k) / σ), C₀ = 0, with the
        cumulative differences C_k and σ of ecce_ks_p

        References
        ----------
        Arrieta-Ibarra, I., Gujral, P., Tannen, J., Tygert, M. & Xu, C. (2022). Metrics
        of Calibration for Probabilistic Predictions. Journal of Machine Learning
        Research 23(351), 1-54. arXiv:2205.09680. section 2.
        Feller, W. (1951). The Asymptotic Distribution of the Range of Sums of
        Independent Random Variables. Annals of Mathematical Statistics 22(3),
        427-432. doi:10.1214/aoms/1177729589.
        """
        return self._metric("ecce_kuiper_p", view=view)

    def tcal_p(self, *, view: str | None = None, seed: int | None = None) -> Any:
        """T-Cal p-value (adaptive debiased ℓ2-ECE test).

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            Calibration view (default: positive class for binary input with a score
            column; top label otherwise, a test of top-label calibration only).
        seed : int, optional
            Seed of the Monte Carlo null (default 0).

        Notes
        -----
        DPE_m = Σ_b (n_b / n) Σ_{i ≠ j in b} eᵢ eⱼ / (n_b (n_b − 1)), e = y − s, over m
        equal-width bins, m = 2, 4, …, 2^L, L = ⌊2 log₂(n / √ln n)⌋; p = Monte Carlo
        p-value of the largest standardised DPE_m under yᵢ ~ Bernoulli(sᵢ), 1,000
        draws (99 when their p-value is above 0.2), at most 10,000 rows (a seeded
        subsample above)

        References
        ----------
        Lee, D., Huang, X., Hassani, H. & Dobriban, E. (2023). T-Cal: An Optimal Test for
        the Calibration of Predictive Models. Journal of Machine Learning Research
        24(335), 1-72. arXiv:2203.01850. sections 3.1-3.3.
        """
        return self._metric("tcal_p", view=view, seed=seed)
