"""Settings shared by the metrics, the bootstrap, the report and the CLI.

One frozen dataclass holds every option that changes a metric's value, so the
summary, the intervals, the report's methods section and the JSON export all read
the same numbers.  Which metric depends on which setting is recorded in the
registry (:attr:`calreport.registry.Metric.settings`).
"""

from __future__ import annotations

from dataclasses import dataclass, fields, replace
from typing import Any

import numpy as np

from calreport import _validate as v

__all__ = ["P_RISK_METHODS", "SETTING_DOCS", "Settings"]

#: Methods of the P_risk null distribution; "auto" picks the normal approximation only
#: where it is valid (see :func:`calreport.metrics.risk.risk_summary`).
P_RISK_METHODS = ("auto", "normal", "monte_carlo")


@dataclass(frozen=True)
class Settings:
    """Options of the metrics of one summary.

    Attributes
    ----------
    n_bins : int, default 15
        Number of bins of the binned metrics (ECE, MCE, signed ECE).
    strategy : {"uniform", "quantile"}, default "uniform"
        Equal-width bins ``((m-1)/M, m/M]`` or equal-mass bins.
    tau : float, default 0.5
        Selective threshold of CWSA and CWSA+.
    view : {"top_label", "positive"} or None
        Calibration view of the binned and local metrics; None picks the profile's
        default (positive class for binary input with a score column).
    p_risk_method : {"auto", "normal", "monte_carlo"}, default "auto"
        Null distribution of P_risk; ``"auto"`` uses the normal approximation only
        where it is valid.
    eps : float, default 1e-8
        Confidences are clipped to ``[eps, 1 - eps]`` for CSR.
    min_count : int, default 1
        Minimum rows of a bin for MCE.
    seed : int or None
        Seed of the Monte Carlo P_risk (the bootstrap has its own seed argument);
        None uses seed 0, so a summary is reproducible.
    """

    n_bins: int = 15
    strategy: str = "uniform"
    tau: float = 0.5
    view: str | None = None
    p_risk_method: str = "auto"
    eps: float = 1e-8
    min_count: int = 1
    seed: int | None = None

    def __post_init__(self) -> None:
        v.check_n_bins(self.n_bins)
        v.check_option(self.strategy, "strategy", ("uniform", "quantile"))
        v.check_tau(self.tau)
        if self.view is not None:
            v.check_option(self.view, "view", ("top_label", "positive"))
        v.check_option(self.p_risk_method, "p_risk_method", P_RISK_METHODS)
        eps = float(self.eps)
        if not 0.0 < eps < 0.5:
            raise ValueError(f"`eps` must be in (0, 0.5), e.g. 1e-8; got {self.eps!r}.")
        v.check_positive_int(self.min_count, "min_count")
        if self.seed is not None and (isinstance(self.seed, bool) or not isinstance(
                self.seed, (int, np.integer)) or self.seed < 0):
            raise ValueError(f"`seed` must be a non-negative integer or None, got "
                             f"{self.seed!r}.")

    @property
    def mc_seed(self) -> int:
        """Seed of the Monte Carlo null: ``seed``, or 0 when not given."""
        return 0 if self.seed is None else int(self.seed)

    @classmethod
    def from_kwargs(cls, **kw: Any) -> Settings:
        """Settings from keyword arguments, ignoring those that are None."""
        seed = kw.pop("seed", None)
        if not isinstance(seed, (int, np.integer)) or isinstance(seed, bool):
            seed = None
        known = {f.name for f in fields(cls)}
        return cls(seed=seed, **{k: val for k, val in kw.items()
                                 if val is not None and k in known})

    def replace(self, **kw: Any) -> Settings:
        """A copy with some fields changed."""
        return replace(self, **kw)

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form (reports and JSON)."""
        return {f.name: getattr(self, f.name) for f in fields(self)}


#: How a metric method's ``Parameters`` section shows each setting: the numpydoc type
#: line (type and default) and the description (the methods of
#: :class:`calreport._metric_methods.MetricMethods` are generated from these and the
#: registry).
SETTING_DOCS: dict[str, tuple[str, str]] = {
    "eps": ("float, default 1e-8", "Confidences are clipped to ``[eps, 1 - eps]``."),
    "p_risk_method": ('{"auto", "normal", "monte_carlo"}, default "auto"',
                      'Null distribution; "auto" uses the normal approximation only where '
                      "it is valid."),
    "seed": ("int, optional", "Seed of the Monte Carlo null (default 0)."),
    "view": ('{"top_label", "positive"}, optional',
             "Calibration view (default: positive class for binary input with a score "
             "column)."),
    "n_bins": ("int, default 15", "Number of bins."),
    "strategy": ('{"uniform", "quantile"}, default "uniform"',
                 "Equal-width or equal-mass bins."),
    "min_count": ("int, default 1", "Minimum rows of a bin."),
    "tau": ("float, default 0.5", "Selective threshold."),
}
