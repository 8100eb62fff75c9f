"""``ddf.calib`` and ``ddf.groupby(...).calib`` for Dask DataFrames.

Each partition is reduced to a :class:`~calreport.stats.StatsState` (exact per-group,
per-bin sums); the states are merged with ``+`` in a tree and the metrics are
finished once.  Nothing else is shipped between workers, so memory stays at a few
partitions plus the states, and the numbers equal the pandas ones (exact metrics to
float64 rounding; AUC, cwAUC and AURC within the bound reported beside them).  The
computation runs on the active Dask scheduler: threads by default, a
``dask.distributed`` client when one is active.

Dask stays optional: importing :mod:`calreport` does not import Dask.  Call
:func:`register` (done by ``import calreport`` when Dask is installed) to attach the
accessors.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from calreport.accumulator import (
    add_states,
    frame_state,
    group_counts,
    reliability_frame,
    resolve_spec,
    risk_frame,
    summary_frame,
)
from calreport.stats import StatsConfig, StatsState
from calreport.stats import finish as _finish

__all__ = ["DaskCalibAccessor", "DaskGroupByCalibAccessor", "register"]

_REGISTERED = False


class _Base:
    _obj: Any
    _by: tuple[Hashable, ...]
    _dropna: bool
    _role_kw: dict[str, Any]

    def state(self, **settings: Any) -> StatsState:
        """The merged :class:`~calreport.stats.StatsState` of the frame (one pass).

        Parameters
        ----------
        **settings
            Fields of :class:`~calreport.stats.StatsConfig` (``n_bins``, ``tau``,
            ``n_boot``, ``seed``, ...).
        """
        return compute_state(self._obj, self._role_kw, self._by, StatsConfig(**settings),
                             dropna=self._dropna)

    def summary(self, *, view: str | None = None, ci: float | None = None,
                n_boot: int = 200, seed: int = 0, n_bins: int = 15, tau: float = 0.5,
                score_bins: int = 1 << 16, eps: float = 1e-8, weights: str = "importance",
                min_count: int = 1) -> Any:
        """Summary metrics, as ``df.calib.summary()`` on the same rows.

        Parameters
        ----------
        view : {"top_label", "positive"}, optional
            View of ECE, MCE and signed ECE (default: positive class for binary input).
        ci : float, optional
            Level of Poisson-bootstrap percentile intervals (e.g. 0.95); ``n_boot``
            replicates with counter-based seeds, so the intervals do not depend on the
            partitioning.  None: point estimates only (one pass).
        n_boot, seed : int
            Replicates and master seed of the intervals.
        n_bins, tau, score_bins, eps, weights, min_count
            See :class:`~calreport.stats.StatsConfig`.

        Returns
        -------
        pandas.Series or pandas.DataFrame
            Ungrouped: metric -> value; grouped: groups x metrics.  With ``ci``: columns
            (metric, [value, ci_low, ci_high]).  Bounded metrics carry a
            ``<metric>_bound`` column; ``.attrs["kinds"]`` says which metric is exact
            and which bounded.

        Notes
        -----
        Formulas as in :func:`calreport.stats.summary`.

        Examples
        --------
        >>> import pandas as pd, dask.dataframe as dd
        >>> register()
        >>> pdf = pd.DataFrame({"y": [0, 1, 1, 0] * 5, "proba": [0.2, 0.9, 0.4, 0.3] * 5})
        >>> float(dd.from_pandas(pdf, npartitions=3).calib.summary()["accuracy"])
        0.75
        """
        cfg = StatsConfig(n_bins=n_bins, tau=tau, score_bins=score_bins, eps=eps,
                          weights=weights, min_count=min_count,
                          n_boot=n_boot if ci is not None else 0, seed=seed)
        st = compute_state(self._obj, self._role_kw, self._by, cfg, dropna=self._dropna)
        return summary_frame(_finish.summary(st, view=view, ci=ci), self._by)

    def risk(self, *, eps: float = 1e-8, weights: str = "importance") -> Any:
        """CSR, sigma_CSR, z, P_risk (normal approximation) and the risk band."""
        st = self.state(eps=eps, weights=weights, score_bins=2)
        return risk_frame(_finish.summary(st), self._by)

    def reliability(self, *, view: str | None = None, n_bins: int = 15,
                    alpha: float = 0.05) -> Any:
        """Uniform-bin reliability table (count, mean score/outcome, gap, Wilson interval)."""
        st = self.state(n_bins=n_bins, score_bins=2)
        return reliability_frame(_finish.reliability(st, view=view, alpha=alpha), st.keys,
                                 self._by)


class DaskCalibAccessor(_Base):
    """Calibration metrics of a Dask DataFrame (``ddf.calib``).

    Call it to name the columns, as ``df.calib(y=..., proba=...)`` for pandas.
    """

    def __init__(self, obj: Any) -> None:
        self._obj = obj
        self._by = ()
        self._dropna = True
        self._role_kw: dict[str, Any] = {}

    def __call__(self, y: Hashable | None = None, proba: Any = None,
                 pred: Hashable | None = None, conf: Hashable | None = None,
                 correct: Hashable | None = None, weight: Hashable | None = None, *,
                 classes: Sequence[Any] | None = None, missing: str = "raise",
                 threshold: float = 0.5, pos_label: Any = None) -> DaskCalibAccessor:
        """Name the column roles; returns a bound accessor."""
        out = DaskCalibAccessor(self._obj)
        out._role_kw = _role_kw(y, proba, pred, conf, correct, weight, classes, missing,
                                threshold, pos_label)
        return out


class DaskGroupByCalibAccessor(_Base):
    """Calibration metrics per group of a Dask GroupBy (``ddf.groupby(key).calib``)."""

    def __init__(self, gb: Any) -> None:
        by = gb.by if isinstance(gb.by, (list, tuple)) else [gb.by]
        if not all(isinstance(b, Hashable) and b in gb.obj.columns for b in by):
            raise TypeError(
                "ddf.groupby(...).calib needs the group keys as column names, e.g. "
                "ddf.groupby('model').calib.summary()."
            )
        self._obj = gb.obj
        self._by = tuple(by)
        self._dropna = True if gb.dropna is None else bool(gb.dropna)
        self._role_kw = {}

    def __call__(self, y: Hashable | None = None, proba: Any = None,
                 pred: Hashable | None = None, conf: Hashable | None = None,
                 correct: Hashable | None = None, weight: Hashable | None = None, *,
                 classes: Sequence[Any] | None = None, missing: str = "raise",
                 threshold: float = 0.5, pos_label: Any = None) -> DaskGroupByCalibAccessor:
        """Name the column roles; returns a bound accessor."""
        out = DaskGroupByCalibAccessor.__new__(DaskGroupByCalibAccessor)
        out._obj, out._by, out._dropna = self._obj, self._by, self._dropna
        out._role_kw = _role_kw(y, proba, pred, conf, correct, weight, classes, missing,
                                threshold, pos_label)
        return out


def _role_kw(y: Any, proba: Any, pred: Any, conf: Any, correct: Any, weight: Any,
             classes: Any, missing: str, threshold: float, pos_label: Any) -> dict[str, Any]:
    kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
              classes=classes, pos_label=pos_label)
    out = {k: val for k, val in kw.items() if val is not None}
    out.update(missing=missing, threshold=threshold)
    return out


def compute_state(ddf: Any, role_kw: dict[str, Any], by: Sequence[Hashable],
                  config: StatsConfig, *, dropna: bool = True,
                  split_every: int = 8) -> StatsState:
    """Per-partition states merged by a tree of ``+`` on the active scheduler.

    Parameters
    ----------
    ddf : dask.dataframe.DataFrame
    role_kw : dict
        Column roles, as the keyword arguments of ``df.calib(...)``.
    by : sequence of column names
        Group keys (empty: one group).
    config : StatsConfig
    dropna : bool
        Drop rows whose group key is missing.
    split_every : int
        Fan-in of the merge tree.

    Returns
    -------
    StatsState
    """
    import dask
    from dask import delayed

    by = tuple(by)
    spec = resolve_spec(ddf._meta, role_kw, by, config, dropna=dropna)
    roles = spec.roles
    cols = list(dict.fromkeys([*roles.columns, *by]))
    frame = ddf[cols]
    # first pass (only when needed): the labels, for classes, and rows per group and
    # partition, for the bootstrap streams
    need_labels = roles.classes is None and (bool(roles.proba) or roles.pred is not None)
    parts = frame.to_delayed()
    first: list[tuple[Any, Any, dict[Any, int]]] = []
    if need_labels or config.n_boot:
        first = list(dask.compute(*[delayed(_first_pass)(p, spec, need_labels,
                                                         bool(config.n_boot)) for p in parts]))
    if need_labels:
        import numpy as np

        labels = np.concatenate([f[0] for f in first]) if first else None
        preds = (np.concatenate([f[1] for f in first]) if roles.pred is not None and first
                 else None)
        spec = resolve_spec(ddf._meta, role_kw, by, config, labels=labels, preds=preds,
                            dropna=dropna)
    offsets: list[dict[Any, int]] = [{} for _ in parts]
    if config.n_boot:
        seen: dict[Any, int] = {}
        for i, (_, _, counts) in enumerate(first):
            offsets[i] = dict(seen)
            for k, n in counts.items():
                seen[k] = seen.get(k, 0) + n
    states = [delayed(frame_state)(p, spec, off) for p, off in zip(parts, offsets, strict=True)]
    while len(states) > 1:
        states = [delayed(add_states)(*states[i:i + split_every])
                  for i in range(0, len(states), split_every)]
    (out,) = dask.compute(states[0])
    if out is None:
        raise ValueError("The Dask DataFrame has no rows to compute metrics on.")
    return out


def _first_pass(part: Any, spec: Any, labels: bool, counts: bool) -> tuple[Any, Any, Any]:
    """Distinct labels and predictions, and rows per group, of one partition."""
    roles = spec.roles
    y = part[roles.y].drop_duplicates().to_numpy() if labels and roles.y is not None else None
    pred = (part[roles.pred].drop_duplicates().to_numpy()
            if labels and roles.pred is not None else None)
    return y, pred, group_counts(part, spec) if counts else {}


class _GroupByDescriptor:
    """Attach ``.calib`` to Dask's GroupBy (Dask has no GroupBy accessor API)."""

    def __get__(self, gb: Any, owner: type | None = None) -> Any:
        if gb is None:
            return DaskGroupByCalibAccessor
        return DaskGroupByCalibAccessor(gb)


def register() -> None:
    """Attach ``calib`` to Dask DataFrames and their GroupBy objects (idempotent).

    Examples
    --------
    >>> register()
    >>> import dask.dataframe as dd
    >>> hasattr(dd.DataFrame, "calib")
    True
    """
    global _REGISTERED
    if _REGISTERED:
        return
    import warnings

    import dask.dataframe as dd
    from dask.dataframe.extensions import register_dataframe_accessor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)  # "registration overrides" on re-import
        register_dataframe_accessor("calib")(DaskCalibAccessor)
    try:
        from dask.dataframe.dask_expr._groupby import GroupBy
    except ImportError:  # pragma: no cover - legacy dask.dataframe
        GroupBy = type(dd.from_dict({"k": [0]}, npartitions=1).groupby("k"))
    GroupBy.calib = _GroupByDescriptor()  # type: ignore[attr-defined]
    _REGISTERED = True
