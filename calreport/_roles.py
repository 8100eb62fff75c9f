"""Column roles: which DataFrame columns hold labels, probabilities, confidences.

Roles are given explicitly (``df.calib(y="label", proba=["p_a", "p_b"])``) or
inferred from conventional names.  Group keys are never candidates.  Anything
ambiguous or absent raises a ``ValueError`` that lists what was found and shows
the explicit call.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from calreport import _validate as v
from calreport.profile import ConfidenceProfile

Y_NAMES = ("y_true", "y", "label", "target")
PRED_NAMES = ("y_pred", "pred")
CONF_NAMES = ("confidence", "conf")
CORRECT_NAMES = ("correct",)
PROBA_SINGLE = ("proba", "prob", "y_proba", "y_prob", "y_score", "score")
_PROBA_PREFIX = re.compile(r"^(?:proba|prob|p)_(.+)$")


@dataclass(frozen=True)
class Roles:
    """Resolved column roles (column names of the frame)."""

    y: Hashable | None = None
    proba: tuple[Hashable, ...] = ()
    classes: tuple[Any, ...] | None = None
    pred: Hashable | None = None
    conf: Hashable | None = None
    correct: Hashable | None = None
    weight: Hashable | None = None
    threshold: float = 0.5
    pos_label: Any = None
    missing: str = "raise"
    inferred: dict[str, Any] = field(default_factory=dict)

    @property
    def columns(self) -> list[Hashable]:
        """Every column used, in a stable order."""
        cols = [self.y, *self.proba, self.pred, self.conf, self.correct, self.weight]
        return [c for c in cols if c is not None]

    def describe(self) -> str:
        """One-line description, for reports and error messages."""
        parts = [f"{k}={getattr(self, k)!r}" for k in ("y", "pred", "conf", "correct",
                                                       "weight") if getattr(self, k)]
        if self.proba:
            parts.insert(1, f"proba={list(self.proba)!r}")
        return ", ".join(parts)


def _explicit_call_hint(found: Mapping[str, Any]) -> str:
    return (
        "Name the columns explicitly, e.g. df.calib(y='label', proba=['proba_a', 'proba_b'])"
        " or df.calib(y='label', pred='y_pred', conf='confidence') or "
        "df.calib(conf='confidence', correct='correct')."
    )


def _pick(columns: Sequence[Hashable], names: Sequence[str], role: str) -> Hashable | None:
    lower = {str(c).lower(): c for c in columns}
    hits = [lower[n] for n in names if n in lower]
    if len(hits) > 1:
        raise ValueError(
            f"Ambiguous `{role}` column: found {hits}. Pass {role}=<column> explicitly, "
            f"e.g. df.calib({role}={hits[0]!r}, ...)."
        )
    return hits[0] if hits else None


def _class_value(suffix: str, labels: np.ndarray | None) -> Any:
    """Interpret a column suffix as a class label, matching the labels' type."""
    if labels is not None and len(labels):
        for lab in labels.tolist():
            if str(lab) == suffix:
                return lab
    try:
        return int(suffix)
    except ValueError:
        return suffix


