"""Seeded frames split at random points, and the law that checks the out-of-core paths.

Shared by the property test (``tests/test_partition_invariance.py``) and the long
campaign (``benchmarks/fuzz_partitions.py``).  :func:`make_case` draws one small
frame from a seed: binary or 3-4 classes, probabilities with ties and boundary
values, no weights or importance weights (zeros, one common scale from 1e-300 to
1e300, rarely a mix of scales within the frame) or frequency weights (small counts
with zeros, rarely counts above 2^62), a group key whose groups may sit in one part
only or hold only zero weights, and cut points that leave parts empty or all of
zero weight.  :func:`run_case` computes the pandas summary and, from the parts, the
Dask, Polars and Accumulator summaries (the Accumulator fed batch by batch, and as
a sum of one accumulator per part) and classifies each as

- ``correct``: the pandas answer (every exact metric to 1e-10 relative, 1e-12
  absolute, or within the float64 rounding of a difference of nearly equal numbers:
  :func:`tolerance`; the row count ``n`` equal);
- ``same error``: pandas raises, and the path raises the same exception type;
- ``unexpected``: anything else, with a short root cause.
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

import calreport  # registers the accessors
from calreport.registry import REGISTRY
from calreport.stats.scaling import scaling_of

#: Metrics finished from exact sums out of core: they must equal pandas.
EXACT = tuple(m for m in REGISTRY if scaling_of(m).kind == "exact")
RTOL, ATOL = 1e-10, 1e-12
PATHS = ("dask", "polars", "accumulator", "accumulator_sum")
#: Metrics exact on some paths only (by a second pass over the rows).
SECOND_PASS = {"dask": ("debiased_ece",), "polars": ("debiased_ece",)}
#: Fine score bins out of core: AUC and AURC (bounded, not exact) read them; few bins
#: keep the states small and the campaign fast.
SCORE_BINS = 256
#: Common scales of importance weights (pandas divides by the maximum: any works).
SCALES = (1.0, 1e-300, 1e300, 2.0 ** -1000, 1e-150, 1e150, 3e-17, 7e22)


@dataclass
class Case:
    """A frame, its column roles, the group key (or None) and the cut points."""

    seed: int
    frame: pd.DataFrame
    roles: dict[str, Any]
    by: str | None
    cuts: list[int]
    weights: str = "importance"

    @property
    def parts(self) -> list[pd.DataFrame]:
        edges = [0, *self.cuts, len(self.frame)]
        return [self.frame.iloc[a:b] for a, b in itertools.pairwise(edges)]


def _weights(rng: np.random.Generator, n: int, scale: float | None
             ) -> tuple[np.ndarray | None, str]:
    kind = rng.choice(["none", "importance", "importance", "frequency"])
    if kind == "none":
        return None, "importance"
    if kind == "frequency":
        w = rng.integers(0, 4, n).astype(np.float64)
        if rng.random() < 0.05:
            w[rng.integers(n)] = 2.0 ** 63
        return w, "frequency"
    w = np.exp(rng.uniform(np.log(1e-3), np.log(1e3), n))
    w[rng.random(n) < rng.choice([0.0, 0.3, 0.6])] = 0.0
    if rng.random() < 0.05:  # a wider range within the frame (up to 1e8 in all)
        w *= rng.choice([1.0, 1e2], n)
    else:
        w *= float(rng.choice(SCALES)) if scale is None else scale
    return w, "importance"


def _probabilities(rng: np.random.Generator, n: int, k: int) -> np.ndarray:
    p = rng.dirichlet(np.full(k, rng.choice([0.3, 1.0, 5.0])), n)
    if rng.random() < 0.3:  # coarse values: ties, bin edges, 0 and 1
        p = np.round(p * 4) / 4
        p[p.sum(axis=1) == 0, 0] = 1.0
        p /= p.sum(axis=1, keepdims=True)
    return p


def make_case(seed: int, cuts: list[int] | None = None, scale: float | None = None
              ) -> Case:
    """One frame from ``seed`` (reproducible), with its cut points (``cuts``, clipped
    to the frame, replace the drawn ones; ``scale`` the drawn common weight scale)."""
    rng = np.random.default_rng(seed)
    n = int(rng.integers(1, 13))
    k = int(rng.choice([2, 2, 3, 4]))
    p = _probabilities(rng, n, k)
    y = rng.integers(0, k, n)
    data: dict[str, Any] = {"y": y}
    if k == 2:
        data["p"] = p[:, 1]
        roles: dict[str, Any] = {"y": "y", "proba": "p"}
        if np.unique(y).size < 2:
            roles["pos_label"] = 1
    else:
        names = [f"p{j}" for j in range(k)]
        data.update({c: p[:, j] for j, c in enumerate(names)})
        roles = {"y": "y", "proba": names, "classes": list(range(k))}
    w, kind = _weights(rng, n, scale)
    if w is not None:
        data["w"] = w
        roles["weight"] = "w"
    by = None
    if rng.random() < 0.4:
        data["g"] = rng.choice(["a", "b", "c"], n)
        by = "g"
    frame = pd.DataFrame(data)
    drawn = rng.integers(0, n + 1, int(rng.integers(0, 4)))
    cuts = sorted(min(int(c), n) for c in (drawn if cuts is None else cuts))
    return Case(seed, frame, roles, by, cuts, kind)


# ------------------------------------------------------------------------ paths
def pandas_summary(case: Case) -> pd.DataFrame:
    """The pandas answer, one row per group (one row ``()`` ungrouped)."""
    kw = {**case.roles, "weights": case.weights}
    if case.by is None:
        return case.frame.calib(**kw).summary().to_frame().T
    return case.frame.groupby(case.by).calib(**kw).summary()


def _as_rows(out: Any) -> pd.DataFrame:
    return out.to_frame().T if isinstance(out, pd.Series) else out


def dask_summary(case: Case) -> pd.DataFrame:
    import dask
    import dask.dataframe as dd

    parts = case.parts
    ddf = dd.from_map(lambda i: parts[i], range(len(parts)), meta=case.frame.iloc[:0],
                      enforce_metadata=False)
    with dask.config.set(scheduler="sync"):
        obj = ddf.groupby(case.by) if case.by else ddf
        return _as_rows(obj.calib(**case.roles).summary(weights=case.weights,
                                                     score_bins=SCORE_BINS,
                                                     exact_debiased=True))


def polars_summary(case: Case) -> pd.DataFrame:
    import polars as pl

    frames = [pl.from_pandas(p) for p in case.parts if len(p)]
    df = pl.concat(frames, rechunk=False) if frames else pl.from_pandas(case.frame.iloc[:0])
    out = df.calib(**case.roles).summary(by=case.by, weights=case.weights,
                                         score_bins=SCORE_BINS,
                                         exact_debiased=True).to_pandas()
    return out.set_index(case.by) if case.by else out


def _accumulator(case: Case) -> Any:
    return calreport.Accumulator(**case.roles, by=case.by, weights=case.weights,
                                 score_bins=SCORE_BINS)


def accumulator_summary(case: Case) -> pd.DataFrame:
    acc = _accumulator(case)
    for part in case.parts:
        acc.update(part)
    return _as_rows(acc.summary())


def accumulator_sum_summary(case: Case) -> pd.DataFrame:
    """One accumulator per part, added with ``+`` (states with different scales meet)."""
    total = None
    for part in case.parts:
        acc = _accumulator(case)
        acc.update(part)
        total = acc if total is None else total + acc
    return _as_rows(total.summary())


RUNNERS = {"dask": dask_summary, "polars": polars_summary,
           "accumulator": accumulator_summary, "accumulator_sum": accumulator_sum_summary}


# ------------------------------------------------------------------ the law
def tolerance(metric: str, row: pd.Series) -> float:
    """Absolute tolerance of ``metric``: 1e-12, or more where the value is a difference
    of nearly equal numbers divided by a small one, so that the float64 rounding of
    its parts (a few ulps whatever the path) is amplified by the condition number."""
    eps = 8 * np.finfo(np.float64).eps
    if metric == "gain":  # (cwA - accuracy) / (1 - accuracy)
        return max(ATOL, eps / abs(1.0 - row.get("accuracy", 0.0)))
    if metric == "z_csr":  # (CSR - 1) / sigma_CSR
        return max(ATOL, eps * (1.0 + abs(row.get("csr", 0.0))) / abs(row.get("sigma_csr", 1.0)))
    return ATOL


def compare(want: pd.DataFrame, got: pd.DataFrame, extra: tuple[str, ...] = ()
            ) -> str | None:
    """None when ``got`` is the pandas answer, else what differs (``extra``: metrics
    exact on this path besides the registry's exact ones)."""
    if len(want) != len(got):
        return f"{len(got)} result rows, pandas {len(want)}"
    if want.index.name is None:  # ungrouped: one row, whatever its label
        want, got = want.reset_index(drop=True), got.reset_index(drop=True)
    else:
        want, got = want.sort_index(), got.sort_index()
        if [str(k) for k in want.index] != [str(k) for k in got.index]:
            return f"group keys {list(got.index)}, pandas {list(want.index)}"
    for metric in ("n", *EXACT, *extra):
        if metric not in want.columns or metric not in got.columns:
            continue
        for i, (a, b) in enumerate(zip(want[metric].to_numpy(float),
                                       got[metric].to_numpy(float), strict=True)):
            if math.isnan(a) and math.isnan(b):
                continue
            tol = tolerance(metric, want.iloc[i])
            if math.isnan(a) != math.isnan(b) or not math.isclose(a, b, rel_tol=RTOL,
                                                                  abs_tol=tol):
                return f"{metric} = {b!r}, pandas {a!r}"
    return None


def _error(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:90] if str(exc) else ''}"


def run_case(case: Case, paths: tuple[str, ...] = PATHS) -> dict[str, tuple[str, str]]:
    """``{path: (kind, detail)}``, ``kind`` one of correct / same error / unexpected."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            want, want_exc = pandas_summary(case), None
        except Exception as exc:  # the pandas error is the answer
            want, want_exc = None, exc
        out = {}
        for path in paths:
            try:
                got, exc = RUNNERS[path](case), None
            except Exception as e:  # classified below
                got, exc = None, e
            if want_exc is not None:
                if exc is not None and type(exc) is type(want_exc):
                    out[path] = ("same error", _error(exc))
                elif exc is not None:
                    out[path] = ("unexpected", f"{_error(exc)} (pandas {_error(want_exc)})")
                else:
                    out[path] = ("unexpected", f"answers where pandas raises "
                                               f"{_error(want_exc)}")
            elif exc is not None:
                out[path] = ("unexpected", f"raises {_error(exc)}")
            else:
                diff = compare(want, got, SECOND_PASS.get(path, ()))
                out[path] = ("correct", "") if diff is None else ("unexpected", diff)
        return out
