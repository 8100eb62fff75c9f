"""Seeded, vectorised bootstrap confidence intervals for the summary metrics.

* :mod:`~calreport.bootstrap.resampling` -- resampling counts and seeds
  (multinomial or Poisson; one stream per group, derived from its key);
* :mod:`~calreport.bootstrap.kernels` -- every registry metric of a block of
  replicates from weighted sums, with the registry's ``finish`` functions;
* :mod:`~calreport.bootstrap.intervals` -- percentile, basic and analytic
  intervals, each metric's default method from its registry entry.
* :mod:`~calreport.bootstrap.paired` -- paired replicates (the same resampled rows
  for every profile) and their percentile intervals, for ``compare()`` and the
  recalibration advisor.

Nothing re-sorts the data or rebuilds a DataFrame per replicate.
"""

from calreport.bootstrap.intervals import (
    CI_METHODS,
    BootstrapResult,
    DegenerateReplicateWarning,
    analytic_intervals,
    bootstrap_intervals,
)
from calreport.bootstrap.kernels import bootstrap_replicates
from calreport.bootstrap.resampling import RESAMPLING, group_seed, spawn_seeds

__all__ = [
    "CI_METHODS",
    "RESAMPLING",
    "BootstrapResult",
    "DegenerateReplicateWarning",
    "analytic_intervals",
    "bootstrap_intervals",
    "bootstrap_replicates",
    "group_seed",
    "spawn_seeds",
]
