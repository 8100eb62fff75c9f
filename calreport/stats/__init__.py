"""Mergeable statistics: exact per-group, per-bin sums with ``+``.

The engine-independent layer behind the Dask accessor, the streaming
:class:`~calreport.accumulator.Accumulator` and the Polars namespace.  A
:class:`StatsState` is built from a :class:`~calreport.profile.ConfidenceProfile`
(one per partition, batch or day), states are merged with ``+`` (associative,
commutative and bit-for-bit reproducible), and the metrics are finished from the
merged state by :func:`summary`, :func:`reliability`, :func:`selective` and
:func:`confusion`.  NumPy only: importing it does not import pandas.
"""

from calreport.stats.config import StatsConfig
from calreport.stats.finish import (
    KINDS,
    SUMMARY_METRICS,
    MetricTable,
    confusion,
    reliability,
    selective,
    summary,
)
from calreport.stats.state import StatsState

__all__ = [
    "KINDS",
    "SUMMARY_METRICS",
    "MetricTable",
    "StatsConfig",
    "StatsState",
    "confusion",
    "reliability",
    "selective",
    "summary",
]
