"""The risk verdict, Spiegelhalter's Z and the binned Murphy terms from merged sums.

:func:`calreport.metrics.risk.risk_summary` decides a group's band from the
certainty claims (confidence >= 1 - eps), the CSR test on the rows below certainty
and that test's power.  With the normal approximation every quantity it needs is a
sum over rows, or a maximum (the Lindeberg share), so it finishes exactly from a
merged :class:`~calreport.stats.StatsState`.  Where the normal approximation is
invalid, a group whose rows are all kept (``heavy_rows`` per group) runs the
core's test on them: the Monte Carlo draws follow the canonical order of the rows
(confidence, then error size), so the result is pandas' exactly, whatever the
partitions.  A larger group runs the core's conditional Monte Carlo from its kept
rows of largest variance and the exact cumulants of the others, the same draws as
pandas when its split needs no more rows than are kept (P_risk then agrees up to
the rounding of the merged sums); otherwise the normal approximation is used and
``method_reason`` says so.  The lattice check of tied confidences needs the rows
themselves and is made only from fine-bin variances.
"""

from __future__ import annotations

import math

import numpy as np
from scipy import special

from calreport.metrics._risk_null import (
    LightRows,
    NullTest,
    alt_p,
    batched_first,
    conditional_null,
    first_light,
    first_looks,
    is_valid,
    normal_power,
    null_test,
    validity_facts,
)
from calreport.metrics._risk_rows import FULL_MONTE_CARLO_ROWS, N_SIM, Rows, p_normal
from calreport.metrics.risk import (
    RiskResult,
    certain_upper,
    rows_for_power_from_sums,
    verdict,
)
from calreport.metrics.weighted import kish_size
from calreport.stats.config import RISK_FLOAT, RISK_SUMS, SCALARS, VIEWS
from calreport.stats.finish import resolve_view
from calreport.stats.state import StatsState

__all__ = ["murphy", "risk_verdicts", "spiegelhalter"]

_R = {name: i for i, name in enumerate(RISK_SUMS)}
_S = {name: i for i, name in enumerate(SCALARS)}


def _risk_sums(state: StatsState) -> np.ndarray:
    return state.sums["risk"].to_float()


def _fine_max(state: StatsState, name: str) -> np.ndarray | None:
    """Each group's largest fine-bin null variance (its dense grid's maximum: 0 when a
    bin is empty), if the state has the fine bins."""
    if name not in state.fsums:
        return None
    fine = state.fsums[name]
    out = np.full(fine.n_groups, -np.inf)
    if fine.index.size:
        np.maximum.at(out, fine.entry_groups(), fine.values.reshape(fine.index.size, -1)
                      .max(axis=1))
    return np.where(np.diff(fine.ptr) < fine.width, np.maximum(out, 0.0), out)


