"""Input validation: every user-facing error message of calreport lives here.

The checks of scalar options (``tau``, ``n_bins``, choices, numbers, Beta densities)
live in :mod:`calreport._validate_options` and are re-exported here.

Each check turns user input into a clean NumPy array or raises a ``ValueError`` /
``TypeError`` whose message names the argument (or column), counts the offending
values, shows the first one and says how to fix it.  The checks never modify their
input: they return new arrays.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

from calreport._validate_options import (  # noqa: F401  (re-exported: called as v.check_*)
    check_beta_shape,
    check_bin_size_range,
    check_fraction,
    check_n_bins,
    check_option,
    check_positive_int,
    check_positive_number,
    check_tau,
    check_unit_distribution,
    check_unused,
)

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
    arr = _float_values(x, name, ndim)
    _check_finite(arr, name, columns)
    return arr


def _float_values(x: Any, name: str, ndim: int | tuple[int, ...]) -> np.ndarray:
    """``x`` as a non-empty float64 array of the required dimension (not yet checked
    for NaN / inf)."""
    kind = getattr(getattr(x, "dtype", None), "kind", None)
    if kind in ("M", "m"):
        raise TypeError(
            f"`{name}` holds dates or durations ({x.dtype}), not numbers. Pass the "
            "column of predicted probabilities."
        )
    refuse_text_numbers(x, name)
    try:
        if hasattr(x, "to_numpy"):
            # pandas nullable dtypes: missing values become NaN instead of object
            try:
                arr = x.to_numpy(dtype=np.float64, na_value=np.nan)
            except TypeError:
                arr = x.to_numpy(dtype=np.float64)
        else:
            # no copy: profiles hold read-only views, which never touch the caller's
            # array or its flags
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
    return arr


def _check_finite(arr: np.ndarray, name: str, columns: Sequence[Any] | None) -> None:
    """Raise on missing or infinite values, counting them and showing the first."""
    with np.errstate(over="ignore", invalid="ignore"):
        total = arr.sum()  # one pass, no temporary: finite => no NaN and no inf
    if np.isfinite(total):
        return
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


def refuse_text_numbers(x: Any, name: str) -> None:
    """Raise when ``x`` holds numbers written as text ("0.1"): NumPy would parse them
    silently, and a column of text is a sign the data were read wrongly (scikit-learn
    refuses them too).  Text that is not a number is left to the caller's TypeError."""
    dtype = getattr(x, "dtype", None)
    if dtype is None:
        if not isinstance(x, (list, tuple)):
            return
        raw = np.asarray(x, dtype=object).ravel()
    elif getattr(dtype, "kind", None) in ("O", "U", "S") or str(dtype).startswith("string"):
        raw = (x.to_numpy(dtype=object) if hasattr(x, "to_numpy")
               else np.asarray(x, dtype=object)).ravel()
    else:
        return
    text = np.fromiter((isinstance(e, (str, bytes)) for e in raw), dtype=bool,
                       count=raw.size)
    if not text.any() or not all(_is_number(e) for e in raw[text]):
        return
    pos = np.flatnonzero(text)
    index = getattr(x, "index", None)
    at = (f"row {index[pos[0]]!r}" if hasattr(x, "iloc") and raw.size == len(index)
          else f"position {int(pos[0])}")
    raise ValueError(
        f"`{name}` holds numbers written as text ({_plural(int(pos.size), 'value')} of "
        f"{raw.size:,}; first at {at}: {raw[pos[0]]!r}). Text is not read as numbers: "
        + (f"convert the column first, e.g. df[{name!r}] = pd.to_numeric(df[{name!r}])."
           if hasattr(x, "iloc") else "convert the values first, e.g. with pd.to_numeric.")
    )


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
    arr = _float_values(x, name, ndim)
    # min and max propagate NaN and see inf: in range means finite too (two passes)
    if arr.min() >= 0.0 and arr.max() <= 1.0:
        return arr
    _check_finite(arr, name, columns)
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
        gap = _row_sums(arr)
        gap -= 1.0
        np.abs(gap, out=gap)
        if gap.max() > atol:
            bad = gap > atol
            row = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"`{name}`: {_plural(int(bad.sum()), 'row')} of {arr.shape[0]} do not sum to 1 "
                f"within {atol:g} (first at row {row}: sum = {arr[row].sum():.6g}). Pass one "
                "column per class of normalised probabilities (apply a softmax), or "
                "renormalise with p / p.sum(axis=1, keepdims=True)."
            )
    return arr


def _row_sums(arr: np.ndarray) -> np.ndarray:
    """Row sums of an ``(N, K)`` array; a few columns are added column by column
    (a reduction along rows of 2-16 values is several times slower)."""
    if arr.shape[1] > 16:
        return arr.sum(axis=1)
    total = arr[:, 0] + arr[:, 1]
    for j in range(2, arr.shape[1]):
        total += arr[:, j]
    return total


