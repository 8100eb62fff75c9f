"""Input validation: every user-facing error message of calreport lives here.

Each check turns user input into a clean NumPy array or raises a ``ValueError`` /
``TypeError`` whose message names the argument (or column), counts the offending
values, shows the first one and says how to fix it.  The checks never modify their
input: they return new arrays.
"""

from __future__ import annotations

import numbers
import sys
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

#: Tolerance on ``|sum(proba_row) - 1|`` for multiclass probability rows.
PROBA_SUM_ATOL = 1e-4


def _first(mask: np.ndarray, values: np.ndarray,
           columns: Sequence[Any] | None = None) -> str:
    """Describe the first offending value and its position (and column name)."""
    pos = int(np.flatnonzero(mask.ravel())[0])
    val = values.ravel()[pos]
    if isinstance(val, np.generic):
        val = val.item()
    if values.ndim == 2:
        row, col = divmod(pos, values.shape[1])
        label = repr(columns[col]) if columns is not None and col < len(columns) else col
        return f"first at row {row}, column {label}: {val!r}"
    return f"first at position {pos}: {val!r}"


def _py(val: Any) -> Any:
    """A NumPy scalar as the Python value (for readable messages)."""
    return val.item() if isinstance(val, np.generic) else val


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_nonempty(n: int, name: str) -> None:
    """Raise when an input has no rows."""
    if n == 0:
        raise ValueError(
            f"`{name}` is empty: calibration metrics need at least one prediction. "
            "Check the filter or group that produced it."
        )


def as_float_array(x: Any, name: str, *, ndim: int | tuple[int, ...] = 1,
                   columns: Sequence[Any] | None = None) -> np.ndarray:
    """Return ``x`` as a finite float64 array of the required dimension.

    ``columns`` names the columns of a 2-D input in the messages.

    Raises
    ------
    TypeError
        When the values are not numeric.
    ValueError
        When the shape is wrong or there are missing / infinite values.
    """
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind in ("M", "m"):
        raise TypeError(
            f"`{name}` holds dates or durations ({x.dtype}), not numbers. Pass the "
            "column of predicted probabilities."
        )
    try:
        if hasattr(x, "to_numpy"):
            # pandas nullable dtypes: missing values become NaN instead of object
            try:
                arr = x.to_numpy(dtype=np.float64, na_value=np.nan, copy=True)
            except TypeError:
                arr = x.to_numpy(dtype=np.float64, copy=True)
        else:
            # always a new array: the caller's array is never aliased (profiles make
            # their arrays read-only, which must not touch the caller's)
            arr = np.array(x, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raw = np.asarray(x, dtype=object).ravel()
        bad = [v for v in raw if not _is_number(v)]
        raise TypeError(
            f"`{name}` must be numeric; {_plural(len(bad), 'value')} could not be read as "
            f"numbers (first: {bad[0]!r}). Convert the column with pd.to_numeric(..., "
            "errors='coerce') and decide what to do with the failures."
            if bad
            else f"`{name}` must be numeric ({exc})."
        ) from None
    if arr.dtype.kind == "c":
        raise TypeError(f"`{name}` must be real-valued, got complex numbers.")
    wanted = (ndim,) if isinstance(ndim, int) else ndim
    if arr.ndim == 0:
        arr = arr.reshape(1)
    if arr.ndim not in wanted:
        raise ValueError(
            f"`{name}` must be {' or '.join(f'{d}-D' for d in wanted)}, got an array of "
            f"shape {arr.shape}."
        )
    check_nonempty(arr.shape[0], name)
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()  # one pass, no temporary: finite => no NaN and no inf
    if np.isfinite(total):
        return arr
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(
            f"`{name}` has {_plural(int(nan.sum()), 'missing value')} (NaN/None, "
            f"{_first(nan, arr, columns)}). Drop or impute those rows first, or pass "
            "missing='drop' to the accessor to drop them (the count is reported)."
        )
    inf = np.isinf(arr)
    if inf.any():
        raise ValueError(
            f"`{name}` has {_plural(int(inf.sum()), 'infinite value')} "
            f"({_first(inf, arr, columns)}). "
            "Replace them with finite numbers."
        )
    return arr


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def check_probability(x: Any, name: str, *, ndim: int | tuple[int, ...] = 1,
                      columns: Sequence[Any] | None = None) -> np.ndarray:
    """Return ``x`` as float64 values in ``[0, 1]``.

    Examples
    --------
    >>> check_probability([0.2, 0.9], "conf")
    array([0.2, 0.9])
    """
    arr = as_float_array(x, name, ndim=ndim, columns=columns)
    if arr.min() >= 0.0 and arr.max() <= 1.0:
        return arr
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        raise ValueError(
            f"`{name}` has {_plural(int(out.sum()), 'value')} outside [0, 1] "
            f"({_first(out, arr, columns)}). Pass probabilities: apply a sigmoid/softmax to "
            "logits, or divide percentages by 100."
        )
    return arr


def check_proba_matrix(x: Any, name: str, *, atol: float = PROBA_SUM_ATOL,
                       columns: Sequence[Any] | None = None) -> np.ndarray:
    """Return an ``(N, K)`` probability matrix whose rows sum to one.

    A 1-D input is returned unchanged (binary positive-class probabilities).
    ``columns`` names the columns in the messages.
    """
    arr = check_probability(x, name, ndim=(1, 2), columns=columns)
    if arr.ndim == 2:
        if arr.shape[1] < 2:
            if arr.shape[1] == 1:
                return arr[:, 0].copy()
            raise ValueError(f"`{name}` has no columns.")
        gap = np.abs(arr.sum(axis=1) - 1.0)
        bad = gap > atol
        if bad.any():
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"`{name}`: {_plural(int(bad.sum()), 'row')} of {arr.shape[0]} do not sum to 1 "
                f"within {atol:g} (first at row {row}: sum = {arr[row].sum():.6g}). Pass one "
                "column per class of normalised probabilities (apply a softmax), or "
                "renormalise with p / p.sum(axis=1, keepdims=True)."
            )
    return arr


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
    bad = (vals != 0.0) & (vals != 1.0)
    if bad.any():
        raise ValueError(
            f"`{name}` must hold 0/1 or True/False; {_plural(int(bad.sum()), 'value')} "
            f"{'is' if int(bad.sum()) == 1 else 'are'} neither ({_first(bad, vals)}). "
            "Pass correctness as (y_pred == y_true)."
        )
    return vals.astype(bool)


