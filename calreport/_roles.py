"""Column roles: which DataFrame columns hold labels, probabilities, confidences.

Roles are given explicitly (``df.calib(y="label", proba=["p_a", "p_b"])``) or
inferred from conventional names; roles given in part are completed from the same
names (``df.calib(proba="score")`` finds ``y``).  Group keys are never candidates.
Anything ambiguous or absent raises a :class:`ColumnRoleError` that lists what was
found and shows the explicit call: in Python (``str()``) or as the command line's
flags (:meth:`ColumnRoleError.cli_message`).

Conventional names (case-insensitive): labels ``y_true``, ``y``, ``label``,
``target``; one probability column ``proba``, ``prob``, ``p``, ``y_proba``,
``y_prob``, ``y_score``, ``score``, or one per class ``proba_<class>``,
``prob_<class>``, ``p_<class>``; predictions ``y_pred``, ``pred``; confidences
``confidence``, ``conf``; correctness ``correct``.  Two candidates for one role are
ambiguous and never chosen between.
"""

from __future__ import annotations

import re
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pandas as pd

from calreport import _labels as lab
from calreport import _validate as v
from calreport._role_errors import _SHAPES, ColumnRoleError, _examples
from calreport.profile import ConfidenceProfile

Y_NAMES = ("y_true", "y", "label", "target")
PRED_NAMES = ("y_pred", "pred")
CONF_NAMES = ("confidence", "conf")
CORRECT_NAMES = ("correct",)
PROBA_SINGLE = ("proba", "prob", "p", "y_proba", "y_prob", "y_score", "score")
_PROBA_PREFIX = re.compile(r"^(?:proba|prob|p)_(.+)$")


@dataclass(frozen=True)
class Roles:
    """Resolved column roles (column names of the frame).

    ``class_source`` is ``"classes"`` or ``"mapping"`` when the user said which
    class each probability column holds; ``classes`` set by other code (e.g. the
    classes of a whole frame) only widens the label set and never overrides the
    column names or the positive-class rule.
    """

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
    weights: str = "importance"
    class_source: str | None = None

    @property
    def columns(self) -> list[Hashable]:
        """Every column used, in a stable order."""
        cols = [self.y, *self.proba, self.pred, self.conf, self.correct, self.weight]
        return [c for c in cols if c is not None]


def _pick(columns: Sequence[Hashable], names: Sequence[str], role: str) -> Hashable | None:
    lower: dict[str, Hashable] = {}
    for c in columns:
        lower.setdefault(str(c).lower(), c)
    hits = [lower[n] for n in names if n in lower]
    if len(hits) > 1:
        raise ColumnRoleError(f"Ambiguous `{role}` column: found {hits}.",
                              [{role: hits[0]}], partial=True)
    return hits[0] if hits else None


def _usable(roles: Mapping[str, Any]) -> bool:
    """True when the roles make one of the input shapes."""
    return any(all(roles.get(r) is not None for r in shape) for shape in _SHAPES)


def _infer_proba(candidates: Sequence[Hashable], taken: Sequence[Any]) -> Any:
    """The probability column(s) by name: one column, or one ``proba_<class>`` per class."""
    single = _pick(candidates, PROBA_SINGLE, "proba")
    multi = list(dict.fromkeys(
        c for c in candidates if isinstance(c, str) and _PROBA_PREFIX.match(c)
        and c not in taken))
    if single is not None and multi:
        raise ColumnRoleError(f"Ambiguous probability columns: found {single!r} and {multi}.",
                              [{"proba": single}, {"proba": multi}], partial=True)
    return single if single is not None else (multi or None)


_NAMES = {"y": Y_NAMES, "pred": PRED_NAMES, "conf": CONF_NAMES, "correct": CORRECT_NAMES}


def _complete(candidates: Sequence[Hashable], given: dict[str, Any]) -> dict[str, Any]:
    """Roles given in part, completed from conventional names into an input shape.

    The first shape (labels + probabilities, confidence + correctness, labels +
    prediction + confidence) that holds every given role and whose other roles are
    found by name; only those roles are added.
    """
    used = [c for col in given.values()
            for c in (col if isinstance(col, (list, tuple)) else [col])]
    free = [c for c in candidates if not any(c is u or c == u for u in used)]
    for shape in _SHAPES:
        if not set(given) <= set(shape):
            continue
        found = {}
        for role in shape:
            if role in given:
                continue
            found[role] = (_infer_proba(free, used) if role == "proba"
                           else _pick(free, _NAMES[role], role))
        if all(col is not None for col in found.values()):
            return found
    shapes = [shape for shape in _SHAPES if set(given) <= set(shape)] or list(_SHAPES)
    named = ", ".join(f"{role}={col!r}" for role, col in given.items())
    raise ColumnRoleError(
        f"The columns given ({named}) are not enough for calibration, and the other "
        f"roles were not found by their conventional names (columns: "
        f"{list(map(str, free))[:20]}).", _examples(given, shapes))


