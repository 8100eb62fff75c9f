"""``pl_df.calib`` for Polars DataFrames, on the mergeable statistics.

Only the used columns leave Polars, each through ``Series.to_numpy()`` (zero-copy
for numeric columns without nulls); the statistics are those of
:mod:`calreport.stats` -- the same per-group sums the Dask accessor and the
:class:`~calreport.accumulator.Accumulator` merge -- so the numbers equal the pandas
accessor's (exact metrics to float64 rounding, AUC, cwAUC and AURC within the
reported bound or exact with ``exact_auc=True``).  All rows are in memory, so
equal-mass bins and the Hosmer-Lemeshow deciles take their second pass over the same
arrays.  Results are Polars DataFrames: the group keys as the first columns (with
``by=``), then the values.  Polars stays optional: call :func:`register` (done by
``import calreport`` when Polars is installed).

``pl_lf.calib`` does the same on a LazyFrame (:class:`PolarsLazyCalibNamespace`):
roles resolved from its schema, only the used columns collected, so a
``pl.scan_parquet`` reads only those.  ``pl_df.group_by(keys).calib.<method>()`` equals
``pl_df.calib.<method>(by=keys)`` (:class:`PolarsGroupByCalibNamespace`).  Polars has
no public namespace registration for ``GroupBy``: :func:`register` sets a ``calib``
property on ``polars.dataframe.group_by.GroupBy`` only if the class has no ``calib``
attribute already, and reads the keys from its ``df``, ``by`` and ``named_by``
attributes (public names, undocumented; tested with polars 1.0 and 2.1).  A
``LazyFrame.group_by`` keeps its keys in Rust (``LazyGroupBy`` exposes none), so it
has no ``calib``: use ``pl_lf.calib.<method>(by=keys)``.
"""

from __future__ import annotations

import functools
from collections.abc import Hashable, Sequence
from typing import Any

from calreport._frames import frame_profile, frame_state, resolve_spec, table_attrs
from calreport._roles import resolve_roles
from calreport._state_results import report_from_state
from calreport.stats import StatsConfig, StatsState, quantile
from calreport.stats import finish as _finish
from calreport.stats.exact_auc import apply_exact_auc, score_tables
from calreport.stats.finish import resolve_view
from calreport.stats.frames import (
    calibration_error_frame,
    calibration_tests_frame,
    reliability_frame,
    risk_frame,
    scores_frame,
)
from calreport.stats.intervals import withdraw
from calreport.stats.sampled import full_table
from calreport.stats.weight_scale import check_positive, exponents_of, on_scale

__all__ = ["PolarsCalibNamespace", "PolarsGroupByCalibNamespace", "PolarsLazyCalibNamespace",
           "register"]

_REGISTERED = False


