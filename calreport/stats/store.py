"""Plain (JSON-ready) form of a :class:`~calreport.stats.StatsState`, validated on load.

Arrays are stored as base64 of their zlib-compressed bytes with dtype and shape (or,
in the binary form of :mod:`calreport.stats.binary`, as the offset of their raw
little-endian bytes in a body beside the JSON header); group keys as JSON values
(tuples tagged); the sample's row labels as strings.  Sparse sums
(:class:`~calreport.stats.sparse.SparseSums`) are stored as their compressed rows
``ptr``, ``index`` and values; their cells are checked sorted, distinct and within
the grid.

A stored state is read like input: :func:`state_from_dict` checks every field
(names, types, dtypes, shapes against the settings and the number of groups, group
keys without duplicates), refuses before decoding anything whose decoded size
passes ``max_bytes``, inflates each array no further than its declared size, and
then checks the values agree (:func:`~calreport.stats.state.check_state`).  Every
failure is a ``ValueError`` naming the field, what was expected and the fix.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import math
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np

from calreport.stats._exact import FixedSum
from calreport.stats.config import Schema, StatsConfig
from calreport.stats.smooth_grid import _TOTAL
from calreport.stats.sparse import SparseSums
from calreport.stats.state import StatsState, check_state, state_layout
from calreport.stats.weight_scale import check_scale

__all__ = ["MAX_BYTES", "Encoder", "check_budget", "check_fields", "layout_bytes",
           "plain_value", "state_from_dict", "state_to_dict", "value_from_plain"]

#: Default limit on the bytes a stored state may take once inflated (its text) and
#: once its arrays are decoded: 1 GiB.  A state's arrays grow with the fine bins its
#: groups occupy and the rows they keep (about 120 kB per group of 1,000 binary rows
#: with the default settings); raise the limit for larger trusted ones.
MAX_BYTES = 1 << 30

_DTYPES = ("bool", "int8", "int16", "int32", "int64", "float64")
_INTS = ("int8", "int16", "int32", "int64")
#: Sections of the layout holding sparse sums (their size follows the data).
_SPARSE = ("sparse", "fsparse")
_LAYOUTS = ("proba", "labels", "minimal")
_FIX = "The state was not written by this calreport or was altered: rebuild it from its batches."


# =============================================================================
# writing
# =============================================================================
def _array(a: np.ndarray) -> dict[str, Any]:
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "data": base64.b64encode(zlib.compress(np.ascontiguousarray(a).tobytes())).decode()}


Encoder = Callable[[np.ndarray], Any]


def _sum_out(s: FixedSum | SparseSums | np.ndarray, encode: Encoder) -> dict[str, Any]:
    if isinstance(s, SparseSums):
        rows = {"ptr": encode(s.ptr), "index": encode(s.index)}
        if s.exact:
            return {"frac_bits": s.values.frac_bits, **rows, "limbs": encode(s.values.limbs)}
        return {**rows, "values": encode(s.values)}
    if isinstance(s, FixedSum):
        return {"frac_bits": s.frac_bits, "limbs": encode(s.limbs)}
    return encode(s)


def plain_value(v: Any) -> Any:
    """A label, column name or setting as JSON (tuples and mappings tagged).

    Examples
    --------
    >>> plain_value(("a", 1)), value_from_plain(plain_value({0: "p0"}), "proba")
    ({'tuple': ['a', 1]}, {0: 'p0'})
    """
    if isinstance(v, np.generic):
        v = v.item()
    if isinstance(v, tuple):
        return {"tuple": [plain_value(x) for x in v]}
    if isinstance(v, list):
        return [plain_value(x) for x in v]
    if isinstance(v, dict):
        return {"mapping": [[plain_value(k), plain_value(x)] for k, x in v.items()]}
    if v is None or isinstance(v, (str, int, float, bool)):
        return v
    raise TypeError(f"{v!r} of type {type(v).__name__} cannot be stored as JSON; use "
                    "strings or numbers for column names, labels and group keys.")


def _same_rows(a: dict[str, np.ndarray] | None, b: dict[str, np.ndarray]) -> bool:
    return a is b or (a is not None and a.keys() == b.keys() and all(
        np.array_equal(a[f], b[f]) for f in a))


def _groups_out(d: dict[Any, dict[str, np.ndarray]] | None, encode: Encoder = _array,
                heavy: bool = False) -> Any:
    if d is None:
        return None
    out: list[dict[str, Any]] = []
    for key, arrays in d.items():
        if heavy and key[1] == "rest" and _same_rows(d.get((key[0], "all")), arrays):
            # no certainty claim in the group: its rows below certainty are all rows
            out.append({"key": plain_value(key), "arrays": "all"})
            continue
        entry = {}
        for f, a in arrays.items():
            entry[f] = ({"strings": [str(x) for x in a]} if a.dtype == object
                        else encode(a))
        out.append({"key": plain_value(key), "arrays": entry})
    return out


def state_to_dict(st: StatsState, encode: Encoder = _array) -> dict[str, Any]:
    """The state's data (not its settings) as plain values; ``encode`` gives the plain
    form of an array (default: base64 of its zlib-compressed bytes)."""
    return {
        "schema": {**dataclasses.asdict(st.schema), "classes": None if st.schema.classes
                   is None else [plain_value(c) for c in st.schema.classes]},
        "keys": [plain_value(k) for k in st.keys],
        # in name order: a loaded state writes the same bytes again
        "counts": {k: encode(a) for k, a in sorted(st.counts.items())},
        "sums": {k: _sum_out(s, encode) for k, s in sorted(st.sums.items())},
        "boot": None if st.boot is None else encode(st.boot),
        "maxima": {k: encode(a) for k, a in sorted(st.maxima.items())},
        "sample": _groups_out(st.sample, encode),
        "top": _groups_out(st.top, encode),
        "heavy": _groups_out(st.heavy, encode, heavy=True),
        "fsums": {k: _sum_out(a, encode) for k, a in sorted(st.fsums.items())},
        "smooth": _groups_out(st.smooth, encode),
        "ranks": None if st.ranks is None else _groups_out(
            {k: {"r": a} for k, a in st.ranks.items()}, encode),
        # written only when a weight scale is not 1: other states read as before
        **({} if st.scale is None else {"scale": encode(st.scale)}),
    }


# =============================================================================
# reading: structure
# =============================================================================
def check_fields(d: Any, name: str, required: tuple[str, ...], optional: tuple[str, ...] = ()
            ) -> dict[str, Any]:
    """``d`` as a JSON object holding every ``required`` field and nothing unknown."""
    if not isinstance(d, dict):
        raise ValueError(f"`{name}` must be a JSON object with the fields {list(required)}, "
                         f"got {type(d).__name__}. {_FIX}")
    missing = [f for f in required if f not in d]
    unknown = sorted(str(f) for f in d if f not in required and f not in optional)
    if missing or unknown:
        raise ValueError(
            f"`{name}` has {'no ' + str(missing) if missing else ''}"
            f"{' and ' if missing and unknown else ''}"
            f"{'unknown fields ' + str(unknown) if unknown else ''}; expected "
            f"{list(required) + list(optional)}. {_FIX}")
    return d


def value_from_plain(p: Any, name: str) -> Any:
    """Inverse of :func:`plain_value`; ``name`` is the field named in errors."""
    if isinstance(p, list):
        return [value_from_plain(x, name) for x in p]
    if isinstance(p, dict):
        if set(p) == {"tuple"} and isinstance(p["tuple"], list):
            return tuple(value_from_plain(x, name) for x in p["tuple"])
        if set(p) == {"mapping"} and isinstance(p["mapping"], list) and all(
                isinstance(e, list) and len(e) == 2 for e in p["mapping"]):
            out = {}
            for k, v in p["mapping"]:
                k = _hashable(value_from_plain(k, name), name)
                if k in out:
                    raise ValueError(f"`{name}` maps {k!r} twice. {_FIX}")
                out[k] = value_from_plain(v, name)
            return out
        raise ValueError(f"`{name}` holds the object {sorted(map(str, p))}; only "
                         "{'tuple': [...]} and {'mapping': [[key, value], ...]} are "
                         f"stored values. {_FIX}")
    return p


def _hashable(v: Any, name: str) -> Any:
    try:
        hash(v)
    except TypeError:
        raise ValueError(f"`{name}` holds {v!r}, which cannot be a label or key (a list); "
                         f"keys are numbers, strings, null or tuples. {_FIX}") from None
    return v


def _keys_in(p: Any, name: str) -> list[Any]:
    """Group keys (or classes): a list of distinct hashable values."""
    if not isinstance(p, list):
        raise ValueError(f"`{name}` must be a list, got {type(p).__name__}. {_FIX}")
    keys = [_hashable(value_from_plain(k, name), name) for k in p]
    seen: set[Any] = set()
    for k in keys:
        if k in seen:
            raise ValueError(f"`{name}` holds {k!r} twice; every key is stored once (a "
                             f"merged state adds duplicate groups' sums). {_FIX}")
        seen.add(k)
    return keys


def _schema_in(p: Any, name: str) -> Schema:
    d = check_fields(p, name, ("layout", "classes", "binary", "weighted"))
    classes = None if d["classes"] is None else tuple(_keys_in(d["classes"], f"{name}.classes"))
    if d["layout"] not in _LAYOUTS or not isinstance(d["binary"], bool) \
            or not isinstance(d["weighted"], bool):
        raise ValueError(f"`{name}` must have layout in {list(_LAYOUTS)} and true/false "
                         f"`binary` and `weighted`, got {d!r}. {_FIX}")
    if d["binary"] and (classes is None or len(classes) != 2 or d["layout"] != "proba"):
        raise ValueError(f"`{name}` is binary but holds the classes {classes} with layout "
                         f"{d['layout']!r}; a binary state has two classes and "
                         f"probabilities. {_FIX}")
    return Schema(d["layout"], classes, d["binary"], d["weighted"])


def _nbytes(shape: tuple[int, ...], dtype: str) -> int:
    return math.prod(shape) * np.dtype(dtype).itemsize


def layout_bytes(config: StatsConfig, schema: Schema, g: int) -> int:
    """Bytes of the arrays :func:`~calreport.stats.state.state_layout` gives (one limb
    per sum, no occupied fine bin: the least a stored state takes), plus the dense grid
    of one group that the finishers read (its sparse sums densified one at a time)."""
    lay = state_layout(config, schema, g)
    dense = sum(_nbytes(shape, "int64" if fb is not None else "float64")
                for name, part in lay.items() if name not in _SPARSE
                for shape, fb in part.values())
    grids = [(*cells, *tail) for name in _SPARSE for (cells, tail), _ in lay[name].values()]
    return dense + sum(len(lay[name]) for name in _SPARSE) * _nbytes((g + 1,), "int64") \
        + max(_nbytes(shape, "float64") for shape in grids)


def check_budget(need: int, max_bytes: int, what: str) -> None:
    """Refuse ``need`` bytes above ``max_bytes`` (before anything is allocated)."""
    if need > max_bytes:
        raise ValueError(
            f"{what} needs {need:,} bytes, above `max_bytes`={max_bytes:,}. A stored state "
            "is refused before its arrays are allocated; pass a larger `max_bytes` if the "
            "source is trusted and the state really is that large.")


class _Reader:
    """Decodes arrays, counting their bytes against ``max_bytes`` before each one.

    With ``body`` (the binary form), an array is ``{"dtype", "shape", "at"}``: its raw
    little-endian bytes start at offset ``at`` of the body; ``read`` counts the body's
    bytes the arrays took (all of them, once the state is read).
    """

    def __init__(self, max_bytes: int, where: str, body: bytes | None = None) -> None:
        self.max_bytes, self.used, self.where = max_bytes, 0, where
        self.body, self.read = body, 0

    def array(self, p: Any, name: str, dtypes: tuple[str, ...],
              shape: tuple[int | None, ...] | None = None) -> np.ndarray:
        """The array of a stored ``{"dtype", "shape", "data"}`` (``None`` in ``shape``:
        any length; ``shape=None``: any shape)."""
        name = f"{self.where}.{name}"
        d = check_fields(p, name, ("dtype", "shape", "data" if self.body is None else "at"))
        dtype, dims, data = d["dtype"], d["shape"], d.get("data", d.get("at"))
        if dtype not in dtypes:
            raise ValueError(f"`{name}` has dtype {dtype!r}; expected {' or '.join(dtypes)}. "
                             f"{_FIX}")
        if not isinstance(dims, list) or not all(
                isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in dims):
            raise ValueError(f"`{name}` has the shape {dims!r}; expected a list of "
                             f"non-negative integers. {_FIX}")
        if shape is not None and (len(dims) != len(shape) or any(
                want is not None and got != want for got, want in zip(dims, shape, strict=False))):
            want_txt = "(" + ", ".join("any" if w is None else str(w) for w in shape) + \
                ("," if len(shape) == 1 else "") + ")"
            raise ValueError(
                f"`{name}` has shape {tuple(dims)}; the stored settings and groups give "
                f"{want_txt}. The settings (`config`) or the group keys no longer match "
                f"the arrays. {_FIX}")
        n = _nbytes(tuple(dims), dtype)
        self.used += n
        check_budget(self.used, self.max_bytes, f"Decoding `{name}` (and the arrays before it)")
        if self.body is not None:
            return self._raw(data, n, name, dtype, tuple(dims))
        if not isinstance(data, str):
            raise ValueError(f"`{name}.data` must be a base64 string. {_FIX}")
        try:
            packed = base64.b64decode(data, validate=True)
            z = zlib.decompressobj()
            raw = z.decompress(packed, n + 1)  # no further than the declared size
            whole = z.eof and not z.unused_data
        except (binascii.Error, zlib.error) as exc:
            raise ValueError(f"`{name}.data` is not base64 of zlib-compressed bytes ({exc}). "
                             f"{_FIX}") from None
        if len(raw) != n or not whole:
            raise ValueError(f"`{name}.data` does not hold the {n:,} bytes of shape "
                             f"{tuple(dims)} {dtype} (truncated, padded or a different "
                             f"array). {_FIX}")
        return np.frombuffer(raw, dtype=dtype).reshape(dims).copy()

    def _raw(self, at: Any, n: int, name: str, dtype: str, dims: tuple[int, ...]
             ) -> np.ndarray:
        body = self.body if self.body is not None else b""
        if isinstance(at, bool) or not isinstance(at, int) or at < 0 or at + n > len(body):
            raise ValueError(f"`{name}.at` is {at!r}: the {n:,} bytes of shape {dims} "
                             f"{dtype} must lie within the {len(body):,} bytes of the body "
                             f"(a truncated or altered payload). {_FIX}")
        self.read += n
        little = np.dtype(dtype).newbyteorder("<")
        return np.frombuffer(body, dtype=little, count=math.prod(dims), offset=at
                             ).astype(dtype).reshape(dims)


def _named_arrays(p: Any, name: str, reader: _Reader, layout: dict[str, Any],
                  dtype: str) -> dict[str, np.ndarray]:
    """The arrays of one section (``counts``, ``fsums``), exactly the layout's names."""
    check_fields(p, f"{reader.where}.{name}", tuple(layout))
    return {k: reader.array(p[k], f"{name}.{k}", (dtype,), shape)
            for k, (shape, _) in layout.items()}


