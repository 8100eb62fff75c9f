"""How an interval is read off bootstrap replicates, and what the coverage study found.

One rule for every path that prints an interval (the pandas bootstrap, the refitting
bootstrap, the out-of-core Poisson replicates):

``"percentile"``
    ``[q(α/2), q(1 - α/2)]`` of the replicates (Efron 1979).
``"basic"``
    ``[2v - q(1 - α/2), 2v - q(α/2)]`` (Davison & Hinkley 1997, section 5.2).
``"upper"``
    A one-sided bound ``θ ≤ q(1 - α)``, printed as ``[lowest possible value, q(1 - α)]``:
    for calibration errors, whose true value can be 0 and whose estimate is biased
    upward, so that no two-sided interval around the estimate covers near 0.
``"lower"``
    A one-sided bound ``θ ≥ q(α)``, printed as ``[q(α), highest possible value]``: for a
    quantity whose estimate is biased downward at its maximum (the CORP uncertainty
    ``ȳ(1 - ȳ)`` at a base rate near 0.5).
``"analytic"``
    A normal interval from an influence function (computed elsewhere; no Monte Carlo
    error).

Every interval is clipped to the metric's range and then widened, where needed, to
contain its own estimate: a printed value is never outside its printed interval, so
a gate on ``ci_high`` is never looser than the gate on the value.  Each bound carries
its Monte Carlo standard error, from the order statistics of the replicates: the
``q``-quantile of ``m`` replicates moves by about the distance between the ranks
``q·(m-1) ± √(m·q·(1-q))``, halved (the binomial spread of the number of replicates
below it).

The measured coverage of each metric's interval comes from the project's coverage
study (``benchmarks/coverage.py``), which writes ``calreport/coverage.json`` (read once,
at import); :func:`coverage` reads it and :func:`coverage_text` states it.

Examples
--------
>>> import numpy as np
>>> reps = np.linspace(0.0, 1.0, 101)
>>> b = read_interval(reps, 0.5, 0.95, "upper", (0.0, 1.0))
>>> float(b.low[0]), round(float(b.high[0]), 12)
(0.0, 0.95)
>>> float(read_interval(reps, 0.99, 0.95, "percentile", (0.0, 1.0)).high[0])
0.99
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

__all__ = [
    "INTERVAL_METHODS",
    "LINEARIZED",
    "LINEARIZED_MARK",
    "NO_SPREAD",
    "ONE_SIDED",
    "STUDY_MIN_ROWS",
    "Bounds",
    "Coverage",
    "Interval",
    "base_method",
    "coverage",
    "coverage_text",
    "interval_caveat",
    "interval_note",
    "method_text",
    "read_interval",
    "size_caveat",
    "spread_caveat",
    "study_sizes",
]

#: Interval methods a user can ask for (``ci_method=``).
INTERVAL_METHODS = ("percentile", "basic", "upper", "lower", "analytic")
#: Methods that bound one side only; the other end is the metric's range.
ONE_SIDED = ("upper", "lower")
#: A two-sided method meets its target when every cell of the study is within this
#: many points of the nominal level; a one-sided bound when none is further below.
TOLERANCE = 0.03

_DATA = json.loads(Path(__file__).with_name("coverage.json").read_text(encoding="utf-8"))
#: The coverage study's settings (runs a cell, bootstrap replicates, sizes, seed).
STUDY: dict[str, Any] = _DATA["study"]
#: The study's setups, in the order of every row of :data:`COVERAGE`.
CELLS: tuple[str, ...] = tuple(_DATA["cells"])
#: Measured coverage (fraction) by metric and method: one value a cell of :data:`CELLS`,
#: None where the metric was not measured there.
COVERAGE: dict[str, dict[str, tuple[float | None, ...]]] = {
    metric: {method: tuple(row) for method, row in by.items()}
    for metric, by in _DATA["coverage"].items()}
del _DATA
#: The linearized replicates' study (:mod:`calreport.bootstrap._linear`): ``study``
#: settings, ``cells`` and ``coverage`` by metric and method, as above; written by
#: ``benchmarks/linearized_bootstrap.py`` into ``calreport/coverage_linearized.json``.
LINEARIZED: dict[str, Any] = json.loads(
    Path(__file__).with_name("coverage_linearized.json").read_text(encoding="utf-8"))
#: How a method description marks intervals read from linearized replicates.
LINEARIZED_MARK = ", linearized"


@dataclass(frozen=True)
class Interval:
    """How the confidence interval of a metric is obtained.

    Attributes
    ----------
    kind : {"bootstrap", "refit", "none"}
        ``"bootstrap"``: a batched bootstrap kernel (``columns`` + ``finish``)
        evaluates the metric on many replicates at once; ``"refit"``: a refitting
        bootstrap recomputes the metric on each of ``min(n_boot, 200)`` resampled
        data sets; ``"none"``: no interval, ``reason`` says why.
    columns : tuple of str
        Per-row quantities whose weighted sums the kernel needs
        (see :mod:`calreport.bootstrap.kernels`).
    finish : callable or None
        ``finish(sums, settings) -> ndarray``: the metric of every replicate from
        the replicate sums (``settings``: a :class:`calreport.settings.Settings`).
    analytic : str or None
        Name of the analytic standard error (``"mean"``, ``"ratio"``, ``"delong"``)
        used by ``ci_method="analytic"``; None when there is none.
    method : {"percentile", "basic", "upper", "lower"}
        Default interval method from the replicates (see
        :mod:`calreport.interval_rules`), chosen by the project's coverage study
        (``benchmarks/coverage.py``): a two-sided interval where one covers within
        95 ± 3 % in every setup; for a calibration error, whose true value can be 0
        and whose estimate is biased upward, the one-sided upper bound.  Its measured
        coverage is :func:`calreport.interval_rules.coverage_text`.
    reason : str
        Why there is no interval (``kind="none"``).
    """

    kind: str = "bootstrap"
    columns: tuple[str, ...] = ()
    finish: Callable[[Any, Any], np.ndarray] | None = None
    analytic: str | None = None
    method: str = "percentile"
    reason: str = ""


@dataclass(frozen=True)
class Bounds:
    """An interval read off replicates (arrays: one entry a group).

    Attributes
    ----------
    low, high : ndarray
        The bounds (NaN where fewer than half of the replicates are defined).
    se_low, se_high : ndarray
        Monte Carlo standard error of each bound (0 for a fixed end of the range).
    replicates : ndarray of int
        Defined replicates behind each interval.
    """

    low: np.ndarray
    high: np.ndarray
    se_low: np.ndarray
    se_high: np.ndarray
    replicates: np.ndarray


def _at(ordered: np.ndarray, m: np.ndarray, rank: np.ndarray) -> np.ndarray:
    """Linear interpolation (Hyndman & Fan type 7, as ``np.quantile``) of sorted rows
    (NaN last) at fractional ranks."""
    rank = np.clip(rank, 0.0, np.maximum(m - 1, 0))
    i = np.floor(rank).astype(np.int64)
    j = np.minimum(i + 1, np.maximum(m - 1, 0))
    a = np.take_along_axis(ordered, i[:, None], axis=1)[:, 0]
    b = np.take_along_axis(ordered, j[:, None], axis=1)[:, 0]
    t = rank - i
    with np.errstate(invalid="ignore"):
        # np.quantile's own lerp, from the nearer end: the same bits
        return np.where(a == b, a, np.where(t >= 0.5, b - (b - a) * (1 - t), a + (b - a) * t))


def _quantile(ordered: np.ndarray, m: np.ndarray, q: float) -> tuple[np.ndarray, np.ndarray]:
    """The ``q``-quantile of each row and its Monte Carlo standard error."""
    mf = m.astype(np.float64)
    centre = q * (mf - 1)
    spread = np.sqrt(mf * q * (1 - q))
    value = _at(ordered, m, centre)
    se = (_at(ordered, m, centre + spread) - _at(ordered, m, centre - spread)) / 2
    return value, se


def read_interval(reps: np.ndarray, value: np.ndarray | float, ci: float, method: str,
                  bounds: tuple[float, float]) -> Bounds:
    """The interval of a metric from its replicates, by one method.

    Parameters
    ----------
    reps : ndarray, shape (B,) or (groups, B)
        Replicate values (NaN where a replicate could not define the metric).
    value : float or ndarray, shape (groups,)
        The point estimates.
    ci : float
        Confidence level (two-sided methods) or the one-sided level (``"upper"``,
        ``"lower"``).
    method : {"percentile", "basic", "upper", "lower"}
    bounds : (float, float)
        The metric's range.

    Returns
    -------
    Bounds
        Clipped to the range and widened to contain the estimate.
    """
    reps = np.atleast_2d(np.asarray(reps, dtype=np.float64))
    value = np.broadcast_to(np.asarray(value, dtype=np.float64), reps.shape[:1])
    reps = np.where(np.isfinite(reps), reps, np.nan)
    ordered = np.sort(reps, axis=1)
    m = np.count_nonzero(~np.isnan(reps), axis=1)
    a, b = bounds
    zero = np.zeros(reps.shape[0])
    if method in ("percentile", "basic"):
        lo, se_lo = _quantile(ordered, m, (1 - ci) / 2)
        hi, se_hi = _quantile(ordered, m, (1 + ci) / 2)
        if method == "basic":
            lo, hi, se_lo, se_hi = 2 * value - hi, 2 * value - lo, se_hi, se_lo
    elif method == "upper":
        hi, se_hi = _quantile(ordered, m, ci)
        lo, se_lo = np.full(reps.shape[0], a), zero
    elif method == "lower":
        lo, se_lo = _quantile(ordered, m, 1 - ci)
        hi, se_hi = np.full(reps.shape[0], b), zero
    else:
        raise ValueError(f"no interval method {method!r} from replicates; choose one of "
                         f"{INTERVAL_METHODS[:-1]}")
    few = m < np.maximum(2, reps.shape[1] // 2)
    lo, hi = np.clip(lo, a, b), np.clip(hi, a, b)
    with np.errstate(invalid="ignore"):
        lo = np.where(value < lo, value, lo)  # the estimate is always inside
        hi = np.where(value > hi, value, hi)
    nan = np.full(reps.shape[0], math.nan)
    return Bounds(np.where(few, nan, lo), np.where(few, nan, hi),
                  np.where(few, nan, se_lo), np.where(few, nan, se_hi), m)


@dataclass(frozen=True)
class Coverage:
    """What the coverage study measured for one metric and interval method.

    Attributes
    ----------
    low, high : float
        Lowest and highest coverage over the study's setups (fractions; NaN when
        not measured).
    cells : dict
        Setup -> coverage.
    runs : int
        Simulated data sets a setup.
    meets_target : bool
        Every setup within :data:`TOLERANCE` of 95 % (two-sided) or not below 95 %
        by more than it (one-sided).
    """

    low: float
    high: float
    cells: dict[str, float]
    runs: int
    meets_target: bool

    @property
    def measured(self) -> bool:
        """Whether the study covered this metric and method."""
        return not math.isnan(self.low)


def coverage(metric: str, method: str) -> Coverage:
    """The measured coverage of ``metric``'s 95 % interval by ``method``.

    Examples
    --------
    >>> coverage("accuracy", "percentile").meets_target
    True
    >>> coverage("accuracy", "no such method").measured
    False
    """
    table, names, runs = COVERAGE, CELLS, STUDY.get("runs", 0)
    if method.endswith(LINEARIZED_MARK):  # the linearized replicates' own study
        method = base_method(method)
        table, names = LINEARIZED["coverage"], LINEARIZED["cells"]
        runs = LINEARIZED["study"].get("runs", 0)
    row = table.get(metric, {}).get(method)
    cells = {c: v for c, v in zip(names, row or (), strict=False) if v is not None}
    if not cells:
        return Coverage(math.nan, math.nan, {}, 0, False)
    vals = list(cells.values())
    lo, hi = min(vals), max(vals)
    if method in ONE_SIDED:
        ok = lo >= 0.95 - TOLERANCE
    else:
        ok = lo >= 0.95 - TOLERANCE and hi <= 0.95 + TOLERANCE
    return Coverage(lo, hi, dict(cells), int(runs), ok)


def base_method(how: str) -> str:
    """The method name in a method description such as ``"upper, Poisson bootstrap"``.

    Examples
    --------
    >>> base_method("upper, Poisson bootstrap")
    'upper'
    """
    return how.split(",")[0].split(" ")[0].strip()


def interval_note(metric: str, how: str) -> dict[str, Any]:
    """What every output says about ``metric``'s interval read by ``how`` (a method, or
    a description such as ``"upper, Poisson bootstrap"``): ``method``, ``one_sided``,
    ``coverage`` (as printed), ``meets_target`` and ``text`` (method and coverage in
    words).

    Examples
    --------
    >>> interval_note("ece", "upper")["text"].startswith("one-sided upper bound, measured")
    True
    """
    base = base_method(how)
    key = how if how.endswith(LINEARIZED_MARK) else base
    cov = coverage_text(metric, key)
    return {"method": how, "one_sided": base in ONE_SIDED, "coverage": cov,
            "meets_target": coverage(metric, key).meets_target,
            "text": f"{method_text(key)}, {cov}"}


def interval_caveat(low: float, high: float, n: float) -> str:
    """What one group's interval cannot claim, printed beside it ("" when nothing).

    The two parts, :func:`spread_caveat` and :func:`size_caveat`, joined: the data
    outputs (summary frames, JSON, gates) print both beside each interval; the report
    prints the first beside the interval and the second once per group.

    Examples
    --------
    >>> interval_caveat(1.0, 1.0, 15)[:40]
    'no spread: every resample gave the same '
    >>> interval_caveat(0.8, 0.9, 3000)
    ''
    """
    return "; ".join(p for p in (spread_caveat(low, high), size_caveat(n)) if p)


def spread_caveat(low: float, high: float) -> str:
    """Both ends equal: every resample gave the same value (15 correct predictions out
    of 15 give accuracy 1 in every resample), so the interval shows no uncertainty
    although there is some.

    Examples
    --------
    >>> spread_caveat(0.2, 0.3)
    ''
    """
    return NO_SPREAD if math.isfinite(low) and low == high else ""


#: What :func:`spread_caveat` says of an interval whose ends are equal.
NO_SPREAD = ("no spread: every resample gave the same value, so the interval does not show "
             "the uncertainty")


#: The smallest group of the coverage study: below it, no interval's coverage is known.
STUDY_MIN_ROWS = min(STUDY["sizes"])


def study_sizes() -> str:
    """The group sizes of the coverage study, as printed (``"300 and 3,000"``).

    Examples
    --------
    >>> study_sizes()
    '300 and 3,000'
    """
    return " and ".join(f"{k:,}" for k in sorted(STUDY["sizes"]))


def size_caveat(n: float) -> str:
    """The coverage printed beside an interval was measured on groups of the coverage
    study's sizes; below the smallest it is not known.

    Examples
    --------
    >>> size_caveat(15)
    'coverage not measured below 300 rows (this group: 15)'
    """
    if math.isfinite(n) and n < STUDY_MIN_ROWS:
        return f"coverage not measured below {STUDY_MIN_ROWS:,} rows (this group: {n:,.0f})"
    return ""


def method_text(method: str) -> str:
    """How the interval reads, e.g. ``"one-sided upper bound"``."""
    if method.endswith(LINEARIZED_MARK):
        return f"{method_text(base_method(method))} of linearized (first-order) replicates"
    return {"upper": "one-sided upper bound", "lower": "one-sided lower bound",
            "analytic": "normal (analytic)"}.get(method, f"{method} bootstrap")


def coverage_text(metric: str, method: str) -> str:
    """The measured coverage, as printed beside the interval in every output.

    Examples
    --------
    >>> coverage_text("accuracy", "percentile").startswith("measured 9")
    True
    >>> coverage_text("accuracy", "no such method")
    'coverage not measured'
    """
    c = coverage(metric, method)
    if not c.measured:
        return "coverage not measured"
    lo, hi = math.floor(100 * c.low), math.ceil(100 * c.high)
    span = f"{lo} %" if lo == hi else f"{lo}-{hi} %"
    if c.meets_target:
        return f"measured {span}"
    target = "at least 92 %" if base_method(method) in ONE_SIDED else "92-98 %"
    return f"BELOW NOMINAL: measured {span} (target {target})"
