"""A merged state's sums, finished by the registry's finishers.

:class:`StateSums` gives the sums of a state (its point values, or each of its
Poisson replicates) the interface of the bootstrap's replicate sums, so a metric's
formula out of core is its registry finisher (:mod:`calreport._finishers`).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import numpy as np

from calreport import _finishers
from calreport.registry import REGISTRY

__all__ = ["EXTRAS", "STATE_COLUMNS", "SUM_FORM", "StateSums", "div", "finish_sums",
           "missing_needs"]


def div(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a / b`` elementwise, NaN where ``b`` is not positive."""
    a, b = np.broadcast_arrays(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    out = np.full(a.shape, np.nan)
    ok = b > 0
    out[ok] = a[ok] / b[ok]
    return out


class StateSums:
    """A state's merged sums as the registry's finishers read them.

    The same interface as the bootstrap's replicate sums
    (:class:`calreport.bootstrap.kernels.ReplicateSums`): ``sum(col)`` and
    ``ratio(num, den)`` of the per-row columns of
    :func:`calreport._finishers.row_columns`, ``per_bin(col)`` and
    ``bin_occupancy()`` of the uniform bins, so a metric's formula is its finisher's,
    for the point values and for every Poisson replicate.

    Parameters
    ----------
    sums : dict of str -> ndarray, shape (G,) or (G, B)
        Weighted sums of the columns (``"one"`` = sum of weights).
    bins : dict of str -> ndarray, shape (G, n_bins) or (G, B, n_bins)
        Per-bin sums of ``"one"`` and ``"bin_diff"`` (outcome - score).
    occupancy : ndarray
        Rows per bin (Kish's size with sample weights), the shape of ``bins``.
    """

    def __init__(self, sums: dict[str, np.ndarray], bins: dict[str, np.ndarray],
                 occupancy: np.ndarray) -> None:
        lead = sums["one"].shape
        self.shape = lead
        self._sums = {k: np.asarray(a, dtype=np.float64).reshape(-1) for k, a in sums.items()}
        nb = occupancy.shape[-1]
        self._bins = {k: a.reshape(-1, nb) for k, a in bins.items()}
        self._occ = occupancy.reshape(-1, nb)

    def sum(self, col: str) -> np.ndarray:
        """Weighted sum of a per-row column, flattened over the leading axes."""
        return self._sums[col]

    def ratio(self, num: str, den: str = "one") -> np.ndarray:
        """Ratio of two weighted sums (NaN where the denominator is not positive)."""
        return div(self.sum(num), self.sum(den))

    def per_bin(self, col: str) -> np.ndarray:
        """Per-bin sums of a column, shape (flattened leading axes, bins)."""
        return self._bins[col]

    def bin_occupancy(self) -> np.ndarray:
        """Rows per bin, or with sample weights Kish's (sum w)^2 / sum w^2."""
        return self._occ


def finish_sums(k: StateSums, cfg: Any, names: tuple[str, ...]) -> dict[str, np.ndarray]:
    """The registry finisher of each metric of ``names`` on the sums ``k`` (P_risk is
    Phi(z), :func:`calreport._finishers.p_risk`; the :data:`EXTRAS` their own), in the
    sums' leading shape."""
    out = {}
    with np.errstate(divide="ignore", invalid="ignore"):
        for name in names:
            fn = (_finishers.p_risk if name == "p_risk" else EXTRAS[name] if name in EXTRAS
                  else REGISTRY[name].interval.finish)
            out[name] = np.asarray(fn(k, cfg), dtype=np.float64).reshape(k.shape)
    return out


def missing_needs(state: Any, names: Iterable[str]) -> dict[str, str]:
    """The registry's metrics among ``names`` that a state's data cannot define (no
    class probabilities, say), with the registry's reason
    (:meth:`calreport.registry.Metric.missing`)."""
    schema = state.schema
    weights = state.config.weights if schema.weighted else None
    out = {}
    for name in names:
        spec = REGISTRY.get(name)
        why = None if spec is None else spec.missing(
            has_proba=schema.layout == "proba", has_labels=schema.layout != "minimal",
            weights=weights)
        if why is not None:
            out[name] = why
    return out


#: Per-row columns (:func:`calreport._finishers.row_columns`) whose sums a state holds:
#: every one, and the per-bin ``"bin_diff"``.
STATE_COLUMNS = frozenset({*_finishers.COLUMNS, "bin_diff"})
#: Descriptive columns of the out-of-core summary beside the registry's metrics, as
#: finishers of the same sums (a state's point sharpness is formed in exact
#: arithmetic, :func:`calreport.stats.finish.summary`).
EXTRAS = {
    "top_label_brier": _finishers.ratio("top_brier"),
    "sharpness": lambda k, s: k.ratio("c2") - k.ratio("c") ** 2,
    "coverage": _finishers.ratio("sel"),
    "selective_accuracy": _finishers.ratio("sel_correct", "sel"),
}


def _sum_form() -> tuple[str, ...]:
    names = []
    for name, spec in REGISTRY.items():
        iv = spec.interval
        sums = (iv.kind == "bootstrap" and iv.finish is not None and bool(iv.columns)
                and set(iv.columns) <= STATE_COLUMNS)
        if sums or name == "p_risk":
            names.append(name)
    return tuple(names)


#: Registry metrics finished from a state's sums by their registry finisher: every
#: metric whose finisher reads columns the state holds (P_risk is Phi(z)); the others
#: need the state's fine bins (AUC, cwAUC, AURC with their bounds) or a sample.
SUM_FORM = _sum_form()