def resolve_roles(
    df: pd.DataFrame,
    *,
    y: Hashable | None = None,
    proba: Hashable | Sequence[Hashable] | Mapping[Any, Hashable] | None = None,
    pred: Hashable | None = None,
    conf: Hashable | None = None,
    correct: Hashable | None = None,
    weight: Hashable | None = None,
    classes: Sequence[Any] | None = None,
    threshold: float = 0.5,
    pos_label: Any = None,
    missing: str = "raise",
    exclude: Sequence[Hashable] = (),
) -> Roles:
    """Resolve column roles explicitly or by conventional names.

    ``proba`` may be one column (binary positive-class probability), a list of
    columns (one per class; the class of a column is the suffix after
    ``proba_``/``prob_``/``p_``, else the column name) or a mapping class -> column.
    """
    v.check_option(missing, "missing", ("raise", "drop"))
    excluded = set(exclude)
    candidates = [c for c in df.columns if c not in excluded]
    for role, col in (("y", y), ("pred", pred), ("conf", conf), ("correct", correct),
                      ("weight", weight)):
        if col is not None and col not in df.columns:
            raise ValueError(
                f"Unknown column {col!r} for `{role}`. Available columns: "
                f"{list(map(str, df.columns))[:30]}."
            )
        if col is not None and col in excluded:
            raise ValueError(f"Column {col!r} is a group key and cannot be the `{role}` column.")
    explicit = any(a is not None for a in (y, proba, pred, conf, correct))
    inferred: dict[str, Any] = {}
    if not explicit:
        y = _pick(candidates, Y_NAMES, "y")
        pred = _pick(candidates, PRED_NAMES, "pred")
        conf = _pick(candidates, CONF_NAMES, "conf")
        correct = _pick(candidates, CORRECT_NAMES, "correct")
        single = _pick(candidates, PROBA_SINGLE, "proba")
        multi = [c for c in candidates if isinstance(c, str) and _PROBA_PREFIX.match(c)
                 and c not in (y, pred, conf, correct)]
        if single is not None and multi:
            raise ValueError(
                f"Ambiguous probability columns: found {single!r} and {multi}. Pass "
                "proba=... explicitly."
            )
        proba = single if single is not None else (multi or None)
        inferred = {k: val for k, val in (("y", y), ("proba", proba), ("pred", pred),
                                          ("conf", conf), ("correct", correct)) if val}
        usable = (y is not None and proba is not None) or (
            conf is not None and (correct is not None or (y is not None and pred is not None)))
        if not usable:
            found = ", ".join(f"{k}: {val!r}" for k, val in inferred.items()) or "none"
            raise ValueError(
                "Could not infer the prediction columns from their names (conventional "
                f"names found: {found}; columns: {list(map(str, candidates))[:20]}). "
                + _explicit_call_hint(inferred)
            )
    proba_cols: tuple[Hashable, ...] = ()
    cls: tuple[Any, ...] | None = tuple(classes) if classes is not None else None
    if proba is not None:
        if isinstance(proba, Mapping):
            cls = tuple(proba.keys())
            proba_cols = tuple(proba.values())
        elif isinstance(proba, (list, tuple, pd.Index)):
            proba_cols = tuple(proba)
        else:
            proba_cols = (proba,)
        for col in proba_cols:
            if col not in df.columns:
                raise ValueError(
                    f"Unknown probability column {col!r}. Available columns: "
                    f"{list(map(str, df.columns))[:30]}."
                )
            if col in excluded:
                raise ValueError(f"Column {col!r} is a group key and cannot hold probabilities.")
        if len(proba_cols) > 1 and cls is None:
            labels = None
            if y is not None:
                labels = np.asarray(pd.unique(df[y].dropna()))
            cls = tuple(
                _class_value(m.group(1), labels) if (m := _PROBA_PREFIX.match(str(c)))
                else c for c in proba_cols
            )
    return Roles(y=y, proba=proba_cols, classes=cls, pred=pred, conf=conf, correct=correct,
                 weight=weight, threshold=threshold, pos_label=pos_label, missing=missing,
                 inferred=inferred)


def build_profile(df: pd.DataFrame, roles: Roles) -> tuple[ConfidenceProfile, int, np.ndarray]:
    """Build a profile from the role columns of ``df`` (never modifying ``df``).

    Returns
    -------
    profile, n_dropped, kept_positions
    """
    cols = roles.columns
    keep = np.arange(len(df))
    n_dropped = 0
    sub = df
    if cols:
        na = df[cols].isna().to_numpy().any(axis=1)
        if na.any():
            if roles.missing == "drop":
                keep = np.flatnonzero(~na)
                n_dropped = int(na.sum())
                sub = df.iloc[keep]
            # with missing="raise" the validators name the column and count
    names = {"y_true": _name(roles.y), "y_pred": _name(roles.pred),
             "conf": _name(roles.conf), "correct": _name(roles.correct),
             "sample_weight": _name(roles.weight)}
    if roles.proba:
        names["proba"] = (_name(roles.proba[0]) if len(roles.proba) == 1
                          else ", ".join(map(str, roles.proba)))
        if len(roles.proba) > 1:
            for col in roles.proba:
                v.as_float_array(sub[col], _name(col))  # per-column messages
    proba = None
    if roles.proba:
        proba = (sub[roles.proba[0]] if len(roles.proba) == 1
                 else _frame_values(sub, roles.proba))
    get = lambda c: None if c is None else sub[c]  # noqa: E731
    profile = ConfidenceProfile.from_arrays(
        get(roles.y), proba, y_pred=get(roles.pred), conf=get(roles.conf),
        correct=get(roles.correct), classes=None if roles.classes is None else
        np.asarray(roles.classes, dtype=object if any(isinstance(c, str) for c in
                                                      roles.classes) else None),
        sample_weight=get(roles.weight), threshold=roles.threshold,
        pos_label=roles.pos_label, names={k: val for k, val in names.items() if val},
    )
    return profile, n_dropped, keep


def _frame_values(sub: pd.DataFrame, cols: Sequence[Hashable]) -> np.ndarray:
    return np.column_stack([v.as_float_array(sub[c], _name(c)) for c in cols])


def _name(col: Hashable | None) -> str | None:
    return None if col is None else str(col)
