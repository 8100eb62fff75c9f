"""``pl_df.calib`` for Polars DataFrames, on the mergeable statistics.

Only the used columns leave Polars, each through ``Series.to_numpy()`` (zero-copy
for numeric columns without nulls); the statistics are those of
:mod:`calreport.stats`, so the numbers equal the pandas accessor's.  Polars stays
optional: call :func:`register` (done by ``import calreport`` when Polars is
installed).
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from calreport.accumulator import frame_state, full_table, resolve_spec
from calreport.stats import StatsConfig, StatsState

__all__ = ["PolarsCalibNamespace", "register"]

_REGISTERED = False


class PolarsCalibNamespace:
    """Calibration metrics of a Polars DataFrame (``pl_df.calib``).

    Examples
    --------
    >>> import polars as pl
    >>> register()
    >>> df = pl.DataFrame({"y": [0, 1, 1, 0], "proba": [0.2, 0.9, 0.4, 0.3],
    ...                    "model": ["a", "a", "b", "b"]})
    >>> df.calib.summary(by="model")["accuracy"].to_list()
    [1.0, 0.5]
    """

    def __init__(self, df: Any) -> None:
        self._df = df
        self._role_kw: dict[str, Any] = {}

    def __call__(self, y: Hashable | None = None, proba: Any = None,
                 pred: Hashable | None = None, conf: Hashable | None = None,
                 correct: Hashable | None = None, weight: Hashable | None = None, *,
                 classes: Sequence[Any] | None = None, missing: str = "raise",
                 threshold: float = 0.5, pos_label: Any = None) -> PolarsCalibNamespace:
        """Name the column roles; returns a bound namespace."""
        out = PolarsCalibNamespace(self._df)
        kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
                  classes=classes, pos_label=pos_label)
        out._role_kw = {k: val for k, val in kw.items() if val is not None}
        out._role_kw.update(missing=missing, threshold=threshold)
        return out

    def _pandas(self, by: tuple[str, ...]) -> Any:
        """The used columns only, as a pandas frame of NumPy arrays."""
        import pandas as pd

        head = pd.DataFrame({c: self._df[c].head(0).to_numpy() for c in self._df.columns})
        spec = resolve_spec(head, self._role_kw, by, StatsConfig())
        cols = list(dict.fromkeys([*spec.roles.columns, *by]))
        return pd.DataFrame({c: self._df[c].to_numpy() for c in cols})

    def state(self, *, by: str | Sequence[str] | None = None, **settings: Any) -> StatsState:
        """The :class:`~calreport.stats.StatsState` of the frame (``settings``: StatsConfig)."""
        by_t = _by(by)
        pdf = self._pandas(by_t)
        spec = resolve_spec(pdf, self._role_kw, by_t, StatsConfig(**settings),
                            labels=_labels(pdf, self._role_kw, by_t, "y"),
                            preds=_labels(pdf, self._role_kw, by_t, "pred"))
        out = frame_state(pdf, spec)
        if out is None:
            raise ValueError("The Polars DataFrame has no rows to compute metrics on.")
        return out

    def summary(self, *, by: str | Sequence[str] | None = None, view: str | None = None,
                ci: float | None = None, n_boot: int = 200, seed: int = 0,
                n_bins: int = 15, tau: float = 0.5, score_bins: int = 1 << 16) -> Any:
        """Summary metrics as a Polars DataFrame (one row; one row per group with ``by``).

        Columns: the group keys, then the metrics of :func:`calreport.stats.summary`,
        then ``<metric>_bound`` for the bounded ones; with ``ci``, also
        ``<metric>_ci_low`` / ``<metric>_ci_high`` (Poisson bootstrap).
        """
        import polars as pl

        by_t = _by(by)
        st = self.state(by=by_t or None, n_bins=n_bins, tau=tau, score_bins=score_bins,
                        n_boot=n_boot if ci is not None else 0, seed=seed)
        t = full_table(st, view=view, ci=ci)
        data: dict[str, Any] = {}
        for i, name in enumerate(by_t):
            data[str(name)] = [k[i] if len(by_t) > 1 else k for k in t.keys]
        data.update({k: v.tolist() for k, v in t.values.items()})
        data.update({f"{k}_bound": v.tolist() for k, v in t.bounds.items()})
        for k, (lo, hi) in t.intervals.items():
            data[f"{k}_ci_low"], data[f"{k}_ci_high"] = lo.tolist(), hi.tolist()
        return pl.DataFrame(data)


def _by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    return (by,) if isinstance(by, str) else tuple(by)


def _labels(pdf: Any, role_kw: dict[str, Any], by: tuple[str, ...], role: str) -> Any:
    from calreport._roles import resolve_roles

    roles = resolve_roles(pdf.head(0), exclude=by, **role_kw)
    col = roles.y if role == "y" else roles.pred
    return None if col is None else pdf[col].drop_duplicates().to_numpy()


def register() -> None:
    """Register the ``calib`` namespace on Polars DataFrames (idempotent)."""
    global _REGISTERED
    if _REGISTERED:
        return
    import polars as pl

    pl.api.register_dataframe_namespace("calib")(PolarsCalibNamespace)
    _REGISTERED = True
