"""A fixed-size uniform sample per group, mergeable and independent of the partitioning.

The metrics that refit a curve to the rows (LOWESS/LCS/ICI, TCE_bpm, smooth ECE,
ECI, CORP's isotonic fit, the equal-mass debiased ECE) have no exact mergeable form
here; out of core they are computed, by the same code as the pandas accessor, on a
sample of ``sample_size`` rows per group.  (The debiased ECE is exact by a second
pass on Dask and Polars, :func:`calreport.stats.quantile.debiased_ece`; the
class-wise ECE is exact from the state's sums.)

The sample is a *bottom-k* sample (Cohen & Kaplan 2007): every row gets a priority
``u`` uniform on [0, 1) and each group keeps its ``k`` rows of smallest priority,
which is a simple random sample without replacement of the group (stratified by
group: every group gets its own ``k`` rows, or all of them when it has fewer).
Merging two samples keeps the ``k`` smallest priorities of their union, so the
merged sample equals the sample of the merged data.  The priority of a row comes
from a counter-based generator (Philox) keyed by the master seed and the group key,
at the row's rank within its group, as for the Poisson bootstrap: the sample does
not depend on how the data were split into partitions or batches.  A group with at
most ``k`` rows is kept whole, and its sampled metrics equal the pandas ones.

References
----------
Cohen, E. & Kaplan, H. (2007). Summarizing Data using Bottom-k Sketches. Proceedings
of the 26th ACM Symposium on Principles of Distributed Computing (PODC), 225-234.
doi:10.1145/1281100.1281133.

Salmon, J. K., Moraes, M. A., Dror, R. O. & Shaw, D. E. (2011). Parallel Random
Numbers: As Easy as 1, 2, 3. Proceedings of the International Conference for High
Performance Computing, Networking, Storage and Analysis (SC11). doi:10.1145/2063384.2063405.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.profile import ConfidenceProfile
from calreport.stats.config import key_seed

__all__ = ["DEFAULT_SAMPLE_SIZE", "FINE", "draw", "heavy_rows", "merge", "profile_of",
           "top_errors", "uniforms"]

#: Rows per group of the default sample (LOWESS of 20,000 rows: about 0.2 s).
DEFAULT_SAMPLE_SIZE = 20_000
_FIELDS = ("conf", "correct", "y_true", "y_pred", "proba", "score", "sample_weight")


def uniforms(key: int, start: int, n: int) -> np.ndarray:
    """Uniforms on [0, 1) at positions ``start .. start + n - 1`` of the stream ``key``.

    Examples
    --------
    >>> a = uniforms(3, 0, 8)
    >>> bool((uniforms(3, 5, 3) == a[5:]).all()), bool(((0 <= a) & (a < 1)).all())
    (True, True)
    """
    counter, skip = divmod(int(start), 4)
    gen = np.random.Philox(key=int(key), counter=counter)
    raw = gen.random_raw(skip + n)[skip:]
    return (raw >> np.uint64(11)).astype(np.float64) * 2.0**-53


def draw(profile: ConfidenceProfile, cfg: Any, codes: np.ndarray, keys: list[Any],
         offsets: dict[Any, int]) -> dict[Any, dict[str, np.ndarray]]:
    """The bottom-``cfg.sample_size`` sample of every group of a profile."""

    k = int(cfg.sample_size)
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(len(keys) + 1))
    out: dict[Any, dict[str, np.ndarray]] = {}
    for gi, key in enumerate(keys):  # loop over groups, not rows
        rows = order[bounds[gi]:bounds[gi + 1]]
        if not rows.size:
            continue
        u = uniforms(key_seed(cfg.seed, ("sample", key)), int(offsets.get(key, 0)), rows.size)
        if rows.size > k:
            pick = np.argpartition(u, k - 1)[:k]
            rows, u = rows[pick], u[pick]
        out[key] = _arrays(profile, rows, u)
    return out


def _arrays(p: ConfidenceProfile, rows: np.ndarray, u: np.ndarray) -> dict[str, np.ndarray]:
    out = {"u": u}
    for name in _FIELDS:
        a = getattr(p, name)
        if a is not None:
            out[name] = np.asarray(a)[rows]
    return out


def merge(a: dict[Any, dict[str, np.ndarray]], b: dict[Any, dict[str, np.ndarray]],
          k: int) -> dict[Any, dict[str, np.ndarray]]:
    """The bottom-``k`` sample of the union of two samples (per group)."""
    out = dict(a)
    for key, sb in b.items():
        sa = out.get(key)
        if sa is None:
            out[key] = sb
            continue
        both = {f: np.concatenate([sa[f], sb[f]]) for f in sa}
        if both["u"].size > k:
            # ties of u broken by the confidence: the kept values do not depend on the
            # order in which partial samples are merged
            pick = np.lexsort((both["conf"], both["u"]))[:k]
            both = {f: x[pick] for f, x in both.items()}
        out[key] = both
    return out


def profile_of(sample: dict[str, np.ndarray], classes: Any, weights: str
               ) -> ConfidenceProfile:
    """A :class:`ConfidenceProfile` of a group's sample, in priority order."""
    order = np.argsort(sample["u"], kind="stable")
    kw = {f: sample[f][order] for f in _FIELDS if f in sample}
    return ConfidenceProfile(classes=None if classes is None else np.asarray(classes),
                             weights=weights, **kw)


