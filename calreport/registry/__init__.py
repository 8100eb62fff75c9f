"""The metric registry: the one place where each summary metric is described.

One :class:`Metric` entry per metric holds its name (the summary column), label,
direction, formula (plain text, shown in the report), references, what it needs,
which settings change it, its point computation, how its interval is obtained, why
it can be NaN and which tables beyond the summary list it (``shown_in``, read by
:func:`shown_in`).  The summary's columns and order, the report's methods section
and tables, the JSON ``metrics`` entries, the comparison's and the recalibration
advisor's metrics and the bootstrap's kernel list all come from :data:`REGISTRY`;
nothing else restates these facts.  What an entry is (:class:`Metric`,
:class:`Reference`, :class:`MetricCache`) is defined in
:mod:`calreport.registry.entry`, the entries in :mod:`calreport.registry.entries`.

Adding a metric means one entry there, its core function in
:mod:`calreport.metrics`, and its tests (the registry-driven tests then check the
bootstrap kernel against the core computation and grouped against per-subset
results automatically).  A metric in sum form -- a finisher of weighted sums of
per-row columns, such as ``fin.ratio("top_log_loss")`` -- adds its column to
:func:`calreport._finishers.row_columns` (and :data:`calreport._finishers.COLUMNS`)
when it needs a new one; the grouped sums, the bootstrap, the out-of-core state and
its Poisson replicates all sum the columns by name, so it is then exact out of core
with intervals, with no code elsewhere (a column with negative terms is declared in
:data:`calreport._finishers.SIGNED`; states saved before the column was added hold
other sums: loading one says so and asks for a rebuild).  Two measurements follow
the code: its interval coverage (``python benchmarks/coverage.py --metrics NAME
--add``) and the README's out-of-core table (``python tests/test_scale_readme.py``);
the test suite says when either is missing.

Examples
--------
>>> REGISTRY["csr"].label
'Calibrated Size Ratio (CSR)'
>>> REGISTRY["ece"].direction
'lower'
>>> [m for m in REGISTRY][:3]
['accuracy', 'cwa', 'gain']
"""

from __future__ import annotations

from collections.abc import Sequence

from calreport.interval_rules import Interval
from calreport.registry.entries import ENTRIES, P_RISK_NO_INTERVAL, SAMPLED_NO_INTERVAL
from calreport.registry.entry import TABLES, Metric, MetricCache, Reference

__all__ = [
    "COUNT_COLUMNS",
    "COUNT_LABELS",
    "P_RISK_NO_INTERVAL",
    "REGISTRY",
    "SAMPLED_NO_INTERVAL",
    "Interval",
    "Metric",
    "MetricCache",
    "Reference",
    "resolve_metrics",
    "shown_in",
]

#: Counts that lead every summary, before the metrics (``n`` and ``n_eff``:
#: :func:`calreport.metrics.weighted.sample_sizes`).
COUNT_COLUMNS = ("n", "n_dropped", "n_clipped", "n_eff")

#: Labels of the count columns (report, JSON).
COUNT_LABELS = {"n": "Rows", "n_dropped": "Rows dropped (missing values)",
                "n_clipped": "Confidences clipped for CSR",
                "n_eff": "Effective size (Kish)"}

#: Every summary metric, in summary order.
REGISTRY: dict[str, Metric] = {m.name: m for m in ENTRIES}


def resolve_metrics(metrics: Sequence[str] | str | None) -> list[str]:
    """Validate a metric selection (None = all, in registry order).

    Raises
    ------
    ValueError
        Naming the unknown metrics and listing the available ones.
    """
    if metrics is None:
        return list(REGISTRY)
    if isinstance(metrics, str):
        metrics = [metrics]
    metrics = list(metrics)
    unknown = [m for m in metrics if m not in REGISTRY]
    if unknown:
        raise ValueError(
            f"Unknown metric(s) {unknown}. Available: {', '.join(REGISTRY)}."
        )
    return list(dict.fromkeys(metrics))


def shown_in(table: str) -> tuple[str, ...]:
    """The metrics a table lists beyond the summary, in their order there.

    Parameters
    ----------
    table : str
        One of :data:`calreport.registry.entry.TABLES`: ``"report_table"`` (the
        report's groups table), ``"card"`` (a verdict card's key metrics),
        ``"comparison"`` (the paired comparison's headline), ``"recalibration"``
        (the recalibration advisor's table) or ``"report_recalibration"`` (its part
        printed in the report).

    Returns
    -------
    tuple of str
        The metrics whose :attr:`Metric.shown_in` names ``table``, by their position
        there.

    Raises
    ------
    ValueError
        Naming the unknown table and listing the known ones.

    Examples
    --------
    >>> shown_in("card")
    ('accuracy', 'ece', 'brier', 'auc')
    """
    if table not in TABLES:
        raise ValueError(f"Unknown table {table!r}. Known: {', '.join(TABLES)}.")
    listed = [m for m in REGISTRY.values() if table in m.shown_in]
    return tuple(m.name for m in sorted(listed, key=lambda m: m.shown_in[table]))
