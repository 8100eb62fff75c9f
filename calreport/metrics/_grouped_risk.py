"""P_risk (``method="auto"``) of many groups at once, over group codes.

Each group's value and method are those of
:func:`calreport.metrics.risk.risk_summary` on its rows alone with the same integer
seed: the null moments, the validity of the normal approximation and ``Φ(z)``
come from sums per group; where the normal approximation is invalid, the first
look of the sequential Monte Carlo null (1,000 draws of the null and of the
alternative, from the shared blocks of sorted uniforms) is drawn for all groups in
one pass and the stopping rule is applied to all of them at once, look after look
(1,000, 3,000, 12,000 ... draws from the same streams as for one group).  Groups
that need another kind of null (many tied rows, more than 200 rows, a negative
seed) are handed to the single-group code.
"""

from __future__ import annotations

import math
from collections.abc import Callable

import numpy as np

from calreport.metrics import _risk_null as null
from calreport.metrics import _risk_rows as rows_mod
from calreport.metrics._order import ranges, sort_within

__all__ = ["grouped_p_risk"]

#: Groups per batch of the sequential null (their draws are held at once).
_GROUPS = 2048


def _segment_sum(x: np.ndarray, g: np.ndarray, n_groups: int) -> np.ndarray:
    return np.bincount(g, weights=x, minlength=n_groups)


def _far(x: np.ndarray, t: float, n: np.ndarray | float) -> np.ndarray:
    return np.abs(x - t) > null.SEQ_MARGIN * np.sqrt(t * (1.0 - t) / n)


def _settled(prob: np.ndarray, m: int, power: np.ndarray, m_alt: np.ndarray,
             certified: np.ndarray, above: np.ndarray) -> np.ndarray:
    """``_risk_null._settled`` element-wise (``above``: CSR > 1)."""
    with np.errstate(divide="ignore", invalid="ignore"):  # no alternative draws yet
        power_far = _far(power, rows_mod.POWER_MIN, m_alt)
    both_far = _far(prob, rows_mod.P_EVIDENCE, m) & _far(prob, rows_mod.P_RISKY, m)
    settled_above = certified | (both_far & ((prob > rows_mod.P_EVIDENCE) | power_far))
    return np.where(above, settled_above, power_far)


class _GroupRows:
    """The single-group ``_Rows`` of a group (its rows in their given order), for the
    few sums that must be the single-group code's to the last bit: ``Φ(z)`` where the
    normal approximation holds and the Chernoff floor of the Monte Carlo null."""

    def __init__(self, conf: np.ndarray, correct: np.ndarray, w: np.ndarray | None,
                 codes: np.ndarray, n_groups: int, eps: float) -> None:
        self.conf, self.correct, self.w, self.eps = conf, correct, w, eps
        self.order = sort_within(codes, n_groups)
        self.sizes = np.bincount(codes, minlength=n_groups)
        self.ends = np.cumsum(self.sizes)

    def __call__(self, g: int) -> rows_mod._Rows:
        idx = self.order[self.ends[g] - self.sizes[g]:self.ends[g]]
        raw = self.conf[idx]
        c = np.clip(raw, self.eps, 1.0 - self.eps)
        return rows_mod._trusted_rows(raw, c, self.correct[idx],
                                      None if self.w is None else self.w[idx], "importance")

    def normal(self, g: int) -> float:
        r = self(g)
        return rows_mod._p_normal(r.s_obs / r.denom, rows_mod._z(r))

    def floor(self, g: int) -> float:
        r = self(g)
        tol = 1e-10 * max(r.s_obs, r.denom)
        return 1.0 - null.chernoff_upper_tail(r, r.s_obs - tol)