def _frac_bits(d: dict[str, Any], name: str, frac_bits: int) -> None:
    if d["frac_bits"] != frac_bits or isinstance(d["frac_bits"], bool):
        raise ValueError(
            f"`{name}.frac_bits` is {d['frac_bits']!r}; this sum is held on the "
            f"2^-{frac_bits} grid ({'counts' if frac_bits == 0 else 'reals'}), the only one "
            f"the code supports for it. {_FIX}")


def _sums_in(p: Any, section: str, reader: _Reader, layout: dict[str, Any],
             sparse: dict[str, Any], g: int) -> dict[str, Any]:
    """Exact (or, in ``fsums``, float) sums: dense ones of the layout's shapes, and the
    compressed rows of the sparse ones (their cells are checked in check_state)."""
    check_fields(p, f"{reader.where}.{section}", (*layout, *sparse))
    out: dict[str, Any] = {}
    for k, (shape, frac_bits) in layout.items():
        if frac_bits is None:
            out[k] = reader.array(p[k], f"{section}.{k}", ("float64",), shape)
            continue
        d = check_fields(p[k], f"{reader.where}.{section}.{k}", ("frac_bits", "limbs"))
        _frac_bits(d, f"{reader.where}.{section}.{k}", frac_bits)
        limbs = reader.array(d["limbs"], f"{section}.{k}.limbs", ("int64",), (*shape, None))
        out[k] = FixedSum(limbs, frac_bits, normalised=True)  # checked in check_state
    for k, ((cells, tail), frac_bits) in sparse.items():
        name = f"{section}.{k}"
        values = ("values",) if frac_bits is None else ("frac_bits", "limbs")
        d = check_fields(p[k], f"{reader.where}.{name}", ("ptr", "index", *values))
        ptr = reader.array(d["ptr"], f"{name}.ptr", ("int64",), (g + 1,))
        index = reader.array(d["index"], f"{name}.index", ("int64",), (None,))
        if frac_bits is None:
            vals = reader.array(d["values"], f"{name}.values", ("float64",),
                                (index.size, *tail))
        else:
            _frac_bits(d, f"{reader.where}.{name}", frac_bits)
            vals = FixedSum(reader.array(d["limbs"], f"{name}.limbs", ("int64",),
                                         (index.size, *tail, None)), frac_bits, normalised=True)
        out[k] = SparseSums(ptr, index, vals, cells)
    return out