class PolarsCalibNamespace:
    """Calibration metrics of a Polars DataFrame (``pl_df.calib``).

    Call it to name the columns, as ``df.calib(y=..., proba=...)`` for pandas; every
    method takes ``by=`` (a column name or a list) for one row per group.

    Examples
    --------
    >>> import polars as pl
    >>> register()
    >>> df = pl.DataFrame({"y": [0, 1, 1, 0], "proba": [0.2, 0.9, 0.4, 0.3],
    ...                    "model": ["a", "a", "b", "b"]})
    >>> df.calib.summary(by="model")["accuracy"].to_list()
    [1.0, 0.5]
    """

    def __init__(self, df: Any, *, kind: str = "Polars DataFrame") -> None:
        self._df = df
        self._kind = kind
        self._role_kw: dict[str, Any] = {}

    def __call__(self, y: Hashable | None = None, proba: Any = None,
                 pred: Hashable | None = None, conf: Hashable | None = None,
                 correct: Hashable | None = None, weight: Hashable | None = None, *,
                 classes: Sequence[Any] | None = None, missing: str = "raise",
                 threshold: float = 0.5, pos_label: Any = None) -> PolarsCalibNamespace:
        """Name the column roles; returns a bound namespace."""
        out = PolarsCalibNamespace(self._df, kind=self._kind)
        kw = dict(y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
                  classes=classes, pos_label=pos_label)
        out._role_kw = {k: val for k, val in kw.items() if val is not None}
        out._role_kw.update(missing=missing, threshold=threshold)
        return out

    # ------------------------------------------------------------------ ingest
    def _columns(self, by: tuple[str, ...]) -> list[str]:
        """The columns a call uses (roles, weight, ``by``), resolved on no rows."""
        import pandas as pd

        missing = [b for b in by if b not in self._df.columns]
        if missing:
            raise ValueError(f"`by` names column(s) {missing} that the {self._kind} does "
                             f"not have; its columns are {list(self._df.columns)}.")
        head = pd.DataFrame({c: self._df[c].head(0).to_numpy() for c in self._df.columns})
        spec = resolve_spec(head, self._role_kw, by, StatsConfig())
        return list(dict.fromkeys([*spec.roles.columns, *by]))

    def _pandas(self, by: tuple[str, ...]) -> Any:
        """The used columns only, as a pandas frame of NumPy arrays."""
        import pandas as pd

        return pd.DataFrame({c: self._df[c].to_numpy() for c in self._columns(by)})

    def _prepared(self, by: tuple[str, ...], cfg: StatsConfig) -> tuple[Any, Any]:
        pdf = self._pandas(by)
        spec = resolve_spec(pdf, self._role_kw, by, cfg,
                            labels=_labels(pdf, self._role_kw, by, "y"),
                            preds=_labels(pdf, self._role_kw, by, "pred"))
        return pdf, spec

    def state(self, *, by: str | Sequence[str] | None = None, **settings: Any) -> StatsState:
        """The :class:`~calreport.stats.StatsState` of the frame (``settings``: StatsConfig)."""
        pdf, spec = self._prepared(_by(by), StatsConfig(**settings))
        out = frame_state(pdf, spec)
        if out is None:
            raise ValueError(f"The {self._kind} has no rows to compute metrics on.")
        return check_positive(out, spec.roles.weight)

    def _second(self, st: StatsState, by: tuple[str, ...], view: str, n_bins: int,
                n_groups: int) -> tuple[Any, Any, Any]:
        """Plan and second-pass state of the exact quantile edges (same rows), and the
        function that collects the rows of another plan."""
        pdf, spec = self._prepared(by, st.config)
        profile, codes, keys, _ = frame_profile(pdf, spec)
        profile = on_scale(profile, codes, keys, exponents_of(st))  # the sums' units
        pl_ = quantile.plan(st, view=view, n_bins=n_bins, n_groups=n_groups,
                            w_max=quantile.weight_max(profile, codes, keys))

        def collect_plan(p: Any) -> Any:
            return quantile.collect(profile, codes, keys, p)

        return pl_, collect_plan(pl_), collect_plan

    # ----------------------------------------------------------------- results
    def summary(self, *, by: str | Sequence[str] | None = None, view: str | None = None,
                ci: float | None = None, n_boot: int = 200, seed: int = 0,
                n_bins: int = 15, tau: float = 0.5, score_bins: int = 1 << 16,
                eps: float = 1e-8, weights: str = "importance", min_count: int = 1,
                sample_size: int = 0, exact_auc: bool = False,
                strategy: str = "uniform", exact_debiased: bool = False) -> Any:
        """Summary metrics as a Polars DataFrame (one row; one row per group with ``by``).

        Parameters
        ----------
        by : str or list of str, optional
            Group key column(s).
        view, ci, n_boot, seed, n_bins, tau, score_bins, eps, weights, min_count, \
sample_size, exact_auc, strategy, exact_debiased
            As in ``ddf.calib.summary()`` (:class:`calreport.dask.DaskCalibAccessor`);
            ``ci`` gives Poisson-bootstrap percentile intervals.

        Returns
        -------
        polars.DataFrame
            The group keys, the metrics of :func:`calreport.stats.summary`,
            ``<metric>_bound`` for the bounded ones, ``<metric>_sampling_error`` (the
            95 % sampling error) for the sampled ones and, with ``ci``,
            ``<metric>_ci_low`` / ``<metric>_ci_high``.  Its ``attrs`` dict (set on
            the returned frame; Polars operations return frames without it) says, as
            the pandas result's ``attrs``: each metric's kind (``"kinds"``: exact,
            bounded or sampled), the metrics without a value and why (``"dropped"``),
            the reason of every NaN per group (``"reasons"``), the view, the interval
            notes and P_risk's method.
        """
        import polars as pl

        by_t = _by(by)
        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"`strategy` must be 'uniform' or 'quantile', got {strategy!r}.")
        st = self.state(by=by_t or None, n_bins=n_bins, tau=tau, score_bins=score_bins,
                        eps=eps, weights=weights, min_count=min_count,
                        n_boot=n_boot if ci is not None else 0, seed=seed,
                        sample_size=sample_size)
        t = full_table(st, view=view, ci=ci)
        if strategy == "quantile" or exact_debiased:
            pl_, second, collect_plan = self._second(st, by_t, t.view, n_bins, 10)
            quantile.apply_debiased(t, st, second, pl_, collect_plan, n_bins=n_bins)
        if strategy == "quantile":
            q = quantile.ece_quantile(st, second, pl_, n_bins=n_bins, min_count=min_count)
            t.values.update(q)
            withdraw(t, q, "strategy='quantile'")
        if exact_auc:
            pdf, spec = self._prepared(by_t, st.config)
            profile, codes, keys, _ = frame_profile(pdf, spec)
            profile = on_scale(profile, codes, keys, exponents_of(st))
            apply_exact_auc(t, score_tables(profile, codes, keys))
        data: dict[str, Any] = _key_columns(t.keys, by_t)
        data.update({k: v.tolist() for k, v in t.values.items()})
        data.update({f"{k}_bound": v.tolist() for k, v in t.bounds.items()})
        data.update({f"{k}_sampling_error": v.tolist() for k, v in t.sampling_error.items()})
        for k, (lo, hi) in t.intervals.items():
            data[f"{k}_ci_low"], data[f"{k}_ci_high"] = lo.tolist(), hi.tolist()
        out = pl.DataFrame(data)
        out.attrs = table_attrs(t, by_t)
        return out

    def risk(self, *, by: str | Sequence[str] | None = None, eps: float = 1e-8,
             weights: str = "importance", seed: int = 0) -> Any:
        """The risk assessment of ``df.calib.risk()`` on the rows: the band, certainty
        claims, the test below certainty and the Monte Carlo null where the normal
        approximation is invalid (seeded with ``seed``)."""
        by_t = _by(by)
        st = self.state(by=by_t or None, eps=eps, weights=weights, score_bins=2)
        return _to_polars(risk_frame(st, by_t, seed=seed), by_t)

    def reliability(self, *, by: str | Sequence[str] | None = None, view: str | None = None,
                    n_bins: int = 15, alpha: float = 0.05) -> Any:
        """Uniform-bin reliability table (count, mean score/outcome, gap, Wilson interval);
        one row per bin (and group)."""
        by_t = _by(by)
        st = self.state(by=by_t or None, n_bins=n_bins, score_bins=2)
        rel = _finish.reliability(st, view=view, alpha=alpha)
        return _to_polars(reliability_frame(rel, st.keys, by_t), by_t, index=True)

    def scores(self, *, by: str | Sequence[str] | None = None, view: str | None = None,
               n_bins: int = 15) -> Any:
        """Top-label Brier, sharpness and the binned Murphy terms (exact, uniform bins)."""
        by_t = _by(by)
        st = self.state(by=by_t or None, n_bins=n_bins, score_bins=2)
        return _to_polars(scores_frame(st, by_t, view), by_t)

    def calibration_error(self, *, by: str | Sequence[str] | None = None,
                          view: str | None = None, sample_size: int = 20_000,
                          seed: int = 0) -> Any:
        """ICI, E50, E90 and Emax from the LOWESS curve of a uniform sample of
        ``sample_size`` rows per group (a group that fits gets the pandas values)."""
        by_t = _by(by)
        st = self.state(by=by_t or None, sample_size=sample_size, seed=seed, score_bins=2)
        return _to_polars(calibration_error_frame(st, by_t, view), by_t)

    def calibration_tests(self, *, by: str | Sequence[str] | None = None,
                          n_groups: int = 10) -> Any:
        """Hosmer-Lemeshow deciles (exact, by a second pass over the same arrays) and
        Spiegelhalter's Z; the Cox fit is not computed on this path."""
        by_t = _by(by)
        st = self.state(by=by_t or None)
        out = calibration_tests_frame(st, by_t)
        pl_, second, _ = self._second(st, by_t, resolve_view(st, None), 15, n_groups)
        for k, v in quantile.hosmer_lemeshow(st, second, pl_, n_groups=n_groups).items():
            out[k] = v if by_t else float(v[0])
        return _to_polars(out, by_t)

    def report(self, *, by: str | Sequence[str] | None = None, view: str | None = None,
               ci: float | None = None, n_boot: int = 200, seed: int = 0, n_bins: int = 15,
               tau: float = 0.5, eps: float = 1e-8, weights: str = "importance",
               sample_size: int = 20_000, top_errors: int = 10, **kwargs: Any) -> Any:
        """Model-card audit report, as ``df.calib.report()`` on the same rows.

        Built from the statistics the Dask accessor and the Accumulator use
        (:func:`calreport.accumulator.report_from_state`): exact metrics and risk
        verdicts from the sums, bounded metrics with their bound, sampled metrics and
        the figures from a uniform sample of ``sample_size`` rows per group (all rows
        of a smaller group), exact lists of the ``top_errors`` largest CSR terms.

        Parameters
        ----------
        by : str or list of str, optional
            Group key column(s).
        view, ci, n_boot, seed, n_bins, tau, eps, weights, sample_size, top_errors
            As in ``ddf.calib.report()``.
        **kwargs
            Passed to :func:`calreport.report.build_report` (``title``, ``model``...).

        Returns
        -------
        calreport.report.Report
        """
        by_t = _by(by)
        st = self.state(by=by_t or None, n_bins=n_bins, tau=tau, eps=eps, weights=weights,
                        n_boot=n_boot if ci is not None else 0, seed=seed,
                        sample_size=sample_size, top_errors=top_errors)
        data = {"group_label": " / ".join(by_t) or None,
                "columns": {k: (str(v) if not isinstance(v, (list, tuple))
                                else [str(x) for x in v])
                            for k, v in self._role_kw.items()
                            if k in ("y", "proba", "pred", "conf", "correct", "weight")}}
        missing = self._role_kw.get("missing", "raise")
        return report_from_state(
            st, by=by_t, view=view, ci=ci, data=data,
            n_dropped=0.0 if missing == "raise" else float("nan"),
            source=f"a {self._kind} of {self._df.height:,} rows",
            top_errors=top_errors, **kwargs)


