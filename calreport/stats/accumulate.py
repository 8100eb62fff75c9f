"""The sums a state holds, computed from the rows of a profile.

:func:`accumulate` gives, per group, the integer counts and the exact fixed-point
sums (:mod:`calreport.stats._exact`) of the per-row columns of
:func:`calreport._finishers.row_columns` and of the bins, thresholds, score bins,
confusion cells and risk terms that :class:`~calreport.stats.StatsState` merges.
"""

from __future__ import annotations

import functools
import operator
from typing import Any

import numpy as np

from calreport._finishers import COLUMNS, SIGNED, row_columns
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings
from calreport.stats._exact import FRAC_BITS, FixedSum, exact_bincount
from calreport.stats.config import (
    BIN_SUMS,
    CLASSWISE_SUMS,
    VIEWS,
    Schema,
    StatsConfig,
)
from calreport.stats.sparse import SparseSums, occupied

__all__ = ["accumulate", "scalar_terms"]


def accumulate(p: ConfidenceProfile, cfg: StatsConfig, schema: Schema, codes: np.ndarray,
                g: int) -> tuple[dict[str, np.ndarray], dict[str, FixedSum | SparseSums],
                                 dict[str, np.ndarray]]:
    c = p.conf
    ok = p.correct.astype(np.float64)
    w = p.sample_weight
    wt = (lambda x: x) if w is None else (lambda x: w * x)

    def total(values: np.ndarray | None, index: np.ndarray = codes, size: int = g) -> FixedSum:
        """Exact sums of ``w * values`` on the real grid (``values=None``: of ``w``)."""
        if values is None:
            return (exact_bincount(index, None, size, FRAC_BITS) if w is None
                    else exact_bincount(index, w, size))
        return exact_bincount(index, wt(values), size)

    def tally(index: np.ndarray, rows: np.ndarray | None, size: int) -> FixedSum:
        """Row counts (unweighted) or weight sums of the selected rows."""
        sel = slice(None) if rows is None else rows
        if w is None:
            return exact_bincount(index[sel], None, size, 0)
        return exact_bincount(index[sel], w[sel], size)

    cc = np.clip(c, cfg.eps, 1.0 - cfg.eps)
    counts = {
        "n": np.bincount(codes, minlength=g).astype(np.int64),
        "n_positive_weight": np.bincount(codes, minlength=g).astype(np.int64) if w is None
        else np.bincount(codes[w > 0], minlength=g).astype(np.int64),
        "n_clipped": np.bincount(codes[cc != c], minlength=g).astype(np.int64),
        "n_one": np.bincount(codes[c == 1.0], minlength=g).astype(np.int64),
    }
    zeros = np.zeros_like(c)
    sums: dict[str, FixedSum | SparseSums] = {"scalar": _stack(
        [total(values) for values in scalar_terms(p, cfg)], (g,))}

    # calibration bins, both views (the positive view only for binary input)
    nb = cfg.n_bins
    inner = np.arange(1, nb, dtype=np.float64) / nb
    view_parts: list[FixedSum] = []
    bin_counts = np.zeros((g, 2, nb), dtype=np.int64)
    for vi, view in enumerate(VIEWS):
        if view == "positive" and (p.score is None or p.y_true is None):
            s, y = zeros, zeros
            idx = np.zeros(p.n, dtype=np.intp)
            skip = True
        else:
            s, y = p.view(view)
            idx = np.searchsorted(inner, s, side="left")
            skip = False
        cell = codes * nb + idx
        if skip:
            parts = [FixedSum.zeros((g * nb,), FRAC_BITS)] * len(BIN_SUMS)
        else:
            parts = [total(None, cell, g * nb),
                     total(None, cell, g * nb) if w is None
                     else exact_bincount(cell, w * w, g * nb),
                     total(s, cell, g * nb), total(y, cell, g * nb),
                     total(s * s, cell, g * nb), total(s * y, cell, g * nb)]
            pw = cell if w is None else cell[w > 0]
            bin_counts[:, vi, :] = np.bincount(pw, minlength=g * nb).reshape(g, nb)
        view_parts.append(_stack(parts, (g, nb)))
    sums["bins"] = _stack_axis(view_parts, 1)
    counts["bin_count"] = bin_counts

    # selective thresholds: sums over tau_j <= c < tau_{j+1}, suffix-summed at finish
    taus = np.asarray(cfg.taus)
    t = len(taus)
    cell = codes * t + (np.searchsorted(taus, c, side="right") - 1)
    sums["tau"] = _stack([total(None, cell, g * t), total(ok, cell, g * t),
                          total(c, cell, g * t), total(c * ok, cell, g * t)], (g, t))

    # fine confidence bins for AURC (counts when unweighted, weight sums otherwise),
    # per group only the bins its rows occupy
    b = cfg.score_bins
    fine = np.minimum((c * b).astype(np.intp), b - 1)
    ptr, index, slot = occupied(codes * b + fine, g, b)
    size = index.size
    sums["aurc_w"] = SparseSums(ptr, index, _stack(
        [tally(slot, None, size), tally(slot, ~p.correct, size)], (size,)), (b,))

    # fine score bins for AUC / cwAUC (one row per class; binary: the positive class)
    r = schema.auc_rows
    if r:
        if p.score is not None:
            scores = p.score[np.newaxis, :]
            pos = (p.y_true == 1)[np.newaxis, :]
        else:
            scores = p.proba.T
            pos = p.y_true[np.newaxis, :] == np.arange(r)[:, np.newaxis]
        fine = np.minimum((scores * b).astype(np.intp), b - 1)
        ptr, index, slot = occupied(codes[np.newaxis, :] * (r * b)
                                    + np.arange(r)[:, np.newaxis] * b + fine, g, r * b)
        cell = (slot * 2 + (~pos)).ravel()  # last axis: 0 = positive, 1 = negative
        size = index.size * 2
        rows = np.broadcast_to(np.arange(p.n), pos.shape).ravel()
        wc = c if w is None else w * c
        if w is None:
            auc_w = exact_bincount(cell, None, size, 0)
        else:
            auc_w = exact_bincount(cell, w[rows], size)
        sums["auc_w"] = SparseSums(ptr, index, auc_w.reshape((index.size, 2)), (r, b))
        sums["auc_wc"] = SparseSums(ptr, index, exact_bincount(cell, wc[rows], size)
                                    .reshape((index.size, 2)), (r, b))

    if r:
        sums["classwise"] = _classwise(p, codes, g, nb, total)

    # confusion matrices: weight and confidence-weight per (true, predicted)
    k = schema.n_classes
    if p.has_labels and k:
        cell = (codes * k + p.y_true) * k + p.y_pred
        sums["confusion"] = _stack([total(None, cell, g * k * k), total(c, cell, g * k * k)],
                                   (g, k, k))
    risk_sums, risk_float = _risk_parts(p, cfg, codes, g)
    sums["risk"] = risk_sums
    return counts, sums, {"risk": risk_float}


