"""How each metric and its interval are computed beyond one machine (Dask, the
streaming accumulator).

Every :class:`~calreport.registry.Metric` carries ``scaling = (kind, note, interval,
interval_note)`` (a plain tuple: the registry sits below this package);
:func:`scaling_of` reads it as a checked :class:`Scaling`.  ``kind`` is

* ``"exact"`` -- finished from merged exact sums; equal to the pandas value up to the
  float64 rounding of the final arithmetic;
* ``"bounded"`` -- read off fine fixed score bins; the true value lies within the
  error bound reported beside it;
* ``"sampled"`` -- computed by the pandas code on a fixed-size uniform sample of each
  group (:mod:`calreport.stats.sample`; exact when the group fits in the sample);
* ``"none"`` -- not available out of core.

``interval`` is

* ``"poisson"`` -- from the Poisson bootstrap replicates, which are sums accumulated
  and merged with the state (:mod:`calreport.stats.poisson`), by the metric's interval
  method in the registry (``Interval.method``: percentile, or basic), as the pandas
  path;
* ``"delong"`` -- DeLong's normal interval of the binned AUC, widened by its bound
  (:mod:`calreport.stats.intervals`);
* ``"none"`` -- no interval; ``interval_note`` says why and is the reason the output
  gives.

The notes are one line each (printed in the README's table and in the output).
"""

from __future__ import annotations

from dataclasses import dataclass

from calreport.registry import REGISTRY

__all__ = ["INTERVALS", "KINDS", "Scaling", "markdown_table", "scaling_of"]

#: Allowed kinds, from the most to the least faithful.
KINDS = ("exact", "bounded", "sampled", "none")
#: Allowed interval methods out of core.
INTERVALS = ("poisson", "delong", "none")


@dataclass(frozen=True)
class Scaling:
    """Out-of-core computation of a metric and of its interval, each with a note.

    Examples
    --------
    >>> Scaling("exact", "merged sums", "poisson", "Poisson replicates").interval
    'poisson'
    """

    kind: str = "none"
    note: str = "not available out of core"
    interval: str = "none"
    interval_note: str = "not available out of core"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}, got {self.kind!r}.")
        if self.interval not in INTERVALS:
            raise ValueError(f"`interval` must be one of {INTERVALS}, got {self.interval!r}.")
        for name in ("note", "interval_note"):
            text = getattr(self, name)
            if not text or "\n" in text:
                raise ValueError(f"`{name}` must be one non-empty line.")


def scaling_of(metric: str) -> Scaling:
    """The registry's out-of-core kind and note of a metric, checked.

    Examples
    --------
    >>> scaling_of("auc").kind
    'bounded'
    """
    return Scaling(*REGISTRY[metric].scaling)


def markdown_table() -> str:
    """The README's table: every registry metric, its out-of-core kind and how, and its
    interval out of core (or why there is none).

    Examples
    --------
    >>> markdown_table().splitlines()[0]
    '| metric | out of core | how | interval (`ci=`) |'
    """
    lines = ["| metric | out of core | how | interval (`ci=`) |", "| --- | --- | --- | --- |"]
    for name in REGISTRY:
        sc = scaling_of(name)
        ci = (f"none: {sc.interval_note}" if sc.interval == "none" else
              f"{REGISTRY[name].interval.method}, {sc.interval_note}"
              if sc.interval == "poisson" else sc.interval_note)
        lines.append(f"| `{name}` | {sc.kind} | {sc.note} | {ci} |")
    return "\n".join(lines)
