"""Streaming statistics: accumulate batches of predictions, merge states, store them.

:class:`Accumulator` keeps a :class:`~calreport.stats.StatsState` and adds each
batch to it, so ``acc.summary()`` after ten daily batches equals the summary of the
ten days at once (exactly for the sums; see :mod:`calreport.stats`).  Two
accumulators add with ``+``; ``to_json``/``to_bytes`` store a state to merge later.

This module also holds the pandas side shared by the Dask and Polars front ends:
column roles fixed once for every batch or partition, and the conversion of
finished metrics to pandas objects.
"""

from __future__ import annotations

import base64
import dataclasses
import json
import zlib
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState
from calreport.stats import finish as _finish
from calreport.stats._exact import FixedSum
from calreport.stats.state import Schema, normalise_key

__all__ = ["Accumulator"]

_ROLE_NAMES = ("y", "proba", "pred", "conf", "correct", "weight")
_FORMAT = "calreport.stats/1"


# =============================================================================
# roles fixed once, then every frame of rows -> state
# =============================================================================
@dataclasses.dataclass(frozen=True)
class FrameSpec:
    """How the rows of any frame become a state: resolved roles, group keys, settings."""

    roles: Any  # calreport._roles.Roles with classes fixed
    by: tuple[Hashable, ...]
    config: StatsConfig
    dropna: bool = True


def resolve_spec(frame: Any, role_kw: dict[str, Any], by: Sequence[Hashable] | None,
                 config: StatsConfig, labels: Any = None, preds: Any = None,
                 dropna: bool = True) -> FrameSpec:
    """Resolve roles on ``frame`` (a pandas frame, possibly empty) and fix the classes.

    ``labels``/``preds`` are the distinct true/predicted labels of the whole data (for
    inferring the classes and the positive class when they are not given).
    """
    from calreport._roles import resolve_roles

    by = tuple(by or ())
    roles = resolve_roles(frame, exclude=by, **role_kw)
    if roles.classes is None and (roles.proba or roles.pred is not None):
        roles = dataclasses.replace(roles, classes=_infer_classes(roles, labels, preds))
    return FrameSpec(roles, by, config, dropna)


def _infer_classes(roles: Any, labels: Any, preds: Any) -> tuple[Any, ...] | None:

    if labels is None:
        return None
    y = np.asarray(labels)
    y = y[~_isna(y)]
    if len(roles.proba) == 1:
        probe = ConfidenceProfile.from_arrays(y, np.full(len(y), 0.5), pos_label=roles.pos_label)
        return tuple(probe.classes.tolist())
    p = np.asarray(preds) if preds is not None else y[:0]
    return tuple(lab.infer_classes(y, p[~_isna(p)]).tolist())


def _isna(a: np.ndarray) -> np.ndarray:
    import pandas as pd

    return np.asarray(pd.isna(a), dtype=bool).reshape(-1) if a.size else np.zeros(0, bool)


def frame_state(frame: Any, spec: FrameSpec, offsets: dict[Any, int] | None = None
                ) -> StatsState | None:
    """State of the rows of one pandas frame (a partition or a batch); None when empty."""
    import pandas as pd

    from calreport._roles import build_profile

    if spec.by:
        keys_df = frame[list(spec.by)]
        if len(spec.by) == 1:
            codes, uniques = pd.factorize(keys_df.iloc[:, 0], use_na_sentinel=spec.dropna)
            keys = [normalise_key(k) for k in np.asarray(uniques, dtype=object)]
        else:
            mi = pd.MultiIndex.from_frame(keys_df)
            codes, uniques = mi.factorize(use_na_sentinel=spec.dropna)
            keys = [normalise_key(tuple(k)) for k in uniques]
        codes = np.asarray(codes, dtype=np.intp)
        if spec.dropna and (codes < 0).any():
            keep = codes >= 0
            frame, codes = frame.iloc[np.flatnonzero(keep)], codes[keep]
    else:
        codes, keys = np.zeros(len(frame), dtype=np.intp), [()]
    if len(frame) == 0:
        return None
    profile, _, kept = build_profile(frame, spec.roles)
    return StatsState.from_profile(profile, config=spec.config, codes=codes[kept],
                                   keys=keys, row_offsets=offsets)


