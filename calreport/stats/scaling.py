"""How each metric is computed beyond one machine (Dask, the streaming accumulator).

Every :class:`~calreport.registry.Metric` carries ``scaling = (kind, note)`` (a plain
tuple: the registry sits below this package); :func:`scaling_of` reads it as a
checked :class:`Scaling`.  ``kind`` is

* ``"exact"`` -- finished from merged exact sums; equal to the pandas value up to the
  float64 rounding of the final arithmetic;
* ``"bounded"`` -- read off fine fixed score bins; the true value lies within the
  error bound reported beside it;
* ``"sampled"`` -- computed by the pandas code on a fixed-size uniform sample of each
  group (:mod:`calreport.stats.sample`; exact when the group fits in the sample);
* ``"none"`` -- not available out of core.

``note`` is one line saying how (printed in the README's table and in the output).
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "Scaling", "markdown_table", "scaling_of"]

#: Allowed kinds, from the most to the least faithful.
KINDS = ("exact", "bounded", "sampled", "none")


@dataclass(frozen=True)
class Scaling:
    """Out-of-core computation of a metric: its kind and a one-line note.

    Examples
    --------
    >>> Scaling("exact", "merged sums").kind
    'exact'
    """

    kind: str = "none"
    note: str = "not available out of core"

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(f"`kind` must be one of {KINDS}, got {self.kind!r}.")
        if not self.note or "\n" in self.note:
            raise ValueError("`note` must be one non-empty line.")


def scaling_of(metric: str) -> Scaling:
    """The registry's out-of-core kind and note of a metric, checked.

    Examples
    --------
    >>> scaling_of("auc").kind
    'bounded'
    """
    from calreport.registry import REGISTRY

    return Scaling(*REGISTRY[metric].scaling)


def markdown_table() -> str:
    """The README's table: every registry metric, its out-of-core kind and how.

    Examples
    --------
    >>> markdown_table().splitlines()[0]
    '| metric | out of core | how |'
    """
    from calreport.registry import REGISTRY

    lines = ["| metric | out of core | how |", "| --- | --- | --- |"]
    for name in REGISTRY:
        sc = scaling_of(name)
        lines.append(f"| `{name}` | {sc.kind} | {sc.note} |")
    return "\n".join(lines)