_TRUE_WORDS = {"1", "true", "t", "yes", "y", "correct", "right", "ok"}

#: Meanings of sample weights (see :class:`calreport.ConfidenceProfile`).
WEIGHT_KINDS = ("importance", "frequency")


def check_sample_weight(w: Any, n: int, name: str = "sample_weight", *,
                        kind: str = "importance") -> np.ndarray | None:
    """Return finite non-negative float64 weights of length ``n`` (or None).

    Parameters
    ----------
    w : array-like or None
        Row weights.
    n : int
        Number of rows of the data.
    name : str
        Argument or column name used in the messages.
    kind : {"importance", "frequency"}
        Importance weights are relative (any positive finite scale); frequency
        weights count repeated rows and must be non-negative integers.

    Raises
    ------
    ValueError
        On missing, infinite or negative weights, non-integer frequency weights, a
        length mismatch, or weights that are zero on every row.

    Examples
    --------
    >>> check_sample_weight([2, 0, 1], 3).tolist()
    [2.0, 0.0, 1.0]
    """
    check_option(kind, "weights", WEIGHT_KINDS)
    if w is None:
        return None
    arr = as_float_array(w, name)
    check_consistent_length(**{name: arr.shape[0], "the data": n})
    neg = arr < 0
    if neg.any():
        raise ValueError(
            f"`{name}` has {_plural(int(neg.sum()), 'negative value')} ({_first(neg, arr)}). "
            "Sample weights must be >= 0: drop those rows or fix the weights."
        )
    if kind == "frequency":
        frac = arr != np.floor(arr)
        if frac.any():
            raise ValueError(
                f"`{name}` holds frequency weights (counts of repeated rows) but "
                f"{_plural(int(frac.sum()), 'value')} {'is' if int(frac.sum()) == 1 else 'are'}"
                f" not a whole number ({_first(frac, arr)}). Pass integer counts, or use "
                "weights='importance' for relative weights."
            )
    if not (arr > 0).any():
        raise ValueError(
            f"`{name}` is zero everywhere (all {_plural(arr.shape[0], 'row')}): at least "
            "one row needs a positive weight. Check the weight column."
        )
    return arr


