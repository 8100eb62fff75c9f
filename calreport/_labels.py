"""Class labels: factorisation, encoding, the positive class and column-class mapping.

Every label arrives here once per call, whole: labels are factorised with integer
fast paths or pandas' hash table (only the distinct values are handled in Python),
matched to the classes, and encoded as integer codes.  Error messages name the
argument, count the offending rows, show the first value and say how to fix it.
"""

from __future__ import annotations

import numbers
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from calreport._top_label import TopLabelConfidenceWarning, check_top_label_confidence
from calreport._validate import _first, _plural, _py, as_float_array, check_nonempty

__all__ = [
    "LabelCodes",
    "TopLabelConfidenceWarning",
    "as_classes",
    "binary_classes",
    "binary_outcome",
    "check_binary_indicator",
    "check_top_label_confidence",
    "classes_for_columns",
    "encode_labels",
    "factorize_labels",
    "infer_classes",
    "label_array",
]


@dataclass(frozen=True, eq=False)
class LabelCodes:
    """Labels factorised once: ``uniques[codes]`` are the labels, code -1 is missing.

    Building it costs one hash or integer pass over the rows; every later step
    (class inference, encoding, positive class) works on the few distinct values.
    """

    codes: np.ndarray
    uniques: np.ndarray

    def __len__(self) -> int:
        return int(self.codes.shape[0])


def _pandas() -> Any:
    """The pandas module when it is already imported (it is, whenever a DataFrame
    reached calreport), else None: this module never imports pandas itself."""
    return sys.modules.get("pandas")


def _object_array(values: Any) -> np.ndarray:
    """A 1-D object array of Python values (NumPy scalars unwrapped)."""
    vals = values.tolist() if hasattr(values, "tolist") else list(values)
    out = np.empty(len(vals), dtype=object)
    out[:] = vals
    return out