def _class_value(suffix: Any, labels: np.ndarray | None) -> Any:
    """Interpret a column suffix as a class label, matching the labels' type."""
    found = _match_label(suffix, labels)
    if found is not _NO_MATCH:
        return found
    if isinstance(suffix, str):
        try:
            return int(suffix)
        except ValueError:
            return suffix
    return suffix


_NO_MATCH = object()


class _LabelIndex:
    """The first label with a given text or label key: one pass over the labels, so
    matching K column names against K classes costs O(K), not O(K^2)."""

    def __init__(self, labels: np.ndarray) -> None:
        self.labels = labels.tolist()
        self.by_text: dict[str, int] = {}
        self.by_key: dict[Any, int] = {}
        for i, label in enumerate(self.labels):
            self.by_text.setdefault(str(label), i)
            try:
                self.by_key.setdefault(lab._key(label), i)
            except TypeError:
                continue

    def match(self, candidate: Any) -> Any:
        hits = [self.by_text.get(str(candidate), len(self.labels))]
        try:
            hits.append(self.by_key.get(lab._key(candidate), len(self.labels)))
        except TypeError:
            pass
        first = min(hits)
        return self.labels[first] if first < len(self.labels) else _NO_MATCH


def _match_label(candidate: Any, labels: np.ndarray | _LabelIndex | None) -> Any:
    """The first of ``labels`` whose text or label key equals the candidate's."""
    if labels is None:
        return _NO_MATCH
    index = labels if isinstance(labels, _LabelIndex) else _LabelIndex(labels)
    return index.match(candidate)


def _is_data(value: Any) -> bool:
    """True for data passed where a column name is expected."""
    return isinstance(value, (pd.Series, pd.DataFrame, np.ndarray, pd.api.extensions.
                              ExtensionArray))


def _check_column(df: pd.DataFrame, col: Any, role: str, excluded: set[Any]) -> None:
    """Raise unless ``col`` names exactly one column of ``df`` usable for ``role``."""
    if _is_data(col) or isinstance(col, (list, pd.Index)):
        raise v.not_a_column_name_error(col, role, df.columns)
    try:
        hash(col)
    except TypeError:
        raise TypeError(
            f"`{role}` expects a column name of the DataFrame, got an unhashable "
            f"{type(col).__name__}: {col!r}."
        ) from None
    if col not in df.columns:
        raise ValueError(
            f"Unknown column {col!r} for `{role}`. Available columns: "
            f"{list(map(str, df.columns))[:30]}."
        )
    loc = df.columns.get_loc(col)
    if not isinstance(loc, (int, np.integer)):
        count = (len(range(*loc.indices(df.shape[1]))) if isinstance(loc, slice)
                 else int(np.count_nonzero(loc)))
        if isinstance(df.columns, pd.MultiIndex) and (
                not isinstance(col, tuple) or len(col) < df.columns.nlevels):
            example = df.columns[np.arange(df.shape[1])[loc][0]]
            raise ValueError(
                f"Column {col!r} for `{role}` selects {count} columns of the column "
                f"MultiIndex; pass the full tuple of one column, e.g. {role}={example!r}."
            )
        raise v.duplicate_column_error(col, count, role)
    if col in excluded:
        raise ValueError(f"Column {col!r} is a group key and cannot be the `{role}` column.")