def risk_verdicts(state: StatsState, *, seed: int = 0, n_sim: int | None = None
                  ) -> list[RiskResult]:
    """One :class:`~calreport.metrics.risk.RiskResult` per group, as ``risk_summary``.

    The band, its reason, the certainty claims with their Clopper-Pearson bound, the
    test on the rows below certainty and its power follow
    :func:`calreport.metrics.risk.risk_summary` with ``method="auto"`` (both decide
    through :func:`calreport.metrics.risk.verdict`): the normal approximation where it
    is valid, else the Monte Carlo null of the rows of largest variance (kept exactly,
    ``heavy_rows`` per group) with the exact normal law of the others, seeded with
    ``seed``.

    Parameters
    ----------
    state : StatsState
        Merged state of the rows.
    seed : int, default 0
        Seed of the Monte Carlo null (as ``risk_summary(seed=...)``).
    n_sim : int, optional
        Most Monte Carlo draws (default that of ``risk_summary``).

    Returns
    -------
    list of RiskResult
        In the order of ``state.keys``.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.5] * 4, correct=[0, 0, 0, 1])
    >>> r = risk_verdicts(StatsState.from_profile(p))[0]
    >>> r.csr, r.sigma_csr, r.z_csr, r.band
    (1.5, 0.5, 1.0, 'no_evidence')
    """
    n_sim = N_SIM if n_sim is None else int(n_sim)
    cfg = state.config
    rs = state.sums["risk"].to_fraction()
    freq = cfg.weights == "frequency"
    # exact sums of the columns the rows below certainty need (the variance of CSR's
    # numerator, csr_var2, is of the state's weight kind)
    scf = state.sums["scalar"][:, [_S["one"], _S["csr"], _S["csr_var2"]]].to_fraction()
    sc = state.sums["scalar"].to_float()
    heavy = state.heavy or {}
    fine = {name: _fine_max(state, name) for name in ("all", "rest")}
    sets = []
    for gi, key in enumerate(state.keys):
        e = {name: rs[gi, i] for name, i in _R.items()}
        f = {name: float(v) for name, v in e.items()}
        # rows below certainty: exact differences of the all-rows and certain-rows sums
        f["r_w"] = float(scf[gi, 0] - e["c_w"])
        f["r_s_obs"] = float(scf[gi, 1] - e["c_s_obs"])
        f["r_var"] = float(scf[gi, 2] - e["c_var"])
        f.update(zip(RISK_FLOAT, state.fsums["risk"][gi].tolist(), strict=True))
        w = float(sc[gi, _S["one"]])
        n_rows = float(state.counts["n_positive_weight"][gi])
        all_set = _RowSet(
            denom=w, s_obs=float(sc[gi, _S["csr"]]), var=float(sc[gi, _S["csr_var2"]]),
            k3=f["a_k3"], mean1=math.nan, var1=math.nan, n_rows=n_rows,
            heavy=heavy.get((key, "all")), fine=_at(fine["all"], gi), kind=cfg.weights)
        if f["c_count"] == 0:  # the rows below certainty are all rows: power sums known
            all_set.mean1, all_set.var1 = f["r_mean1"], f["r_var1"]
        rest_set = None
        if (f["c_w"] if freq else f["c_count"]) > 0:
            rest_set = _RowSet(
                denom=f["r_w"], s_obs=f["r_s_obs"], var=f["r_var"], k3=f["r_k3"],
                mean1=f["r_mean1"], var1=f["r_var1"], n_rows=n_rows - f["c_count"],
                heavy=heavy.get((key, "rest")), fine=_at(fine["rest"], gi),
                kind=cfg.weights)
        sets.append((f, all_set, rest_set))
    _first_looks([x for _, a, r in sets for x in (a, r) if x is not None], n_sim, int(seed))
    out = []
    for gi, (f, all_set, rest_set) in enumerate(sets):
        rng = np.random.default_rng(seed)
        w, var_all, n_rows = all_set.denom, all_set.var, all_set.n_rows
        n_cert_rows = f["c_count"]
        all_test = _test(all_set, n_sim, rng, cfg.heavy_rows, int(seed))
        csr_all = all_set.s_obs / w if w > 0 else math.nan
        sig_all = math.sqrt(var_all) / w if w > 0 else math.nan
        z_all = (csr_all - 1.0) / sig_all if sig_all > 0 else math.nan

        n_cert = f["c_w"] if freq else n_cert_rows
        if rest_set is not None:
            if freq:
                n_cw = f["c_w_wrong"]
                upper = certain_upper(n_cw, n_cert)
            else:
                n_cw = f["c_wrong"]
                upper = certain_upper(f["c_w_wrong"], f["c_w"], f["c_w2"])
            rest_test = (_test(rest_set, n_sim, rng, cfg.heavy_rows, int(seed))
                         if rest_set.n_rows > 0 else None)
        else:
            n_cw, upper = 0.0, math.nan
            rest_set, rest_test = all_set, all_test
        # one set of numbers: the all-rows test decides; the power is that of the rows
        # below certainty (as in risk_summary)
        tested = rest_test is not None and rest_set.var > 0
        w2 = float(sc[gi, _S["w2"]])
        out.append(verdict(
            csr_value=csr_all, sigma=sig_all, z=z_all, test=all_test,
            power=rest_test.power if tested else math.nan,
            n_for_power=rows_for_power_from_sums(
                denom=rest_set.denom, var0=rest_set.var, mean1=rest_set.mean1,
                var1=rest_set.var1, count=rest_set.denom if freq else rest_set.n_rows)
            if tested else math.inf,
            n=w if freq else n_rows,
            n_eff=float(kish_size(w, w2)) if (not freq and w2 > 0) else w,
            n_certain=n_cert, n_certain_wrong=n_cw, upper=upper,
            n_clipped=int(state.counts["n_clipped"][gi]),
            n_clipped_one=int(state.counts["n_one"][gi]), eps=float(cfg.eps),
            weights=cfg.weights))
    return out


def _at(values: np.ndarray | None, gi: int) -> float | None:
    return None if values is None else float(values[gi])


def _first_looks(sets: list[_RowSet], n_sim: int, base: int) -> None:
    """The first look of the sequential null of every small whole row set whose test
    starts with one, drawn for all of them in one pass (as the grouped pandas summary:
    :func:`~calreport.metrics._risk_null.first_looks`, the same draws as each alone)."""
    rows = ((rs, rs.rows()) for rs in sets if rs.whole and rs.var > 0
            and len(rs.heavy["u"]) <= FULL_MONTE_CARLO_ROWS)  # larger ones never batch
    batch = [(rs, r) for rs, r in rows if batched_first(r, "auto", n_sim, base)]
    if batch:
        looks = first_looks([r for _, r in batch], n_sim, base)
        for (rs, _), look in zip(batch, looks, strict=True):
            rs.first = look