def normalize_weights(w: np.ndarray) -> tuple[np.ndarray, float]:
    """Divide importance weights by their maximum: the result lies in [0, 1] for any
    positive scale of the input (1e-300 to 1e300) and later sums cannot overflow.

    Returns the normalised weights and the scale (the maximum).

    Examples
    --------
    >>> normalize_weights(np.array([1e300, 5e299]))[0].tolist()
    [1.0, 0.5]
    """
    scale = float(w.max())
    with np.errstate(under="ignore"):
        return w / scale, scale


def check_consistent_length(**lengths: int) -> None:
    """Raise when the named inputs do not all have the same number of rows."""
    distinct = set(lengths.values())
    if len(distinct) > 1:
        parts = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
        raise ValueError(
            f"Inputs have different numbers of rows: {parts}. Pass arrays of one length "
            "(one row per prediction)."
        )


def check_tau(tau: float) -> float:
    """Validate a selective-prediction threshold tau in [0, 1)."""
    try:
        t = float(tau)
    except (TypeError, ValueError):
        raise TypeError(f"`tau` must be a number in [0, 1), got {tau!r}.") from None
    if not (0.0 <= t < 1.0):
        raise ValueError(
            f"`tau` must be in [0, 1), got {tau!r}: phi(c) = (c - tau) / (1 - tau) is "
            "undefined at tau = 1 (Shahnazari et al. 2025, arXiv:2505.18622, section 3)."
        )
    return t


def check_n_bins(n_bins: int) -> int:
    """Validate a number of bins (a positive integer)."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"`n_bins` must be a positive integer, got {n_bins!r}.")
    return int(n_bins)


def check_option(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """Raise when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"`{name}` must be one of {choices}; got {value!r}.")
    return value