# per-row fields of the kept rows: dtypes, columns (None: 1-D, "K": one per class),
# inclusive value range
_UNIT = (("float64",), None, 0.0, 1.0)
_POSITIVE = (("float64",), None, 0.0, math.inf)
_CODES = (_INTS, None, 0, "K")
_SAMPLE = {"u": (("float64",), None, 0.0, 1.0), "conf": _UNIT, "correct": (("bool",), None),
           "y_true": _CODES, "y_pred": _CODES, "proba": (("float64",), "K", 0.0, 1.0),
           "score": _UNIT, "sample_weight": _POSITIVE}
_TOP_ERRORS = {**_SAMPLE, "u": (("float64",), None, -math.inf, 0.0), "size": _POSITIVE,
        "row": "strings"}
_HEAVY = {"u": (("float64",), None, -math.inf, 0.0), "conf": _UNIT, "raw": _UNIT,
          "wrong": (("bool",), None), "atom": _POSITIVE, "k": _POSITIVE, "w": _POSITIVE,
          "rank": (("int64",), None, 0, math.inf)}


def _rows_in(p: Any, name: str, reader: _Reader, spec: dict[str, Any], limit: int,
             k: int) -> dict[str, np.ndarray]:
    """One group's kept rows: known fields of one length (at most ``limit``), in range."""
    d = check_fields(p, f"{reader.where}.{name}", ("u", "conf"), tuple(f for f in spec if f not in
                                                                   ("u", "conf")))
    out, length = {}, None
    for f, p_f in d.items():
        where = f"{name}.{f}"
        if spec[f] == "strings":
            if not isinstance(p_f, dict) or set(p_f) != {"strings"} or not all(
                    isinstance(x, str) for x in p_f["strings"]):
                raise ValueError(f"`{reader.where}.{where}` must be {{'strings': [...]}}. {_FIX}")
            a = np.asarray(p_f["strings"], dtype=object)
        else:
            dtypes, cols, *bounds = spec[f]
            a = reader.array(p_f, where, dtypes, (None,) if cols is None else (None, k))
            if bounds:
                lo, hi = bounds[0], k - 1 if bounds[1] == "K" else bounds[1]
                bad = ~(np.isfinite(a) & (a >= lo) & (a <= hi))
                if bad.any():
                    raise ValueError(
                        f"`{reader.where}.{where}` holds {int(bad.sum())} values outside "
                        f"[{lo}, {hi}] or not finite (first: {a[bad].ravel()[0].item()!r}). {_FIX}")
        if length is None:
            length = len(a)
        if len(a) != length or length > limit:
            raise ValueError(
                f"`{reader.where}.{name}` keeps {len(a)} rows in `{f}` ({length} in the "
                f"first field); every field has one length, at most {limit} (the setting "
                f"that keeps these rows). {_FIX}")
        out[f] = a
    return out


