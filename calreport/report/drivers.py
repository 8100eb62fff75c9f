"""The report's lists of most overconfident errors: one row builder for the pandas and
the out-of-core reports (:func:`error_row`)."""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from typing import Any

import numpy as np

from calreport.metrics import risk
from calreport.profile import ConfidenceProfile

__all__ = ["error_list", "error_row"]


def error_list(name: str, prof: ConfidenceProfile, labels: Sequence[Any] | None, k: int,
               eps: float) -> dict[str, Any]:
    """A group's ``k`` largest contributions to CSR, largest first, with their share."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contrib = np.asarray(risk.csr_contributions(prof.conf, prof.correct,
                                                    sample_weight=prof.sample_weight,
                                                    eps=eps), float)
    total = float(contrib.sum())
    wrong = np.flatnonzero(contrib > 0)
    order = wrong[np.argsort(-contrib[wrong], kind="stable")][:k]
    rows = [error_row(str(labels[i]) if labels is not None else str(i), float(prof.conf[i]),
                      _label(prof, prof.y_true, i), _label(prof, prof.y_pred, i),
                      float(contrib[i]), total, eps)
            for i in order.tolist()]
    return {"group": name, "rows": rows, "n_errors": int(wrong.size), "csr": total,
            "share_top": float(contrib[order].sum() / total) if total > 0 else math.nan,
            "k": len(rows), "has_labels": prof.has_labels}


def error_row(row: str, conf: float, y_true: str | None, y_pred: str | None,
              contribution: float, total: float, eps: float) -> dict[str, Any]:
    """One row of a group's list of most overconfident errors (pandas and out of core).

    ``counted_as``: the confidence CSR counts when it clips this one (above ``1 - eps``,
    :func:`calreport.metrics.risk.clip_confidence`), printed beside the raw value.
    """
    return {"row": row, "confidence": conf,
            "counted_as": (1.0 - eps) if conf > 1.0 - eps else None,
            "y_true": y_true, "y_pred": y_pred, "contribution": contribution,
            "share": contribution / total if total > 0 else math.nan}


def _label(prof: ConfidenceProfile, codes: np.ndarray | None, i: int) -> str | None:
    if codes is None or prof.classes is None:
        return None
    return str(prof.classes[int(codes[i])])
