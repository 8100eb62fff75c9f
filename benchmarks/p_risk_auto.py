"""P_risk of ``method="auto"`` against a full simulation of the CSR null.

For each profile: the reference ``P(S* < S_obs)`` from a full simulation of every row
(an exact sampler independent of the library: Bernoulli(q_max) candidates placed by
geometric gaps within bins of ``q = min(p, 1 - p)`` of ratio at most 2**(1/4), thinned
by ``q_i / q_max``); ``auto`` with 20 seeds (mean, the root mean square of its
reported standard errors, the empirical standard deviation over the seeds and their
ratio); the difference of the mean from the reference in combined standard errors;
and whether permuting the rows gives the identical P_risk.  Prints a markdown table.

Usage: ``python benchmarks/p_risk_auto.py`` (about 5 minutes on 2 cores).
"""

from __future__ import annotations

import itertools
import math
import time

import numpy as np

from calreport.metrics import _risk_rows as rows
from calreport.metrics import risk

SEEDS = 20
#: Candidate events of the reference simulation per profile (sets its draws).
EVENTS = 2e8


def confidences(kind: str, n: int, rng: np.random.Generator) -> np.ndarray:
    mild = 0.5 + 0.5 * rng.beta(5, 2, n)
    if kind == "mild":
        return mild
    if kind == "confident":
        return rng.uniform(0.99, 0.9999, n)
    if kind == "heavy":
        return 1 - 10 ** -rng.uniform(1, 5, n)
    if kind == "mild+conf":  # 10 % of the rows at 0.99-0.9999
        k = max(1, n // 10)
        mild[:k] = rng.uniform(0.99, 0.9999, k)
        return mild
    if kind == "mild+tail":  # 1 % of the rows at 1 - 10**-U(3, 6)
        k = max(1, n // 100)
        mild[:k] = 1 - 10 ** -rng.uniform(3, 6, k)
        return mild
    raise ValueError(kind)


def profile(kind: str, n: int, over: float, seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Errors ``over`` times as frequent as the confidences claim (1: calibrated)."""
    rng = np.random.default_rng(seed)
    c = confidences(kind, n, rng)
    ok = rng.random(n) >= np.minimum((1 - c) * over, 1.0)
    return c, ok


def full_simulation(a: np.ndarray, p: np.ndarray, b: int, rng: np.random.Generator
                    ) -> np.ndarray:
    """``b`` exact draws of ``S = sum_i a_i Y_i``, ``Y_i ~ Bernoulli(p_i)``."""
    flip = p > 0.5  # rows likelier wrong than right: draw their right outcomes
    q = np.where(flip, 1.0 - p, p)
    signed = np.where(flip, -a, a)
    level = np.floor(np.log2(np.maximum(q, 1e-300)) * 4).astype(np.int64)
    order = np.lexsort((q, level))
    cuts = np.flatnonzero(np.r_[True, level[order][1:] != level[order][:-1], True])
    out = np.full(b, float(a[flip].sum()))
    for s, e in itertools.pairwise(cuts):
        idx = order[s:e]
        n, q_max = idx.size, float(q[idx].max())
        if q_max <= 0:
            continue
        per = max(1, int((1 << 22) / (n * q_max)))  # draws per chunk: bounded memory
        for d0 in range(0, b, per):
            bb = min(per, b - d0)
            total, last, pos = bb * n, -1, [np.zeros(0, np.int64)]
            while last < total - 1:
                mean = (total - 1 - last) * q_max
                gaps = rng.geometric(q_max, size=int(mean + 8 * math.sqrt(mean) + 64))
                pos.append(np.cumsum(gaps) + last)
                last = int(pos[-1][-1])
            at = np.concatenate(pos)
            at = at[at < total]
            draw, row = np.divmod(at, n)
            keep = rng.random(at.size) < q[idx][row] / q_max
            out[d0:d0 + bb] += np.bincount(draw[keep], weights=signed[idx][row[keep]],
                                           minlength=bb)
    return out


PROFILES = ([("heavy", n, o) for n in (50, 300, 3000) for o in (1.0, 1.1)]
            + [("confident", n, o) for n in (50, 1000, 10000) for o in (1.0, 1.1)]
            + [("mild+conf", n, o) for n in (300, 3000, 100000) for o in (1.0, 1.1)]
            + [("mild+tail", n, o) for n in (1000, 30000) for o in (1.0, 1.1)]
            + [("mild", 50, o) for o in (1.0, 1.1)])


def main() -> None:
    print("| profile | N | errors x | CSR | method (draws, median) | full simulation "
          "(SE) | auto, mean of 20 seeds | difference / SE | reported SE (rms) | "
          "empirical sd | ratio | permuted rows |")
    print("|---|---:|---:|---:|---|---:|---:|---:|---:|---:|---:|---|")
    t0 = time.perf_counter()
    for i, (kind, n, over) in enumerate(PROFILES):
        c, ok = profile(kind, n, over, 100 + i)
        r = rows._rows(c, ok, None, risk.EPS, "importance", warn=False)[0]
        events = float(np.minimum(r.p, r.c).sum())
        draws = int(min(400_000, max(20_000, EVENTS / max(events, 1.0))))
        sims = full_simulation(r.atom, r.p, draws, np.random.default_rng(10_000 + i))
        tol = 1e-10 * max(r.s_obs, r.denom)
        ref = float(np.mean(sims < r.s_obs - tol))
        ref_se = math.sqrt(ref * (1 - ref) / draws)
        runs = [risk.risk_summary(c, ok, seed=s) for s in range(SEEDS)]
        vals = np.array([x.p_risk for x in runs])
        ses = np.array([x.p_risk_se for x in runs])
        rms = float(np.sqrt(np.mean(ses ** 2)))
        sd = float(vals.std(ddof=1))
        se_diff = math.sqrt(rms ** 2 / SEEDS + ref_se ** 2)
        diff = float(vals.mean()) - ref
        perm = np.random.default_rng(i).permutation(n)
        same = risk.risk_summary(c[perm], ok[perm], seed=0).p_risk == runs[0].p_risk
        method = runs[0].p_risk_method
        if method == "monte_carlo":
            part = "conditional" if "largest variance" in runs[0].method_reason else "all rows"
            method = f"Monte Carlo, {part} ({int(np.median([x.n_sim for x in runs]))})"
        ratio = f"{sd / rms:.2f}" if rms > 0 else "-"
        z = f"{diff / se_diff:+.2f}" if se_diff > 0 else f"{diff:+.1e} (no SE)"
        print(f"| {kind} | {n} | {over:g} | {runs[0].csr:.3f} | {method} | {ref:.4f} "
              f"({ref_se:.4f}) | {vals.mean():.4f} | {z} | {rms:.4f} | "
              f"{sd:.4f} | {ratio} | {'identical' if same else 'DIFFERENT'} |", flush=True)
    print(f"\n{len(PROFILES)} profiles in {time.perf_counter() - t0:.0f} s")


if __name__ == "__main__":
    main()