_METHODS = ("state", "summary", "risk", "reliability", "scores", "calibration_error",
            "calibration_tests", "report")


def _lazy_method(name: str) -> Any:
    """``name`` of the DataFrame namespace, run on the collected used columns."""
    method = getattr(PolarsCalibNamespace, name)

    @functools.wraps(method)
    def call(self: PolarsLazyCalibNamespace, *, by: str | Sequence[str] | None = None,
             **kwargs: Any) -> Any:
        return getattr(self._collected(_by(by)), name)(by=by, **kwargs)

    return call


def _group_method(name: str) -> Any:
    """``name`` of the DataFrame namespace with ``by=`` the keys of ``group_by``."""
    method = getattr(PolarsCalibNamespace, name)

    @functools.wraps(method)
    def call(self: PolarsGroupByCalibNamespace, **kwargs: Any) -> Any:
        if "by" in kwargs:
            raise TypeError(f"`{name}()` through `group_by(...).calib` takes no `by=`: the "
                            f"groups are the keys of `group_by` ({list(self._by)}); call "
                            f"`df.calib.{name}(by=...)` to group by other columns.")
        return getattr(self._ns, name)(by=list(self._by), **kwargs)

    return call


class PolarsLazyCalibNamespace:
    """Calibration metrics of a Polars LazyFrame (``pl_lf.calib``).

    The methods and arguments of :class:`PolarsCalibNamespace`: the roles are resolved
    from the LazyFrame's schema (``collect_schema()``, no rows read), only the used
    columns (roles, weight, ``by``) are collected -- so a scan reads only those -- and
    the DataFrame namespace computes on them.

    Parameters
    ----------
    lf : polars.LazyFrame
        The rows.

    Examples
    --------
    >>> import polars as pl
    >>> register()
    >>> lf = pl.LazyFrame({"y": [0, 1, 1, 0], "proba": [0.2, 0.9, 0.4, 0.3],
    ...                    "model": ["a", "a", "b", "b"], "unused": ["x"] * 4})
    >>> lf.calib(y="y", proba="proba").summary(by="model")["accuracy"].to_list()
    [1.0, 0.5]
    """

    def __init__(self, lf: Any) -> None:
        self._lf = lf
        self._role_kw: dict[str, Any] = {}

    def __call__(self, *args: Any, **kwargs: Any) -> PolarsLazyCalibNamespace:
        """Name the column roles, as :meth:`PolarsCalibNamespace.__call__`."""
        out = PolarsLazyCalibNamespace(self._lf)
        out._role_kw = PolarsCalibNamespace(None)(*args, **kwargs)._role_kw
        return out

    def _collected(self, by: tuple[str, ...]) -> PolarsCalibNamespace:
        """The DataFrame namespace on the used columns only (projection pushdown)."""
        import polars as pl  # lazy: polars

        kind = "Polars LazyFrame"
        probe = PolarsCalibNamespace(pl.DataFrame(schema=self._lf.collect_schema()),
                                     kind=kind)
        probe._role_kw = self._role_kw
        out = PolarsCalibNamespace(self._lf.select(probe._columns(by)).collect(), kind=kind)
        out._role_kw = self._role_kw
        return out


