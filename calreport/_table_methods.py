"""The structured-result methods shared by ``df.calib`` and ``df.groupby(...).calib``.

The accessors' other results: the risk verdict table (CSR, sigma_CSR, z, P_risk and
the band), the reliability table, the selective-prediction sweep, the confusion
counts, the LOWESS curve, the classification metrics, the calibration tests, the
ICI family and the scores.  Each validates its arguments, then builds its table for
every profile (:mod:`calreport._tables`): a Series or DataFrame on a DataFrame, the
same stacked under the group keys on a GroupBy (:func:`calreport._engine.per_group`).
The scalar metrics are :class:`calreport._metric_methods.MetricMethods`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from calreport import _tables
from calreport import _validate as v
from calreport._engine import per_group
from calreport._grouping import Split
from calreport.result import CalibrationResult
from calreport.settings import Settings

__all__ = ["TableMethods"]


class TableMethods:
    """The table-valued methods of both accessors (mixed into them)."""

    # the accessors: their rows and the one evaluation path
    def _split(self) -> Split:  # pragma: no cover - abstract
        raise NotImplementedError

    def _evaluate(self, metrics: Any, **kw: Any) -> CalibrationResult:  # pragma: no cover
        raise NotImplementedError

    def _series(self, fn: Any) -> Any:
        return per_group(self._split(), fn, kind="series")

    def _frame(self, fn: Any) -> Any:
        return per_group(self._split(), fn, kind="frame")

    def risk(self, *, eps: float = 1e-8, p_risk_method: str = "auto",
             seed: int | None = None, group_kind: str = "subgroups",
             adjust: str | None = "holm") -> Any:
        """CSR, σ_CSR, z, P_risk with its method and meaning, the verdict band and why.

        One set of numbers: the CSR, σ_CSR, z and P_risk of a row are the ones that
        decide its band, by the rule in ``attrs["band_rule"]``
        (:data:`calreport.metrics.risk.BAND_RULE`).  The band is one of "risky",
        "evidence", "undetermined", "no_evidence"; certainty claims (confidences at
        ``1 - eps``) are counted and judged on their own.  Grouped, ``p_risk_adjusted``
        and ``band_adjusted`` adjust the groups' verdicts for their number (the groups
        listed are the family; ``evaluate()`` and the report, which also give the
        pooled rows of subgroups a verdict, add them to it: ``n_tests`` says so).

        Parameters
        ----------
        eps : float, default 1e-8
            Confidences are clipped to [eps, 1 - eps]; those at 1 - eps are certainty
            claims.
        p_risk_method : {"auto", "normal", "monte_carlo"}, default "auto"
            How P_risk is computed (see :func:`calreport.metrics.risk.p_risk`).
        seed : int, optional
            Seed of the Monte Carlo null.
        group_kind : {"subgroups", "alternatives"}, default "subgroups"
            GroupBy: subgroups of one population or alternative models of the same
            rows (recorded in ``attrs["family"]``).
        adjust : {"holm", "bh"} or None, default "holm"
            Multiplicity adjustment of a GroupBy's verdicts
            (:mod:`calreport.metrics.multiplicity`); None: none.

        Returns
        -------
        Series or DataFrame
            Fields of :class:`calreport.metrics.risk.RiskResult`.

        References
        ----------
        Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond
        ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
        arXiv:2605.01796. Section 2.1, appendix A.2.

        Holm, S. (1979). A simple sequentially rejective multiple test procedure.
        Scandinavian Journal of Statistics 6(2), 65-70.
        """
        res = self._evaluate(["p_risk"], n_bins=15, strategy="uniform", tau=0.5, view=None,
                             p_risk_method=p_risk_method, eps=eps, min_count=1, seed=seed,
                             with_risk=True, group_kind=group_kind, adjust=adjust,
                             overall=False)
        return _tables.risk_frame(res)

    def reliability(self, *, n_bins: int = 15, strategy: str = "uniform",
                    view: str | None = None, alpha: float = 0.05) -> pd.DataFrame:
        """Reliability table: one row per bin, with Wilson intervals.

        ``attrs`` records the view, strategy and bin count.  GroupBy: rows stacked
        under the group keys.

        References
        ----------
        Guo, C., Pleiss, G., Sun, Y. & Weinberger, K. Q. (2017). On Calibration of
        Modern Neural Networks. ICML. arXiv:1706.04599. Section 2.
        """
        Settings(n_bins=n_bins, strategy=strategy, view=view)  # arguments fail the call
        v.check_fraction(alpha, "alpha", include_one=False)
        return self._frame(lambda p: _tables.reliability_frame(p, n_bins, strategy, view,
                                                               alpha))

    def selective(self, *, taus: Sequence[float] | None = None) -> pd.DataFrame:
        """Coverage, selective accuracy and risk, CWSA and CWSA+ over a τ sweep.

        References
        ----------
        Shahnazari, K., Ayyoubzadeh, S. M., Keshtparvar, M. & Ghaffari, P. (2025).
        Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware Model
        Evaluation. arXiv:2505.18622. Section 3.
        """
        if taus is not None:
            for tau in np.atleast_1d(np.asarray(taus, dtype=object)):
                v.check_tau(tau)
        return self._frame(lambda p: _tables.selective_frame(p, taus))

    def cw_confusion(self) -> pd.DataFrame:
        """Classical and confidence-weighted TP, FP, FN, TN per class.

        References
        ----------
        Martin-Maroto et al. (2026), arXiv:2605.01796, Definition 5.
        """
        return self._frame(_tables.confusion_frame)

    def lowess_curve(self, *, view: str | None = None, **kwargs: Any) -> pd.DataFrame:
        """LOWESS calibration curve on a grid (score, calibrated).

        References
        ----------
        Cleveland, W. S. (1979). Robust Locally Weighted Regression and Smoothing
        Scatterplots. JASA 74(368), 829-836. doi:10.1080/01621459.1979.10481038.
        """
        Settings(view=view)
        return self._frame(lambda p: _tables.lowess_frame(p, view, kwargs))

    def classification_metrics(self, *, average: str = "macro") -> Any:
        """Classical and confidence-weighted precision, recall, F1, MCC...

        A Series indexed by (form, metric), form in {"classical", "cw"}; GroupBy:
        groups x (form, metric).

        References
        ----------
        Martin-Maroto et al. (2026), arXiv:2605.01796, Definition 5, Propositions 11-12.
        """
        v.check_option(average, "average", ("macro", "micro", "weighted"))
        return self._series(lambda p: _tables.classification_series(p, average))

    def calibration_tests(self, *, view: str | None = None, n_groups: int = 10) -> Any:
        """Hosmer-Lemeshow, Spiegelhalter, Cox (95 % CIs), ECCE KS/Kuiper and T-Cal tests.

        The last two tests' columns: :mod:`calreport._calibration_tests`.

        References
        ----------
        Hosmer & Lemeshow (1980), doi:10.1080/03610928008827941; Spiegelhalter (1986),
        doi:10.1002/sim.4780050506; Cox (1958), doi:10.2307/2333203;
        Arrieta-Ibarra et al. (2022), arXiv:2205.09680; Lee et al. (2023), arXiv:2203.01850.
        """
        Settings(view=view)
        v.check_positive_int(n_groups, "n_groups", minimum=2)
        return self._series(lambda p: _tables.calibration_tests_series(p, view, n_groups))

    def calibration_error(self, *, view: str | None = None) -> Any:
        """ICI, E50, E90 and Emax from the LOWESS calibration curve.

        References
        ----------
        Austin, P. C. & Steyerberg, E. W. (2019). The Integrated Calibration Index (ICI)
        and Related Metrics. Statistics in Medicine 38(21), 4051-4065.
        doi:10.1002/sim.8281.
        """
        Settings(view=view)
        return self._series(lambda p: _tables.calibration_error_series(p, view))

    def scores(self, *, view: str | None = None, n_bins: int = 15,
               strategy: str = "uniform") -> Any:
        """Top-label Brier, sharpness, E-AURC and the binned Murphy decomposition.

        References
        ----------
        Murphy, A. H. (1973). A New Vector Partition of the Probability Score. Journal
        of Applied Meteorology 12(4), 595-600.
        """
        Settings(n_bins=n_bins, strategy=strategy, view=view)
        return self._series(lambda p: _tables.scores_series(p, view, n_bins, strategy))
