"""The memory side of :class:`calreport.profile.ConfidenceProfile`.

What a profile stores and what it derives: :class:`_Derivable`, the descriptor of a
field left unstored and derived afresh from the binary score on each read; the
confidence of a binary score (:func:`_binary_conf`); class codes in the smallest
integer type (:func:`_small_codes`); and the ownership of the caller's memory: whether
an array is a column of a matrix (:func:`_is_column`), the buffer behind an input
(:func:`_raw`) and a copy of what may share it (:func:`_owned`).
"""

from __future__ import annotations

from typing import Any

import numpy as np

_REQUIRED = object()


class _Derivable:
    """A field of :class:`calreport.profile.ConfidenceProfile` that may be left
    unstored (None) when it follows from the binary score: each read then derives it
    afresh, so a profile of N rows does not hold the ``N x 2`` matrix ``[1 - p, p]``
    beside the score."""

    def __init__(self, default: Any = _REQUIRED) -> None:
        self.default = default

    def __set_name__(self, owner: type, name: str) -> None:
        self.name, self.slot = name, "_stored_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:  # the dataclass's default (none for a required field)
            if self.default is _REQUIRED:
                raise AttributeError(self.name)
            return self.default
        stored = obj.__dict__.get(self.slot)
        return stored if stored is not None else obj._derive(self.name)

    def __set__(self, obj: Any, value: Any) -> None:
        # reached from the dataclass's __init__ and __post_init__ only: the frozen
        # class's __setattr__ refuses assignment before a descriptor sees it
        obj.__dict__[self.slot] = value


def _binary_conf(score: np.ndarray, predicted: np.ndarray) -> np.ndarray:
    """The confidence in the predicted class of a binary score: ``where(predicted,
    score, 1 - score)``, with ``1 - score`` formed as
    :attr:`calreport.profile.ConfidenceProfile.proba` forms its first column (the same
    bits)."""
    out = np.subtract(1.0, score)
    np.copyto(out, score, where=predicted)
    return out


def _code_dtype(n_classes: int) -> np.dtype:
    """The smallest signed integer type holding the codes ``0..n_classes-1``."""
    return np.min_scalar_type(-max(n_classes, 1))


def _small_codes(codes: np.ndarray, n_classes: int) -> np.ndarray:
    """Class codes ``0..n_classes-1`` in the smallest signed integer type (int8 up to
    128 classes): 1 byte a row instead of 8.  Arithmetic on the codes converts them
    first (:func:`calreport._validate.check_class_codes` returns int64)."""
    dtype = _code_dtype(n_classes)
    return codes if codes.dtype == dtype else codes.astype(dtype)


def _is_column(a: np.ndarray | None, matrix: np.ndarray | None, j: int) -> bool:
    """True when ``a`` is the memory of column ``j`` of ``matrix`` (not a copy)."""
    if a is None or matrix is None or matrix.ndim != 2 or matrix.shape[1] <= j:
        return False
    col = matrix[:, j]
    return (a.shape == col.shape and a.strides == col.strides
            and a.__array_interface__["data"][0] == col.__array_interface__["data"][0])


def _raw(x: Any) -> np.ndarray | None:
    """The memory behind an input: a NumPy array, a pandas object, or any object that
    exposes its buffer (``array.array``, ``memoryview``, ``__array__``)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "to_numpy") and hasattr(x, "dtype"):
        try:
            values = x.to_numpy()
        except (TypeError, ValueError):  # pragma: no cover - exotic extension arrays
            return None
        return values if isinstance(values, np.ndarray) and values.dtype.kind in "biuf" \
            else None
    values = getattr(x, "values", None)
    if isinstance(values, np.ndarray):
        return values
    if isinstance(x, (list, tuple)):  # converted into new memory
        return None
    try:
        values = np.asarray(x) if hasattr(x, "__array__") else np.frombuffer(x, np.uint8)
    except (TypeError, ValueError, BufferError):
        return None
    return values if isinstance(values, np.ndarray) else None


def _owned(a: Any, raws: list[np.ndarray]) -> Any:
    """``a``, copied when it may share memory with one of the caller's inputs."""
    if not isinstance(a, np.ndarray):
        return a
    if any(np.may_share_memory(a, r) for r in raws):
        return a.copy()
    return a