def _is_column(df: pd.DataFrame, value: Any) -> bool:
    if _is_data(value) or isinstance(value, (list, pd.Index)):
        return False
    try:
        return value in df.columns
    except TypeError:
        return False


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
    weights: str = "importance",
) -> Roles:
    """Resolve column roles explicitly or by conventional names.

    ``proba`` may be one column (binary positive-class probability; a tuple that
    names a column of a MultiIndex is one column), a list of columns (one per
    class) or a mapping class -> column.  The class of each listed column is
    decided by :func:`build_profile` from the data: the suffix after
    ``proba_``/``prob_``/``p_`` or the column name when they name the classes,
    else the sorted labels (scikit-learn's ``predict_proba`` order).  No data is
    read here.

    Raises
    ------
    TypeError
        When data (a Series, an array) is passed instead of a column name.
    ValueError
        For unknown, duplicated or group-key columns, or ambiguous inference.
    """
    v.check_option(missing, "missing", ("raise", "drop"))
    v.check_option(weights, "weights", v.WEIGHT_KINDS)
    excluded = set(exclude)
    candidates = [c for c in df.columns if c not in excluded]
    for role, col in (("y", y), ("pred", pred), ("conf", conf), ("correct", correct),
                      ("weight", weight)):
        if col is not None:
            _check_column(df, col, role, excluded)
    given = {role: col for role, col in (("y", y), ("proba", proba), ("pred", pred),
                                         ("conf", conf), ("correct", correct))
             if col is not None}
    inferred: dict[str, Any] = {}
    if not given:
        y = _pick(candidates, Y_NAMES, "y")
        pred = _pick(candidates, PRED_NAMES, "pred")
        conf = _pick(candidates, CONF_NAMES, "conf")
        correct = _pick(candidates, CORRECT_NAMES, "correct")
        proba = _infer_proba(candidates, [y, pred, conf, correct])
        inferred = {k: val for k, val in (("y", y), ("proba", proba), ("pred", pred),
                                          ("conf", conf), ("correct", correct))
                    if val is not None}
        if not _usable(inferred):
            found = ", ".join(f"{k}: {val!r}" for k, val in inferred.items()) or "none"
            raise ColumnRoleError(
                "Could not infer the prediction columns from their names (conventional "
                f"names found: {found}; columns: {list(map(str, candidates))[:20]}).",
                _examples(inferred))
    elif not _usable(given):
        inferred = _complete(candidates, given)
        y = inferred.get("y", y)
        proba = inferred.get("proba", proba)
        pred = inferred.get("pred", pred)
        conf = inferred.get("conf", conf)
        correct = inferred.get("correct", correct)
    if inferred:
        for role, col in (("y", y), ("pred", pred), ("conf", conf), ("correct", correct)):
            if col is not None and role in inferred:
                _check_column(df, col, role, excluded)
    proba_cols: tuple[Hashable, ...] = ()
    cls: tuple[Any, ...] | None = None
    source: str | None = None
    if classes is not None:
        cls = tuple(classes.tolist() if isinstance(classes, np.ndarray) else list(classes))
        source = "classes"
    if proba is not None:
        if isinstance(proba, Mapping):
            cls, source = tuple(proba.keys()), "mapping"
            proba_cols = tuple(proba.values())
        elif _is_column(df, proba):
            proba_cols = (proba,)
        elif isinstance(proba, (list, tuple, pd.Index)):
            proba_cols = tuple(proba)
        else:
            proba_cols = (proba,)
        if not proba_cols:
            raise ValueError("`proba` is an empty list: pass one probability column per "
                             "class, or one column for a binary problem.")
        for col in proba_cols:
            _check_column(df, col, "proba", excluded)
        repeated = [c for i, c in enumerate(proba_cols) if c in proba_cols[:i]]
        if repeated:
            raise ValueError(
                f"`proba` lists the column {repeated[0]!r} more than once; list each "
                "class's probability column once."
            )
    return Roles(y=y, proba=proba_cols, classes=cls, pred=pred, conf=conf, correct=correct,
                 weight=weight, threshold=threshold, pos_label=pos_label, missing=missing,
                 inferred=inferred, weights=weights, class_source=source)


def _series(df: pd.DataFrame, col: Hashable) -> pd.Series:
    """The one column ``col`` (duplicates were refused by :func:`resolve_roles`)."""
    return df.iloc[:, df.columns.get_loc(col)]