def scalar_terms(p: ConfidenceProfile, cfg: StatsConfig) -> list[np.ndarray | None]:
    """Per-row terms ``t`` of the scalar sums ``Σ w t``, in :data:`SCALARS` order: the
    columns of :func:`calreport._finishers.row_columns` (zeros for a column the data
    cannot give; a signed column's positive and negative parts), then the weight
    itself for ``"w2"``; ``None`` is the term 1.

    The state's sums and its Poisson replicates (:mod:`calreport.stats.poisson`) both
    take their terms from here.  With sample weights the columns are those of the
    state's weight kind (``cfg.weights``).
    """
    w = p.sample_weight
    if w is not None and p.weights != cfg.weights:
        p = p.replace(weights=cfg.weights)
    rc = row_columns(p, Settings(eps=cfg.eps, tau=cfg.tau))
    zeros = np.zeros(p.n)
    terms: list[np.ndarray | None] = []
    for name in COLUMNS:
        t = None if name == "one" else rc.get(name, zeros)
        if name in SIGNED:
            terms += [np.maximum(t, 0.0), np.maximum(-t, 0.0)]
            continue
        if t is not None and t.size and float(t.min()) < 0.0:
            raise ValueError(
                f"The per-row column {name!r} has negative terms (first at row "
                f"{int(np.argmax(t < 0.0))}), which exact sums cannot hold: declare it in "
                "calreport._finishers.SIGNED, so the state sums its two parts.")
        terms.append(t)
    return [*terms, w]