def top_errors(profile: ConfidenceProfile, cfg: Any, codes: np.ndarray, keys: list[Any],
               row_labels: np.ndarray | None) -> dict[Any, dict[str, np.ndarray]]:
    """The ``cfg.top_errors`` wrong predictions of largest CSR term per group (exact).

    A wrong row adds ``w / (1 - c)`` to the CSR numerator (``c`` clipped to
    ``[eps, 1 - eps]``); its priority ``u`` is minus that size, so :func:`merge`
    keeps the largest terms of the union (ties broken by the confidence).
    """
    k = int(cfg.top_errors)
    w = np.ones(profile.n) if profile.sample_weight is None else profile.sample_weight
    c = np.clip(profile.conf, cfg.eps, 1.0 - cfg.eps)
    size = np.where(~profile.correct & (w > 0), w / (1.0 - c), 0.0)
    out: dict[Any, dict[str, np.ndarray]] = {}
    wrong = np.flatnonzero(size > 0)
    g = codes[wrong]
    order = np.argsort(g, kind="stable")
    bounds = np.searchsorted(g[order], np.arange(len(keys) + 1))
    for gi, key in enumerate(keys):
        rows = wrong[order[bounds[gi]:bounds[gi + 1]]]
        if not rows.size:
            continue
        u = -size[rows]
        if rows.size > k:
            pick = np.argpartition(u, k - 1)[:k]
            rows, u = rows[pick], u[pick]
        arrays = _arrays(profile, rows, u)
        arrays["size"] = size[rows]
        arrays["row"] = (np.asarray([str(r) for r in np.asarray(row_labels)[rows]],
                                    dtype=object) if row_labels is not None
                         else np.full(rows.size, "", dtype=object))
        out[key] = arrays
    return out


#: Fine confidence bins of the tie-group certificate of the lattice check.
FINE = 1 << 12