def grouped_p_risk(conf: np.ndarray, correct: np.ndarray, sample_weight: np.ndarray | None,
                   codes: np.ndarray, n_groups: int, *, eps: float, seed: int
                   ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """P_risk and its method (``method="auto"``, importance weights) of every group.

    Parameters
    ----------
    conf : ndarray of float, shape (N,)
        Validated confidences in [0, 1] (clipped here to ``[eps, 1 - eps]``).
    correct : ndarray of bool, shape (N,)
    sample_weight : ndarray of float, shape (N,), or None
        Importance weights (each group on its own scale).
    codes : ndarray of int, shape (N,)
        Group of each row, in ``[0, n_groups)``.
    n_groups : int
    eps : float
    seed : int
        The Monte Carlo seed (``Settings.mc_seed``).

    Returns
    -------
    values : ndarray of float, shape (n_groups,)
        NaN for a group without rows of positive weight or without null variance.
    methods : ndarray of object
        ``"normal"`` or ``"monte_carlo"``.
    rest : ndarray of int
        The groups left to the single-group code (``risk._p_risk_trusted``): their
        entries of ``values`` and ``methods`` are not filled.

    Notes
    -----
    ``CSR = S / D`` with ``S = Σ a_i 1[wrong_i]``, ``a_i = w_i / (1 − c_i)``; under
    calibration ``S`` has variance ``Σ a_i² c_i (1 − c_i)``; ``P_risk = Φ(z)`` where
    the normal approximation is valid (Lindeberg share ≤ 0.05, |skewness| ≤ 0.25,
    lattice ≤ 0.1), else the Monte Carlo ``P(S* < S)``, on either side of CSR = 1
    (the paper's definition, section 2.1).

    References
    ----------
    Martin-Maroto, F., Abderrahaman-Elena, N. & de Polavieja, G. G. (2026). Beyond ECE:
    Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted Metrics.
    arXiv:2605.01796. Section 2.1, section 4 and Table 6.

    Examples
    --------
    >>> from calreport.metrics import risk
    >>> c = np.array([0.9, 0.8, 0.7, 0.95, 0.6, 0.99])
    >>> ok = np.array([True, False, True, True, False, True])
    >>> v, m, rest = grouped_p_risk(c, ok, None, np.array([0, 0, 0, 1, 1, 1]), 2,
    ...                             eps=1e-8, seed=0)
    >>> r = risk.risk_summary(c[:3], ok[:3], method="auto", seed=0)
    >>> bool(v[0] == r.p_risk), m[0] == r.p_risk_method, rest.size
    (True, True, 0)
    """
    codes = np.asarray(codes, dtype=np.int64)
    exact = _GroupRows(np.asarray(conf, dtype=np.float64), np.asarray(correct, dtype=bool),
                       None if sample_weight is None else np.asarray(sample_weight, float),
                       codes, n_groups, eps)
    raw = np.asarray(conf, dtype=np.float64)
    ok = np.asarray(correct, dtype=bool)
    if sample_weight is not None:
        w0 = np.asarray(sample_weight, dtype=np.float64)
        keep = w0 > 0
        raw, ok, codes, w0 = raw[keep], ok[keep], codes[keep], w0[keep]
        top = np.zeros(n_groups)
        np.maximum.at(top, codes, w0)
        w = w0 / top[codes]
    c = np.clip(raw, eps, 1.0 - eps)
    atom = 1.0 / (1.0 - c) if sample_weight is None else w / (1.0 - c)
    # canonical order: by (group, confidence, error size), as _Rows.canonical
    order = sort_within(codes, n_groups, atom, c)
    g, c, ok, atom = codes[order], c[order], ok[order], atom[order]
    n_g = np.bincount(g, minlength=n_groups)
    starts = np.cumsum(n_g) - n_g
    local = np.arange(g.size) - starts[g]
    p = 1.0 - c
    denom = (n_g.astype(np.float64) if sample_weight is None
             else _segment_sum(w[order], g, n_groups))
    s_obs = _segment_sum(np.where(ok, 0.0, atom), g, n_groups)
    uv = atom ** 2 * p * c
    var = _segment_sum(uv, g, n_groups)
    k3 = _segment_sum(atom * (uv * (1.0 - 2.0 * p)), g, n_groups)
    top_uv = np.zeros(n_groups)
    np.maximum.at(top_uv, g, uv)
    with np.errstate(divide="ignore", invalid="ignore"):
        share = np.where(var > 0, top_uv / var, np.nan)
        skew = np.where(var > 0, k3 / var ** 1.5, np.nan)
    # lattice: the largest error size of a tie group holding >= 10 % of the variance
    new = np.r_[True, (g[1:] != g[:-1]) | (c[1:] != c[:-1]) | (atom[1:] != atom[:-1])]
    tie = np.cumsum(new) - 1
    tie_var = np.bincount(tie, weights=uv)
    tie_g, tie_atom = g[new], atom[new]
    big = tie_var >= 0.1 * var[tie_g]
    lat_atom = np.zeros(n_groups)
    np.maximum.at(lat_atom, tie_g[big], tie_atom[big])
    with np.errstate(divide="ignore", invalid="ignore"):
        lattice = np.where(var > 0, lat_atom / np.sqrt(var), np.nan)
    n_ties = np.bincount(tie_g, minlength=n_groups)
    with np.errstate(divide="ignore", invalid="ignore"):
        csr = s_obs / denom
        z = np.where(var > 0, (s_obs - denom) / np.sqrt(var), np.nan)
    valid = null._is_valid(share, skew, lattice, z)
    values = np.full(n_groups, np.nan)
    methods = np.full(n_groups, "normal", dtype=object)
    has = n_g > 0
    for gi in np.flatnonzero(has & ~np.isnan(z) & valid).tolist():
        values[gi] = exact.normal(gi)  # Φ(z) from the single-group sums, bit for bit
    mc = has & ~np.isnan(z) & ~valid
    # CSR within rounding of 1 is decided from the single-group sums, bit for bit: the
    # side of 1 selects the stopping rule and the Chernoff floor
    near = np.flatnonzero(mc & (np.abs(csr - 1.0) <= 1e-9))
    for gi in near.tolist():
        r = exact(gi)
        csr[gi] = r.s_obs / r.denom
    above_all = csr > 1.0
    base = int(seed)
    b = min(null.SEQ_FIRST, rows_mod.N_SIM)
    batched = (mc & (n_g <= rows_mod.FULL_MONTE_CARLO_ROWS) & (2 * n_ties > n_g)
               & (base >= 0) & (n_g * b <= rows_mod._TILE))
    rest_groups = np.flatnonzero(mc & ~batched)
    ids_all = np.flatnonzero(batched)
    sub = np.full(n_groups, -1, dtype=np.int64)
    sub[ids_all] = np.arange(ids_all.size)
    for lo in range(0, ids_all.size, _GROUPS):
        ids = ids_all[lo:lo + _GROUPS]
        sel = (sub[g] >= lo) & (sub[g] < lo + ids.size)
        prob, floor = _sequential(sub[g[sel]] - lo, local[sel], atom[sel], p[sel],
                                  ids.size, s_obs[ids], denom[ids], var[ids], base,
                                  lambda k, ids=ids: exact.floor(int(ids[k])),
                                  above_all[ids])
        values[ids] = np.maximum(prob, floor)
        methods[ids] = "monte_carlo"
    return values, methods, np.sort(rest_groups)


def _sequential(gl: np.ndarray, loc: np.ndarray, atom: np.ndarray, p: np.ndarray,
                n: int, s_obs: np.ndarray, denom: np.ndarray, var: np.ndarray, base: int,
                floor_of: Callable[[int], float], above: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray]:
    """``_risk_null._sequential`` for ``n`` groups at once (rows grouped by ``gl``,
    canonical order; ``above``: CSR > 1): looks of 1,000, 3,000, 12,000 ... draws
    until each group's band is settled; returns P(S* < S_obs) and the Chernoff floor
    of every group (0 where CSR <= 1, as the single-group code).

    With CSR <= 1 the power decides when to stop and is drawn at every look.  With
    CSR > 1 the power enters the stopping rule only at a look where P_risk is at
    most the 1-sigma threshold, and the single-group code draws the alternative at
    the first look and at such looks.  The first look's alternative draws of a group
    whose P_risk starts above the threshold are therefore drawn only if a later look
    reads the power (from the same stream, so the same numbers): most groups never
    need them.
    """
    tol = 1e-10 * np.maximum(s_obs, denom)
    p1 = null._alt_p(p)
    prob_out, floor = np.zeros(n), np.zeros(n)
    certified = np.zeros(n, dtype=bool)
    owed = np.zeros(n, dtype=bool)  # the first look's alternative draws, not drawn yet
    act = np.arange(n)  # groups still simulated
    null_draws = np.empty((n, 0))
    alt_draws = np.empty((n, 0))
    m, m_alt, look = 0, np.zeros(n, dtype=np.int64), 0
    b_first = 0

    # rows are contiguous per group: those of listed groups (renumbered 0..len-1)
    sizes = np.bincount(gl, minlength=n)
    starts = np.cumsum(sizes) - sizes

    def alt_sums(who: np.ndarray, b_alt: int, at_look: int) -> np.ndarray:
        at, owner = ranges(starts[who], sizes[who])
        return null._pooled_sums(owner, loc[at], atom[at], p1[at], who.size, b_alt, base,
                                 at_look, 1)

    while act.size:
        b = min(null.SEQ_FIRST if not m else (null.SEQ_GROWTH - 1) * m, rows_mod.N_SIM - m)
        at, owner = ranges(starts[act], sizes[act])
        null_draws = np.concatenate(
            [null_draws, null._pooled_sums(owner, loc[at], atom[at], p[at], act.size, b,
                                           base, look, 0)], axis=1)
        m += b
        thr = (s_obs - tol)[act]
        prob = np.count_nonzero(null_draws < thr[:, None], axis=1) / m
        if look == 0:
            # the Chernoff floor where P_risk starts above the 1-sigma threshold: first
            # from the grouped sums (within 1e-12 of the single-group bound); the bound
            # itself, bit for bit, wherever it could decide something (below)
            want = (prob > rows_mod.P_EVIDENCE) & above
            floor = _approx_floors(gl, starts, sizes, atom, p, want, s_obs - tol, var)
            exact = ~want
        # a floor within _FLOOR_MARGIN of P_risk or of the 3-sigma threshold may move the
        # value, the certification or the stopping rule: those take the exact bound
        close = ~exact[act] & ((floor[act] >= prob - _FLOOR_MARGIN)
                               | (floor[act] >= rows_mod.P_RISKY - _FLOOR_MARGIN))
        for k in act[close].tolist():
            floor[k] = floor_of(k)  # the single-group Chernoff bound, bit for bit
        exact[act[close]] = True
        if look == 0:
            certified = exact & (floor > rows_mod.P_RISKY)
        # the power is read at this look only where P_risk is at most the threshold
        need = (prob <= rows_mod.P_EVIDENCE) | ~above[act]
        b_alt = max(b // 4, min(b, null.SEQ_FIRST))
        new_alt = np.full((act.size, b_alt), np.nan)
        if look == 0:
            b_first = b_alt
            owed[act[~need]] = True
        pay = need & owed[act]
        if pay.any():
            who = act[pay]
            alt_draws[pay, :b_first] = alt_sums(who, b_first, 0)
            m_alt[who] += b_first
            owed[who] = False
        if need.any():
            who = act[need]
            new_alt[need] = alt_sums(who, b_alt, look)
            m_alt[who] += b_alt
        alt_draws = np.concatenate([alt_draws, new_alt], axis=1)
        power = np.full(act.size, np.nan)  # read by the stopping rule where needed only
        if need.any():
            kth = min(math.floor(rows_mod.P_EVIDENCE * m), m - 1)
            crit = np.partition(null_draws[need], kth, axis=1)[:, kth]
            hits = np.count_nonzero(alt_draws[need] > (crit + tol[act[need]])[:, None],
                                    axis=1)
            power[need] = hits / m_alt[act[need]]
        look += 1
        best = np.maximum(prob, floor[act])
        done = _settled(best, m, power, m_alt[act], certified[act], above[act])
        if m >= rows_mod.N_SIM:
            done[:] = True
        prob_out[act[done]] = prob[done]
        keep = ~done
        act, null_draws, alt_draws = act[keep], null_draws[keep], alt_draws[keep]
    # an approximate floor was at least _FLOOR_MARGIN below P_risk at every look: the
    # exact one is too, and max(P_risk, floor) is P_risk
    return prob_out, np.where(exact, floor, 0.0)


#: Distance from P_risk (and from the 3-sigma threshold) beyond which a floor from the
#: grouped sums cannot decide anything (their rounding differs by about 1e-12).
_FLOOR_MARGIN = 1e-9
#: Groups per block of :func:`_approx_floors` (48 grid points per row are held).
_FLOOR_GROUPS = 256


def _approx_floors(gl: np.ndarray, starts: np.ndarray, sizes: np.ndarray,
                   atom: np.ndarray, p: np.ndarray, want: np.ndarray, s: np.ndarray,
                   var: np.ndarray) -> np.ndarray:
    """``1 - chernoff_upper_tail`` of the ``want`` groups from grouped sums (0 elsewhere).

    The bound ``min_t exp(K(t) - t s)`` on the grid of
    :func:`calreport.metrics._risk_null.chernoff_upper_tail`, for blocks of groups at
    once: the same terms, summed per group by ``reduceat`` (rows contiguous per group,
    group ``g`` at ``starts[g]``, ``sizes[g]`` of them).
    """
    n = want.size
    floor = np.zeros(n)
    mean = np.bincount(gl, weights=atom * p, minlength=n)
    ok = want & (var > 0) & (s > mean)
    ids = np.flatnonzero(ok)
    grid = null._CHERNOFF_GRID[:, 0]
    for lo in range(0, ids.size, _FLOOR_GROUPS):
        grp = ids[lo:lo + _FLOOR_GROUPS]
        rows, owner = ranges(starts[grp], sizes[grp])
        t = ((s - mean)[grp] / var[grp])[:, None] * grid[None, :]  # (groups, 48)
        pr, a = p[rows], atom[rows]
        with np.errstate(divide="ignore", over="ignore"):
            log_mgf = np.logaddexp(np.log1p(-pr)[:, None],
                                   np.log(pr)[:, None] + t[owner] * a[:, None])
        first = np.cumsum(sizes[grp]) - sizes[grp]
        expo = np.add.reduceat(log_mgf, first, axis=0) - t * s[grp][:, None]
        bound = np.minimum(1.0, np.exp(np.minimum(0.0, expo.min(axis=1))))
        floor[grp] = 1.0 - bound
    return floor