_HEAVY_KEY = ' (heavy rows are keyed (group, "all" | "rest"))'


def _entries(p: Any, name: str, reader: _Reader, keys: list[Any], heavy: bool = False
             ) -> list[tuple[str, Any, Any]]:
    """``(path, key, arrays)`` of a per-group list: keys of the state's groups, each once
    (``heavy``: keyed ``(group, "all" | "rest")``)."""
    if not isinstance(p, list):
        raise ValueError(f"`{reader.where}.{name}` must be a list of groups. {_FIX}")
    known, seen, out = set(keys), set(), []
    for i, e in enumerate(p):
        path = f"{name}[{i}]"
        e = check_fields(e, f"{reader.where}.{path}", ("key", "arrays"))
        key = _hashable(value_from_plain(e["key"], f"{reader.where}.{path}.key"), name)
        group = key[0] if heavy and isinstance(key, tuple) and len(key) == 2 \
            and key[1] in ("all", "rest") else None if heavy else key
        if group not in known or key in seen:
            raise ValueError(
                f"`{reader.where}.{path}.key` is {key!r}: "
                f"{'a repeated key' if key in seen else 'not a group of the state'}"
                f"{_HEAVY_KEY if heavy else ''}. "
                f"{_FIX}")
        seen.add(key)
        out.append((f"{path}.arrays", key, e["arrays"]))
    return out


