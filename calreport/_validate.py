"""Input validation: every user-facing error message of calreport lives here.

Each check turns user input into a clean NumPy array or raises a ``ValueError`` /
``TypeError`` whose message names the argument (or column), counts the offending
values, shows the first one and says how to fix it.  The checks never modify their
input: they return new arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

#: Tolerance on ``|sum(proba_row) - 1|`` for multiclass probability rows.
PROBA_SUM_ATOL = 1e-4


def _first(mask: np.ndarray, values: np.ndarray) -> str:
    """Describe the first offending value and its position."""
    pos = int(np.flatnonzero(mask.ravel())[0])
    val = values.ravel()[pos]
    if isinstance(val, np.generic):
        val = val.item()
    if values.ndim == 2:
        row, col = divmod(pos, values.shape[1])
        return f"first at row {row}, column {col}: {val!r}"
    return f"first at position {pos}: {val!r}"


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" if n == 1 else f"{n} {word}s"


def check_nonempty(n: int, name: str) -> None:
    """Raise when an input has no rows."""
    if n == 0:
        raise ValueError(
            f"`{name}` is empty: calibration metrics need at least one prediction. "
            "Check the filter or group that produced it."
        )


def as_float_array(x: Any, name: str, *, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """Return ``x`` as a finite float64 array of the required dimension.

    Raises
    ------
    TypeError
        When the values are not numeric.
    ValueError
        When the shape is wrong or there are missing / infinite values.
    """
    try:
        if hasattr(x, "to_numpy"):
            # pandas nullable dtypes: missing values become NaN instead of object
            try:
                arr = x.to_numpy(dtype=np.float64, na_value=np.nan)
            except TypeError:
                arr = x.to_numpy(dtype=np.float64)
        else:
            arr = np.asarray(x, dtype=np.float64)
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
    nan = np.isnan(arr)
    if nan.any():
        raise ValueError(
            f"`{name}` has {_plural(int(nan.sum()), 'missing value')} (NaN/None, "
            f"{_first(nan, arr)}). Drop or impute those rows first, or pass "
            "missing='drop' to the accessor to drop them (the count is reported)."
        )
    inf = np.isinf(arr)
    if inf.any():
        raise ValueError(
            f"`{name}` has {_plural(int(inf.sum()), 'infinite value')} ({_first(inf, arr)}). "
            "Replace them with finite numbers."
        )
    return arr


def _is_number(v: Any) -> bool:
    try:
        float(v)
    except (TypeError, ValueError):
        return False
    return True


def check_probability(x: Any, name: str, *, ndim: int | tuple[int, ...] = 1) -> np.ndarray:
    """Return ``x`` as float64 values in ``[0, 1]``.

    Examples
    --------
    >>> check_probability([0.2, 0.9], "conf")
    array([0.2, 0.9])
    """
    arr = as_float_array(x, name, ndim=ndim)
    out = (arr < 0.0) | (arr > 1.0)
    if out.any():
        raise ValueError(
            f"`{name}` has {_plural(int(out.sum()), 'value')} outside [0, 1] "
            f"({_first(out, arr)}). Pass probabilities: apply a sigmoid/softmax to logits, "
            "or divide percentages by 100."
        )
    return arr


def check_proba_matrix(x: Any, name: str, *, atol: float = PROBA_SUM_ATOL) -> np.ndarray:
    """Return an ``(N, K)`` probability matrix whose rows sum to one.

    A 1-D input is returned unchanged (binary positive-class probabilities).
    """
    arr = check_probability(x, name, ndim=(1, 2))
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
    """Return a boolean array from 0/1 or boolean values."""
    if hasattr(x, "to_numpy") and getattr(x, "dtype", None) is not None and (
        str(x.dtype) == "boolean"
    ):
        if x.isna().any():
            n_missing = int(x.isna().sum())
            raise ValueError(
                f"`{name}` has {_plural(n_missing, 'missing value')}. Drop those rows first, "
                "or pass missing='drop' to the accessor."
            )
        return x.to_numpy(dtype=bool)
    arr = np.asarray(x)
    if arr.dtype == bool:
        if arr.ndim != 1:
            raise ValueError(f"`{name}` must be 1-D, got shape {arr.shape}.")
        check_nonempty(arr.shape[0], name)
        return arr.copy()
    vals = as_float_array(x, name)
    bad = (vals != 0.0) & (vals != 1.0)
    if bad.any():
        raise ValueError(
            f"`{name}` must hold 0/1 or True/False; {_plural(int(bad.sum()), 'value')} "
            f"{'is' if int(bad.sum()) == 1 else 'are'} neither ({_first(bad, vals)}). "
            "Pass correctness as (y_pred == y_true)."
        )
    return vals.astype(bool)


def check_sample_weight(w: Any, n: int, name: str = "sample_weight") -> np.ndarray | None:
    """Return non-negative finite float64 weights of length ``n`` (or None)."""
    if w is None:
        return None
    arr = as_float_array(w, name)
    check_consistent_length(**{name: arr.shape[0], "the data": n})
    neg = arr < 0
    if neg.any():
        raise ValueError(
            f"`{name}` has {_plural(int(neg.sum()), 'negative value')} ({_first(neg, arr)}). "
            "Sample weights must be >= 0."
        )
    if not (arr > 0).any():
        raise ValueError(f"`{name}` is zero everywhere: at least one row needs positive weight.")
    return arr


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
            "undefined at tau = 1 (see 001_d2625f96c7f90dfa.txt section 3)."
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


def encode_labels(
    y: Any, classes: np.ndarray, name: str, *, classes_name: str = "the proba columns"
) -> np.ndarray:
    """Map labels to integer codes ``0..K-1`` following the order of ``classes``.

    Raises
    ------
    ValueError
        When a label is missing or not among ``classes``.
    """
    if hasattr(y, "isna"):
        miss = np.asarray(y.isna())
        if miss.any():
            raise ValueError(
                f"`{name}` has {_plural(int(miss.sum()), 'missing label')}. Drop those rows "
                "first, or pass missing='drop' to the accessor."
            )
        y = y.to_numpy(dtype=object) if str(getattr(y, "dtype", "")) in (
            "category", "string", "Int64", "Int32", "Int16", "Int8", "boolean"
        ) else y.to_numpy()
    arr = np.asarray(y)
    if arr.ndim != 1:
        raise ValueError(f"`{name}` must be 1-D, got shape {arr.shape}.")
    check_nonempty(arr.shape[0], name)
    if arr.dtype.kind == "f":
        nan = np.isnan(arr)
        if nan.any():
            raise ValueError(
                f"`{name}` has {_plural(int(nan.sum()), 'missing label')} (NaN). Drop those "
                "rows first, or pass missing='drop' to the accessor."
            )
    cls = np.asarray(classes)
    lookup = {_key(c): i for i, c in enumerate(cls.tolist())}
    keys = [_key(v) for v in arr.tolist()]
    codes = np.fromiter((lookup.get(k, -1) for k in keys), dtype=np.int64, count=len(keys))
    bad = codes < 0
    if bad.any():
        unknown = sorted({repr(arr[i]) for i in np.flatnonzero(bad)[:50]})[:5]
        raise ValueError(
            f"`{name}` has {_plural(int(bad.sum()), 'label')} not among the classes of "
            f"{classes_name} {list(cls.tolist())} (e.g. {', '.join(unknown)}). Name the "
            "probability columns after the classes (proba_<class>) or pass the class of "
            "each column explicitly."
        )
    return codes


def _key(v: Any) -> Any:
    """Hashable key under which labels 1, 1.0, np.int64(1) and True compare equal."""
    if isinstance(v, (bool, np.bool_)):
        return int(v)
    if isinstance(v, (float, np.floating)) and float(v).is_integer():
        return int(v)
    if isinstance(v, np.generic):
        return v.item()
    return v


def infer_classes(*label_arrays: Any) -> np.ndarray:
    """Sorted union of the labels seen in the given arrays (missing values excluded)."""
    seen: dict[Any, Any] = {}
    for y in label_arrays:
        if y is None:
            continue
        if hasattr(y, "dropna"):
            y = y.dropna()
            y = y.to_numpy(dtype=object) if str(y.dtype) in ("category", "string") else (
                y.to_numpy()
            )
        for v in np.unique(np.asarray(y)).tolist():
            seen.setdefault(_key(v), v)
    values = list(seen.values())
    try:
        values = sorted(values)
    except TypeError:
        values = sorted(values, key=repr)
    return np.asarray(values)