WEIGHT_KINDS = ("importance", "frequency")


def check_sample_weight(w: Any, n: int, name: str = "sample_weight", *,
                        kind: str = "importance", whole: bool = True) -> np.ndarray | None:
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
    whole : bool, default True
        False for one part of the data (a partition or a batch): weights zero on
        every row of it are accepted, and the whole data is checked once its parts
        are merged (:func:`calreport.stats.weight_scale.check_positive`).

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
    if whole and not (arr > 0).any():
        raise ValueError(zero_weights_message(name, arr.shape[0]))
    return arr


def zero_weights_message(name: str, n: int) -> str:
    """The error of weights that are zero on every one of ``n`` rows."""
    return (f"`{name}` is zero everywhere (all {_plural(n, 'row')}): at least one row "
            "needs a positive weight. Check the weight column.")


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
    return divide_weights(w, scale), scale


def divide_weights(w: np.ndarray, scale: Any) -> np.ndarray:
    """``w / scale`` (a scalar, or one scale per row) without losing a row.

    A positive weight below ``2**-500`` of the scale (1e-300 beside 1e300, whose
    quotient would underflow to 0) becomes ``2**-500``: it still counts in ``n`` and
    in whether a class is present, weighs nothing beside the largest (3e-151 of it),
    and the products of two weights (AUC, Kish's size) stay normal floats.

    Examples
    --------
    >>> divide_weights(np.array([1e300, 1e-300, 0.0]), 1e300).tolist()
    [1.0, 3.054936363499605e-151, 0.0]
    """
    with np.errstate(under="ignore"):
        out = np.divide(w, scale, out=np.zeros(np.shape(w)), where=np.asarray(scale) > 0)
    small = (out < WEIGHT_FLOOR) & (w > 0) & (np.asarray(scale) > 0)
    if small.any():
        out[small] = WEIGHT_FLOOR
    return out


#: The smallest weight relative to the largest (:func:`divide_weights`).
WEIGHT_FLOOR = 2.0**-500


def check_consistent_length(**lengths: int) -> None:
    """Raise when the named inputs do not all have the same number of rows."""
    distinct = set(lengths.values())
    if len(distinct) > 1:
        parts = ", ".join(f"`{k}` has {v}" for k, v in lengths.items())
        raise ValueError(
            f"Inputs have different numbers of rows: {parts}. Pass arrays of one length "
            "(one row per prediction)."
        )


# ------------------------------------------------------------------------- labels
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


def missing_values_error(name: str, count: int, rows: Sequence[tuple[Any, int]], *,
                         labels: bool = False) -> ValueError:
    """The error for missing values in a role column, naming the first rows
    (``rows``: up to five ``(index label, row position)`` pairs; the position too, since
    an index may repeat labels).

    Examples
    --------
    >>> print(str(missing_values_error("p", 3, [(5, 5), (9, 8), ("x", 11)]))[:78])
    `p` has 3 missing values (NaN/None at index labels 5, 9, 'x'; row positions 5,
    """
    what = "missing label" if labels else "missing value"
    shown = [(lab.item() if isinstance(lab, np.generic) else lab, pos) for lab, pos in rows]
    first = ("" if len(shown) >= count else "first " if len(shown) == 1
             else f"first {len(shown)} ")
    at = (f"{first}at index label{'s' if len(shown) > 1 else ''} "
          f"{', '.join(repr(lab) for lab, _ in shown)}; row position"
          f"{'s' if len(shown) > 1 else ''} {', '.join(str(pos) for _, pos in shown)}")
    return ValueError(
        f"`{name}` has {_plural(count, what)} (NaN/None {at}). Drop or impute "
        "those rows first, or pass missing='drop' to the accessor to drop them (the "
        "count is reported)."
    )


def check_class_codes(y: Any, n_classes: int, name: str = "y_true", *,
                      copy: bool = True) -> np.ndarray:
    """Return integer class codes ``0..n_classes-1`` as int64 (vectorised check).

    Accepts integer, boolean or integer-valued float arrays; labels of any other kind
    must be encoded first (e.g. with :meth:`calreport.ConfidenceProfile.from_arrays`).
    ``copy=False``: a valid NumPy integer array comes back as it is, in its own
    integer type (for a caller that only reads it and converts what it computes on).
    """
    arr = y if hasattr(y, "to_numpy") else np.asarray(y)
    if isinstance(arr, np.ndarray) and arr.dtype.kind in "biu" and arr.ndim == 1 and arr.size:
        vals = arr  # integers need no float round trip
        if vals.min() >= 0 and vals.max() <= n_classes - 1:
            return vals.astype(np.int64) if copy or vals.dtype.kind == "b" else vals
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