def add_states(*states: StatsState | None) -> StatsState | None:
    """Sum of states, skipping empty ones (None)."""
    out = None
    for s in states:
        if s is not None:
            out = s if out is None else out + s
    return out


def group_counts(frame: Any, spec: FrameSpec) -> dict[Any, int]:
    """Rows per group key that :func:`frame_state` would use (for bootstrap offsets)."""
    import pandas as pd

    cols = spec.roles.columns
    if spec.roles.missing == "drop" and cols:
        frame = frame[~frame[cols].isna().any(axis=1)]
    if not spec.by:
        return {(): len(frame)} if len(frame) else {}
    counts = frame.groupby(list(spec.by), dropna=spec.dropna, sort=False).size()
    if isinstance(counts.index, pd.MultiIndex):
        return {normalise_key(tuple(k)): int(n) for k, n in counts.items()}
    return {normalise_key(k): int(n) for k, n in counts.items()}


# =============================================================================
# finished metrics -> pandas
# =============================================================================
def _index(keys: list[Any], by: Sequence[Hashable]) -> Any:
    import pandas as pd

    if len(by) > 1:
        return pd.MultiIndex.from_tuples(keys, names=list(by))
    return pd.Index(keys, name=by[0], tupleize_cols=False)


def summary_frame(table: _finish.MetricTable, by: Sequence[Hashable]) -> Any:
    """Series (ungrouped) or DataFrame (groups x metrics); bounds as ``<metric>_bound``."""
    import pandas as pd

    cols: dict[str, np.ndarray] = {}
    for name, val in table.values.items():
        cols[name] = val
    for name, b in table.bounds.items():
        cols[f"{name}_bound"] = b
    if table.intervals:
        data = {}
        for name, val in cols.items():
            lo, hi = table.intervals.get(name, (np.full(len(val), np.nan),) * 2)
            data[(name, "value")], data[(name, "ci_low")], data[(name, "ci_high")] = val, lo, hi
        out = pd.DataFrame(data, index=_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].unstack()
    else:
        out = pd.DataFrame(cols, index=_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].rename("value")
    out.attrs["kinds"] = dict(table.kinds)
    out.attrs["view"] = table.view
    out.attrs["reasons"] = {k: r for k, r in table.reasons.items()}
    return out


def risk_frame(table: _finish.MetricTable, by: Sequence[Hashable]) -> Any:
    """CSR, sigma_CSR, z, P_risk and the risk band (Series, or DataFrame per group)."""
    import pandas as pd

    from calreport.metrics.risk import risk_band

    cols = {k: table.values[k] for k in ("n", "csr", "sigma_csr", "z_csr", "p_risk",
                                         "n_clipped")}
    out = pd.DataFrame(cols, index=_index(table.keys, by) if by else None)
    out["band"] = [risk_band(z)[0] for z in cols["z_csr"]]
    out["p_risk_method"] = "normal"
    return out if by else out.iloc[0].rename("value")


def reliability_frame(rel: dict[str, Any], keys: list[Any], by: Sequence[Hashable]) -> Any:
    """Reliability table as a DataFrame (one row per bin; grouped: (group, bin) rows)."""
    import pandas as pd

    nb = len(rel["lower"])
    fields = ("count", "weight_sum", "n_eff", "mean_score", "mean_outcome", "gap",
              "ci_low", "ci_high")
    frames = []
    for gi in range(len(keys)):
        d = {"lower": rel["lower"], "upper": rel["upper"]}
        d.update({f: rel[f][gi] for f in fields})
        frames.append(pd.DataFrame(d, index=pd.RangeIndex(nb, name="bin")))
    if not by:
        out = frames[0]
    else:
        out = pd.concat(frames, keys=_index(keys, by))
    out.attrs["view"] = rel["view"]
    return out


