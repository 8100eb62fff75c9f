"""The figures as accessor methods: ``df.calib.plot`` and ``df.groupby(k).calib.plot``."""

from __future__ import annotations

from collections.abc import Callable, Hashable, Mapping
from typing import Any

from matplotlib.axes import Axes

from calreport.plotting._base import ProfileData
from calreport.plotting.calibration import (
    confidence_histogram,
    lowess_curve_plot,
    reliability_diagram,
)
from calreport.plotting.curves import roc_plot, selective_plot
from calreport.plotting.risk import risk_drivers_plot, risk_plot
from calreport.profile import ConfidenceProfile

__all__ = ["CalibPlots"]

# ----------------------------------------------------------------------- the accessor
class CalibPlots:
    """The figures of one profile or of the groups of a GroupBy, as methods.

    ``df.calib.plot.reliability_diagram()`` and
    ``df.groupby(key).calib.plot.reliability_diagram()`` are this class.

    Parameters
    ----------
    profiles : callable returning a mapping, or a mapping of group -> ConfidenceProfile
        Called lazily, once per figure (the accessor holds no state).

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95], correct=[1, 1, 0])
    >>> CalibPlots({"all": p}).confidence_histogram().get_title()
    'Confidence histogram'
    """

    def __init__(
        self,
        profiles: Callable[[], Mapping[Hashable, ConfidenceProfile]]
        | Mapping[Hashable, ConfidenceProfile],
    ) -> None:
        if not callable(profiles) and not isinstance(profiles, Mapping):
            raise TypeError("CalibPlots needs a mapping of group -> ConfidenceProfile or a "
                            "callable returning one.")
        self._source = profiles

    def _data(self, group: Hashable | None = None) -> ProfileData:
        profs = dict(self._source() if callable(self._source) else self._source)
        if group is not None:
            if group not in profs:
                raise KeyError(f"No group {group!r}; groups: {list(profs)[:20]}.")
            return profs[group]
        if len(profs) == 1 and next(iter(profs)) == "all":
            return next(iter(profs.values()))
        return profs

    def reliability_diagram(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`reliability_diagram` of every group (or of ``group``)."""
        return reliability_diagram(self._data(group), **kwargs)

    def lowess_curve_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`lowess_curve_plot` of every group (or of ``group``)."""
        return lowess_curve_plot(self._data(group), **kwargs)

    def confidence_histogram(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`confidence_histogram` of ``group`` (needed when there are several)."""
        return confidence_histogram(self._data(group), **kwargs)

    def roc_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`roc_plot` of every group (or of ``group``)."""
        return roc_plot(self._data(group), **kwargs)

    def selective_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`selective_plot` of every group (or of ``group``)."""
        return selective_plot(self._data(group), **kwargs)

    def risk_plot(self, **kwargs: Any) -> Axes:
        """:func:`risk_plot` of every group."""
        data = self._data()
        return risk_plot({"all": data} if isinstance(data, ConfidenceProfile) else data,
                         **kwargs)

    def risk_drivers_plot(self, *, group: Hashable | None = None, **kwargs: Any) -> Axes:
        """:func:`risk_drivers_plot` of every group (or of ``group``)."""
        return risk_drivers_plot(self._data(group), **kwargs)
