"""Replicate finishers of the registry's bootstrap intervals.

Each takes the replicate sums (:class:`calreport.bootstrap.kernels.ReplicateSums`, or
the grouped sums of :mod:`calreport._segmented`, or a merged out-of-core state's
sums, :class:`calreport.stats.finish.StateSums`) and the settings (only
``min_count`` is read) and returns one value per replicate (or group), with the
point computation's formula.  The registry entries name them in
``Interval.finish``; the out-of-core finisher calls them through the registry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
from scipy import special

from calreport.settings import Settings

__all__ = ["auc", "aurc", "cwauc", "delta_auc", "ece", "gain", "mce", "p_risk", "ratio",
           "sigma", "signed_ece", "z"]


def ratio(num: str, den: str = "one") -> Callable[[Any, Settings], np.ndarray]:
    def finish(k: Any, s: Settings) -> np.ndarray:
        return k.ratio(num, den)
    return finish


def gain(k: Any, s: Settings) -> np.ndarray:
    acc, cwa = k.ratio("correct"), k.ratio("c_correct", "c")
    return (cwa - acc) / (1.0 - np.minimum(cwa, acc))


def sigma(k: Any, s: Settings) -> np.ndarray:
    return np.sqrt(k.sum("csr_var2")) / k.sum("one")


def z(k: Any, s: Settings) -> np.ndarray:
    return (k.ratio("csr") - 1.0) / sigma(k, s)


def p_risk(k: Any, s: Settings) -> np.ndarray:
    # the paper's Phi(z) on both sides of CSR = 1 (arXiv:2605.01796, section 2.1)
    return np.asarray(special.ndtr(z(k, s)), dtype=np.float64)


def ece(k: Any, s: Settings) -> np.ndarray:
    return np.abs(k.per_bin("bin_diff")).sum(axis=1) / k.sum("one")


def signed_ece(k: Any, s: Settings) -> np.ndarray:
    return -k.per_bin("bin_diff").sum(axis=1) / k.sum("one")


def mce(k: Any, s: Settings) -> np.ndarray:
    cnt, dsum = k.per_bin("one"), k.per_bin("bin_diff")
    occ = k.bin_occupancy()
    ok = (cnt > 0) & (occ >= s.min_count * (1.0 - 1e-12))
    gaps = np.where(ok, np.abs(dsum) / np.where(cnt > 0, cnt, 1.0), -np.inf)
    mce = gaps.max(axis=1)
    return np.where(np.isfinite(mce), mce, np.nan)


def auc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[0]


def cwauc(k: Any, s: Settings) -> np.ndarray:
    return k.auc()[1]


def delta_auc(k: Any, s: Settings) -> np.ndarray:
    auc, cw = k.auc()
    return cw - auc


def aurc(k: Any, s: Settings) -> np.ndarray:
    return k.aurc()