# ------------------------------------------------------------------------- labels
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
    y: Any, classes: np.ndarray, name: str, *, classes_name: str = "the proba columns"
) -> np.ndarray:
    """Map labels to integer codes ``0..K-1`` following the order of ``classes``.

    Vectorised: the labels are factorised once and only their distinct values are
    looked up among ``classes``.

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
        return lc.codes.copy()  # labels already coded in class order (e.g. 0/1)
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
    return mapping[lc.codes]


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
            TopLabelConfidenceWarning, stacklevel=4,
        )


# ------------------------------------------------------------ DataFrame columns
def duplicate_column_error(col: Any, count: int, role: str) -> ValueError:
    """The error for a role column whose name occurs several times in the frame."""
    return ValueError(
        f"Column {col!r} (for `{role}`) occurs {count} times in the DataFrame, so it is "
        "unclear which one to use. Rename or drop the duplicates first, e.g. "
        "df.loc[:, ~df.columns.duplicated()] keeps the first of each name."
    )


def not_a_column_name_error(value: Any, role: str, columns: Sequence[Any]) -> TypeError:
    """The error for data (a Series, array, list) passed where a column name is expected."""
    kind = type(value).__name__
    name = getattr(value, "name", None)
    try:
        is_col = name is not None and name in list(columns)
    except TypeError:
        is_col = False
    if is_col:
        fix = f"Pass the column name instead: {role}={name!r}."
    else:
        fix = ("Add the values as a column first, e.g. df.assign(" + role + "_col=values), "
               f"then pass {role}='{role}_col'.")
    return TypeError(
        f"`{role}` expects a column name of the DataFrame, got a {kind}"
        f"{'' if name is None else f' named {name!r}'}. {fix}"
    )


def missing_values_error(name: str, count: int, first_label: Any, *,
                         labels: bool = False) -> ValueError:
    """The error for missing values in a role column (``first_label``: index label)."""
    what = "missing label" if labels else "missing value"
    return ValueError(
        f"`{name}` has {_plural(count, what)} (NaN/None; first at index label "
        f"{first_label!r}). Drop or impute those rows first, or pass missing='drop' to "
        "the accessor to drop them (the count is reported)."
    )


def check_class_codes(y: Any, n_classes: int, name: str = "y_true") -> np.ndarray:
    """Return integer class codes ``0..n_classes-1`` as int64 (vectorised check).

    Accepts integer, boolean or integer-valued float arrays; labels of any other kind
    must be encoded first (e.g. with :meth:`calreport.ConfidenceProfile.from_arrays`).
    """
    arr = y if hasattr(y, "to_numpy") else np.asarray(y)
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "biu" and arr.ndim == 1 and arr.size:
        vals = arr  # integers need no float round trip
        bad = (vals < 0) | (vals > n_classes - 1)
    else:
        try:
            vals = as_float_array(arr, name)
        except TypeError:
            raise TypeError(
                f"`{name}` must hold integer class codes 0..{n_classes - 1} (one per column "
                f"of the probability matrix), got dtype {arr.dtype}. Encode the labels "
                "first, e.g. with ConfidenceProfile.from_arrays(y_true, proba, classes=...)."
            ) from None
        bad = (vals != np.round(vals)) | (vals < 0) | (vals > n_classes - 1)
    if bad.any():
        raise ValueError(
            f"`{name}` has {_plural(int(bad.sum()), 'value')} that "
            f"{'is not a class code' if int(bad.sum()) == 1 else 'are not class codes'} "
            f"0..{n_classes - 1} ({_first(bad, vals)}). Pass the index of each row's true "
            "class among the probability columns."
        )
    return vals.astype(np.int64)  # always a new array


def check_min_rows(n: int, minimum: int, name: str, *, why: str) -> None:
    """Raise when ``name`` has fewer than ``minimum`` rows; ``why`` names the need."""
    if n < minimum:
        raise ValueError(
            f"`{name}` has {_plural(n, 'row')}, but {why} needs at least {minimum}. "
            "Evaluate on more predictions (a larger test set, or fewer / larger groups), "
            "or use a binned metric such as the ECE on small samples."
        )


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Validate an integer ``>= minimum`` (booleans are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_positive_number(value: Any, name: str, *, minimum: float = 0.0,
                          inclusive: bool = False) -> float:
    """Validate a finite real number ``> minimum`` (or ``>=`` when ``inclusive``)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number, got {value!r}.") from None
    ok = bool(np.isfinite(x)) and (x >= minimum if inclusive else x > minimum)
    if not ok:
        sign = ">=" if inclusive else ">"
        raise ValueError(f"`{name}` must be a finite number {sign} {minimum:g}, got {value!r}.")
    return x


def check_bin_size_range(min_bin: Any, max_bin: Any) -> tuple[int, int]:
    """Validate the row range ``[min_bin, max_bin]`` of equal-mass bins.

    ``max_bin >= 2 * min_bin`` guarantees that every sample size has a bin count
    whose equal-mass bins all hold between ``min_bin`` and ``max_bin`` rows.
    """
    lo = check_positive_int(min_bin, "min_bin")
    hi = check_positive_int(max_bin, "max_bin")
    if hi < 2 * lo:
        raise ValueError(
            f"`max_bin` must be at least twice `min_bin` (got min_bin={lo}, max_bin={hi}): "
            "otherwise some sample sizes admit no equal-mass binning within the range. "
            "Widen the range, e.g. min_bin=20, max_bin=100."
        )
    return lo, hi


def check_beta_shape(alpha: Any, beta: Any, name: str, *, hint: str = "") -> tuple[float, float]:
    """Validate the shape parameters of a Beta density (finite and > 0)."""
    try:
        a, b = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}: Beta shape parameters must be numbers, got ({alpha!r}, {beta!r})."
        ) from None
    if not (bool(np.isfinite(a) and np.isfinite(b)) and a > 0 and b > 0):
        raise ValueError(
            f"{name} is not a valid Beta density: both shape parameters must be finite and "
            f"> 0, got alpha={a!r}, beta={b!r}. {hint}".rstrip()
        )
    return a, b