class PolarsGroupByCalibNamespace:
    """``pl_df.group_by(keys).calib``: the DataFrame namespace with ``by=keys``.

    Every method of :class:`PolarsCalibNamespace`, without ``by=`` (refused: the
    groups are the keys of ``group_by``); the result equals
    ``pl_df.calib.<method>(by=keys)``.

    Parameters
    ----------
    ns : PolarsCalibNamespace
        The namespace of the grouped DataFrame.
    by : tuple of str
        The group key columns.

    Examples
    --------
    >>> import polars as pl
    >>> register()
    >>> df = pl.DataFrame({"y": [0, 1, 1], "proba": [0.2, 0.9, 0.4], "m": ["a", "a", "b"]})
    >>> df.group_by("m").calib.summary().equals(df.calib.summary(by="m"))
    True
    """

    def __init__(self, ns: PolarsCalibNamespace, by: tuple[str, ...]) -> None:
        self._ns = ns
        self._by = by

    def __call__(self, *args: Any, **kwargs: Any) -> PolarsGroupByCalibNamespace:
        """Name the column roles, as :meth:`PolarsCalibNamespace.__call__`."""
        return PolarsGroupByCalibNamespace(self._ns(*args, **kwargs), self._by)


#: The DataFrame namespace's methods, forwarded by the LazyFrame and group_by ones.
FORWARDED = ("state", "summary", "risk", "reliability", "scores", "calibration_error",
             "calibration_tests", "report")
