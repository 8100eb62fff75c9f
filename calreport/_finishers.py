"""Replicate finishers of the registry's bootstrap intervals.

Each takes the replicate sums (:class:`calreport.bootstrap.kernels.ReplicateSums`, or
the grouped sums of :mod:`calreport._segmented`) and the settings and returns one
value per replicate (or group), with the point computation's formula.  The registry
entries name them in ``Interval.finish``; nothing else calls them directly.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from calreport.settings import Settings


def _ratio(num: str, den: str = "one") -> Callable[[Any, Settings], np.ndarray]:
    def finish(k: Any, s: Settings) -> np.ndarray:
        return k.ratio(num, den)
    return finish


def _gain(k: Any, s: Settings) -> np.ndarray:
    acc, cwa = k.ratio("correct"), k.ratio("c_correct", "c")
    return (cwa - acc) / (1.0 - np.minimum(cwa, acc))


def _sigma(k: Any, s: Settings) -> np.ndarray:
    return np.sqrt(k.sum("csr_var2")) / k.sum("one")


def _z(k: Any, s: Settings) -> np.ndarray:
    return (k.ratio("csr") - 1.0) / _sigma(k, s)


def _p_risk(k: Any, s: Settings) -> np.ndarray:
    # the paper's Phi(z) on both sides of CSR = 1 (arXiv:2605.01796, section 2.1)
    return np.asarray(special.ndtr(_z(k, s)), dtype=np.float64)


def _ece(k: Any, s: Settings) -> np.ndarray:
    return np.abs(k.per_bin("bin_diff")).sum(axis=1) / k.sum("one")


def _signed_ece(k: Any, s: Settings) -> np.ndarray:
    return -k.per_bin("bin_diff").sum(axis=1) / k.sum("one")


def _mce(k: Any, s: Settings) -> np.ndarray:
    cnt, dsum = k.per_bin("one"), k.per_bin("bin_diff")
    occ = k.bin_occupancy()
    ok = (cnt > 0) & (occ >= s.min_count * (1.0 - 1e-12))
    gaps = np.where(ok, np.abs(dsum) / np.where(cnt > 0, cnt, 1.0), -np.inf)
    mce = gaps.max(axis=1)
    return np.where(np.isfinite(mce), mce, np.nan)


def _auc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[0]


def _cwauc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[1]


def _delta_auc(k: Any, s: Settings) -> np.ndarray:
    auc, cw = k.auc()
    return cw - auc


def _aurc(k: Any, s: Settings) -> np.ndarray:
    return k.aurc()