# =============================================================================
# the accumulator
# =============================================================================
class Accumulator:
    """Exact, mergeable statistics of a stream of prediction batches.

    Parameters
    ----------
    y, proba, pred, conf, correct, weight : column names, optional
        Column roles of DataFrame batches, as ``df.calib(...)`` (inferred from
        conventional names on the first batch when omitted).
    by : column name or list, optional
        Group key column(s).
    classes : list, optional
        Class labels (one per probability column, or ``[negative, positive]``).  Fix
        them up front, or they are taken from the first batch and then enforced.
    pos_label, threshold, missing
        As in ``df.calib(...)``.
    n_bins, score_bins, tau, taus, eps, weights, min_count, n_boot, seed
        See :class:`calreport.stats.StatsConfig`.

    Examples
    --------
    >>> import pandas as pd
    >>> acc = Accumulator(y="y", proba="p", classes=[0, 1])
    >>> _ = acc.update(pd.DataFrame({"y": [0, 1], "p": [0.2, 0.7]}))
    >>> _ = acc.update(pd.DataFrame({"y": [1, 0], "p": [0.4, 0.1]}))
    >>> float(acc.summary()["accuracy"])
    0.75
    >>> float(Accumulator.from_json(acc.to_json()).summary()["n"])
    4.0
    """

    def __init__(
        self,
        *,
        y: Hashable | None = None,
        proba: Any = None,
        pred: Hashable | None = None,
        conf: Hashable | None = None,
        correct: Hashable | None = None,
        weight: Hashable | None = None,
        by: Hashable | Sequence[Hashable] | None = None,
        classes: Sequence[Any] | None = None,
        pos_label: Any = None,
        threshold: float = 0.5,
        missing: str = "raise",
        n_bins: int = 15,
        score_bins: int = 1 << 16,
        tau: float = 0.5,
        taus: Sequence[float] | None = None,
        eps: float = 1e-8,
        weights: str = "importance",
        min_count: int = 1,
        n_boot: int = 0,
        seed: int = 0,
    ) -> None:
        cfg_kw: dict[str, Any] = dict(n_bins=n_bins, score_bins=score_bins, tau=tau, eps=eps,
                                      weights=weights, min_count=min_count, n_boot=n_boot,
                                      seed=seed)
        if taus is not None:
            cfg_kw["taus"] = tuple(taus)
        self.config = StatsConfig(**cfg_kw)
        self._role_kw = {k: val for k, val in dict(
            y=y, proba=proba, pred=pred, conf=conf, correct=correct, weight=weight,
            classes=None if classes is None else list(classes), pos_label=pos_label,
            threshold=threshold, missing=missing).items() if val is not None}
        self.by: tuple[Hashable, ...] = (() if by is None else tuple(by) if isinstance(
            by, (list, tuple)) else (by,))
        self._spec: FrameSpec | None = None
        self.state: StatsState | None = None

    # ------------------------------------------------------------------ update
    def update(self, batch: Any = None, **arrays: Any) -> Accumulator:
        """Add a batch: a pandas DataFrame, a ConfidenceProfile, or arrays by keyword.

        Keyword arrays are those of :meth:`ConfidenceProfile.from_arrays` (``y_true``,
        ``proba``, ``y_pred``, ``conf``, ``correct``, ``sample_weight``) plus
        ``groups`` (one key per row).  Returns ``self``.
        """
        offsets = {} if self.state is None else self.state.row_counts()
        if batch is not None and not isinstance(batch, ConfidenceProfile):
            if self._spec is None:
                labels = preds = None
                y_col = self._role_kw.get("y")
                self._spec = resolve_spec(batch, self._role_kw, self.by, self.config)
                roles = self._spec.roles
                if roles.classes is None and (roles.proba or roles.pred is not None):
                    y_col = roles.y
                    labels = batch[y_col].unique() if y_col is not None else None
                    preds = batch[roles.pred].unique() if roles.pred is not None else None
                    self._spec = resolve_spec(batch, self._role_kw, self.by, self.config,
                                              labels, preds)
            new = frame_state(batch, self._spec, offsets)
        else:
            groups = arrays.pop("groups", None)
            if batch is None:
                if self.state is not None and self.state.schema.classes is not None:
                    arrays.setdefault("classes", list(self.state.schema.classes))
                elif "classes" in self._role_kw:
                    arrays.setdefault("classes", self._role_kw["classes"])
                batch = ConfidenceProfile.from_arrays(**arrays)
            codes = keys = None
            if groups is not None:
                import pandas as pd

                codes, uniques = pd.factorize(np.asarray(groups, dtype=object))
                keys = list(uniques)
            new = StatsState.from_profile(batch, config=self.config, codes=codes, keys=keys,
                                          row_offsets=offsets)
        self.state = add_states(self.state, new)
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        out = Accumulator.__new__(Accumulator)
        out.config, out._role_kw, out.by, out._spec = (self.config, self._role_kw, self.by,
                                                       self._spec or other._spec)
        out.state = add_states(self.state, other.state)
        return out

    # ------------------------------------------------------------------ results
    def _state(self) -> StatsState:
        if self.state is None:
            raise ValueError("The accumulator holds no rows yet: call update(batch) first.")
        return self.state

    def summary(self, *, view: str | None = None, ci: float | None = None) -> Any:
        """Summary metrics (Series, or DataFrame per group), bounds as ``<metric>_bound``.

        With ``ci`` (needs ``n_boot``): metric x [value, ci_low, ci_high].
        """
        table = _finish.summary(self._state(), view=view, ci=ci)
        return summary_frame(table, self.by if self._grouped() else ())

    def risk(self) -> Any:
        """CSR, sigma_CSR, z, P_risk (normal) and the risk band."""
        return risk_frame(_finish.summary(self._state()), self.by if self._grouped() else ())

    def reliability(self, *, view: str | None = None) -> Any:
        """Uniform-bin reliability table."""
        st = self._state()
        return reliability_frame(_finish.reliability(st, view=view), st.keys,
                                 self.by if self._grouped() else ())

    def _grouped(self) -> bool:
        return bool(self.by) or self._state().keys != [()]

    # ------------------------------------------------------------ serialisation
    def to_json(self) -> str:
        """The accumulator as JSON (settings, roles and the exact state)."""
        return json.dumps(_dump(self))

    @classmethod
    def from_json(cls, text: str) -> Accumulator:
        """Inverse of :meth:`to_json`."""
        return _load(json.loads(text))

    def to_bytes(self) -> bytes:
        """Compact binary form (zlib-compressed JSON)."""
        return zlib.compress(self.to_json().encode(), 6)

    @classmethod
    def from_bytes(cls, data: bytes) -> Accumulator:
        """Inverse of :meth:`to_bytes`."""
        return cls.from_json(zlib.decompress(data).decode())


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