def _groups_in(p: Any, name: str, reader: _Reader, keys: list[Any], spec: dict[str, Any],
               limit: int, k: int, heavy: bool = False) -> dict[Any, dict[str, np.ndarray]]:
    """Kept rows per group (``heavy``: per (group, "all" | "rest"); the arrays ``"all"``
    of a "rest" entry are those of the group's "all" entry)."""
    entries = _entries(p, name, reader, keys, heavy)
    out = {key: _rows_in(arrays, path, reader, spec, limit, k)
           for path, key, arrays in entries if not (heavy and arrays == "all")}
    for path, key, arrays in entries:
        if heavy and arrays == "all":
            if key[1] != "rest" or (key[0], "all") not in out:
                raise ValueError(f"`{reader.where}.{path}` is 'all' (the rows of the group's "
                                 f"'all' entry) in the entry {key!r}: only a 'rest' entry of "
                                 f"a group with an 'all' entry refers to it. {_FIX}")
            out[key] = out[(key[0], "all")]
    return {key: out[key] for _, key, _ in entries}  # in the stored order


def _smooth_in(p: Any, reader: _Reader, keys: list[Any], config: StatsConfig
               ) -> dict[Any, dict[str, np.ndarray]]:
    entries = _entries(p, "smooth", reader, keys)
    if len(entries) > config.smooth_groups:
        raise ValueError(f"`{reader.where}.smooth` holds {len(entries)} groups, above "
                         f"`smooth_groups`={config.smooth_groups}. {_FIX}")
    out: dict[Any, dict[str, np.ndarray]] = {}
    for path, key, arrays in entries:
        views = check_fields(arrays, f"{reader.where}.{path}", (), ("top_label", "positive"))
        out[key] = {}
        for v, a in views.items():
            m = reader.array(a, f"{path}.{v}", ("float64",), (2, _TOTAL))
            if not np.isfinite(m).all():
                raise ValueError(f"`{reader.where}.{path}.{v}` holds NaN or infinite "
                                 f"masses. {_FIX}")
            out[key][v] = m
    return out