def _classwise(p: ConfidenceProfile, codes: np.ndarray, g: int, nb: int, total: Any
               ) -> FixedSum:
    """Exact sums of :data:`CLASSWISE_SUMS` per (group, class, uniform bin), binned as
    :func:`calreport.metrics.classwise.classwise_calibration_errors` bins."""
    proba = p.proba_or_score
    k = 2 if proba.ndim == 1 else proba.shape[1]
    inner = np.arange(1, nb, dtype=np.float64) / nb
    size = g * k * nb
    w = p.sample_weight
    score_parts, outcome_parts = [], []
    for j in range(k):  # a column at a time: no (N, K) temporaries
        col = proba[:, j] if proba.ndim == 2 else (proba if j else 1.0 - proba)
        cell = (codes * k + j) * nb + np.searchsorted(inner, col, side="left")
        score_parts.append(total(col, cell, size))
        hit = p.y_true == j
        outcome_parts.append(exact_bincount(cell[hit], None if w is None else w[hit], size,
                                            FRAC_BITS))
    score = functools.reduce(operator.add, score_parts)
    outcome = functools.reduce(operator.add, outcome_parts)
    parts = {"w_p": score, "w_y": outcome}
    return _stack([parts[name] for name in CLASSWISE_SUMS], (g, k, nb))


def _risk_parts(p: ConfidenceProfile, cfg: StatsConfig, codes: np.ndarray, g: int
                ) -> tuple[FixedSum, dict[str, np.ndarray]]:
    """Exact sums of :data:`RISK_SUMS` (the verdict in sum form)."""
    raw = p.conf
    w = np.ones(p.n) if p.sample_weight is None else p.sample_weight
    keep = w > 0
    c = np.clip(raw, cfg.eps, 1.0 - cfg.eps)
    q = 1.0 - c
    if cfg.weights == "frequency":
        k, a = np.where(keep, w, 0.0), 1.0 / q
    else:
        k, a = keep.astype(np.float64), w / q
    ka = k * a
    k3 = ka * a * a * q * c * (1.0 - 2.0 * q)
    p1 = np.minimum(2.0 * q, 1.0)
    s, y = p.view(None)  # Spiegelhalter's Z on the default view (no clipping)
    sp = w * (y - s) * (1.0 - 2.0 * s)
    # its variance: w v for counts, w^2 v for importance weights (scale-free Z)
    wv = w if cfg.weights == "frequency" else w * w
    cols = [np.maximum(sp, 0.0), np.maximum(-sp, 0.0), wv * (1.0 - 2.0 * s) ** 2 * s * (1.0 - s)]
    parts = [exact_bincount(codes, x, g) for x in cols]
    is_cert = (raw >= 1.0 - cfg.eps) & keep
    mean1, var1 = ka * p1, ka * a * p1 * (1.0 - p1)
    rest = ~is_cert
    flo = [np.bincount(codes, weights=x, minlength=g) for x in (k3, mean1, var1)]
    if is_cert.any():
        flo += [np.bincount(codes[rest], weights=x[rest], minlength=g)
                for x in (k3, mean1, var1)]
    else:
        flo += [x.copy() for x in flo]
    fsum = np.stack(flo, axis=1)
    cert = np.flatnonzero(is_cert)  # certainty claims: few rows
    cc, wc, qc = codes[cert], w[cert], q[cert]
    wrong = (~p.correct[cert]).astype(np.float64)
    odds = c[cert] / qc
    # the same float expressions as the all-rows sums of _accumulate, so that the
    # rows below certainty are the exact difference
    s_obs = wrong / qc if p.sample_weight is None else wc * (wrong / qc)
    if cfg.weights == "frequency" or p.sample_weight is None:
        var = odds if p.sample_weight is None else wc * odds
    else:
        var = wc * wc * odds
    cert_cols = [wc, wc * wc, wc * wrong, np.ones(cert.size), wrong, s_obs, var]
    parts += [exact_bincount(cc, x, g) for x in cert_cols]
    return _stack(parts, (g,)), fsum


def _stack(parts: list[FixedSum], shape: tuple[int, ...]) -> FixedSum:
    """Stack same-grid sums along a new last axis (padding limbs to a common count)."""
    assert len({s.frac_bits for s in parts}) == 1
    n = max(s.limbs.shape[-1] for s in parts)
    limbs = [np.concatenate([s.limbs, np.zeros((*s.shape, n - s.limbs.shape[-1]), np.int64)],
                            axis=-1) for s in parts]
    arr = np.stack(limbs, axis=-2).reshape(*shape, len(parts), n)
    return FixedSum(arr, parts[0].frac_bits)


def _stack_axis(parts: list[FixedSum], axis: int) -> FixedSum:
    n = max(s.limbs.shape[-1] for s in parts)
    limbs = [np.concatenate([s.limbs, np.zeros((*s.shape, n - s.limbs.shape[-1]), np.int64)],
                            axis=-1) for s in parts]
    return FixedSum(np.stack(limbs, axis=axis), parts[0].frac_bits)