def heavy_rows(profile: ConfidenceProfile, cfg: Any, codes: np.ndarray, keys: list[Any],
               offsets: dict[Any, int] | None = None
               ) -> tuple[dict[Any, dict[str, np.ndarray]], dict[str, np.ndarray]]:
    """Rows of largest unit null variance per group, and fine-bin null variances.

    Returns ``{(key, "all"|"rest"): arrays}`` with the ``cfg.heavy_rows`` rows of
    largest ``a^2 p c`` (priority ``u`` = minus it) among all rows with positive
    weight and among those below certainty, and ``{"all"|"rest": (G, FINE)}`` sums of
    ``k a^2 p c`` per fine confidence bin (float64; only compared with a threshold).
    Each kept row carries its ``rank`` within its group (``offsets`` = rows of the
    group seen before), so the Monte Carlo draws follow the rows' order in the data.
    """
    kh = int(cfg.heavy_rows)
    raw = profile.conf
    w = np.ones(profile.n) if profile.sample_weight is None else profile.sample_weight
    c = np.clip(raw, cfg.eps, 1.0 - cfg.eps)
    q = 1.0 - c
    if cfg.weights == "frequency":
        k, a = w, 1.0 / q
    else:
        k, a = np.ones(profile.n), w / q
    uv = a * a * q * c
    keep = w > 0
    cert = raw >= 1.0 - cfg.eps
    g = len(keys)
    fine = codes * FINE + np.minimum((c * FINE).astype(np.intp), FINE - 1)
    kuv = np.where(keep, k * uv, 0.0)
    fsums = {"all": np.bincount(fine, weights=kuv, minlength=g * FINE).reshape(g, FINE)}
    fsums["rest"] = fsums["all"].copy()
    if cert.any():
        fsums["rest"] -= np.bincount(fine[cert], weights=kuv[cert],
                                     minlength=g * FINE).reshape(g, FINE)
    out: dict[Any, dict[str, np.ndarray]] = {}
    for _, key, rows in _group_rows(codes, keys):
        first = int((offsets or {}).get(key, 0))
        rank = first + np.arange(rows.size, dtype=np.int64)
        ok = keep[rows]
        sel_all = _heaviest(uv[rows], ok, kh)
        out[(key, "all")] = _heavy_arrays(profile, rows, sel_all, uv, c, raw, a, k, w, rank)
        rest = ok & ~cert[rows]
        if rest.sum() == ok.sum():  # no certainty claim in this group: the same rows
            out[(key, "rest")] = out[(key, "all")]
        else:
            sel = _heaviest(uv[rows], rest, kh)
            out[(key, "rest")] = _heavy_arrays(profile, rows, sel, uv, c, raw, a, k, w, rank)
        if not out[(key, "all")]["u"].size:
            del out[(key, "all")]
        if not out[(key, "rest")]["u"].size:
            del out[(key, "rest")]
    return out, fsums


def _group_rows(codes: np.ndarray, keys: list[Any]) -> Any:
    """(index, key, row positions in order) of every group with rows."""
    g = len(keys)
    if g <= 32:  # a pass per group beats a sort for few groups
        for gi, key in enumerate(keys):
            rows = np.flatnonzero(codes == gi)
            if rows.size:
                yield gi, key, rows
        return
    order = np.argsort(codes, kind="stable")
    bounds = np.searchsorted(codes[order], np.arange(g + 1))
    for gi, key in enumerate(keys):
        rows = order[bounds[gi]:bounds[gi + 1]]
        if rows.size:
            yield gi, key, rows


def _heaviest(uv: np.ndarray, mask: np.ndarray, kh: int) -> np.ndarray:
    """Positions (within the group) of the ``kh`` largest ``uv`` among ``mask``."""
    cand = np.flatnonzero(mask)
    if cand.size > kh:
        cand = cand[np.argpartition(-uv[cand], kh - 1)[:kh]]
    return cand


def _heavy_arrays(p: ConfidenceProfile, rows: np.ndarray, sel: np.ndarray, uv: np.ndarray,
                  c: np.ndarray, raw: np.ndarray, a: np.ndarray, k: np.ndarray, w: np.ndarray,
                  rank: np.ndarray) -> dict[str, np.ndarray]:
    r = rows[sel]
    return {"u": -uv[r], "conf": c[r], "raw": raw[r], "wrong": ~p.correct[r], "atom": a[r],
            "k": k[r], "w": w[r], "rank": rank[sel]}
