"""Figures: reliability diagram, LOWESS calibration curve, ROC vs cwROC, selective, risk.

Every function takes the data (a :class:`~calreport.profile.ConfidenceProfile`, or a
mapping ``group -> profile`` to overlay one series per group), draws on ``ax`` and
returns the Axes.  Without ``ax``, a figure asked for by the caller's code is created
through ``matplotlib.pyplot`` (a notebook shows it inline, ``plt.show()`` finds it),
one the report draws is a bare :class:`matplotlib.figure.Figure` that ``pyplot``
never holds; with ``ax``, nothing else is created.  The numbers drawn are the ones
the metric functions compute: nothing is recomputed here.  Styles are passed
explicitly, so plotting never changes ``matplotlib.rcParams``.
Overlays take ``grey=[...]``: groups drawn as thin grey context ("all other
groups") behind the highlighted ones, so figures stay legible for many groups.

Modules: :mod:`~calreport.plotting.calibration` (reliability diagram, LOWESS curve,
confidence histogram), :mod:`~calreport.plotting.curves` (ROC, selective),
:mod:`~calreport.plotting.risk` (risk by group, risk drivers),
:mod:`~calreport.plotting.accessor` (:class:`CalibPlots`, ``df.calib.plot``).
Colours of the risk bands are defined once, in :data:`BAND_COLORS`.
"""

from calreport._grouping import group_name
from calreport.plotting._base import (
    BAND_COLORS,
    BAND_FILLS,
    DENSE_POINTS,
    GREY,
    PALETTE,
    band_key,
    figure_to_data_uri,
    pool_profiles,
    stable_svg_ids,
)
from calreport.plotting.accessor import CalibPlots
from calreport.plotting.calibration import (
    confidence_histogram,
    lowess_curve_plot,
    reliability_caption,
    reliability_diagram,
)
from calreport.plotting.corp import corp_caption, corp_diagram, murphy_diagram_plot
from calreport.plotting.curves import default_taus, roc_plot, selective_plot
from calreport.plotting.risk import cumulative_csr_share, risk_drivers_plot, risk_plot

__all__ = [
    "BAND_COLORS",
    "BAND_FILLS",
    "DENSE_POINTS",
    "GREY",
    "PALETTE",
    "CalibPlots",
    "band_key",
    "confidence_histogram",
    "corp_caption",
    "corp_diagram",
    "cumulative_csr_share",
    "default_taus",
    "figure_to_data_uri",
    "group_name",
    "lowess_curve_plot",
    "murphy_diagram_plot",
    "pool_profiles",
    "reliability_caption",
    "reliability_diagram",
    "risk_drivers_plot",
    "risk_plot",
    "roc_plot",
    "selective_plot",
    "stable_svg_ids",
]