for _name in FORWARDED:
    setattr(PolarsLazyCalibNamespace, _name, _lazy_method(_name))
    setattr(PolarsGroupByCalibNamespace, _name, _group_method(_name))


def _group_keys(gb: Any) -> tuple[Any, tuple[str, ...]]:
    """The frame and key column names of a ``GroupBy`` (its ``df``, ``by`` and
    ``named_by`` attributes: polars 1.0 to 2.1)."""
    import polars as pl  # lazy: polars

    if not (hasattr(gb, "df") and hasattr(gb, "by")):
        raise AttributeError(
            f"This polars {pl.__version__} GroupBy has no `df`/`by` attributes (polars "
            "1.0 to 2.1 have them): use `df.calib.<method>(by=[...])` instead.")
    if getattr(gb, "named_by", None) or getattr(gb, "predicates", None):
        raise ValueError("`group_by(...).calib` takes column names only (no named keys "
                         "or `having`): use `df.calib.<method>(by=[...])` instead.")
    keys: list[str] = []

    def add(item: Any) -> None:
        if isinstance(item, str):
            keys.append(item)
        elif isinstance(item, pl.Expr) and item.meta.is_column():
            keys.append(item.meta.output_name())
        elif isinstance(item, (list, tuple)):
            for x in item:
                add(x)
        else:
            raise ValueError(f"`group_by(...).calib` takes column names as keys, got "
                             f"{item!r}: use `df.calib.<method>(by=[...])` instead.")

    for item in gb.by:
        add(item)
    return gb.df, tuple(dict.fromkeys(keys))


