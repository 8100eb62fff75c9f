"""Paired comparison of alternative models (or calibrations) scored on the same rows.

When the groups of a GroupBy are alternative models of the same rows, identified by
a row key column, :func:`compare_groups` sets every model against a baseline on
those rows: each summary metric's difference (model - baseline), its paired
interval, the change of risk band, and paired tests of the difference in CSR and in
log loss.  The intervals of these two are the Wald intervals of their paired z-tests,
so interval and p-value never disagree; the other metrics' are paired bootstrap
percentile intervals.

Paired means one resample of the row keys per replicate, applied to every model:
the rows a replicate draws for the baseline are the rows it draws for the model, so
what the rows share (their difficulty) cancels in the difference.  Every model's
rows are put in the order of their sorted keys first, so neither the order of the
rows nor that of the groups changes a result.

Examples
--------
>>> import pandas as pd, calreport
>>> df = pd.DataFrame({"model": ["A"] * 4 + ["B"] * 4, "row": [1, 2, 3, 4] * 2,
...                    "y": [0, 1, 1, 0] * 2, "p": [.2, .7, .9, .4, .1, .8, .6, .3]})
>>> out = df.groupby("model").calib.compare("A", row_id="row", n_boot=50, seed=0)
>>> float(out.table.loc[("B", "accuracy"), "difference"])
0.0
>>> out.bands.loc["B", "change"]
'same'
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from calreport import references
from calreport._finishers import row_columns
from calreport._grouping import Split
from calreport._numbers import format_number
from calreport._paired_test import (
    BELOW_NOMINAL_BINARY,
    BELOW_NOMINAL_MULTICLASS,
    COVERAGE,
    COVERAGE_BINARY,
    COVERAGE_MULTICLASS,
    paired_z_test,
    wald_interval,
)
from calreport._progress import Steps
from calreport.bootstrap.intervals import REFIT_REPLICATES, refit_by_default
from calreport.bootstrap.paired import paired_interval, paired_replicates, paired_streams
from calreport.metrics.bands import BAND_SEVERITY
from calreport.profile import ConfidenceProfile
from calreport.registry import REGISTRY, MetricCache, resolve_metrics, shown_in
from calreport.settings import Settings
from calreport.summary import SummaryResult, summarize

__all__ = ["BELOW_NOMINAL_BINARY", "BELOW_NOMINAL_MULTICLASS", "COLUMNS", "COVERAGE",
           "COVERAGE_BINARY", "COVERAGE_MULTICLASS", "TESTED", "WALD", "Comparison",
           "compare_groups", "comparison_settings", "paired_z_test", "wald_interval"]

#: Columns of :attr:`Comparison.table`.
COLUMNS = ("baseline", "value", "difference", "ci_low", "ci_high", "p_value")
#: Metrics whose difference gets a p-value: means of per-row terms over the same rows
#: (CSR is ``sum w (1 - correct) / (1 - c) / sum w``: the shared weights make the
#: difference one weighted mean of row differences).
TESTED = ("csr", "log_loss", "top_label_log_loss")
_TEST = ("paired z-test on per-row differences (Diebold-Mariano form; weighted mean of "
         "row differences, sandwich standard error with n/(n-1)), two-sided")
#: Metrics whose interval is the Wald interval of :func:`paired_z_test` (``difference +- z SE``)
#: rather than the paired percentile interval: every tested metric, so that no interval and
#: p-value disagree.  CSR's row terms ``(1 - correct) / (1 - c)`` are heavy-tailed for confident
#: models: its percentile, BCa and bootstrap-t intervals missed a true 0 in up to 10, 19 and 16 %
#: of null runs, the Wald interval in at most 4.2 %; log loss's percentile interval missed in up
#: to 7.4 %, its Wald interval in at most 6.4 %.  Between alike multiclass models (3 and 10
#: classes) the Wald intervals of CSR, log loss and top-label log loss missed in 1.6-6.6, 3.2-5.8
#: and 3.4-7.0 % of runs (:data:`COVERAGE`).
WALD = TESTED
_INTERVAL = ("CSR and the log losses: the Wald interval of the paired z-test, difference "
             "+- z SE with the test's sandwich standard error (z the normal quantile of the "
             "level), so it excludes 0 exactly when the p-value is below 1 - level; other "
             "metrics: paired bootstrap percentile interval of the difference, every "
             "replicate resampling the row keys once and evaluating every model on those "
             "rows")


@dataclass(frozen=True)
class Comparison:
    """Paired differences of every model against a baseline.

    Attributes
    ----------
    table : pandas.DataFrame
        Index (model, metric); columns ``baseline``, ``value``, ``difference``
        (value - baseline), ``ci_low``, ``ci_high`` (interval of the difference: for
        CSR and the log losses the Wald interval of the z-test, else the paired
        bootstrap percentile interval) and ``p_value`` (:data:`TESTED` only, else NaN).
    bands : pandas.DataFrame
        Index model; columns ``baseline_band``, ``band`` and ``change``
        ("better", "same", "worse"), unadjusted bands of each model's own rows.
    baseline : hashable
        The baseline's group key.
    n_rows : int
        Rows (row keys) every model is scored on.
    ci : float
    n_boot : int
    seed : int
        The master seed (drawn when none was given: pass it back to repeat the run).
    methods : dict
        How the intervals, the p-values and the bands were obtained.
    reasons : dict
        (model, metric) -> why an interval or a p-value is NaN.
    caveats : dict
        metric -> where the coverage study measured its interval missing the truth far
        more often than the level allows, printed beside it.
    """

    table: pd.DataFrame
    bands: pd.DataFrame
    baseline: Any
    n_rows: int
    ci: float
    n_boot: int
    seed: int
    methods: dict[str, str] = field(default_factory=dict)
    reasons: dict[tuple[Any, str], str] = field(default_factory=dict)
    caveats: dict[str, str] = field(default_factory=dict)

    def to_frame(self) -> pd.DataFrame:
        """:attr:`table` with the bands, methods and seed in ``attrs``."""
        out = self.table.copy()
        out.attrs.update(baseline=self.baseline, n_rows=self.n_rows, ci=self.ci,
                         n_boot=self.n_boot, seed=self.seed, methods=dict(self.methods),
                         reasons=dict(self.reasons), caveats=dict(self.caveats),
                         bands=self.bands.to_dict(orient="index"))
        return out

    def _headline(self) -> pd.DataFrame:
        keep = [m for m in shown_in("comparison")
                if m in self.table.index.get_level_values(1)]
        return self.table[self.table.index.get_level_values(1).isin(keep)] if keep \
            else self.table

    def _missing(self, metrics: Collection[str], refit_flag: str) -> list[str]:
        """Why the intervals of these metrics are missing: one line per reason."""
        by: dict[str, dict[str, None]] = {}
        for (_, metric), why in self.reasons.items():
            if metric in metrics:
                why = why.removeprefix("no interval: ").replace(
                    "no interval for this metric", "the metric has none")
                by.setdefault(why.replace("refit=True", refit_flag), {})[metric] = None
        return [f"{', '.join(ms)}: {why}" for why, ms in by.items()]

    def to_text(self, *, full: bool = False, refit_flag: str = "refit=True") -> str:
        """The comparison as printed: the table (``full``: every metric, else the
        headline ones), the bands, why an interval is missing, how the intervals and
        p-values are obtained and their measured coverage.  ``refit_flag``: how the
        reader asks for the refitted intervals (the CLI's ``--refit``)."""
        head = (f"Paired comparison against baseline {self.baseline!r}: {self.n_rows:,} "
                f"rows, {self.n_boot:,} paired bootstrap replicates, seed {self.seed}, "
                f"{self.ci:.0%} intervals")
        rows = self.table if full else self._headline()
        with pd.option_context("display.float_format", "{:.4g}".format,
                               "display.width", 200, "display.max_rows", 1000):
            body = rows.to_string(formatters={"p_value": _p_text})
            bands = self.bands.to_string()
        shown = set(rows.index.get_level_values(1))
        missing = self._missing(shown, refit_flag)
        more = "" if len(rows) == len(self.table) else "\n(all metrics: .table)"
        caveats = [f"  {m}: {c}" for m, c in self.caveats.items() if m in shown]
        return (f"{head}\n{body}\n\nRisk bands\n{bands}\n\n"
                + ("No interval (NaN):\n" + "\n".join(f"  {m}" for m in missing) + "\n"
                   if missing else "")
                + ("Interval below its level in the study:\n" + "\n".join(caveats) + "\n"
                   if caveats else "")
                + f"Intervals: {self.methods['interval']}\np-values: {self.methods['test']}\n"
                f"Measured: {self.methods['coverage']}{more}")

    def __repr__(self) -> str:
        return self.to_text()

    def _repr_html_(self) -> str:
        head = (f"<p><b>Paired comparison against baseline "
                f"{_escape(repr(self.baseline))}</b>: {self.n_rows:,} rows, "
                f"{self.n_boot:,} paired bootstrap replicates, seed {self.seed}, "
                f"{self.ci:.0%} intervals.</p>")
        fmt = "{:.4g}".format
        missing = self._missing(set(self.table.index.get_level_values(1)), "refit=True")
        return (head + self.table.to_html(float_format=fmt, na_rep="",
                                          formatters={"p_value": _p_text})
                + "<p>Risk bands</p>" + self.bands.to_html()
                + "".join(f"<p>No interval: {_escape(m)}</p>" for m in missing)
                + "".join(f"<p>Interval below its level in the study: {_escape(m)}: "
                          f"{_escape(c)}</p>" for m, c in self.caveats.items())
                + f"<p>Intervals: {_escape(self.methods['interval'])}</p>"
                + f"<p>p-values: {_escape(self.methods['test'])}</p>"
                + f"<p>Measured: {_escape(self.methods['coverage'])}</p>")


def _escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


# --------------------------------------------------------------------- alignment
def _row_keys(split: Split, row_id: Hashable) -> np.ndarray:
    """The row key of each row of the split's profile."""
    frame = split.frame
    if frame is None or row_id not in frame.columns:
        cols = [] if frame is None else list(frame.columns)
        raise ValueError(f"`row_id`={row_id!r} is not a column; columns: {cols}. Pass the "
                         "column that identifies a row across models, e.g. row_id='row'.")
    keys = frame[row_id]
    if len(keys) != split.profile.n:  # rows dropped for missing values
        if not frame.index.is_unique:
            raise ValueError("missing='drop' dropped rows and the index has duplicate "
                             "labels, so their row keys cannot be located; call "
                             "reset_index() on the frame first.")
        keys = keys.iloc[frame.index.get_indexer(split.row_labels)]
    na = keys.isna().to_numpy()
    if na.any():
        first = keys.index[int(np.flatnonzero(na)[0])]
        raise ValueError(f"`row_id` column {row_id!r} has {int(na.sum())} missing value(s) "
                         f"(first at index {first!r}); every row needs its key.")
    return keys.to_numpy()


def _codes(keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Integer codes of the row keys in sorted key order (the order every model's rows
    take), and the distinct keys."""
    try:
        codes, uniques = pd.factorize(keys, sort=True)
    except TypeError:  # keys of several types: order by type name, then text
        codes, uniques = pd.factorize(keys)
        order = sorted(range(len(uniques)),
                       key=lambda i: (type(uniques[i]).__name__, repr(uniques[i])))
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        codes, uniques = rank[codes], np.asarray(uniques, dtype=object)[order]
    return np.asarray(codes, dtype=np.int64), np.asarray(uniques, dtype=object)


def _examples(keys: np.ndarray, limit: int = 5) -> str:
    shown = ", ".join(repr(k.item() if isinstance(k, np.generic) else k)
                      for k in keys[:limit])
    return shown + (", ..." if len(keys) > limit else "")


def _align(split: Split, row_id: Hashable, row_id_name: str
           ) -> dict[Any, ConfidenceProfile]:
    """Each model's profile with its rows in sorted row-key order, after checking that
    every model has every key once and that labels and weights agree per key."""
    codes, uniques = _codes(_row_keys(split, row_id))
    n_keys = uniques.size
    groups = [g for g in split.groups if g.size]
    problems = []
    aligned: dict[Any, np.ndarray] = {}
    for g in groups:
        c = codes[g.rows]
        seen = np.bincount(c, minlength=n_keys)
        twice, absent = np.flatnonzero(seen > 1), np.flatnonzero(seen == 0)
        if twice.size:
            problems.append(f"model {g.name!r} has {twice.size} row key(s) more than once "
                            f"(e.g. {_examples(uniques[twice])})")
        if absent.size:
            problems.append(f"model {g.name!r} lacks {absent.size} row key(s) that other "
                            f"models have (e.g. {_examples(uniques[absent])})")
        aligned[g.key] = g.rows[np.argsort(c, kind="stable")]
    if problems:
        raise ValueError(
            f"compare() needs every model scored once on the same rows (`row_id`="
            f"{row_id_name}): " + "; ".join(problems) + ". Keep one row per (model, row "
            "key), e.g. df.drop_duplicates([model, row_id]), and restrict all models to "
            "the keys they share.")
    p = split.profile
    first = groups[0]
    for field_name, what in (("y_true", "true label"), ("sample_weight", "sample weight")):
        ref = getattr(p, field_name)
        if ref is None:
            continue
        base = ref[aligned[first.key]]
        for g in groups[1:]:
            other = ref[aligned[g.key]]
            bad = np.flatnonzero(base != other)
            if bad.size:
                raise ValueError(
                    f"the {what} of a row key must be the same for every model: models "
                    f"{first.name!r} and {g.name!r} differ on {bad.size} key(s) (e.g. "
                    f"{_examples(uniques[bad])}). Take the {what} column from one "
                    "source for all models.")
    return {g.key: p.take(aligned[g.key]) for g in groups}


def _as_repeated_rows(profile: ConfidenceProfile) -> ConfidenceProfile:
    """Frequency weights count repeated rows: the paired bootstrap resamples those."""
    w = profile.sample_weight
    if w is None or profile.weights != "frequency":
        return profile
    rows = np.repeat(np.arange(profile.n), w.astype(np.int64))
    return profile.take(rows).replace(sample_weight=None, weights="importance")


# --------------------------------------------------------------------- bootstrap
def _replicates(profiles: dict[Any, ConfidenceProfile], s: Settings, names: list[str],
                refit: list[str], n_boot: int, n_refit: int, seed: np.random.SeedSequence,
                progress: bool | None = None) -> dict[Any, dict[str, np.ndarray]]:
    """Every model's metric replicates on the same resampled rows."""
    n = next(iter(profiles.values())).n
    out = paired_replicates(profiles, s, names, n_boot=n_boot, seed=seed,
                            progress=progress, label="compare")
    for key in profiles:
        out[key].update({m: np.full(n_boot, np.nan) for m in refit})
    # the refits, on the first n_refit replicates' rows (drawn again: the same counts),
    # with a bar of their own: one refit predicts the others' time
    sampler, streams = paired_streams(seed, n, n_boot)
    counts = sampler.draw_block(streams, 0, n_refit)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with Steps(n_refit, "compare refits", "rep", progress) as steps:
            for r in range(n_refit):
                rows = np.repeat(np.arange(n), counts[r].astype(np.int64))
                for key, p in profiles.items():
                    _refit_one(p.take(rows), s, refit, out[key], r)
                steps.done()
    return out


def _refit_one(rep: ConfidenceProfile, s: Settings, names: list[str],
               out: dict[str, np.ndarray], r: int) -> None:
    cache = MetricCache()
    for m in names:
        if REGISTRY[m].missing_need(rep) is not None:
            continue
        try:
            out[m][r] = REGISTRY[m].compute(rep, s, cache)
        except ValueError:
            pass  # a degenerate replicate: NaN


def _p_text(p: float) -> str:
    """A p-value as printed: four decimals, ``< 0.0001`` below (never 1.1e-06)."""
    return "NaN" if math.isnan(p) else format_number(p, fixed=True, below=True)


# --------------------------------------------------------------------- the table
def _band_change(base: str, band: str) -> str:
    a, b = BAND_SEVERITY.get(base), BAND_SEVERITY.get(band)
    if a is None or b is None:
        return ""
    return "same" if a == b else ("worse" if b > a else "better")


#: Metric settings :func:`comparison_settings` accepts (those of the summary).
SETTING_NAMES = ("n_bins", "strategy", "tau", "view", "p_risk_method", "eps", "min_count")


def comparison_settings(seed: Any, settings: dict[str, Any]) -> Settings:
    """The :class:`Settings` of a comparison from keyword arguments, refusing unknown ones.

    Raises
    ------
    TypeError
        A keyword that is not a metric setting.
    """
    unknown = sorted(set(settings) - set(SETTING_NAMES))
    if unknown:
        raise TypeError(f"compare() got unknown keyword(s) {unknown}; metric settings are "
                        f"{list(SETTING_NAMES)}.")
    return Settings.from_kwargs(seed=seed, **settings)


def compare_groups(
    split: Split,
    *,
    baseline: Hashable,
    row_id: Hashable,
    metrics: Sequence[str] | str | None = None,
    settings: Settings | None = None,
    ci: float = 0.95,
    n_boot: int = 1000,
    seed: Any = None,
    refit: bool | None = False,
    progress: bool | None = None,
) -> Comparison:
    """Paired differences of every group (model) against the ``baseline`` group.

    Parameters
    ----------
    split : calreport._grouping.Split
        A grouped split whose groups are alternative models of the same rows.
    baseline : hashable
        Group key of the baseline model.
    row_id : column name
        Column that identifies a row across models (each model has every key once).
    metrics : list of str, optional
        Names of :data:`calreport.registry.REGISTRY` (default: all).
    settings : Settings, optional
    ci : float, default 0.95
        Level of the paired intervals.
    n_boot : int, default 1000
        Paired bootstrap replicates.
    seed : int, Generator, SeedSequence or None
        Master seed of the resampling and of P_risk's Monte Carlo null (None: drawn
        from fresh entropy); the integer used is :attr:`Comparison.seed`.
    refit : bool or None, default False
        Intervals of the metrics that refit a curve (LCS, TCE_bpm, smECE...), from
        ``min(n_boot, 200)`` of the same replicates, one fit per model each; opt-in,
        as in ``summary()``.  None: :func:`calreport.bootstrap.intervals.refit_by_default`
        (at most 10 models and 20,000 rows times models).
    progress : bool, optional
        Show a progress bar over the replicates (default: in a terminal or a notebook,
        when the first block predicts at least two seconds); False silences it.

    Returns
    -------
    Comparison

    Raises
    ------
    ValueError
        Not grouped, an unknown baseline, a model lacking a row key or having one
        twice, true labels or weights that differ between models for a row key.

    Notes
    -----
    ``difference = metric(model) - metric(baseline)`` on the same rows.  Replicate
    ``b`` draws one multinomial resample of the ``N`` row keys and evaluates every
    model on it; a metric's interval is the percentile interval of the replicate
    differences.  The p-values of CSR and the log losses (:data:`TESTED`) come from
    :func:`paired_z_test` on the per-row terms (``(1 - correct) / (1 - c)``,
    ``-log p_true`` and ``-log`` of the top-label probability of the outcome, clipped
    as the metrics clip them); their intervals are that
    test's Wald interval (:func:`wald_interval`), which excludes 0 exactly when its
    p-value is below ``1 - ci``.  Measured size and coverage: :data:`COVERAGE`
    (a comparison prints the part for its models, binary or multiclass).

    References
    ----------
    Efron, B. & Tibshirani, R. J. (1993). An Introduction to the Bootstrap, ch. 13.
    Diebold, F. X. & Mariano, R. S. (1995). doi:10.1080/07350015.1995.10524599.
    """
    if not split.grouped:
        raise ValueError("compare() needs groups of alternative models: call it on "
                         "df.groupby('model').calib, not df.calib.")
    if isinstance(n_boot, bool) or not isinstance(n_boot, (int, np.integer)) or n_boot < 2:
        raise ValueError(f"`n_boot` must be an integer >= 2, got {n_boot!r}.")
    if not (isinstance(ci, (int, float)) and 0.0 < float(ci) < 1.0):
        raise ValueError(f"`ci` must be a level in (0, 1), e.g. 0.95; got {ci!r}.")
    keys = [g.key for g in split.groups if g.size]
    if baseline not in keys:
        raise ValueError(f"`baseline`={baseline!r} is not a group; groups: {keys}.")
    if len(keys) < 2:
        raise ValueError(f"compare() needs a second model beside the baseline; the only "
                         f"group with rows is {baseline!r}.")
    s = settings or Settings()
    names = resolve_metrics(metrics)
    profiles = _align(split, row_id, repr(row_id))
    profiles = {k: _as_repeated_rows(p) for k, p in profiles.items()}
    seed = _resolve_seed(seed)
    master = np.random.SeedSequence(seed)
    if s.seed is None:  # P_risk's Monte Carlo null: the same seed, so a rerun repeats it
        s = s.replace(seed=seed)
    n = profiles[baseline].n
    results = {k: summarize(p, metrics=names, settings=s, with_risk=True)
               for k, p in profiles.items()}
    batched = [m for m in names if REGISTRY[m].interval.kind == "bootstrap"]
    refitting = [m for m in names if REGISTRY[m].interval.kind == "refit"]
    if refit is None:
        refit = refit_by_default([n] * len(profiles))
    n_refit = min(int(n_boot), REFIT_REPLICATES) if refit and refitting else 0
    reps = _replicates(profiles, s, batched, refitting if n_refit else [], int(n_boot),
                       n_refit, master, progress)
    # a tested metric is the weighted mean of one per-row column (its registry entry's)
    column = {m: REGISTRY[m].interval.columns[0] for m in TESTED}
    terms = {k: row_columns(p, s, keep=set(column.values())) for k, p in profiles.items()}
    others = [k for k in keys if k != baseline]
    same = {k: _identical(profiles[k], profiles[baseline]) for k in others}
    rows, reasons = [], {}
    for key in others:
        for m in names:
            base_val, val = results[baseline].values[m], results[key].values[m]
            col = column.get(m)
            tested = col is not None and col in terms[key] and col in terms[baseline]
            p_val = math.nan
            if tested:
                diff, se, p_val = paired_z_test(terms[key][col], terms[baseline][col],
                                                profiles[key].sample_weight)
            why = _undefined(m, results, key, baseline)
            if why:
                lo, hi = math.nan, math.nan
            elif m in WALD and tested:
                lo, hi, why = wald_interval(diff, se, float(ci))
            else:
                lo, hi, why = _difference_interval(m, reps, key, baseline, results,
                                                   float(ci), n_refit)
            if same[key] and not math.isnan(val):
                lo, hi, why = 0.0, 0.0, ""  # the same rows and scores: 0 in every replicate
            if why:
                reasons[(key, m)] = why
            rows.append((key, m, base_val, val, val - base_val, lo, hi, p_val))
    table = pd.DataFrame(rows, columns=["model", "metric", *COLUMNS]
                         ).set_index(["model", "metric"])
    bands = pd.DataFrame(
        [(k, results[baseline].risk.band, results[k].risk.band,
          _band_change(results[baseline].risk.band, results[k].risk.band))
         for k in others], columns=["model", "baseline_band", "band", "change"]
    ).set_index("model")
    multiclass = (profiles[baseline].n_classes or 2) > 2
    methods = {"interval": _INTERVAL, "test": _TEST,
               "coverage": COVERAGE_MULTICLASS if multiclass else COVERAGE_BINARY,
               "band": "each model's own risk band on the shared rows (not adjusted for "
                       "the number of models)",
               "refit": (f"refitting metrics: {n_refit} of the same replicates"
                         if n_refit else "refitting metrics: no interval (refit=False)"),
               "references": "; ".join(references.cite(k) for k in
                                       ("EfronTibshirani1993", "DieboldMariano1995"))}
    caveats = BELOW_NOMINAL_MULTICLASS if multiclass else BELOW_NOMINAL_BINARY
    return Comparison(table, bands, baseline, n, float(ci), int(n_boot), seed, methods,
                      reasons, {m: c for m, c in caveats.items() if m in names})


def _identical(a: ConfidenceProfile, b: ConfidenceProfile) -> bool:
    """Whether two aligned profiles hold the same predictions (then every replicate's
    difference is exactly 0, whatever the metric's estimator)."""
    for name in ("conf", "correct", "y_true", "y_pred", "score", "sample_weight"):
        x, y = getattr(a, name), getattr(b, name)
        if (x is None) != (y is None) or (x is not None and not np.array_equal(x, y)):
            return False
    if a.score is None and a.has_proba:
        return b.has_proba and np.array_equal(a.proba, b.proba)
    return True


def _resolve_seed(seed: Any) -> int:
    """The integer master seed: ``seed`` itself, or drawn (from fresh entropy when None)."""
    if isinstance(seed, np.random.Generator):
        return int(seed.integers(2**63))
    if isinstance(seed, np.random.SeedSequence):
        return int(seed.generate_state(1, np.uint64)[0] >> np.uint64(1))
    if seed is None:
        return int(np.random.SeedSequence().entropy % 2**63)
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"`seed` must be a non-negative integer, a numpy Generator or "
                         f"None, got {seed!r}.")
    return int(seed)


def _undefined(m: str, results: dict[Any, SummaryResult], key: Any, baseline: Any) -> str:
    """Why the metric is undefined for the model or the baseline ("" when defined)."""
    for k in (baseline, key):
        why = results[k].reasons.get(m)
        if why is not None:
            return f"undefined for one of the models: {why}"
    return ""


def _difference_interval(m: str, reps: dict[Any, dict[str, np.ndarray]], key: Any,
                         baseline: Any, results: dict[Any, SummaryResult], ci: float,
                         n_refit: int) -> tuple[float, float, str]:
    """The paired interval of one metric's difference, or NaN and the reason."""
    why = _undefined(m, results, key, baseline)
    if why:
        return math.nan, math.nan, why
    refitting = REGISTRY[m].interval.kind == "refit"
    if refitting and not n_refit:
        return math.nan, math.nan, ("no interval: the refitting bootstrap was skipped "
                                    "(pass refit=True)")
    if REGISTRY[m].interval.kind == "none" or m not in reps[key]:
        return math.nan, math.nan, "no interval for this metric"
    if m == "p_risk" and (results[key].p_risk_method != "normal"
                          or results[baseline].p_risk_method != "normal"):
        return math.nan, math.nan, ("no interval: a Monte Carlo P_risk has no batched "
                                    "replicates (they are those of Phi(z))")
    stop = n_refit if refitting else None
    return paired_interval(reps[key][m][:stop], reps[baseline][m][:stop], ci)
