"""The top-label confidence check: a confidence below 1/K given with predicted labels.

The confidence in the predicted (most probable) of K classes is at least ``1/K``;
:func:`check_top_label_confidence` warns with :class:`TopLabelConfidenceWarning`
when a column given as that confidence is lower, which usually means it holds the
probability of a fixed class.  Both are re-exported by :mod:`calreport._labels`.
"""

from __future__ import annotations

import warnings

import numpy as np

from calreport._validate import _plural
from calreport._warnings import user_stacklevel

__all__ = ["TopLabelConfidenceWarning", "check_top_label_confidence"]


class TopLabelConfidenceWarning(UserWarning):
    """A top-label confidence below 1/K: it cannot be the probability of the most
    probable class."""


def check_top_label_confidence(conf: np.ndarray, n_classes: int, name: str) -> None:
    """Warn when confidences given with predicted labels are below ``1/K``.

    The confidence in the predicted (most probable) class is at least ``1/K``; a
    lower value usually means the column holds the probability of a fixed class.
    """
    if n_classes < 2:
        return
    low = conf < 1.0 / n_classes - 1e-12
    if low.any():
        pos = int(np.flatnonzero(low)[0])
        warnings.warn(
            f"`{name}` is below 1/K = {1.0 / n_classes:.4g} on "
            f"{_plural(int(low.sum()), 'row')} (first at position {pos}: {conf[pos].item()!r}) "
            f"with K = {n_classes} classes: a top-label confidence (the probability of "
            "the predicted class) is at least 1/K. Check that it is the confidence in the "
            "predicted label; for the probability of a fixed class pass it as proba= "
            "instead.",
            TopLabelConfidenceWarning, stacklevel=user_stacklevel(),
        )