def check_unit_distribution(dist: Any, name: str) -> Any:
    """Validate a distribution on [0, 1]: an object with ``ppf`` and ``cdf`` methods
    (e.g. a frozen ``scipy.stats`` distribution) whose support lies in [0, 1]."""
    if not (callable(getattr(dist, "ppf", None)) and callable(getattr(dist, "cdf", None))):
        raise TypeError(
            f"`{name}` must be None, a pair (alpha, beta) of Beta shape parameters, or a "
            f"distribution with ppf and cdf methods such as scipy.stats.beta(2, 5); got "
            f"{type(dist).__name__}."
        )
    support = getattr(dist, "support", None)
    if callable(support):
        lo, hi = (float(s) for s in support())
        if lo < 0.0 or hi > 1.0:
            raise ValueError(
                f"`{name}` must be a distribution of confidences on [0, 1]; its support is "
                f"[{lo:g}, {hi:g}]. Use e.g. scipy.stats.beta or scipy.stats.truncnorm."
            )
    return dist


def check_fraction(value: Any, name: str, *, include_one: bool = True,
                   high: float = 1.0) -> float:
    """Validate a number in ``(0, high]`` (``(0, high)`` when ``include_one`` is False)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number, got {value!r}.") from None
    ok = bool(np.isfinite(x)) and 0.0 < x and (x <= high if include_one else x < high)
    if not ok:
        interval = f"(0, {high:g}]" if include_one else f"(0, {high:g})"
        raise ValueError(f"`{name}` must be a number in {interval}, got {value!r}.")
    return x


def check_neighbours(n: int, frac: float, minimum: int, *, why: str) -> int:
    """Number of nearest neighbours ``floor(frac * n)`` of a local fit, at least ``minimum``."""
    k = min(int(np.floor(frac * n + 1e-10)), n)
    if k < minimum:
        raise ValueError(
            f"`frac`={frac:g} keeps {k} of {_plural(n, 'row')} in each local fit, but {why} "
            f"needs at least {minimum}. Pass a larger frac (at least {minimum / n:.3g}) or "
            "evaluate on more predictions."
        )
    return k


def check_distinct_values(x: np.ndarray, name: str, *, why: str) -> None:
    """Raise when ``x`` holds a single distinct value."""
    if x.size and x.min() == x.max():
        raise ValueError(
            f"`{name}` takes the single value {x.flat[0].item()!r} on all "
            f"{_plural(x.size, 'row')}, but {why} needs at least two distinct values. "
            "Check that the column holds the model's scores, not a constant."
        )


def check_both_classes(y: np.ndarray, name: str, *, why: str) -> None:
    """Raise when the boolean outcome ``y`` holds only events or only non-events."""
    n_events = int(np.count_nonzero(y))
    if n_events in (0, y.size):
        kind = "events (1)" if n_events else "non-events (0)"
        raise ValueError(
            f"`{name}` holds only {kind} on all {_plural(y.size, 'row')}, but {why} needs "
            "both events and non-events. Evaluate on a sample (or group) with both outcomes."
        )


def check_unused(value: Any, name: str, *, when: str) -> None:
    """Raise when an option that has no effect in this configuration is set (not None)."""
    if value is not None:
        raise ValueError(
            f"`{name}`={value!r} has no effect {when}; leave `{name}` at None."
        )


def check_bin_edges(edges: Any, name: str = "edges") -> np.ndarray:
    """Return bin edges as a non-decreasing float64 array of at least two values."""
    arr = as_float_array(edges, name)
    if arr.size < 2:
        raise ValueError(
            f"`{name}` needs at least 2 values (the lower and upper edge of one bin), got "
            f"{arr.size}. Build the edges with calreport.metrics.binned.bin_edges."
        )
    down = np.diff(arr) < 0
    if down.any():
        pos = int(np.flatnonzero(down)[0])
        raise ValueError(
            f"`{name}` must be non-decreasing; {_plural(int(down.sum()), 'edge')} "
            f"{'is' if int(down.sum()) == 1 else 'are'} below the previous one (first at "
            f"position {pos + 1}: {arr[pos + 1]!r} after {arr[pos]!r}). Sort the edges."
        )
    return arr
