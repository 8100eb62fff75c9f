"""P_risk of many profiles at once: the grouped summaries' risk column.

Each group's P_risk is exactly the one :func:`calreport.metrics.risk.risk_summary`
gives on its rows; what is shared is the validation of the whole frame and the first
look of the sequential Monte Carlo null, drawn for every group in one pass.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from calreport.metrics._risk_null import batched_first, first_looks, null_test
from calreport.metrics._risk_rows import N_SIM, _trusted_rows

__all__ = ["p_risk_many"]


def p_risk_many(groups: list[tuple[np.ndarray, np.ndarray, np.ndarray | None]], *,
                eps: float, method: str, seed: int) -> list[tuple[float, str] | str]:
    """P_risk and its method of many profiles on validated arrays (importance weights).

    Parameters
    ----------
    groups : list of (conf, correct, sample_weight)
        Each profile's validated arrays (``sample_weight`` None or importance weights).
    eps : float
        Confidence clipping, as in :func:`calreport.metrics.risk.risk_summary`.
    method : str
        P_risk method (``"auto"``, ``"normal"``, ``"monte_carlo"``...).
    seed : int
        Seed of every profile's Monte Carlo null.

    Returns
    -------
    list
        Per profile, ``(p_risk, method)`` or the message of its ValueError.

    Notes
    -----
    The grouped summaries call it once for all groups: the arrays were validated once
    for the whole frame, and the first look of the sequential Monte Carlo null is
    drawn for every group in one pass.  Each entry is exactly ``(risk_summary(...)
    .p_risk, .p_risk_method)`` for that group's rows and integer ``seed`` (or the
    message of the ValueError it would raise): it does not depend on the other groups.
    """
    profiles: list[Any] = []
    for conf, correct, sample_weight in groups:
        try:
            c = np.clip(conf, eps, 1.0 - eps)
            profiles.append(_trusted_rows(conf, c, correct, sample_weight, "importance"))
        except ValueError as exc:
            profiles.append(str(exc))
    base = int(seed)
    batch = [i for i, r in enumerate(profiles)
             if not isinstance(r, str) and batched_first(r, method, N_SIM, base)]
    first = dict(zip(batch, first_looks([profiles[i] for i in batch], N_SIM, base),
                     strict=True)) if batch else {}
    out: list[tuple[float, str] | str] = []
    for i, r in enumerate(profiles):
        if isinstance(r, str):
            out.append(r)
            continue
        try:
            test = null_test(r, method, N_SIM, np.random.default_rng(seed), base,
                         first.get(i))
        except ValueError as exc:
            out.append(str(exc))
            continue
        out.append((test.p_risk, test.method))
    return out
