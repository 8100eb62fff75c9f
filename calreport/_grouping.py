"""The one grouped path: validate the whole frame once, then cut it into groups.

A DataFrame is the one-group case.  Classes, the positive class and the label
encoding are fixed once from the whole frame (:func:`calreport._roles.build_profile`),
so a group's numbers equal those of the same rows computed alone with the same
classes, and invalid input raises identically whether grouped or not.  Groups are
integer row positions into that one validated profile; no DataFrame is built per
group.  Group keys follow pandas (``sort``, ``dropna``, ``observed``, several keys,
NaN keys, ``as_index``).
"""

from __future__ import annotations

from collections.abc import Hashable
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd

from calreport import _warnings
from calreport._roles import Roles, build_profile, resolve_roles
from calreport.profile import ConfidenceProfile

__all__ = ["Group", "Split", "split_frame", "split_groupby"]


class _Rows:
    """The ``rows`` field of :class:`Group`: positions held, or, for the one group of
    an ungrouped frame (every row of the profile, given as their count), ``0..N-1``
    built on each read, so a call on N rows does not hold N positions it never reads."""

    def __set_name__(self, owner: type, name: str) -> None:
        self.slot = "_" + name

    def __get__(self, obj: Any, owner: type | None = None) -> Any:
        if obj is None:
            raise AttributeError("rows")  # a required field
        rows = obj.__dict__[self.slot]
        if isinstance(rows, int):
            return np.arange(rows, dtype=np.int32 if rows < 2**31 else np.intp)
        return rows

    def __set__(self, obj: Any, value: Any) -> None:
        obj.__dict__[self.slot] = value


@dataclass(frozen=True)
class Group:
    """One group: its key, display name and rows.

    Attributes
    ----------
    key : hashable
        The pandas group key (``None`` for an ungrouped frame).
    name : str
        Display name, unique among the groups of a call.
    rows : ndarray of integers
        Positions of its rows in the validated profile (intp, or int32 for the one
        group of an ungrouped frame of fewer than 2**31 rows).  Given as an ``int``
        N: every row, ``0..N-1``, built when read.
    n_dropped : int
        Rows of the group dropped for missing values (``missing="drop"``).
    """

    key: Any
    name: str
    rows: np.ndarray = _Rows()  # type: ignore[assignment]
    n_dropped: int = 0

    @property
    def size(self) -> int:
        """Number of rows."""
        rows = self.__dict__["_rows"]
        return rows if isinstance(rows, int) else int(rows.size)


@dataclass(frozen=True)
class Split:
    """A validated profile and its groups.

    Attributes
    ----------
    profile : ConfidenceProfile
        The whole frame, validated once (rows with missing values dropped when
        ``missing="drop"``).
    groups : list of Group
    index : pandas.Index or None
        Group keys as pandas would index a grouped result; None when ungrouped.
    row_labels : pandas.Index
        The frame's index labels of the profile's rows.
    group_label : str or None
        What the groups are (the key column names).
    as_index : bool
        Whether pandas would put the keys in the index (else as columns).
    roles : Roles
    frame : pandas.DataFrame
        The frame the profile was built from (never modified).
    n_no_key : int
        Rows whose group key is missing: pandas' ``groupby`` puts them in no group
        (``dropna=False`` keeps them as one); counted, never silently gone.
    """

    profile: ConfidenceProfile
    groups: list[Group]
    index: pd.Index | None
    row_labels: pd.Index
    group_label: str | None
    as_index: bool
    roles: Roles
    frame: pd.DataFrame | None = None
    n_no_key: int = 0

    @property
    def grouped(self) -> bool:
        """True for a GroupBy."""
        return self.index is not None

    def group_profile(self, g: Group) -> ConfidenceProfile:
        """The profile of one group (the whole profile when ungrouped)."""
        if not self.grouped:
            return self.profile
        return self.profile.take(g.rows)


def group_name(key: Any) -> str:
    """Display name of a group key: tuple parts joined by " / "."""
    if isinstance(key, tuple):
        return " / ".join(group_name(k) for k in key)
    return str(key)


def _unique_names(keys: list[Any]) -> list[str]:
    """Display names, disambiguated when two keys print alike (1 vs "1", NaN vs "nan")."""
    names = [group_name(k) for k in keys]
    seen: dict[str, int] = {}
    for n in names:
        seen[n] = seen.get(n, 0) + 1
    out = []
    for k, n in zip(keys, names, strict=True):
        out.append(n if seen[n] == 1 else f"{n} [{_type_tag(k)}]")
    counts: dict[str, int] = {}
    final = []
    for n in out:  # still equal (same type and text): number them
        counts[n] = counts.get(n, 0) + 1
        final.append(n if counts[n] == 1 else f"{n} #{counts[n]}")
    return final


