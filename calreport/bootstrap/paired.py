"""Paired bootstrap replicates: one resample of the rows per replicate, for every profile.

:func:`calreport.compare.compare_groups` (models scored on the same rows) and the
recalibration advisor (methods applied to the same rows) both read a difference's
interval from replicates in which the two sides were computed on the same resampled
rows, so what the rows share cancels in the difference.  Each profile's metrics come
from its :class:`~calreport.bootstrap.kernels.Kernels` (the registry's finishers, as
the summary's bootstrap), given the same counts.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Hashable, Mapping, Sequence

import numpy as np

from calreport._progress import Steps
from calreport.bootstrap.kernels import Kernels, block_replicates
from calreport.bootstrap.resampling import STREAM_REPLICATES, Resampler, spawn_seeds
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings

__all__ = ["paired_interval", "paired_replicates", "paired_streams"]


def paired_streams(seed: np.random.SeedSequence | int, n: int, n_boot: int
                   ) -> tuple[Resampler, list[np.random.SeedSequence]]:
    """The multinomial resampler of ``n`` rows and the child streams of ``n_boot``
    replicates: :meth:`Resampler.draw_block` of replicates ``a:b`` gives the same
    counts whenever it is called (refits draw their rows again from them).

    A :class:`~numpy.random.SeedSequence` is not advanced (spawning from it would
    give other streams on a second call): the streams are those of its next spawn.
    """
    if isinstance(seed, np.random.SeedSequence):
        seed = np.random.SeedSequence(seed.entropy, spawn_key=seed.spawn_key,
                                      pool_size=seed.pool_size,
                                      n_children_spawned=seed.n_children_spawned)
    return (Resampler.of(n, "multinomial"),
            spawn_seeds(seed, -(-n_boot // STREAM_REPLICATES)))


def paired_replicates(
    profiles: Mapping[Hashable, ConfidenceProfile],
    settings: Settings,
    names: Sequence[str],
    *,
    n_boot: int,
    seed: np.random.SeedSequence | int,
    order: np.ndarray | None = None,
    progress: bool | None = None,
    label: str = "paired bootstrap",
) -> dict[Hashable, dict[str, np.ndarray]]:
    """Replicates of ``names`` for every profile, each replicate on the same resampled
    rows for all of them.

    Parameters
    ----------
    profiles : mapping
        Key -> profile; every profile has the same rows in the same order.
    settings : Settings
        Metric settings (bins, view, ``tau``, ``eps``).
    names : sequence of str
        Registry metrics with a bootstrap interval; a metric a profile cannot give
        stays NaN.
    n_boot : int
        Replicates.
    seed : SeedSequence or int
        Master seed of the counts.
    order : ndarray of int, optional
        Row order the counts are drawn in (a canonical order makes the replicates
        independent of the input's row order); default: each profile's first order.
    progress : bool, optional
        A progress bar (default: when the work is expected to take seconds).
    label : str
        The bar's label.

    Returns
    -------
    dict
        Key -> metric -> array of shape ``(n_boot,)``; NaN where a replicate leaves a
        metric undefined.
    """
    n = next(iter(profiles.values())).n
    kernels = {key: Kernels(p, settings, names, order=order) for key, p in profiles.items()}
    out = {key: {m: np.full(n_boot, np.nan) for m in names} for key in profiles}
    sampler, streams = paired_streams(seed, n, n_boot)
    block = block_replicates(max(n, 1), n_boot)  # the summary bootstrap's blocks
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        with Steps(n_boot, label, "rep", progress) as steps:
            for start in range(0, n_boot, block):
                stop = min(start + block, n_boot)
                counts = sampler.draw_block(streams, start, stop)
                for key, k in kernels.items():
                    # each profile's kernels read the counts in their own first order
                    # (its bins', say): the same row gets the same count in all
                    for m, vals in k.evaluate_counts(counts[:, k.first_rows]).items():
                        out[key][m][start:stop] = vals
                steps.done(stop - start)
    return out


def paired_interval(reps: np.ndarray, base: np.ndarray, ci: float
                    ) -> tuple[float, float, str]:
    """Percentile interval of the paired differences ``reps - base`` (replicates on
    the same resampled rows), or NaN and the reason.

    Parameters
    ----------
    reps, base : ndarray
        Replicates of the two sides, replicate ``r`` of both on the same rows.
    ci : float
        Level.

    Returns
    -------
    tuple
        ``(low, high, reason)``; NaN ends and the reason when fewer than half of the
        replicates define the difference (the rest would describe only the resamples
        in which the metric exists), else ``reason`` is empty.

    Examples
    --------
    >>> paired_interval(np.arange(5.0), np.zeros(5), 0.5)
    (1.0, 3.0, '')
    """
    d = np.asarray(reps, dtype=np.float64) - base
    finite = d[np.isfinite(d)]
    if finite.size < 2 or 2 * finite.size < d.size:
        return math.nan, math.nan, (f"fewer than half of the {d.size} paired replicates "
                                    "define the difference")
    alpha = (1.0 - ci) / 2.0
    lo, hi = np.quantile(finite, [alpha, 1.0 - alpha])
    return float(lo), float(hi), ""