def _float_matrix(df: pd.DataFrame, cols: Sequence[Hashable],
                  keep: np.ndarray | None) -> np.ndarray:
    """The probability columns as a new C-ordered float64 ``(N, K)`` array.

    At most one copy of the N x K values: pandas gives a view of one block of
    float64 columns, which is copied once, or an array of its own (columns from
    several blocks, rows dropped, another dtype), which is kept; a non-numeric
    column gets the validator's message naming it.
    """
    sub = df.iloc[:, [df.columns.get_loc(c) for c in cols]]
    if keep is not None:
        sub = sub.take(keep)
    for j, col in enumerate(cols):  # "0.1" would be parsed silently
        v.refuse_text_numbers(sub.iloc[:, j], _name(col))
    try:
        values = sub.to_numpy(dtype=np.float64, na_value=np.nan)
    except (TypeError, ValueError):
        for j, col in enumerate(cols):
            v.as_float_array(sub.iloc[:, j], _name(col))  # raises naming the column
        raise
    # a view spans one block, which holds the first column too
    shared = keep is None and np.may_share_memory(values, _series(df, cols[0]).to_numpy())
    if shared or not values.flags.c_contiguous:
        return np.array(values, dtype=np.float64, order="C", copy=True)
    return values


def _check_named_columns(cols: Sequence[Hashable], classes: np.ndarray, yt: Any, yp: Any,
                         label_names: tuple[Any, ...]) -> None:
    """``classes=`` given in another order than the classes the column names name:
    one of the two declarations would silently win, so neither does."""
    labels = lab.infer_classes(lab.label_array(classes), yt, yp,
                               names=("classes", *label_names))
    named = _column_classes(cols, labels)
    if named is None:
        return
    given = [lab._key(c) for c in classes.tolist()]
    said = [lab._key(c) for c in named[0]]
    if given != said:
        bad = next(i for i, (a, b) in enumerate(zip(given, said, strict=True)) if a != b)
        raise ValueError(
            f"classes={classes.tolist()} maps the column {_name(cols[bad])!r} to "
            f"{classes.tolist()[bad]!r}, but its name says {named[0][bad]!r}. Pass the "
            f"classes in column order, classes={list(named[0])}, or a mapping "
            "proba={class: column}.")


def _column_classes(cols: Sequence[Hashable], labels: np.ndarray | None
                    ) -> tuple[list[Any], str] | None:
    """Classes named by the probability columns, or None when the names do not
    name classes (then the sorted-label rule applies)."""
    cands = []
    for c in cols:
        base = c[-1] if isinstance(c, tuple) and c else c
        m = _PROBA_PREFIX.match(base) if isinstance(base, str) else None
        cands.append((m.group(1) if m else base, m is not None))
    index = None if labels is None else _LabelIndex(labels)
    matched = [_match_label(cand, index) for cand, _ in cands]
    if any(mm is not _NO_MATCH for mm in matched) or all(pref for _, pref in cands):
        out = [mm if mm is not _NO_MATCH else _class_value(cand, None)
               for mm, (cand, _) in zip(matched, cands, strict=True)]
        return out, "column names (suffix after proba_/prob_/p_, or the name itself)"
    return None