def _ranks_in(p: Any, reader: _Reader, keys: list[Any], n: np.ndarray, exact: bool
              ) -> dict[Any, np.ndarray]:
    """Stream ranges: sorted, disjoint, covering ``n`` positions (``exact``) or fewer
    (overlapping ranges coalesce when neither state drew from the streams)."""
    out: dict[Any, np.ndarray] = {}
    for path, key, arrays in _entries(p, "ranks", reader, keys):
        arrays = check_fields(arrays, f"{reader.where}.{path}", ("r",))
        r = reader.array(arrays["r"], f"{path}.r", ("int64",), (None, 2))
        span = int((r[:, 1] - r[:, 0]).sum()) if r.size else 0
        rows = int(n[keys.index(key)])
        if (r < 0).any() or (r[:, 1] <= r[:, 0]).any() or (r[1:, 0] <= r[:-1, 1]).any() \
                or span > rows or (exact and span != rows):
            raise ValueError(
                f"`{reader.where}.{path}.r` (group {key!r}) holds the stream ranges "
                f"{r.tolist()[:3]}: they must be sorted, disjoint, non-negative and cover "
                f"{'exactly' if exact else 'at most'} the group's {rows} rows. {_FIX}")
        out[key] = r
    if set(out) != set(keys):
        raise ValueError(f"`{reader.where}.ranks` covers {len(out)} of the {len(keys)} "
                         f"groups; it holds every group or is null. {_FIX}")
    return out


