"""Numerical kernels of the binomial-process curve fit of :mod:`calreport.metrics.bpm`.

The bin statistics of the equal-mass binnings, the design of the curve's logit and
the damped Newton steps of the maximum-likelihood fit (Dong, Jiang, Pan and Yu 2025,
AAAI, arXiv:2412.10658, section 3.1, Eqs. 8-9).
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import special

from calreport import _validate as v
from calreport._labels import binary_outcome
from calreport.metrics._chunks import row_slices
from calreport.metrics._units import unit_prefix

#: Bin mean confidences are clipped to ``[CLIP, 1 - CLIP]`` before taking logarithms
#: in the fit (as the authors' code does); crossings of ``g`` with the diagonal are
#: searched in that range.
CLIP = 1e-10


def _bin_statistics(s: np.ndarray, hit: np.ndarray, ks: tuple[int, ...],
                    units: np.ndarray | None = None
                    ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean confidence, hit count and size of every bin of every binning (sorted input).

    ``units``: the cumulative frequency weights of the rows; the binnings then cut
    the repeated rows (:mod:`calreport.metrics._units`).
    """
    n = s.shape[0] if units is None else int(units[-1])
    total = int(sum(ks))
    means, hits, sizes = np.empty(total), np.empty(total), np.empty(total)
    at = 0
    for k in ks:  # a handful of binnings; each is one vectorised reduction, in place
        edges = (np.arange(k + 1, dtype=np.int64) * n) // k
        part = slice(at, at + k)
        np.subtract(edges[1:], edges[:-1], out=sizes[part], casting="unsafe")
        if units is None:
            np.divide(np.add.reduceat(s, edges[:-1]), sizes[part], out=means[part])
            hits[part] = np.add.reduceat(hit, edges[:-1])
        else:
            np.divide(np.diff(unit_prefix(s, units, edges)), sizes[part], out=means[part])
            hits[part] = np.diff(unit_prefix(hit, units, edges))
        at += k
    return means, hits, sizes


def _design(s: np.ndarray) -> np.ndarray:
    """Columns ``(ln s, -ln(1 - s), 1)`` of the curve's logit, ``s`` clipped."""
    s = np.clip(s, CLIP, 1.0 - CLIP)
    # column-major: each column contiguous, and the transpose a C-ordered (3, M) view
    out = np.empty((s.shape[0], 3), order="F")
    np.log(s, out=out[:, 0])
    np.log1p(np.negative(s, out=s), out=out[:, 1])
    np.negative(out[:, 1], out=out[:, 1])
    out[:, 2] = 1.0
    return out


def _loss(eta: np.ndarray, sizes: np.ndarray, hits: np.ndarray) -> float:
    """``sum_j m_j softplus(eta_j) - h_j eta_j``, summed over bins in chunks (the
    negative log-likelihood without temporaries of all bins)."""
    total = 0.0
    for sl in row_slices(eta.shape[0]):
        loss = np.logaddexp(0.0, eta[sl])
        loss *= sizes[sl]
        loss -= hits[sl] * eta[sl]
        total += float(np.sum(loss))
    return total


def _derivatives(design: np.ndarray, eta: np.ndarray, sizes: np.ndarray, hits: np.ndarray,
                 hessian: bool = True) -> tuple[np.ndarray, np.ndarray | None]:
    """Gradient ``X^T (m sigma - h)`` and Hessian ``X^T diag(m sigma (1 - sigma)) X`` of
    :func:`_loss` in ``theta`` (``eta = X theta``), summed over bins in chunks."""
    grad, hess = np.zeros(3), np.zeros((3, 3)) if hessian else None
    for sl in row_slices(eta.shape[0]):
        columns = design[sl].T  # (3, chunk): each row contiguous (design is column-major)
        mu = special.expit(eta[sl])
        grad += columns @ (sizes[sl] * mu - hits[sl])
        if hess is not None:
            curv = sizes[sl] * mu
            curv *= 1 - mu
            # X^T diag(curv) X row by row: one (chunk,) temporary, not a (3, chunk) one
            hess += np.stack([columns @ (columns[i] * curv) for i in range(3)])
    return grad, hess


def _newton_fit(design: np.ndarray, sizes: np.ndarray, hits: np.ndarray,
                start: np.ndarray | None = None) -> np.ndarray | None:
    """The optimum by damped Newton steps (:func:`_derivatives`), or None unless it is
    a KKT point of the bounded problem (``a, b >= 0``, gradient <= 1e-9): L-BFGS-B
    takes over then.  Beside the design, the bins' sizes and hits, it holds two
    vectors of all bins (the current and the trial ``eta``)."""
    scale, theta = float(sizes.sum()), np.array([1.0, 1.0, 0.0]) if start is None else start
    # eta = design @ theta and the loss of the accepted point carry into the next step
    f0 = _loss(eta := design @ theta, sizes, hits) / scale
    eta_trial = np.empty_like(eta)
    for _ in range(60):
        grad, hess = _derivatives(design, eta, sizes, hits)
        grad /= scale
        try:
            step = -np.linalg.solve(hess / scale, grad)
        except np.linalg.LinAlgError:
            return None
        decrement, t = -float(grad @ step), 1.0
        if not decrement > 1e-28:  # converged (or not finite)
            break
        while t > 1e-12:  # backtracking (Armijo) line search
            np.matmul(design, trial := theta + t * step, out=eta_trial)
            if not (f_trial := _loss(eta_trial, sizes, hits) / scale) \
                    > f0 - 1e-4 * t * decrement:
                break
            t *= 0.5
        if t <= 1e-12:
            break
        stalled = not f_trial < f0  # no decrease the loss's rounding can show
        theta, f0 = trial, f_trial
        eta, eta_trial = eta_trial, eta  # the accepted point's; the old one is reused
        if stalled:  # at the optimum to rounding: further steps only trade noise
            break
    grad = _derivatives(design, eta, sizes, hits, hessian=False)[0] / scale
    ok = np.isfinite(theta).all() and (theta[:2] >= 0.0).all() and np.abs(grad).max() <= 1e-9
    return theta if ok else None


def _validated(conf: Any, correct: Any) -> tuple[np.ndarray, np.ndarray]:
    """Validated confidences and 0/1 hits in the input order."""
    s = v.check_probability(conf, "conf")
    hit = binary_outcome(correct, "correct")
    v.check_consistent_length(conf=s.size, correct=hit.size)
    return s, hit


def _moment_beta(s: np.ndarray, counts: np.ndarray | None = None) -> tuple[float, float]:
    """Method-of-moments Beta fit of the confidences (as the authors' code), validated;
    ``counts``: frequency weights (the moments of the repeated rows)."""
    n = s.shape[0] if counts is None else float(counts.sum())
    mu = float(np.mean(s)) if counts is None else float(np.dot(counts, s) / n)
    # exactly equal confidences: np.var may still return ~1e-32 from rounding the mean
    var = (0.0 if not np.ptp(s) > 0 else float(np.var(s, ddof=1)) if counts is None
           else float(np.dot(counts, (s - mu) ** 2) / (n - 1.0)))
    with np.errstate(divide="ignore", invalid="ignore"):
        alpha = mu * mu * (1.0 - mu) / var - mu if var > 0 else float("inf")
        beta = alpha * (1.0 - mu) / mu if mu > 0 else float("inf")
    return v.check_beta_shape(
        alpha, beta, "The method-of-moments Beta fit of `conf`",
        hint="This happens when all confidences are equal or only 0 and 1; pass "
             "density=(alpha, beta) or a scipy.stats distribution explicitly.")
