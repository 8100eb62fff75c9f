"""Plain (JSON-ready) form of a :class:`~calreport.stats.StatsState`.

Arrays are stored as base64 of their zlib-compressed bytes with dtype and shape;
group keys as JSON values (tuples tagged); the sample's row labels as strings.
"""

from __future__ import annotations

import base64
import dataclasses
import zlib
from typing import Any

import numpy as np

from calreport.stats._exact import FixedSum
from calreport.stats.state import Schema, StatsConfig, StatsState

__all__ = ["state_from_dict", "state_to_dict"]


def _array(a: np.ndarray) -> dict[str, Any]:
    return {"dtype": str(a.dtype), "shape": list(a.shape),
            "data": base64.b64encode(zlib.compress(np.ascontiguousarray(a).tobytes())).decode()}


def _unarray(d: dict[str, Any]) -> np.ndarray:
    raw = zlib.decompress(base64.b64decode(d["data"]))
    return np.frombuffer(raw, dtype=d["dtype"]).reshape(d["shape"]).copy()


def _key_out(k: Any) -> Any:
    if isinstance(k, tuple):
        return {"tuple": [_key_out(x) for x in k]}
    if k is None or isinstance(k, (str, int, float, bool)):
        return k
    raise TypeError(f"Group key {k!r} of type {type(k).__name__} cannot be stored as JSON.")


def _key_in(k: Any) -> Any:
    if isinstance(k, dict):
        return tuple(_key_in(x) for x in k["tuple"])
    return k


def _groups_out(d: dict[Any, dict[str, np.ndarray]] | None) -> Any:
    if d is None:
        return None
    out = []
    for key, arrays in d.items():
        entry = {}
        for f, a in arrays.items():
            entry[f] = ({"strings": [str(x) for x in a]} if a.dtype == object
                        else _array(a))
        out.append({"key": _key_out(key), "arrays": entry})
    return out


def _groups_in(d: Any) -> dict[Any, dict[str, np.ndarray]] | None:
    if d is None:
        return None
    return {_key_in(e["key"]): {f: (np.asarray(a["strings"], dtype=object) if "strings" in a
                                    else _unarray(a)) for f, a in e["arrays"].items()}
            for e in d}


def state_to_dict(st: StatsState) -> dict[str, Any]:
    """The state's data (not its settings) as plain values."""
    return {
        "schema": dataclasses.asdict(st.schema),
        "keys": [_key_out(k) for k in st.keys],
        "counts": {k: _array(a) for k, a in st.counts.items()},
        "sums": {k: {"frac_bits": s.frac_bits, "limbs": _array(s.limbs)}
                 for k, s in st.sums.items()},
        "boot": None if st.boot is None else _array(st.boot),
        "maxima": {k: _array(a) for k, a in st.maxima.items()},
        "sample": _groups_out(st.sample),
        "top": _groups_out(st.top),
        "heavy": _groups_out(st.heavy),
        "fsums": {k: _array(a) for k, a in st.fsums.items()},
        "smooth": _groups_out(st.smooth),
        "ranks": None if st.ranks is None else _groups_out(
            {k: {"r": a} for k, a in st.ranks.items()}),
    }


def state_from_dict(s: dict[str, Any], config: StatsConfig) -> StatsState:
    """Inverse of :func:`state_to_dict`.

    Examples
    --------
    >>> from calreport.profile import ConfidenceProfile
    >>> st = StatsState.from_profile(ConfidenceProfile.from_arrays([0, 1], [0.3, 0.8]))
    >>> state_from_dict(state_to_dict(st), st.config).equals(st)
    True
    """
    sch = s["schema"]
    schema = Schema(sch["layout"], None if sch["classes"] is None else tuple(sch["classes"]),
                    sch["binary"], sch["weighted"])
    return StatsState(
        config, schema, [_key_in(k) for k in s["keys"]],
        {k: _unarray(a) for k, a in s["counts"].items()},
        {k: FixedSum(_unarray(v["limbs"]), v["frac_bits"]) for k, v in s["sums"].items()},
        None if s["boot"] is None else _unarray(s["boot"]),
        {}, {k: _unarray(a) for k, a in s.get("maxima", {}).items()},
        _groups_in(s.get("sample")), _groups_in(s.get("top")), _groups_in(s.get("heavy")),
        {k: _unarray(a) for k, a in s.get("fsums", {}).items()},
        _groups_in(s.get("smooth")),
        None if s.get("ranks") is None else {
            k: np.asarray(v["r"], dtype=np.int64).reshape(-1, 2)
            for k, v in _groups_in(s["ranks"]).items()},
    )
