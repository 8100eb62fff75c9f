"""``ddf.calib`` and ``ddf.groupby(...).calib`` for Dask DataFrames.

Each partition is reduced to a :class:`~calreport.stats.StatsState` (exact per-group,
per-bin sums); the partitions are folded into a few running states (chains), which
are merged with ``+`` in a tree, and the metrics are finished once.  Nothing else is
shipped between workers, so memory stays at a few partitions plus the states, and
the numbers equal the pandas ones (exact metrics to float64 rounding; AUC, cwAUC and
AURC within the bound reported beside them, or exact with ``exact_auc=True``; the
metrics that refit a curve on a uniform sample of each group, said so in the
output).  Equal-mass bins, Hosmer-Lemeshow deciles and the exact debiased ECE take
a second pass (with or without sample weights).  ``report()`` builds the pandas
accessor's audit report from the merged state.  The computation runs on the active
Dask scheduler: threads by default, a ``dask.distributed`` client when one is active.

Dask stays optional: importing :mod:`calreport` does not import Dask.  Call
:func:`register` (done by ``import calreport`` when Dask is installed) to attach the
accessors.
"""

from __future__ import annotations

from collections.abc import Hashable, Sequence
from typing import Any

from calreport._frames import (
    add_states,
    frame_profile,
    frame_state,
    group_counts,
    resolve_spec,
    summary_frame,
)
from calreport._state_results import report_from_state
from calreport.stats import StatsConfig, StatsState, quantile
from calreport.stats import finish as _finish
from calreport.stats.exact_auc import (
    ROWS_PER_BUCKET,
    apply_bucketed_auc,
    bucket_count,
    bucket_edges,
    bucket_pairs,
    merge_tables,
    score_tables,
    split_tables,
)
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
                min_count: int = 1, sample_size: int = 0, exact_auc: bool = False,
                strategy: str = "uniform", exact_debiased: bool = False) -> Any:
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
        sample_size : int, default 0
            Rows per group of the uniform sample on which the sampled metrics (LCS,
            TCE_bpm, CORP, ...) are computed; 0 leaves them NaN, listed in
            ``attrs["dropped"]`` with the reason.  The smooth ECE comes from its
            node-grid sums for up to 64 groups (else from the sample).
        exact_auc : bool, default False
            Exact AUC and cwAUC by a second pass that cuts the scores into buckets
            (about 2^20 rows each) merged on the workers; the client receives a few
            sums per bucket, group and class.  Their bound becomes 0.
        strategy : {"uniform", "quantile"}, default "uniform"
            Bins of ECE, MCE and signed ECE; ``"quantile"`` (equal mass; equal weight
            with sample weights) takes a second pass for the exact order statistics
            (:mod:`calreport.stats.quantile`).
        exact_debiased : bool, default False
            The debiased ECE exact, by the second pass of the equal-mass edges (a third
            with importance weights, whose edges count the rows of positive weight), in
            place of its value on the sample; also done with ``strategy="quantile"``,
            which runs that pass anyway.  It then has no sampling error and no interval.

        Returns
        -------
        pandas.Series or pandas.DataFrame
            Ungrouped: metric -> value; grouped: groups x metrics.  With ``ci``: columns
            (metric, [value, ci_low, ci_high]).  Bounded metrics carry a
            ``<metric>_bound`` column; ``.attrs["kinds"]`` says which metric is exact,
            bounded or sampled (the registry's ``scaling``), ``attrs["dropped"]`` which
            have no value and why.

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
                          n_boot=n_boot if ci is not None else 0, seed=seed,
                          sample_size=sample_size)
        st = compute_state(self._obj, self._role_kw, self._by, cfg, dropna=self._dropna)
        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"`strategy` must be 'uniform' or 'quantile', got {strategy!r}.")
        table = full_table(st, view=view, ci=ci)
        if strategy == "quantile" or exact_debiased:
            pl, second, collect_plan = self._second_pass(st, table.view, n_bins, 10)
            quantile.apply_debiased(table, st, second, pl, collect_plan, n_bins=n_bins)
        if strategy == "quantile":
            q = quantile.ece_quantile(st, second, pl, n_bins=n_bins, min_count=min_count)
            table.values.update(q)
            withdraw(table, q, "strategy='quantile'")
            table.settings = {**table.settings, "strategy": "quantile"}
        if exact_auc:
            apply_bucketed_auc(table, compute_auc_buckets(self._obj, self._role_kw, self._by,
                                                          st, dropna=self._dropna))
        return summary_frame(table, self._by)

    def report(self, *, view: str | None = None, ci: float | None = None,
               n_boot: int = 200, seed: int = 0, n_bins: int = 15, tau: float = 0.5,
               eps: float = 1e-8, weights: str = "importance", sample_size: int = 20_000,
               top_errors: int = 10, **kwargs: Any) -> Any:
        """Model-card audit report, as ``df.calib.report()`` on the same rows.

        One pass over the partitions: exact metrics and the risk verdicts from merged
        sums, bounded metrics with their bound, the sampled metrics and the figures from
        a uniform sample of ``sample_size`` rows per group, exact lists of the
        ``top_errors`` largest CSR terms; the data section says which is which
        (:func:`calreport.accumulator.report_from_state`).

        Parameters
        ----------
        view, ci, n_boot, seed, n_bins, tau, eps, weights
            As in :meth:`summary` (``ci=None``: no intervals, the default here since the
            Poisson bootstrap costs ``n_boot`` draws per row).
        sample_size, top_errors : int
            Rows per group of the sample; errors listed per flagged group.
        **kwargs
            Passed to :func:`calreport.report.build_report` (``title``, ``model``,
            ``timestamp``, ``max_cards``...).

        Returns
        -------
        calreport.report.Report
        """
        cfg = StatsConfig(n_bins=n_bins, tau=tau, eps=eps, weights=weights,
                          n_boot=n_boot if ci is not None else 0, seed=seed,
                          sample_size=sample_size, top_errors=top_errors)
        st = compute_state(self._obj, self._role_kw, self._by, cfg, dropna=self._dropna)
        missing = self._role_kw.get("missing", "raise")
        data = {"group_label": " / ".join(str(b) for b in self._by) or None,
                "columns": {k: (str(v) if not isinstance(v, (list, tuple))
                                else [str(x) for x in v])
                            for k, v in self._role_kw.items()
                            if k in ("y", "proba", "pred", "conf", "correct", "weight")}}
        return report_from_state(
            st, by=self._by, view=view, ci=ci, data=data,
            n_dropped=0.0 if missing == "raise" else float("nan"),
            source=f"{self._obj.npartitions} Dask partitions", top_errors=top_errors,
            **kwargs)

    def scores(self, *, view: str | None = None, n_bins: int = 15) -> Any:
        """Top-label Brier, sharpness and the binned Murphy terms (exact, uniform bins).

        As ``df.calib.scores()`` without E-AURC (the AURC is bounded out of core).
        """
        st = self.state(n_bins=n_bins, score_bins=2)
        return scores_frame(st, self._by, view)

    def calibration_error(self, *, view: str | None = None, sample_size: int = 20_000,
                          seed: int = 0) -> Any:
        """ICI, E50, E90 and Emax from the LOWESS curve of a uniform sample of
        ``sample_size`` rows per group (:mod:`calreport.stats.sample`; sampled, and
        ``attrs["sampled"]`` says how many rows each group used)."""
        st = self.state(sample_size=sample_size, seed=seed, score_bins=2)
        return calibration_error_frame(st, self._by, view)

    def calibration_tests(self, *, n_groups: int = 10) -> Any:
        """Hosmer-Lemeshow deciles and Spiegelhalter's Z, exact (default view).

        Spiegelhalter's Z from sums; Hosmer-Lemeshow "deciles of risk" by a second
        pass for the exact quantile edges (weighted quantiles with sample weights;
        :mod:`calreport.stats.quantile`).  The Cox fit is not computed out of core.
        """
        st = self.state()
        out = calibration_tests_frame(st, self._by)
        pl, second, _ = self._second_pass(st, resolve_view(st, None), 15, n_groups, hl=True)
        hl = quantile.hosmer_lemeshow(st, second, pl, n_groups=n_groups)
        for k, v in hl.items():
            out[k] = v if self._by else float(v[0])
        out.attrs["dropped"].pop("hl_statistic", None)
        return out

    def _second_pass(self, st: StatsState, view: str, n_bins: int, n_groups: int,
                     hl: bool = False) -> tuple[Any, Any, Any]:
        """Plan and merged second-pass state of the quantile edges, and the function
        that runs such a pass for another plan.

        With importance weights, Hosmer-Lemeshow (``hl``) normalises each group's
        weights by their largest, which one more light pass finds first.
        """
        import dask
        from dask import delayed

        spec = _spec_with_classes(self._obj, self._role_kw, self._by, st.config, self._dropna)
        cols = list(dict.fromkeys([*spec.roles.columns, *spec.by]))
        w_max = None
        exps = exponents_of(st)  # every part's weights in the units of the state's sums
        if hl and st.schema.weighted and st.config.weights == "importance":
            (w_max,) = dask.compute(delayed(quantile.merge_max)(
                *[delayed(_wmax_part)(p, spec, exps) for p in self._obj[cols].to_delayed()]))

        def collect_plan(pl: Any) -> Any:
            parts = [delayed(_collect_part)(p, spec, pl, exps)
                     for p in self._obj[cols].to_delayed()]
            while len(parts) > 1:
                parts = [delayed(_merge_second)(*parts[i:i + 8])
                         for i in range(0, len(parts), 8)]
            (second,) = dask.compute(parts[0])
            return second

        pl = quantile.plan(st, view=view, n_bins=n_bins, n_groups=n_groups, w_max=w_max)
        return pl, collect_plan(pl), collect_plan

    def risk(self, *, eps: float = 1e-8, weights: str = "importance", seed: int = 0) -> Any:
        """The risk assessment of ``df.calib.risk()`` on the rows: the band, certainty
        claims, the test below certainty and the Monte Carlo null where the normal
        approximation is invalid (seeded with ``seed``)."""
        st = self.state(eps=eps, weights=weights, score_bins=2)
        return risk_frame(st, self._by, seed=seed)

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
                  split_every: int = 8, chains: int | None = None) -> StatsState:
    """Per-partition states, added along a few chains, merged by a tree of ``+``.

    A state holds ``score_bins`` fine bins per group (about 45 MB at 2^16 bins and
    10 groups, whatever the partition size), so memory is set by the number of
    states alive, not by the rows: each chain folds its partitions into one running
    state, one partition at a time, and only the chains' states meet in the tree.

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
    chains : int, optional
        Chains of partitions folded in parallel (default: twice the threads of the
        active ``dask.distributed`` client, else of this machine); contiguous blocks
        of partitions, so the result is the same for any value (exact sums).

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
    need_counts = bool(config.n_boot or config.sample_size)
    if need_labels or need_counts:
        first = list(dask.compute(*[delayed(_first_pass)(p, spec, need_labels, need_counts)
                                    for p in parts]))
    if need_labels:
        import numpy as np

        labels = np.concatenate([f[0] for f in first]) if first else None
        preds = (np.concatenate([f[1] for f in first]) if roles.pred is not None and first
                 else None)
        spec = resolve_spec(ddf._meta, role_kw, by, config, labels=labels, preds=preds,
                            dropna=dropna)
    offsets: list[dict[Any, int]] = [{} for _ in parts]
    if config.n_boot or config.sample_size:
        seen: dict[Any, int] = {}
        for i, (_, _, counts) in enumerate(first):
            offsets[i] = dict(seen)
            for k, n in counts.items():
                seen[k] = seen.get(k, 0) + n
    states = _chains(parts, offsets, spec, _n_chains(chains))
    while len(states) > 1:
        states = [delayed(add_states)(*states[i:i + split_every])
                  for i in range(0, len(states), split_every)]
    (out,) = dask.compute(states[0])
    if out is None:
        raise ValueError("The Dask DataFrame has no rows to compute metrics on.")
    return check_positive(out, spec.roles.weight)


def _n_chains(chains: int | None) -> int:
    if chains is not None:
        if int(chains) < 1:
            raise ValueError(f"`chains` must be a positive integer, got {chains!r}.")
        return int(chains)
    import os

    try:
        from distributed import get_client

        threads = sum(get_client().nthreads().values())
    except (ImportError, ValueError):
        threads = os.cpu_count() or 1
    return 2 * max(1, threads)


def _chains(parts: list[Any], offsets: list[dict[Any, int]], spec: Any, n: int
            ) -> list[Any]:
    """One delayed running state per chain of contiguous partitions."""
    from dask import delayed

    n = min(n, len(parts))
    bounds = [round(i * len(parts) / n) for i in range(n + 1)]
    out = []
    for c in range(n):
        state = None
        for i in range(bounds[c], bounds[c + 1]):
            state = delayed(_fold)(state, parts[i], spec, offsets[i], (i, len(parts)))
        out.append(state)
    return out


def _fold(state: StatsState | None, part: Any, spec: Any, offsets: dict[Any, int],
          where: tuple[int, int]) -> StatsState | None:
    """The running state of a chain plus one partition's state; bad input names the
    partition (the counts and positions of the message are within it)."""
    try:
        new = frame_state(part, spec, offsets)
    except ValueError as exc:
        raise ValueError(f"Dask partition {where[0]} of {where[1]} (the counts and positions "
                         f"that follow are within it; others may hold more): {exc}"
                         ) from None
    return add_states(state, new)


def compute_auc_buckets(ddf: Any, role_kw: dict[str, Any], by: Sequence[Hashable],
                        state: StatsState, *, dropna: bool = True, split_every: int = 8,
                        rows_per_bucket: int = ROWS_PER_BUCKET) -> list[Any]:
    """Pair sums and exact totals of every score bucket, each bucket merged on a worker.

    The second pass behind ``summary(exact_auc=True)``
    (:mod:`calreport.stats.exact_auc`): each partition's table of distinct scores is
    split into the buckets :func:`~calreport.stats.exact_auc.bucket_edges` draws from
    the first pass's ``state``; the pieces of one bucket merge in a tree and reduce to
    :func:`~calreport.stats.exact_auc.bucket_pairs` where they are, so only
    ``groups x classes x buckets`` small results reach the client.  The sums use the
    first pass's weight exponents, so every part shares its group's units.
    """
    import dask
    from dask import delayed

    spec = _spec_with_classes(ddf, role_kw, tuple(by), state.config, dropna)
    cols = list(dict.fromkeys([*spec.roles.columns, *spec.by]))
    n = bucket_count(state, rows_per_bucket)
    edges = delayed(bucket_edges(state, n), traverse=False)
    parts = [delayed(_split_part, nout=n)(p, spec, exponents_of(state), edges, n)
             for p in ddf[cols].to_delayed()]
    buckets = []
    for k in range(n):
        tables = [part[k] for part in parts]
        while len(tables) > 1:
            tables = [delayed(_merge_many)(*tables[i:i + split_every])
                      for i in range(0, len(tables), split_every)]
        buckets.append(delayed(bucket_pairs)(tables[0]))
    return list(dask.compute(*buckets))


def _collect_part(part: Any, spec: Any, pl: Any, exps: dict[Any, int]) -> Any:
    got = frame_profile(part, spec)
    if got is None:
        return None
    profile, codes, keys, _ = got
    return quantile.collect(on_scale(profile, codes, keys, exps), codes, keys, pl)


def _wmax_part(part: Any, spec: Any, exps: dict[Any, int]) -> Any:
    got = frame_profile(part, spec)
    if got is None:
        return None
    profile, codes, keys, _ = got
    return quantile.weight_max(on_scale(profile, codes, keys, exps), codes, keys)


def _merge_second(*states: Any) -> Any:
    out = None
    for s in states:
        out = quantile.merge(out, s)
    return out


def _merge_many(*tables: Any) -> Any:
    out = None
    for t in tables:
        out = merge_tables(out, t)
    return out


def _split_part(part: Any, spec: Any, exps: dict[Any, int], edges: dict[Any, Any],
                n: int) -> tuple[Any, ...]:
    got = frame_profile(part, spec)
    if got is None:
        return split_tables(None, edges, n)
    profile, codes, keys, _ = got
    return split_tables(score_tables(on_scale(profile, codes, keys, exps), codes, keys),
                        edges, n)


def _spec_with_classes(ddf: Any, role_kw: dict[str, Any], by: tuple[Hashable, ...],
                       config: StatsConfig, dropna: bool) -> Any:
    import dask
    import numpy as np
    from dask import delayed

    spec = resolve_spec(ddf._meta, role_kw, by, config, dropna=dropna)
    roles = spec.roles
    if roles.classes is not None or not (roles.proba or roles.pred is not None):
        return spec
    cols = list(dict.fromkeys([*roles.columns, *by]))
    first = dask.compute(*[delayed(_first_pass)(p, spec, True, False)
                           for p in ddf[cols].to_delayed()])
    labels = np.concatenate([f[0] for f in first])
    preds = np.concatenate([f[1] for f in first]) if roles.pred is not None else None
    return resolve_spec(ddf._meta, role_kw, by, config, labels=labels, preds=preds,
                        dropna=dropna)


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