def _factorize_integers(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Codes into the sorted distinct values of an integer array (O(N) for a small range)."""
    lo, hi = int(arr.min()), int(arr.max())
    if hi - lo <= 4 * arr.size + 1024 and hi <= np.iinfo(np.int64).max:
        shifted = (arr.astype(np.int64, copy=False) - lo) if lo else arr.astype(
            np.int64, copy=False)
        counts = np.bincount(shifted, minlength=hi - lo + 1)
        present = np.flatnonzero(counts)
        if lo == 0 and present.size == hi + 1:
            # labels 0..K-1, all present (the usual case): the codes are the labels
            return shifted, present.astype(arr.dtype)
        lookup = np.full(hi - lo + 1, -1, dtype=np.int64)
        lookup[present] = np.arange(present.size)
        return lookup[shifted], (present + lo).astype(arr.dtype)
    uniq, inv = np.unique(arr, return_inverse=True)
    return inv.astype(np.int64).ravel(), uniq


def _factorize_floats(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    nan = np.isnan(arr)
    vals = arr[~nan] if nan.any() else arr
    if not vals.size:
        return np.full(arr.shape[0], -1, dtype=np.int64), arr[:0]
    whole = np.isfinite(vals).all() and np.abs(vals).max() < 2.0**53 and bool(
        (vals == np.floor(vals)).all())
    if whole:
        part, uniq = _factorize_integers(vals.astype(np.int64))
        uniq = uniq.astype(arr.dtype)
    else:
        uniq, part = np.unique(vals, return_inverse=True)
        part = part.astype(np.int64).ravel()
    if vals is arr:
        return part, uniq
    codes = np.full(arr.shape[0], -1, dtype=np.int64)
    codes[~nan] = part
    return codes, uniq


def _factorize_objects(arr: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    pd = _pandas()
    if pd is not None:
        codes, uniq = pd.factorize(arr)
        return np.asarray(codes, dtype=np.int64), _object_array(uniq)
    lookup: dict[Any, int] = {}
    firsts: list[Any] = []
    codes = np.empty(arr.shape[0], dtype=np.int64)
    for i, val in enumerate(arr.tolist()):  # only without pandas: object labels, rare
        if val is None or (isinstance(val, float) and val != val):
            codes[i] = -1
            continue
        key = _key(val)
        if key not in lookup:
            lookup[key] = len(firsts)
            firsts.append(val)
        codes[i] = lookup[key]
    return codes, _object_array(firsts)


def _pandas_uniques(uniq: Any) -> np.ndarray:
    kind = getattr(getattr(uniq, "dtype", None), "kind", "O")
    if kind in "biuf":
        out = np.asarray(uniq)
        if out.dtype.kind in "biuf":
            return out
    return _object_array(uniq)


def factorize_labels(y: Any, name: str) -> LabelCodes:
    """Factorise labels of any hashable dtype without a Python loop over the rows.

    pandas objects use their hash-based ``factorize``; integer and integer-valued
    float arrays an O(N) counting pass; other arrays a sort or pandas' hashing.
    Missing labels (None, NaN, pd.NA, NaT) get code -1.

    Examples
    --------
    >>> lc = factorize_labels(["b", "a", "b"], "y_true")
    >>> lc.uniques[lc.codes].tolist()
    ['b', 'a', 'b']
    """
    if isinstance(y, LabelCodes):
        return y
    if hasattr(y, "factorize") and hasattr(y, "to_numpy"):
        if getattr(y, "ndim", 1) != 1:
            raise ValueError(f"`{name}` must be one column of labels, got shape {y.shape}.")
        if isinstance(y.dtype, np.dtype) and y.dtype.kind in "biuf":
            return factorize_labels(y.to_numpy(), name)  # numpy-backed: counting pass
        codes, uniq = y.factorize()
        return LabelCodes(np.asarray(codes, dtype=np.int64), _pandas_uniques(uniq))
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D, got shape {arr.shape}.")
    if arr.size == 0:
        return LabelCodes(np.zeros(0, dtype=np.int64), arr)
    kind = arr.dtype.kind
    if kind == "b":
        codes, uniq = _factorize_integers(arr.view(np.uint8))
        return LabelCodes(codes, uniq.astype(bool))
    if kind in "iu":
        return LabelCodes(*_factorize_integers(arr))
    if kind == "f":
        return LabelCodes(*_factorize_floats(arr))
    if kind == "O" or (kind in "US" and _pandas() is not None):
        return LabelCodes(*_factorize_objects(arr))
    uniq, inv = np.unique(arr, return_inverse=True)
    return LabelCodes(inv.astype(np.int64).ravel(), uniq)


def _key(v: Any) -> Any:
    """Hashable key under which labels 1, 1.0, np.int64(1) and True compare equal."""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def _label_kind(v: Any) -> str:
    """Broad type of a label: labels of different kinds cannot be compared or sorted."""
    if isinstance(v, (bool, np.bool_, numbers.Number)):
        return "number"
    if isinstance(v, (str, np.str_)):
        return "string"
    return type(v).__name__


_KIND_WORDS = {"number": "numbers", "string": "strings"}


def label_array(values: Sequence[Any]) -> np.ndarray:
    """A 1-D array of class labels: typed for numbers, booleans and strings, object
    otherwise (so tuple labels stay one label each)."""
    values = list(values)
    kinds = {_label_kind(val) for val in values}
    if values and kinds <= {"number", "string"} and len(kinds) == 1:
        out = np.asarray(values)
        if out.ndim == 1 and out.dtype.kind != "O":
            return out
    return _object_array(values)


def _is_typed_numeric(a: np.ndarray) -> bool:
    return a.dtype.kind in "biuf"


def _sorted_labels(values: list[Any]) -> list[Any]:
    try:
        return sorted(values, key=_key)
    except TypeError:
        return sorted(values, key=repr)


def infer_classes(*label_arrays: Any, names: Sequence[str] | None = None) -> np.ndarray:
    """Sorted union of the labels seen in the given arrays (missing values excluded).

    Labels equal as numbers (1, 1.0, True) are one class.  Raises a ``TypeError``
    naming the column when numbers and strings are mixed, instead of guessing.

    Examples
    --------
    >>> infer_classes(["b", "a"], ["c"]).tolist()
    ['a', 'b', 'c']
    """
    names = list(names) if names is not None else [
        f"labels #{i + 1}" for i in range(len(label_arrays))]
    factorised = [(factorize_labels(y, nm), nm) for y, nm in zip(label_arrays, names,
                                                                  strict=False)
                  if y is not None]
    uniques = [lc.uniques for lc, _ in factorised]
    if uniques and all(_is_typed_numeric(u) for u in uniques) and len(
            {u.dtype for u in uniques}) == 1:
        return np.unique(np.concatenate(uniques))
    seen: dict[Any, Any] = {}
    kinds: dict[str, tuple[str, Any, int]] = {}
    for lc, nm in factorised:
        per_kind = [_label_kind(u) for u in lc.uniques.tolist()]
        rows = np.bincount(lc.codes[lc.codes >= 0], minlength=len(per_kind))
        for val, kind, count in zip(lc.uniques.tolist(), per_kind, rows.tolist(), strict=True):
            seen.setdefault(_key(val), val)
            first = kinds.get(kind)
            kinds[kind] = (first[0], first[1], first[2] + count) if first else (nm, val, count)
    if len(kinds) > 1:
        raise mixed_labels_error(kinds)
    return label_array(_sorted_labels(list(seen.values())))


def mixed_labels_error(kinds: Mapping[str, tuple[str, Any, int]]) -> TypeError:
    """The error for labels of different types (e.g. 2 and 'z' in one column)."""
    cols = list(dict.fromkeys(nm for nm, _, _ in kinds.values()))
    parts = "; ".join(
        f"{_plural(count, 'row')} of `{nm}` {'holds' if count == 1 else 'hold'} "
        f"{_KIND_WORDS.get(kind, kind)} (first: {_py(val)!r})"
        for kind, (nm, val, count) in kinds.items())
    col = cols[-1]
    if len(cols) == 1:
        what = f"`{col}` mixes label types: {parts}."
    else:
        what = f"The label columns {', '.join(f'`{c}`' for c in cols)} have different " \
               f"types: {parts}."
    return TypeError(
        f"{what} Labels must be all numbers or all strings to be compared and sorted; "
        f"convert them to one type, e.g. df[{col!r}].astype(str) (and the other label "
        "column likewise), or fix the rows holding the wrong type."
    )


def _match_classes(uniques: np.ndarray, classes: np.ndarray) -> np.ndarray:
    """Index into ``classes`` of each distinct label (-1 when absent)."""
    if uniques.size == 0:
        return np.zeros(0, dtype=np.int64)
    if _is_typed_numeric(uniques) and _is_typed_numeric(classes):
        ints = uniques.dtype.kind in "biu" and classes.dtype.kind in "biu"
        dt = np.int64 if ints else np.float64
        cv, uv = classes.astype(dt), uniques.astype(dt)
        order = np.argsort(cv, kind="stable")
        pos = np.clip(np.searchsorted(cv[order], uv), 0, cv.size - 1)
        hit = cv[order][pos] == uv
        return np.where(hit, order[pos], -1).astype(np.int64)
    lookup = {}
    for i, c in enumerate(classes.tolist()):
        lookup.setdefault(_key(c), i)
    out = np.empty(uniques.size, dtype=np.int64)
    for j, u in enumerate(uniques.tolist()):
        try:
            out[j] = lookup.get(_key(u), -1)
        except TypeError:  # unhashable label
            out[j] = -1
    return out


def as_classes(classes: Any, name: str = "classes") -> np.ndarray:
    """Class labels given by the user as a 1-D array (tuples stay one label each)."""
    if isinstance(classes, np.ndarray) and classes.ndim == 1:
        return classes
    vals = list(classes)
    if not vals:
        raise ValueError(f"`{name}` is empty: pass one label per probability column.")
    keys = [_key(c) for c in vals]
    if len(set(keys)) < len(keys):
        dup = next(c for c, k in zip(vals, keys, strict=True) if keys.count(k) > 1)
        raise ValueError(f"`{name}` lists the class {dup!r} more than once; each column "
                         "of probabilities belongs to a different class.")
    return label_array(vals)


def encode_labels(
    y: Any, classes: np.ndarray, name: str, *, classes_name: str = "the proba columns",
    dtype: Any = np.int64,
) -> np.ndarray:
    """Map labels to integer codes ``0..K-1`` following the order of ``classes``.

    Vectorised: the labels are factorised once and only their distinct values are
    looked up among ``classes``.  The codes are made directly in ``dtype`` (a type
    that holds ``0..K-1``), without an int64 copy first.

    Raises
    ------
    ValueError
        When a label is missing or not among ``classes``.

    Examples
    --------
    >>> encode_labels(["b", "a", "b"], np.array(["a", "b"]), "y_true").tolist()
    [1, 0, 1]
    """
    lc = factorize_labels(y, name)
    n = len(lc)
    check_nonempty(n, name)
    miss = lc.codes < 0
    if miss.any():
        raise ValueError(
            f"`{name}` has {_plural(int(miss.sum()), 'missing label')} (NaN/None, first at "
            f"position {int(np.flatnonzero(miss)[0])}). Drop those rows first, or pass "
            "missing='drop' to the accessor."
        )
    cls = as_classes(classes)
    mapping = _match_classes(lc.uniques, cls)
    if mapping.size == cls.size and (mapping == np.arange(cls.size)).all():
        # labels already coded in class order (e.g. 0/1): a copy (the codes may be the
        # caller's own array)
        return lc.codes.astype(dtype, copy=True)
    unknown_u = mapping < 0
    if unknown_u.any():
        bad = unknown_u[lc.codes]
        first_row = int(np.flatnonzero(bad)[0])
        examples = [repr(u) for u in lc.uniques[unknown_u].tolist()[:5]]
        cls_kinds = {_label_kind(c) for c in cls.tolist()}
        label_kinds = {_label_kind(u) for u in lc.uniques[unknown_u].tolist()}
        hint = ""
        if cls_kinds and label_kinds and not (label_kinds & cls_kinds):
            hint = (f" The labels are {'/'.join(_KIND_WORDS.get(k, k) for k in label_kinds)}"
                    f" but the classes are {'/'.join(_KIND_WORDS.get(k, k) for k in cls_kinds)}"
                    ": convert one to the other's type (e.g. .astype(str)).")
        raise ValueError(
            f"`{name}` has {_plural(int(bad.sum()), 'label')} not among the classes of "
            f"{classes_name} {cls.tolist()} (e.g. {', '.join(examples)}; first at position "
            f"{first_row}).{hint} Name the probability columns after the classes "
            "(proba_<class>) or pass the class of each column, in column order, e.g. "
            f"classes={_example_classes(cls, lc.uniques)}."
        )
    return mapping.astype(dtype)[lc.codes]


def _example_classes(cls: np.ndarray, labels: np.ndarray) -> str:
    seen = list(dict.fromkeys(_sorted_labels(labels.tolist())))
    vals = seen[:len(cls)] if len(seen) >= len(cls) else seen + cls.tolist()[len(seen):]
    return repr(list(vals)[:12])


# ----------------------------------------------------------- which column is which
_BINARY_RULES = (({0, 1}, (0, 1)), ({-1, 1}, (-1, 1)))


def binary_classes(labels: np.ndarray, *, pos_label: Any = None, y_name: str = "y_true",
                   proba_name: str = "proba") -> tuple[np.ndarray, str]:
    """``[negative, positive]`` for one positive-class probability column.

    Labels {0, 1}, {False, True} and {-1, 1} (compared by value, whatever the dtype)
    make 1 the positive class; any other labels need ``pos_label``.  Nothing is
    chosen alphabetically (scikit-learn's rule).

    Returns
    -------
    classes : ndarray, shape (2,)
    rule : str
        How the positive class was chosen, for the profile notes.

    Examples
    --------
    >>> binary_classes(np.array([0, 1]))[0].tolist()
    [0, 1]
    >>> binary_classes(np.array(["no", "yes"]), pos_label="yes")[0].tolist()
    ['no', 'yes']
    """
    vals = labels.tolist()
    if len(vals) > 2:
        raise ValueError(
            f"`{proba_name}` is one column but `{y_name}` has {len(vals)} classes "
            f"{vals[:10]}. Pass one probability column per class for a multiclass problem."
        )
    if pos_label is not None:
        pk = _key(pos_label)
        others = [c for c in vals if _key(c) != pk]
        if len(others) > 1:
            raise ValueError(
                f"`pos_label`={pos_label!r} is not among the labels of `{y_name}` {vals}. "
                f"Pass one of them, e.g. pos_label={vals[-1]!r}."
            )
        if others:
            neg = others[0]
        elif pk == 1:
            neg = False if isinstance(pos_label, (bool, np.bool_)) else 0
        else:
            raise ValueError(
                f"Only the positive class {pos_label!r} occurs in `{y_name}`: pass "
                f"classes=[<negative label>, {pos_label!r}] so the score column can be "
                "interpreted."
            )
        return label_array([neg, pos_label]), f"positive class {pos_label!r} (pos_label)"
    numeric = all(_label_kind(c) == "number" for c in vals)
    keys = {_key(c) for c in vals}
    for allowed, default in _BINARY_RULES:
        if numeric and vals and keys <= allowed:
            found = labels if len(vals) == 2 else np.asarray(default)
            return found, f"labels {set(default)}: positive class 1"
    raise ValueError(
        f"`{y_name}` has the labels {vals} and `{proba_name}` is one probability column: "
        "calreport does not guess which label it is the probability of (only labels "
        "{0, 1}, {False, True} and {-1, 1} imply the positive class 1). Name the positive "
        f"class, e.g. pos_label={vals[0]!r} (df.calib(..., pos_label={vals[0]!r}), or "
        "ConfidenceProfile.from_arrays(..., pos_label=...))."
    )


def classes_for_columns(labels: np.ndarray, n_columns: int, *,
                        proba_name: str = "proba") -> tuple[np.ndarray, str]:
    """Classes of ``n_columns`` probability columns whose names do not identify them.

    With exactly ``K`` distinct labels the columns follow the sorted labels
    (scikit-learn's ``predict_proba`` order); integer codes ``0..K-1`` with some
    classes absent map column ``k`` to class ``k``.

    Examples
    --------
    >>> classes_for_columns(np.array(["cat", "dog"]), 2)[0].tolist()
    ['cat', 'dog']
    """
    vals = labels.tolist()
    if len(vals) == n_columns:
        return labels, "sorted labels (scikit-learn predict_proba column order)"
    codes = [_key(c) for c in vals]
    if all(isinstance(c, int) and not isinstance(c, bool) and 0 <= c < n_columns
           for c in codes):
        return np.arange(n_columns), f"integer class codes 0..{n_columns - 1}"
    example = (vals + [f"<class {i + 1}>" for i in range(len(vals), n_columns)])[:n_columns]
    raise ValueError(
        f"`{proba_name}` has {n_columns} probability columns but the labels hold "
        f"{len(vals)} distinct classes {vals[:12]}, and the column names do not name "
        "the classes, so it is unclear which column belongs to which class. Pass the "
        f"class of each column in column order, e.g. classes={example[:12]!r}, or a "
        "mapping proba={class: column}."
    )


# ------------------------------------------------------------ DataFrame columns


def check_binary_indicator(x: Any, name: str) -> np.ndarray:
    """Return a boolean array from 0/1 or boolean values.

    Examples
    --------
    >>> check_binary_indicator([1, 0, True], "correct").tolist()
    [True, False, True]
    """
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if hasattr(x, "to_numpy") and kind == "b":  # numpy bool or pandas "boolean"
        miss = np.asarray(x.isna())
        if miss.any():
            raise ValueError(
                f"`{name}` has {_plural(int(miss.sum()), 'missing value')} (first at "
                f"position {int(np.flatnonzero(miss)[0])}). Drop those rows first, or pass "
                "missing='drop' to the accessor."
            )
        out = x.to_numpy(dtype=bool)
        if out.ndim != 1:
            raise ValueError(f"`{name}` must be 1-D, got shape {out.shape}.")
        check_nonempty(out.shape[0], name)
        return out.copy()
    arr = np.asarray(x)
    if arr.dtype == bool:
        if arr.ndim != 1:
            raise ValueError(f"`{name}` must be 1-D, got shape {arr.shape}.")
        check_nonempty(arr.shape[0], name)
        return arr.copy()
    if arr.dtype.kind in "OUS":
        lc = factorize_labels(x if hasattr(x, "factorize") else arr, name)
        words = [u for u in lc.uniques.tolist() if isinstance(u, (str, bytes))]
        if words:
            n_bad = int(np.isin(lc.codes, [i for i, u in enumerate(lc.uniques.tolist())
                                           if isinstance(u, (str, bytes))]).sum())
            shown = _sorted_labels(list(dict.fromkeys(words)))[:6]
            good = [w for w in shown if str(w).strip().lower() in _TRUE_WORDS]
            mapping = ", ".join(f"{w!r}: {1 if w in good else 0}" for w in shown[:4])
            raise TypeError(
                f"`{name}` must hold 0/1 or True/False; {_plural(n_bad, 'row')} hold text "
                f"{shown}. Map the text to 0/1 first, e.g. "
                f"df[{name!r}].map({{{mapping}}}) (check that every value is mapped)."
            )
    vals = as_float_array(x, name)
    _check_zero_one(vals, name)
    return vals.astype(bool)


def _check_zero_one(vals: np.ndarray, name: str) -> None:
    """Raise unless every value of the finite float array ``vals`` is 0 or 1."""
    # every nonzero value is a 1: two counting passes, no boolean temporaries
    if np.count_nonzero(vals) == np.count_nonzero(vals == 1.0):
        return
    bad = (vals != 0.0) & (vals != 1.0)
    raise ValueError(
        f"`{name}` must hold 0/1 or True/False; {_plural(int(bad.sum()), 'value')} "
        f"{'is' if int(bad.sum()) == 1 else 'are'} neither ({_first(bad, vals)}). "
        "Pass correctness as (y_pred == y_true)."
    )


def binary_outcome(x: Any, name: str) -> np.ndarray:
    """0/1 values as float64, for sums (same checks and messages as
    :func:`check_binary_indicator`).

    A float64 array of 0/1 is returned as it is, not copied: callers only read it.

    Examples
    --------
    >>> binary_outcome([True, False], "outcome").tolist()
    [1.0, 0.0]
    """
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.size:
        if x.dtype == np.float64:
            vals = as_float_array(x, name)  # NaN and inf get their own messages
            _check_zero_one(vals, name)
            return vals
        if x.dtype == bool:
            return x.astype(np.float64)
    return check_binary_indicator(x, name).astype(np.float64)


def binary_flags(x: Any, name: str) -> np.ndarray:
    """0/1 values as bool (same checks and messages as :func:`check_binary_indicator`).

    A 1-D bool array is returned as it is, not copied: callers only read it.

    Examples
    --------
    >>> binary_flags([1, 0], "correct").tolist()
    [True, False]
    """
    if isinstance(x, np.ndarray) and x.ndim == 1 and x.size and x.dtype == bool:
        return x
    return check_binary_indicator(x, name)


_TRUE_WORDS = {"1", "true", "t", "yes", "y", "correct", "right", "ok"}

#: Meanings of sample weights (see :class:`calreport.ConfidenceProfile`).