# =============================================================================
# reading: the state
# =============================================================================
def state_from_dict(s: Any, config: StatsConfig, *, max_bytes: int = MAX_BYTES,
                    where: str = "state", body: bytes | None = None) -> StatsState:
    """Inverse of :func:`state_to_dict`, validating the plain form first.

    Parameters
    ----------
    s : dict
        The plain form (parsed JSON).
    config : StatsConfig
        The settings the state was built with.
    max_bytes : int, default :data:`MAX_BYTES`
        Most bytes the decoded arrays may take; refused before they are allocated.
    where : str, default "state"
        The field path of ``s`` in messages.
    body : bytes, optional
        The raw arrays of the binary form (:mod:`calreport.stats.binary`): arrays are
        then ``{"dtype", "shape", "at"}`` offsets into it, which they must cover exactly.

    Returns
    -------
    StatsState

    Raises
    ------
    ValueError
        When a field is missing, unknown or of the wrong type, an array's dtype or shape
        does not follow from the settings and the groups, the arrays need more than
        ``max_bytes``, or the values disagree (:func:`~calreport.stats.state.check_state`).

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> st = StatsState.from_profile(ConfidenceProfile.from_arrays([0, 1], [0.3, 0.8]))
    >>> state_from_dict(state_to_dict(st), st.config).equals(st)
    True
    """
    d = check_fields(s, where, ("schema", "keys", "counts", "sums", "boot", "maxima", "sample",
                           "top", "heavy", "fsums", "smooth", "ranks"), ("scale",))
    schema = _schema_in(d["schema"], f"{where}.schema")
    keys = _keys_in(d["keys"], f"{where}.keys")
    g = len(keys)
    check_budget(layout_bytes(config, schema, g), max_bytes,
                 f"A state of {g} groups with n_bins={config.n_bins}, score_bins="
                 f"{config.score_bins}, n_boot={config.n_boot}")
    lay = state_layout(config, schema, g)
    reader = _Reader(max_bytes, where, body)
    counts = _named_arrays(d["counts"], "counts", reader, lay["counts"], "int64")
    sums = _sums_in(d["sums"], "sums", reader, lay["sums"], lay["sparse"], g)
    fsums = _sums_in(d["fsums"], "fsums", reader, lay["fsums"], lay["fsparse"], g)
    if (d["boot"] is None) != (not lay["boot"]):
        raise ValueError(f"`{where}.boot` must be {'null' if not lay['boot'] else 'present'}"
                         f" with `config.n_boot`={config.n_boot}. {_FIX}")
    boot = None if d["boot"] is None else reader.array(d["boot"], "boot", ("float64",),
                                                       lay["boot"]["boot"][0])
    maxima = {k: reader.array(a, f"maxima.{k}", ("float64",), (g,))
              for k, a in check_fields(d["maxima"], f"{where}.maxima", (),
                                  tuple(d["maxima"]) if isinstance(d["maxima"], dict)
                                  else ()).items()}
    k = schema.n_classes
    kept = {}
    for name, spec, limit in (("sample", _SAMPLE, config.sample_size),
                              ("top", _TOP_ERRORS, config.top_errors)):
        if (d[name] is None) != (limit == 0):
            raise ValueError(f"`{where}.{name}` must be {'null' if limit == 0 else 'present'}"
                             f" with the setting that keeps it at {limit}. {_FIX}")
        kept[name] = None if d[name] is None else _groups_in(d[name], name, reader, keys,
                                                             spec, limit, k)
    heavy = None if d["heavy"] is None else _groups_in(d["heavy"], "heavy", reader, keys,
                                                       _HEAVY, config.heavy_rows, k, True)
    smooth = None if d["smooth"] is None else _smooth_in(d["smooth"], reader, keys, config)
    ranks = None if d["ranks"] is None else _ranks_in(
        d["ranks"], reader, keys, counts["n"], boot is not None or kept["sample"] is not None)
    scale = None if d.get("scale") is None else check_scale(
        reader.array(d["scale"], "scale", ("int64",), (g,)), config, schema, f"{where}.scale")
    state = StatsState(config, schema, keys, counts, sums, boot, {}, maxima, kept["sample"],
                       kept["top"], heavy, fsums, smooth, ranks, scale)
    if body is not None and reader.read != len(body):
        raise ValueError(f"The body of the binary state holds {len(body):,} bytes; its "
                         f"arrays take {reader.read:,} (padded, truncated or altered). {_FIX}")
    check_state(state, where)
    return state