def build_profile(df: pd.DataFrame, roles: Roles, *, normalize_weights: bool = True,
                  whole: bool = True) -> tuple[ConfidenceProfile, int, np.ndarray]:
    """Build a profile from the role columns of ``df`` (never modifying ``df``).

    ``whole=False`` for one partition or batch of the data: its weights may be zero
    on every row (the merged state is checked at the finish).

    Validation is vectorised: labels are factorised once (pandas' hash-based
    ``factorize``), missing values are found column by column, and no Python code
    runs per row.  Classes, the positive class and the class of each probability
    column are fixed here from the whole of ``df``; use
    :meth:`ConfidenceProfile.take` to cut groups from the result so they share them.

    Returns
    -------
    profile : ConfidenceProfile
        ``profile.notes["class_columns"]`` maps each probability column to its
        class and ``profile.notes["class_rule"]`` says which rule decided it.
    n_dropped : int
        Rows dropped for missing values (``missing="drop"``).
    kept_rows : ndarray of integers
        Positions in ``df`` of the profile's rows (int32 when no row was dropped and
        there are fewer than 2**31 rows, else intp).

    Raises
    ------
    ValueError
        On missing values with ``missing="raise"``: the message names the column,
        the count and the index label of the first such row.
    """
    n = len(df)
    singles = {role: (None if col is None else _series(df, col))
               for role, col in (("y", roles.y), ("pred", roles.pred), ("conf", roles.conf),
                                 ("correct", roles.correct), ("weight", roles.weight))}
    probas = [_series(df, c) for c in roles.proba]
    used = [(roles.y, singles["y"], True), (roles.pred, singles["pred"], True),
            (roles.conf, singles["conf"], False), (roles.correct, singles["correct"], False),
            (roles.weight, singles["weight"], False),
            *[(c, s, False) for c, s in zip(roles.proba, probas, strict=True)]]
    any_na: np.ndarray | None = None
    for col, s, is_label in used:
        if s is None or (isinstance(s.dtype, np.dtype) and s.dtype.kind in "biu"):
            continue  # NumPy integers and booleans cannot hold a missing value
        na = s.isna().to_numpy()
        if na.any():
            if roles.missing == "raise":
                at = np.flatnonzero(na)[:5].tolist()
                raise v.missing_values_error(_name(col), int(na.sum()),
                                             [(df.index[i], i) for i in at],
                                             labels=is_label)
            any_na = na if any_na is None else (any_na | na)
    # int32 positions below 2**31 rows (half the bytes of the default integer)
    keep = np.arange(n, dtype=np.int32 if n < 2**31 else np.intp)
    n_dropped = 0
    if any_na is not None:
        keep = np.flatnonzero(~any_na)
        n_dropped = n - keep.size
        singles = {k: None if s is None else s.take(keep) for k, s in singles.items()}

    names: dict[str, Any] = {"y_true": _name(roles.y), "y_pred": _name(roles.pred),
                             "conf": _name(roles.conf), "correct": _name(roles.correct),
                             "sample_weight": _name(roles.weight)}
    yt = None if singles["y"] is None else lab.factorize_labels(singles["y"], names["y_true"])
    yp = None if singles["pred"] is None else lab.factorize_labels(singles["pred"],
                                                                 names["y_pred"])
    label_names = (names["y_true"], names["y_pred"])
    classes: np.ndarray | None = None
    rule: str | None = None
    proba: Any = None
    if roles.proba:
        names["proba"] = ([_name(c) for c in roles.proba] if len(roles.proba) > 1
                          else _name(roles.proba[0]))
    if roles.class_source is not None:
        classes = lab.as_classes(roles.classes)
        rule = {"classes": "given: classes=[...]", "mapping": "given: proba={class: column}"
                }[roles.class_source]
        if roles.class_source == "classes" and len(roles.proba) > 1:
            _check_named_columns(roles.proba, classes, yt, yp, label_names)
    elif len(roles.proba) > 1 and yt is not None:
        # classes fixed from a larger frame widen the label set (a group may lack one)
        wider = None if roles.classes is None else lab.label_array(roles.classes)
        labels = lab.infer_classes(wider, yt, yp, names=("classes", *label_names))
        named = _column_classes(roles.proba, labels)
        if named is not None:
            classes = lab.as_classes(named[0], "the classes named by the proba columns")
            rule = named[1]
        elif wider is not None:
            classes, rule = lab.classes_for_columns(labels, len(roles.proba),
                                                  proba_name=names["proba"])
    elif len(roles.proba) == 1 and yt is not None and roles.classes is not None:
        # classes fixed from a larger frame: still only {0, 1}, {False, True}, {-1, 1}
        # or pos_label say which label the score column is the probability of
        universe = lab.infer_classes(lab.label_array(roles.classes), yt, yp,
                                   names=("classes", *label_names))
        classes, rule = lab.binary_classes(universe, pos_label=roles.pos_label,
                                         y_name=names["y_true"],
                                         proba_name=names["proba"])
    elif not roles.proba and roles.classes is not None:
        classes = lab.as_classes(roles.classes)
        rule = "given"
    if roles.proba:
        if len(roles.proba) == 1:
            proba = _series(df, roles.proba[0])
            if any_na is not None:
                proba = proba.take(keep)
        else:
            proba = _float_matrix(df, roles.proba, None if any_na is None else keep)
    profile = ConfidenceProfile._build(
        yt, proba, handed_over=proba if isinstance(proba, np.ndarray) else None,
        y_pred=yp, conf=singles["conf"], correct=singles["correct"],
        classes=classes, sample_weight=singles["weight"], threshold=roles.threshold,
        pos_label=roles.pos_label, weights=roles.weights,
        normalize_weights=normalize_weights, whole=whole,
        names={k: val for k, val in names.items() if val is not None},
    )
    if rule is not None:
        profile.notes["class_rule"] = rule
    if roles.proba and profile.classes is not None:
        cls = profile.classes.tolist()
        profile.notes["class_columns"] = (
            {roles.proba[0]: cls[1]} if len(roles.proba) == 1
            else dict(zip(roles.proba, cls, strict=True)))
    return profile, n_dropped, keep


def _name(col: Hashable | None) -> str | None:
    return None if col is None else str(col)