class _RowSet:
    """A set of rows in sum form: exact totals plus its heaviest rows."""

    def __init__(self, *, denom: float, s_obs: float, var: float, k3: float,
                 mean1: float, var1: float, n_rows: float,
                 heavy: dict[str, np.ndarray] | None, fine: float | None,
                 kind: str = "importance") -> None:
        self.denom, self.s_obs, self.var, self.k3 = denom, s_obs, var, k3
        self.kind = kind  # the weights' meaning: frequency rows stand for k copies
        self.mean1, self.var1, self.n_rows = mean1, var1, n_rows
        self.heavy, self.fine = heavy, fine  # fine: largest fine-bin null variance
        # every row is held: the core's test runs on them (``first``: its first look)
        self.whole = heavy is not None and len(heavy["u"]) >= n_rows
        self.first: tuple[np.ndarray, np.ndarray] | None = None
        # largest unit null variance: the heaviest kept row (``u`` is minus it)
        self.max_uv = (float(-heavy["u"].min()) if heavy is not None and heavy["u"].size
                       else math.nan)

    def rows(self, by: str = "rank", first: int | None = None) -> Rows:
        """The heavy rows as the core's row set: in the data's order (``by="rank"``)
        or heaviest first (``"variance"``, ties by confidence); ``first``: only the
        ``first`` heaviest, in the data's order."""
        h = self.heavy
        order = np.lexsort((h["conf"], h["u"]))
        if first is not None:
            order = order[:first]
        if by == "rank":
            order = order[np.argsort(h["rank"][order], kind="stable")]
        w = h["w"][order]
        denom = self.denom if len(h["u"]) >= self.n_rows else float(w.sum())
        return Rows(h["conf"][order], h["raw"][order], h["wrong"][order], h["atom"][order],
                    h["k"][order], w, denom, self.kind)


def _test(rs: _RowSet, n_sim: int, rng: np.random.Generator, cap: int, base: int
          ) -> NullTest:
    """P_risk, power and method of a row set, as the core's ``null_test(..., "auto")``.

    When every row is held the core's test itself runs on them (same seed stream
    ``base`` as ``risk_summary(seed=...)``); otherwise it is rebuilt from the sums and
    the kept rows of largest variance, by the core's rules: validity
    (:func:`~calreport.metrics._risk_null.is_valid`), normal power, heavy split
    (:func:`~calreport.metrics._risk_null.first_light`) and conditional Monte Carlo
    (:func:`~calreport.metrics._risk_null.conditional_null`).
    """
    var = rs.var
    share = rs.max_uv / var if var > 0 else math.nan
    skew = rs.k3 / var**1.5 if var > 0 else math.nan
    if rs.whole and var > 0:
        return null_test(rs.rows(), "auto", n_sim, rng, base, rs.first)
    lattice, lattice_note = _lattice_certificate(rs, var, 0.0)
    facts = validity_facts(share, skew, lattice) + lattice_note
    csr_value = rs.s_obs / rs.denom if rs.denom > 0 else math.nan
    z = (rs.s_obs - rs.denom) / math.sqrt(var) if var > 0 else math.nan
    if math.isnan(z):
        return NullTest(math.nan, math.nan, "normal", "no null variance: every weight is 0",
                        0, share, skew, lattice)
    valid = is_valid(share, skew, 0.0 if math.isnan(lattice) else lattice, z)
    power_normal = normal_power(rs.denom, var, rs.mean1, rs.var1)
    if valid:
        return NullTest(p_normal(csr_value, z), power_normal, "normal",
                        "normal approximation valid: " + facts, 0, share, skew, lattice)
    heavy = _heavy_split(rs)
    if heavy < 0:
        return NullTest(p_normal(csr_value, z), power_normal, "normal",
                        "normal approximation, although it is not valid here and the "
                        f"Monte Carlo null needs more than the {cap} rows of largest "
                        f"variance kept out of core: " + facts, 0, share, skew, lattice)
    top = rs.rows(first=heavy)
    return conditional_null(top, _light(rs, top), rs.s_obs, n_sim, base, csr_value > 1.0,
                            rs.n_rows - heavy, facts, (share, skew, lattice))


def _light(rs: _RowSet, top: Rows) -> LightRows:
    """The cumulants of the rows outside ``top``: the exact totals less ``top``'s terms.

    Each term in the association of the sums it is taken from, not the core's
    (:func:`~calreport.metrics._risk_null.cumulants`): the totals hold certainty claims
    of variance near 1/eps, and the core's rounding moved P_risk by 1e-6 here.
    """
    p0, c0 = top.p, top.c
    p1 = alt_p(p0)
    ka = top.k * top.atom
    return LightRows(
        mean0=rs.denom - float((ka * p0).sum()),
        var0=max(rs.var - float((ka * top.atom * p0 * c0).sum()), 0.0),
        k3=rs.k3 - float((ka * top.atom ** 2 * p0 * c0 * (c0 - p0)).sum()),
        mean1=rs.mean1 - float((ka * p1).sum()),
        var1=max(rs.var1 - float((ka * top.atom * p1 * (1.0 - p1)).sum()), 0.0))