def _group_calib(gb: Any) -> PolarsGroupByCalibNamespace:
    df, by = _group_keys(gb)
    return PolarsGroupByCalibNamespace(PolarsCalibNamespace(df), by)


def _by(by: str | Sequence[str] | None) -> tuple[str, ...]:
    if by is None:
        return ()
    return (by,) if isinstance(by, str) else tuple(by)


def _key_columns(keys: list[Any], by: tuple[str, ...]) -> dict[str, list[Any]]:
    return {str(name): [k[i] if len(by) > 1 else k for k in keys]
            for i, name in enumerate(by)}


def _to_polars(frame: Any, by: tuple[str, ...], *, index: bool = False) -> Any:
    """A pandas result (Series of one group, or frame indexed by the groups) as Polars."""
    import pandas as pd
    import polars as pl

    if isinstance(frame, pd.Series):
        frame = frame.to_frame().T.reset_index(drop=True)
        frame = frame.infer_objects()
    elif by or index:
        frame = frame.reset_index()
    out = pl.from_pandas(frame)
    out.attrs = dict(frame.attrs)  # what the result says beside its numbers
    return out


def _labels(pdf: Any, role_kw: dict[str, Any], by: tuple[str, ...], role: str) -> Any:
    roles = resolve_roles(pdf.head(0), exclude=by, **role_kw)
    col = roles.y if role == "y" else roles.pred
    return None if col is None else pdf[col].drop_duplicates().to_numpy()


def register() -> None:
    """Register ``calib`` on Polars DataFrames, LazyFrames and ``GroupBy`` (idempotent).

    The ``GroupBy`` property is set only if the class has no ``calib`` attribute yet.

    Examples
    --------
    >>> register()
    >>> import polars as pl
    >>> hasattr(pl.DataFrame({"a": [1]}), "calib")
    True
    """
    global _REGISTERED
    if _REGISTERED:
        return
    import polars as pl

    pl.api.register_dataframe_namespace("calib")(PolarsCalibNamespace)
    pl.api.register_lazyframe_namespace("calib")(PolarsLazyCalibNamespace)
    from polars.dataframe.group_by import GroupBy  # lazy: polars

    if not hasattr(GroupBy, "calib"):  # no public GroupBy namespace registration
        GroupBy.calib = property(_group_calib)
    _REGISTERED = True