def _dump(acc: Accumulator) -> dict[str, Any]:
    st = acc.state
    out: dict[str, Any] = {"format": _FORMAT, "config": acc.config.to_dict(),
                           "roles": acc._role_kw, "by": list(acc.by), "state": None}
    if acc._spec is not None:
        out["classes"] = (None if acc._spec.roles.classes is None
                          else [normalise_key(c) for c in acc._spec.roles.classes])
    if st is not None:
        out["state"] = {
            "schema": dataclasses.asdict(st.schema),
            "keys": [_key_out(k) for k in st.keys],
            "counts": {k: _array(a) for k, a in st.counts.items()},
            "sums": {k: {"frac_bits": s.frac_bits, "limbs": _array(s.limbs)}
                     for k, s in st.sums.items()},
            "boot": None if st.boot is None else _array(st.boot),
        }
    return out


def _load(d: dict[str, Any]) -> Accumulator:
    if d.get("format") != _FORMAT:
        raise ValueError(f"Not a calreport statistics state (format {d.get('format')!r}).")
    cfg = d["config"]
    acc = Accumulator(**{k: v for k, v in cfg.items()}, by=d["by"] or None)
    acc._role_kw = d["roles"]
    if d.get("classes") is not None:
        acc._role_kw = {**acc._role_kw, "classes": d["classes"]}
    s = d["state"]
    if s is not None:
        sch = s["schema"]
        schema = Schema(sch["layout"], None if sch["classes"] is None else tuple(sch["classes"]),
                        sch["binary"], sch["weighted"])
        acc.state = StatsState(
            acc.config, schema, [_key_in(k) for k in s["keys"]],
            {k: _unarray(a) for k, a in s["counts"].items()},
            {k: FixedSum(_unarray(v["limbs"]), v["frac_bits"]) for k, v in s["sums"].items()},
            None if s["boot"] is None else _unarray(s["boot"]),
        )
    return acc