def _type_tag(key: Any) -> str:
    if isinstance(key, tuple):
        return ", ".join(_type_tag(k) for k in key)
    if isinstance(key, float) and key != key:
        return "missing"
    return type(key).__name__


def split_frame(df: pd.DataFrame, roles: Roles) -> Split:
    """The one-group split of an ungrouped frame."""
    profile, n_dropped, keep = build_profile(df, roles)
    # the group is every row of the profile: its positions are built only when read
    rows = profile.n
    # the index itself when no row was dropped: taking every position copies it
    labels = df.index if n_dropped == 0 else df.index[keep]
    return Split(profile, [Group(None, "all", rows, int(n_dropped))], None,
                 labels, None, True, roles, df)


def _key_columns(gb: Any) -> list[Hashable]:
    keys = gb.keys
    if keys is None:
        return []
    keys = keys if isinstance(keys, list) else [keys]
    cols = gb.obj.columns
    out = []
    for k in keys:
        if isinstance(k, pd.Series):
            continue
        if isinstance(k, Hashable) and not callable(k) and k in cols:
            out.append(k)
    return out


def group_label(gb: Any) -> str | None:
    """The group key names, joined by " / "."""
    keys = gb.keys if isinstance(gb.keys, list) else [gb.keys]
    names = [k if isinstance(k, str) else getattr(k, "name", None) for k in keys]
    label = " / ".join(str(n) for n in names if n is not None)
    return label or None


def resolve_group_roles(gb: Any, role_kw: dict[str, Any]) -> Roles:
    """Column roles on the whole frame, group keys excluded."""
    return resolve_roles(gb.obj, exclude=_key_columns(gb), **role_kw)


def split_groupby(gb: Any, roles: Roles) -> Split:
    """Validate ``gb.obj`` once and cut it into the groups pandas would form."""
    obj = gb.obj
    # weights are normalised per group (ConfidenceProfile.take), not by the frame's max
    profile, _, keep = build_profile(obj, roles, normalize_weights=False)
    as_index = bool(getattr(gb, "as_index", True))
    sizes = gb.size()
    if isinstance(sizes, pd.DataFrame):  # as_index=False: keys are columns
        key_cols = [c for c in sizes.columns if c != "size"]
        counts = sizes["size"].to_numpy()
        if len(key_cols) == 1:
            index = pd.Index(sizes[key_cols[0]], name=key_cols[0])
        else:
            index = pd.MultiIndex.from_frame(sizes[key_cols])
    else:
        counts = sizes.to_numpy()
        index = sizes.index
    codes = gb.ngroup().to_numpy(dtype=np.float64, na_value=np.nan)
    observed = np.flatnonzero(counts > 0)
    valid = ~np.isnan(codes)
    code_int = np.where(valid, codes, -1).astype(np.int64)
    per_code = np.bincount(code_int[valid], minlength=observed.size)
    if per_code.size != observed.size or not np.array_equal(per_code, counts[observed]):
        raise RuntimeError(  # pragma: no cover - defensive: pandas changed its numbering
            "pandas' group numbering does not match its group sizes; please report this.")
    position_of_code = observed  # code c is the c-th non-empty group
    row_group = np.full(code_int.size, -1, dtype=np.int64)  # -1: in no group (NaN key)
    row_group[valid] = position_of_code[code_int[valid]]
    kept_group = row_group[keep]
    kept_mask = np.zeros(row_group.size, dtype=bool)
    kept_mask[keep] = True
    dropped_group = row_group[~kept_mask]
    dropped = np.bincount(dropped_group[dropped_group >= 0], minlength=len(index))
    order = np.argsort(kept_group, kind="stable")
    bounds = np.searchsorted(kept_group[order], np.arange(len(index) + 1))
    keys = list(index)
    names = _unique_names(keys)
    groups = []
    for g, key in enumerate(keys):
        rows = order[bounds[g]:bounds[g + 1]]
        groups.append(Group(key, names[g], rows, int(dropped[g])))
    n_no_key = int(np.count_nonzero(row_group < 0))
    if n_no_key:
        _warnings.warn(
            f"{n_no_key:,} row(s) have a missing group key and are in no group (pandas' "
            "groupby drops them, and so does the pooled 'overall' row); use "
            "groupby(..., dropna=False) to keep them as a group.", UserWarning)
    return Split(profile, groups, index, obj.index[keep], group_label(gb), as_index, roles,
                 obj, n_no_key)