def _lattice_certificate(rs: _RowSet, var: float, removed: float) -> tuple[float, str]:
    """0 when no fine confidence bin holds 10 % of the null variance (so no tie group
    does), else NaN (undecided without the rows)."""
    if rs.fine is None or not var > 0:
        return math.nan, "; the lattice check needs the rows"
    if rs.fine - removed < 0.1 * var:
        return 0.0, ""
    return math.nan, ("; the lattice check of tied confidences needs the rows and is not "
                      "made out of core")


def _heavy_split(rs: _RowSet) -> int:
    """The core's heavy split (:func:`~calreport.metrics._risk_null.first_light`) from
    the exact totals and the kept heaviest rows: the rows to simulate, or -1."""
    if rs.heavy is None:
        return -1
    r = rs.rows(by="variance")
    uv = r.unit_var
    tv = r.k * uv
    # not the core's variance_terms: subtracted from totals that hold certainty claims,
    # its rounding of the third cumulant moved the split by a row here
    t3 = r.k * r.atom**3 * r.p * r.c * (1.0 - 2.0 * r.p)
    # the rest after removing the j heaviest: the exact total less the kept rows'
    return first_light(uv, rs.var - (np.cumsum(tv) - tv), rs.k3 - (np.cumsum(t3) - t3),
                       int(rs.n_rows // 2))


def spiegelhalter(state: StatsState) -> dict[str, np.ndarray]:
    """Spiegelhalter's Z and its two-sided p-value per group, on the default view.

    ``Z = sum w (y - s)(1 - 2s) / sqrt(sum w' (1 - 2s)^2 s (1 - s))`` (Spiegelhalter
    1986), ``w' = w`` for frequency weights and ``w^2`` for importance weights (as
    :func:`calreport.metrics.clinical.spiegelhalter_z`), from exact sums (the
    numerator's positive and negative parts separately).

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([1, 1], [0.25, 0.75])
    >>> round(float(spiegelhalter(StatsState.from_profile(p))["spiegelhalter_z"][0]), 6)
    0.816497
    """
    rs = _risk_sums(state)
    num = rs[:, _R["sp_num_pos"]] - rs[:, _R["sp_num_neg"]]
    var = rs[:, _R["sp_var"]]
    with np.errstate(divide="ignore", invalid="ignore"):
        z = np.where(var > 0, num / np.sqrt(np.where(var > 0, var, 1.0)), np.nan)
    return {"spiegelhalter_z": z, "spiegelhalter_pvalue": 2.0 * special.ndtr(-np.abs(z))}


def murphy(state: StatsState, *, view: str | None = None) -> dict[str, np.ndarray]:
    """Binned Murphy terms on the uniform calibration bins, per group.

    ``REL = sum_m n_m/N (s_m - o_m)^2``, ``RES = sum_m n_m/N (o_m - o)^2``,
    ``UNC = o (1 - o)`` and the within-bin term
    ``WB = (1/N) sum_m [sum s^2 - n_m s_m^2 - 2 (sum s y - n_m s_m o_m)]`` (Murphy 1973),
    all from exact per-bin sums, as :func:`calreport.metrics.scoring.murphy_decomposition`.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 0.3])
    >>> sorted(murphy(StatsState.from_profile(p)))[:2]
    ['brier', 'reliability']
    """

    vi = VIEWS.index(resolve_view(state, view))
    s = state.sums["bins"].to_float()[:, vi]  # (G, nb, 6)
    n, ws, wy, ws2, wsy = s[..., 0], s[..., 2], s[..., 3], s[..., 4], s[..., 5]
    tot = n.sum(axis=1)
    with np.errstate(divide="ignore", invalid="ignore"):
        sm = np.where(n > 0, ws / np.where(n > 0, n, 1.0), 0.0)
        om = np.where(n > 0, wy / np.where(n > 0, n, 1.0), 0.0)
        o = wy.sum(axis=1) / tot
        rel = (n * (sm - om) ** 2).sum(axis=1) / tot
        res = (n * (om - o[:, None]) ** 2).sum(axis=1) / tot
        unc = o * (1.0 - o)
        wb = (ws2 - n * sm**2 - 2.0 * (wsy - n * sm * om)).sum(axis=1) / tot
        brier = (ws2 - 2.0 * wsy + wy).sum(axis=1) / tot  # y^2 = y
    return {"reliability": rel, "resolution": res, "uncertainty": unc, "within_bin": wb,
            "brier": brier}
