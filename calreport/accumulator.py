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

import dataclasses
import hashlib
import hmac
import json
import math
import zlib
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport import _labels as lab
from calreport.interval_rules import interval_note
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState
from calreport.stats import finish as _finish
from calreport.stats.config import Schema, normalise_key
from calreport.stats.frames import calibration_error_frame, reliability_frame, risk_frame
from calreport.stats.sampled import (
    dropped_metrics,
    full_table,
    sample_profiles,
    settings_of,
)
from calreport.stats.store import (
    MAX_BYTES,
    check_budget,
    check_fields,
    layout_bytes,
    plain_value,
    state_from_dict,
    state_to_dict,
    value_from_plain,
)
from calreport.stats.weight_scale import check_positive

__all__ = ["Accumulator"]

_ROLE_NAMES = ("y", "proba", "pred", "conf", "correct", "weight")
_FORMAT = "calreport.stats"
#: Version of the stored form: 3 keeps the resolved roles (and so the class set).
_VERSION = 3


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
    # the weights' meaning is the state's: frequency weights are checked to be counts
    roles = resolve_roles(frame, exclude=by, **{**role_kw, "weights": config.weights})
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


def frame_profile(frame: Any, spec: FrameSpec
                  ) -> tuple[Any, np.ndarray, list[Any], Any] | None:
    """Profile, group codes, group keys and kept row positions of a frame's rows."""
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
    # raw weights, not divided by this part's maximum (the metrics are invariant to one
    # common scale, not to a scale per part): the state rescales them by a power of
    # two it records, and a part may hold only zero weights (checked once merged)
    profile, _, kept = build_profile(frame, spec.roles, normalize_weights=False, whole=False)
    return profile, codes[kept], keys, frame.index.to_numpy()[kept]


def frame_state(frame: Any, spec: FrameSpec, offsets: dict[Any, int] | None = None,
                base: int = 0) -> StatsState | None:
    """The state of a pandas frame's rows (None for no rows); ``offsets`` and ``base``
    as ``row_offsets`` and ``row_base`` of :meth:`StatsState.from_profile`."""
    got = frame_profile(frame, spec)
    if got is None:
        return None
    profile, codes, keys, labels = got
    return StatsState.from_profile(profile, config=spec.config, codes=codes, keys=keys,
                                   row_offsets=offsets, row_base=base,
                                   row_labels=labels if spec.config.top_errors else None)


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
def interval_notes(table: _finish.MetricTable) -> dict[str, dict[str, Any]]:
    """Per metric with an interval: its method, whether one-sided and its measured
    coverage, as ``CalibrationResult.interval_notes`` gives them for the pandas path."""
    how = table.settings.get("interval_methods") or {}
    return {m: interval_note(m, how.get(m, "percentile")) for m in table.intervals}

def _index(keys: list[Any], by: Sequence[Hashable]) -> Any:
    import pandas as pd

    if len(by) > 1:
        return pd.MultiIndex.from_tuples(keys, names=list(by))
    return pd.Index(keys, name=by[0], tupleize_cols=False)


def summary_frame(table: _finish.MetricTable, by: Sequence[Hashable]) -> Any:
    """Series (ungrouped) or DataFrame (groups x metrics); bounds as ``<metric>_bound``."""
    import pandas as pd

    cols: dict[str, np.ndarray] = dict(table.values)
    for name, b in table.bounds.items():
        cols[f"{name}_bound"] = b
    if table.intervals:
        data = {}
        for name, val in cols.items():
            nan = np.full(len(val), np.nan)
            lo, hi = table.intervals.get(name, (nan, nan))
            se_lo, se_hi, _ = table.interval_se.get(name, (nan, nan, nan))
            data[(name, "value")], data[(name, "ci_low")], data[(name, "ci_high")] = val, lo, hi
            data[(name, "ci_low_mcse")], data[(name, "ci_high_mcse")] = se_lo, se_hi
        out = pd.DataFrame(data, index=_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].unstack()
    else:
        out = pd.DataFrame(cols, index=_index(table.keys, by) if by else None)
        if not by:
            out = out.iloc[0].rename("value")
    methods = table.settings.get("p_risk_methods")
    if methods is not None:
        out.attrs["p_risk_method"] = dict(zip(table.keys, methods, strict=True)) if by \
            else methods[0]
    out.attrs["kinds"] = dict(table.kinds)
    out.attrs["dropped"] = dropped_metrics(table)
    out.attrs["view"], out.attrs["no_interval"] = table.view, table.settings.get("intervals")
    if table.intervals:
        out.attrs["intervals"] = interval_notes(table)
    out.attrs["reasons"] = {k: r for k, r in table.reasons.items()}
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
    n_bins, score_bins, tau, taus, eps, weights, min_count, n_boot, seed, sample_size, \
top_errors, heavy_rows, smooth_groups
        See :class:`calreport.stats.StatsConfig`.  ``sample_size`` rows per group are
        kept in a uniform sample for the sampled metrics and the report's figures;
        ``top_errors`` keeps the errors of largest CSR term (the report's lists).
    stream : int, default 0
        Where this accumulator's rows sit in the counter-based streams of the Poisson
        bootstrap and the sample (positions from ``stream * 2**40``).  Accumulators
        built independently of each other and merged later (one per day, per worker)
        need distinct streams, or their rows would draw the same counts: merging
        overlapping ones raises.  Continuing one with ``update`` needs none.

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
        sample_size: int = 0,
        top_errors: int = 0,
        heavy_rows: int = 4096,
        smooth_groups: int = 64,
        stream: int = 0,
    ) -> None:
        cfg_kw: dict[str, Any] = dict(
            n_bins=n_bins, score_bins=score_bins, tau=tau, eps=eps, weights=weights,
            min_count=min_count, n_boot=n_boot, seed=seed, sample_size=sample_size,
            top_errors=top_errors, heavy_rows=heavy_rows, smooth_groups=smooth_groups)
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
        if isinstance(stream, bool) or not isinstance(stream, (int, np.integer)) or \
                not 0 <= stream < 1 << 20:
            raise ValueError(f"`stream` must be an integer in [0, 2**20), got {stream!r}.")
        self.stream = int(stream)

    # ------------------------------------------------------------------ update
    def update(self, batch: Any = None, **arrays: Any) -> Accumulator:
        """Add a batch: a pandas DataFrame, a ConfidenceProfile, or arrays by keyword.

        Keyword arrays are those of :meth:`ConfidenceProfile.from_arrays` (``y_true``,
        ``proba``, ``y_pred``, ``conf``, ``correct``, ``sample_weight``) plus
        ``groups`` (one key per row).  Returns ``self``; a frame without rows adds
        nothing (an empty batch is no part of the data, whatever its columns).
        """
        if batch is not None and not isinstance(batch, ConfidenceProfile) \
                and getattr(batch, "shape", (1,))[0] == 0:
            return self
        # this accumulator's stream positions: after every row it holds
        offsets = {} if self.state is None else self.state.row_counts()
        base = self.stream << 40
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
            new = frame_state(batch, self._spec, offsets, base)
        else:
            groups = arrays.pop("groups", None)
            if batch is None:
                if self.state is not None and self.state.schema.classes is not None:
                    arrays.setdefault("classes", list(self.state.schema.classes))
                elif "classes" in self._role_kw:
                    arrays.setdefault("classes", self._role_kw["classes"])
                arrays.setdefault("normalize_weights", False)
                batch = ConfidenceProfile._build(**arrays, whole=False)
            codes = keys = None
            if groups is not None:
                import pandas as pd

                codes, uniques = pd.factorize(np.asarray(groups, dtype=object))
                keys = list(uniques)
            new = StatsState.from_profile(batch, config=self.config, codes=codes, keys=keys,
                                          row_offsets=offsets, row_base=base)
        self.state = add_states(self.state, new)
        return self

    def __add__(self, other: Accumulator) -> Accumulator:
        if not isinstance(other, Accumulator):
            return NotImplemented
        if tuple(self.by) != tuple(other.by):
            raise ValueError(f"Cannot merge an accumulator grouped by {list(self.by)} with "
                             f"one grouped by {list(other.by)}: build both with the same by=.")
        out = Accumulator.__new__(Accumulator)
        out.config, out._role_kw, out.by, out._spec = (self.config, self._role_kw, self.by,
                                                       self._spec or other._spec)
        out.stream = self.stream
        out.state = add_states(self.state, other.state)
        return out

    # ------------------------------------------------------------------ results
    def _state(self) -> StatsState:
        if self.state is None:
            raise ValueError("The accumulator holds no rows yet: call update(batch) first.")
        return check_positive(self.state, None if self._spec is None else
                              self._spec.roles.weight)

    def summary(self, *, view: str | None = None, ci: float | None = None,
                strategy: str = "uniform") -> Any:
        """Summary metrics (Series, or DataFrame per group), bounds as ``<metric>_bound``.

        With ``ci`` (needs ``n_boot``): metric x [value, ci_low, ci_high].
        ``strategy="quantile"``: equal-mass ECE and MCE from the fine score histogram,
        bounded (one pass cannot find the exact quantile edges; the bound is in
        ``ece_bound``/``mce_bound``, see :mod:`calreport.stats.equal_mass`).
        """
        from calreport.stats import equal_mass

        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"`strategy` must be 'uniform' or 'quantile', got {strategy!r}.")
        table = full_table(self._state(), view=view, ci=ci)
        if strategy == "quantile":
            cfg = self._state().config
            equal_mass.apply(table, self._state(), n_bins=cfg.n_bins, min_count=cfg.min_count)
        return summary_frame(table, self.by if self._grouped() else ())

    def calibration_tests(self) -> Any:
        """Spiegelhalter's Z (exact); no Hosmer-Lemeshow, why in ``attrs["dropped"]``."""
        from calreport.stats.frames import calibration_tests_frame

        out = calibration_tests_frame(self._state(), self.by if self._grouped() else ())
        out.attrs["dropped"]["hl_statistic"] = (
            "Hosmer-Lemeshow deciles need exact quantile edges (a second pass over the "
            "rows; an Accumulator makes one): run ddf.calib.calibration_tests() on the "
            "stored batches (Dask), or df.calib.calibration_tests() on the rows.")
        return out

    def risk(self, *, seed: int = 0) -> Any:
        """The risk assessment of ``risk()`` on the rows (every column of
        :meth:`calreport.metrics.risk.RiskResult.to_dict`): the band, certainty claims,
        the test below certainty and the Monte Carlo null where the normal
        approximation is invalid, seeded with ``seed`` as ``df.calib.risk(seed=...)``."""
        return risk_frame(self._state(), self.by if self._grouped() else (), seed=seed)

    def calibration_error(self, *, view: str | None = None) -> Any:
        """ICI, E50, E90, Emax on the uniform sample (needs ``sample_size``)."""
        return calibration_error_frame(self._state(), self.by if self._grouped() else (), view)

    def reliability(self, *, view: str | None = None) -> Any:
        """Uniform-bin reliability table."""
        st = self._state()
        return reliability_frame(_finish.reliability(st, view=view), st.keys,
                                 self.by if self._grouped() else ())

    def _grouped(self) -> bool:
        return bool(self.by) or self._state().keys != [()]

    def evaluate(self, *, view: str | None = None, ci: float | None = None) -> Any:
        """The typed :class:`~calreport.result.CalibrationResult` (overall added when
        grouped): every registry metric with its out-of-core kind in
        ``data["scaling"]``, the risk verdict of every group."""
        by = self.by if self._grouped() else ()
        return evaluate_state(self._state(), by=by or ("group",) * self._grouped(),
                              view=view, ci=ci, data=self._data(),
                              n_dropped=self._n_dropped())

    def report(self, *, view: str | None = None, ci: float | None = None,
               **kwargs: Any) -> Any:
        """Model-card audit report of the accumulated rows.

        The same report as ``df.calib.report()``: exact metrics and verdicts from the
        merged sums, bounded ones with their bound, sampled ones (and the figures)
        from the uniform sample kept with ``sample_size``, exact error lists with
        ``top_errors`` (see :func:`report_from_state`).  ``ci`` needs ``n_boot``.

        Returns
        -------
        calreport.report.Report
        """
        by = self.by if self._grouped() else ()
        return report_from_state(self._state(), by=by or ("group",) * self._grouped(),
                                 view=view, ci=ci, data=self._data(),
                                 n_dropped=self._n_dropped(),
                                 source="batches added to an Accumulator", **kwargs)

    def _data(self) -> dict[str, Any]:
        cols = {r: self._role_kw.get(r) for r in ("y", "proba", "pred", "conf", "correct",
                                                   "weight")}
        if self._spec is not None:
            roles = self._spec.roles
            cols = {r: getattr(roles, r, None) for r in cols}
        return {"columns": {k: (None if v is None else str(v) if not isinstance(v, (list, tuple))
                                else [str(x) for x in v]) for k, v in cols.items()},
                "group_label": " / ".join(str(b) for b in self.by) or None}

    def _n_dropped(self) -> float:
        return 0.0 if self._role_kw.get("missing", "raise") == "raise" else math.nan

    # ------------------------------------------------------------ serialisation
    def to_json(self, *, key: bytes | str | None = None) -> str:
        """The accumulator as JSON: settings, resolved roles and the exact state.

        Parameters
        ----------
        key : bytes or str, optional
            Adds an HMAC-SHA256 digest of the payload under this key;
            ``from_json(..., key=key)`` then proves the state was not altered.

        Returns
        -------
        str
        """
        payload = _dump(self)
        if key is not None:
            payload["hmac_sha256"] = _digest(payload, key)
        return json.dumps(payload, separators=(",", ":"), allow_nan=False)

    @classmethod
    def from_json(cls, text: str | bytes, *, key: bytes | str | None = None,
                  max_bytes: int = MAX_BYTES) -> Accumulator:
        """Inverse of :meth:`to_json`, validated like input.

        Parameters
        ----------
        text : str or bytes
            A payload of :meth:`to_json`.
        key : bytes or str, optional
            The key given to :meth:`to_json`: the payload must carry a digest and it
            must match.  Without a key the digest is not required (nor checked).
        max_bytes : int, default 2**30
            Most bytes the text, and separately the decoded arrays, may take; larger
            states are refused before anything is allocated.

        Returns
        -------
        Accumulator

        Raises
        ------
        ValueError
            When the payload is not a state of this format version, a field, array or
            group key is malformed or disagrees with the others, it needs more than
            ``max_bytes``, or (with ``key``) its digest is missing or wrong.

        Notes
        -----
        Validation catches an inconsistent state: negative, non-finite or overflowing
        sums, counts that do not add up between levels, arrays that do not follow from
        the settings, duplicate groups.  It cannot tell a state altered consistently
        (every count and sum doubled, say) from a real one: only the digest, with a key
        kept from whoever could alter the stored state, proves it is the state that
        was saved.
        """
        _check_max_bytes(max_bytes)
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8", errors="replace")
        if not isinstance(text, str):
            raise TypeError(f"`text` must be the str of to_json(), got {type(text).__name__}.")
        if len(text) > max_bytes:
            check_budget(len(text), max_bytes, "The JSON text")
        try:
            d = json.loads(text, parse_constant=_no_constant)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"Not a calreport statistics state: the text is not valid JSON "
                             f"({exc}). Pass the str returned by to_json().") from None
        return _load(d, key, max_bytes)

    def to_bytes(self, *, key: bytes | str | None = None) -> bytes:
        """Compact binary form (zlib-compressed :meth:`to_json`, with its digest under
        ``key`` if given)."""
        return zlib.compress(self.to_json(key=key).encode(), 6)

    @classmethod
    def from_bytes(cls, data: bytes, *, key: bytes | str | None = None,
                   max_bytes: int = MAX_BYTES) -> Accumulator:
        """Inverse of :meth:`to_bytes`: inflated no further than ``max_bytes``, then
        :meth:`from_json` (same ``key`` and ``max_bytes``).

        Examples
        --------
        >>> import pandas as pd
        >>> acc = Accumulator(y="y", proba="p").update(pd.DataFrame({"y": [0, 1],
        ...                                                         "p": [0.2, 0.7]}))
        >>> blob = acc.to_bytes(key=b"secret")
        >>> Accumulator.from_bytes(blob, key=b"secret").state.equals(acc.state)
        True
        >>> Accumulator.from_bytes(blob, key=b"other")  # doctest: +ELLIPSIS
        Traceback (most recent call last):
        ...
        ValueError: The state's HMAC-SHA256 digest does not match...
        """
        _check_max_bytes(max_bytes)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"`data` must be the bytes of to_bytes(), got "
                            f"{type(data).__name__}.")
        return cls.from_json(_inflate(bytes(data), max_bytes), key=key, max_bytes=max_bytes)


#: Bytes inflated per read: the first read shows whether the payload opens a JSON object.
_CHUNK = 1 << 20


def _check_max_bytes(max_bytes: Any) -> None:
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) \
            or max_bytes < 1:
        raise ValueError(f"`max_bytes` must be a positive integer, got {max_bytes!r}.")


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not a stored value (states hold finite numbers)")


def _inflate(data: bytes, max_bytes: int) -> str:
    """The text of zlib ``data``, read in pieces and refused past ``max_bytes`` (peak
    memory about ``max_bytes``: a bomb is never inflated further)."""
    z, text, pending = zlib.decompressobj(), bytearray(), data
    try:
        while pending and not z.eof:
            text += z.decompress(pending, _CHUNK)
            pending = z.unconsumed_tail
            if text[:_CHUNK].lstrip()[:1] not in (b"{", b""):
                raise ValueError("Not a calreport statistics state: the bytes do not inflate "
                                 "to a JSON object. Pass the bytes returned by to_bytes().")
            if len(text) > max_bytes:
                check_budget(len(text), max_bytes, "The inflated payload")
    except zlib.error as exc:
        raise ValueError(f"Not a calreport statistics state: the bytes are not zlib data "
                         f"({exc}). Pass the bytes returned by to_bytes().") from None
    if not z.eof:
        raise ValueError("Not a calreport statistics state: the bytes end before the "
                         "compressed stream does (truncated). Pass the whole to_bytes() "
                         "payload.")
    if z.unused_data:
        raise ValueError(f"The stored bytes go on {len(z.unused_data):,} bytes past the "
                         "compressed state. Pass exactly the to_bytes() payload.")
    return text.decode("utf-8", errors="replace")


def _key_bytes(key: bytes | str) -> bytes:
    k = key.encode() if isinstance(key, str) else bytes(key)
    if not k:
        raise ValueError("`key` is empty: pass the secret bytes (or str) of the digest.")
    return k


def _digest(payload: dict[str, Any], key: bytes | str) -> str:
    """HMAC-SHA256 of the payload (without its digest), over canonical JSON."""
    body = {k: v for k, v in payload.items() if k != "hmac_sha256"}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), allow_nan=False)
    return hmac.new(_key_bytes(key), text.encode(), hashlib.sha256).hexdigest()


_ROLE_KEYS = ("y", "proba", "pred", "conf", "correct", "weight", "classes", "pos_label",
              "threshold", "missing")
_SPEC_KEYS = ("y", "proba", "classes", "pred", "conf", "correct", "weight", "threshold",
              "pos_label", "missing", "inferred", "class_source", "dropna")


def _dump(acc: Accumulator) -> dict[str, Any]:
    spec = None
    if acc._spec is not None:
        # the roles as resolved on the first batch (classes, their source), so a loaded
        # accumulator reads the next batch as this one would
        roles = acc._spec.roles
        spec = {k: plain_value(getattr(roles, k)) for k in _SPEC_KEYS if k != "dropna"}
        spec["dropna"] = acc._spec.dropna
    return {"format": _FORMAT, "version": _VERSION, "config": acc.config.to_dict(),
            "roles": {k: plain_value(v) for k, v in acc._role_kw.items()},
            "by": [plain_value(b) for b in acc.by], "stream": acc.stream, "spec": spec,
            "state": None if acc.state is None else state_to_dict(acc.state)}


def _load(d: Any, key: bytes | str | None, max_bytes: int) -> Accumulator:
    """An accumulator from a parsed payload: its envelope, digest, then its state."""
    if not isinstance(d, dict) or d.get("format") != _FORMAT:
        got = d.get("format") if isinstance(d, dict) else type(d).__name__
        raise ValueError(f"Not a calreport statistics state (format {got!r}; expected a JSON "
                         f"object with format {_FORMAT!r}). Pass what to_json() or "
                         "to_bytes() returned.")
    if d.get("version") != _VERSION:
        raise ValueError(
            f"The state has format version {d.get('version')!r}; this calreport reads "
            f"version {_VERSION}. Rebuild it from its batches with this version (or load "
            "it with the calreport that wrote it).")
    if key is not None:
        stored = d.get("hmac_sha256")
        if not isinstance(stored, str):
            raise ValueError("The state carries no HMAC-SHA256 digest but a `key` was given: "
                             "it was saved without to_json(key=...)/to_bytes(key=...), or the "
                             "digest was removed. Refusing an unauthenticated state.")
        if not hmac.compare_digest(stored, _digest(d, key)):
            raise ValueError("The state's HMAC-SHA256 digest does not match: the state was "
                             "altered after it was saved, or the key is not the one it was "
                             "saved with.")
    check_fields(d, "the stored accumulator", ("format", "version", "config", "roles", "by",
                                          "stream", "spec", "state"), ("hmac_sha256",))
    config = StatsConfig.from_dict(d["config"])
    roles = check_fields(d["roles"], "roles", (), _ROLE_KEYS)
    by = value_from_plain(d["by"], "by")
    if not isinstance(by, list) or not all(_is_label(b) for b in by):
        raise ValueError(f"`by` must be a list of column names, got {d['by']!r}.")
    acc = Accumulator(**{k: v for k, v in config.to_dict().items()}, by=by or None,
                      stream=d["stream"])
    acc._role_kw = {k: value_from_plain(v, f"roles.{k}") for k, v in roles.items()}
    if d["spec"] is not None:
        acc._spec = _spec_in(d["spec"], acc)
    if d["state"] is None:
        # the next batch allocates a state of these settings: it must fit too
        check_budget(layout_bytes(config, Schema("proba", (0, 1), True, True), 1), max_bytes,
                     f"A state with score_bins={config.score_bins}, n_bins={config.n_bins}")
        return acc
    acc.state = state_from_dict(d["state"], config, max_bytes=max_bytes)
    if len(acc.by) > 1 and any(not isinstance(k, tuple) or len(k) != len(acc.by)
                               for k in acc.state.keys):
        bad = next(k for k in acc.state.keys if not isinstance(k, tuple) or len(k) != len(acc.by))
        raise ValueError(f"`state.keys` holds {bad!r}, not a key of the {len(acc.by)} `by` "
                         f"columns {list(acc.by)}. The keys no longer match the settings; "
                         "rebuild the state from its batches.")
    return acc


def _is_label(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool, tuple))


def _spec_in(p: Any, acc: Accumulator) -> FrameSpec:
    """The resolved roles of a stored accumulator, typed as the first batch left them."""
    from calreport._roles import Roles

    d = {k: value_from_plain(v, f"spec.{k}")
         for k, v in check_fields(p, "spec", _SPEC_KEYS).items()}
    proba, classes, inferred = d["proba"], d["classes"], d["inferred"]
    valid = {
        "proba": isinstance(proba, tuple) and all(_is_label(c) for c in proba),
        "classes": classes is None or isinstance(classes, tuple),
        "inferred": isinstance(inferred, dict),
        "class_source": d["class_source"] in (None, "classes", "mapping"),
        "dropna": isinstance(d["dropna"], bool), "missing": isinstance(d["missing"], str),
        "threshold": isinstance(d["threshold"], (int, float))
        and not isinstance(d["threshold"], bool),
        **{k: _is_label(d[k]) for k in ("y", "pred", "conf", "correct", "weight")}}
    bad = [k for k, ok in valid.items() if not ok]
    if bad:
        raise ValueError(f"`spec.{bad[0]}` (a resolved column role) is malformed: "
                         f"{p[bad[0]]!r}. Rebuild the state from its batches.")
    roles = Roles(y=d["y"], proba=proba, classes=classes, pred=d["pred"], conf=d["conf"],
                  correct=d["correct"], weight=d["weight"], threshold=float(d["threshold"]),
                  pos_label=d["pos_label"], missing=d["missing"], inferred=inferred,
                  weights=acc.config.weights, class_source=d["class_source"])
    return FrameSpec(roles, acc.by, acc.config, d["dropna"])


# =============================================================================
# sampled metrics, the typed result and the report of a merged state
# =============================================================================
def evaluate_state(state: StatsState, *, by: Sequence[Hashable] = (), view: str | None = None,
                   ci: float | None = None, data: dict[str, Any] | None = None,
                   n_dropped: float = 0.0) -> Any:
    """A :class:`~calreport.result.CalibrationResult` of a merged state (overall added
    when grouped), with the risk verdict of every group from the sums.

    Exact and bounded metrics come from the sums (bounded ones carry their bound in
    ``reasons``-free ``data["bounds"]``), sampled ones from the groups' samples,
    P_risk by the normal approximation.
    """
    from calreport._grouping import _unique_names
    from calreport.registry import REGISTRY
    from calreport.result import CalibrationResult, GroupResult

    grouped = bool(by)
    view = _finish.resolve_view(state, view)
    names = list(REGISTRY)

    def results(st: StatsState, keys: list[Any], labels: list[str]) -> list[Any]:
        table = full_table(st, view=view, ci=ci)
        verdicts = table.verdicts
        how, why = (table.settings.get(k) or {} for k in ("interval_methods", "intervals"))
        out = []
        for gi, key in enumerate(keys):
            values = {"n": float(table.values["n"][gi]), "n_dropped": n_dropped,
                      "n_clipped": float(table.values["n_clipped"][gi]),
                      "n_eff": float(table.values["n_eff"][gi])}
            values.update({m: float(table.values[m][gi]) for m in names})
            reasons = {m: r[gi] for m, r in table.reasons.items() if m in names and r[gi]}
            iv, methods, mcse, reps = {}, {}, {}, {}
            for m, (lo, hi) in table.intervals.items():
                if m in names and not np.isnan(lo[gi]):
                    iv[m] = (float(lo[gi]), float(hi[gi]))
                    methods[m] = how.get(m, "percentile (Poisson bootstrap)")
                    se_lo, se_hi, count = table.interval_se[m]
                    mcse[m], reps[m] = (float(se_lo[gi]), float(se_hi[gi])), int(count[gi])
            if ci is not None:
                for m in names:
                    if m not in iv:
                        reasons.setdefault(m, "interval: " + why.get(m, "no out-of-core "
                                           f"interval ({table.kinds.get(m, 'none')})"))
            out.append(GroupResult(key, labels[gi], values, iv, methods, mcse, reps,
                                   reasons, verdicts[gi].p_risk_method, view, verdicts[gi]))
        return out, table

    keys = list(state.keys)
    labels = _unique_names(keys) if grouped else ["all"]
    groups, table = results(state, [None] if not grouped else keys, labels)
    overall = None
    if grouped:
        overall = results(state.pooled(), ["overall"], ["overall"])[0][0]
    index = _index(keys, by) if grouped else None
    settings = settings_of(state, view)
    cfg = state.config
    ci_info = None
    if ci is not None:
        ci_info = {"level": float(ci), "method": "percentile", "n_boot": int(cfg.n_boot),
                   "resampling": "Poisson, counter-based streams (independent of the "
                                 "partitioning)", "seed": int(cfg.seed)}
    facts = dict(data or {})
    facts.setdefault("classes", None if state.schema.classes is None
                     else list(state.schema.classes))
    facts.setdefault("positive_class", state.schema.classes[1]
                     if state.schema.binary and state.schema.classes else None)
    facts.setdefault("weights", cfg.weights if state.schema.weighted else None)
    facts.setdefault("group_label", " / ".join(str(b) for b in by) or None)
    facts["scaling"] = {m: table.kinds.get(m, REGISTRY[m].scaling[0]) for m in names}
    facts["bounds"] = {m: [float(x) for x in b] for m, b in table.bounds.items()}
    facts["sample_size"] = int(cfg.sample_size) if state.sample is not None else 0
    return CalibrationResult(groups, overall, index, names, settings, ci_info, facts)


def report_from_state(state: StatsState, *, by: Sequence[Hashable] = (),
                      view: str | None = None, ci: float | None = None,
                      data: dict[str, Any] | None = None, n_dropped: float = 0.0,
                      source: str = "merged statistics", **kwargs: Any) -> Any:
    """The model-card report of a merged state, by the pandas report builder.

    The result (:func:`evaluate_state`) and the groups' uniform samples (for the
    figures) go to :func:`calreport.report.build_report`; the report then gets the
    exact error counts and the exact lists of the largest CSR terms (``top_errors``
    kept out of core), and notes saying which numbers are bounded and which sampled.

    Parameters
    ----------
    state : StatsState
        Built with ``sample_size`` (figures) and ``top_errors`` (error lists).
    by : sequence of column names
    view, ci
        As in :func:`evaluate_state`.
    data : dict, optional
        Facts about the input (roles, columns) for the data section.
    n_dropped : float
        Rows dropped for missing values (0 with ``missing="raise"``).
    source : str
        What the statistics were merged from (printed in the data section).
    **kwargs
        Passed to :func:`calreport.report.build_report` (title, model, timestamp...).

    Returns
    -------
    calreport.report.Report
    """
    from calreport.report import build_report

    result = evaluate_state(state, by=by, view=view, ci=ci, data=data, n_dropped=n_dropped)
    names = {g.key if result.grouped else None: g.name for g in result.groups}
    samples = sample_profiles(state)
    profiles = {names[k if result.grouped else None]: p for k, p in samples.items()}
    notes = dict(kwargs.pop("data_notes", None) or {})
    notes.update(scaling_notes(result, state, source))
    max_driver_groups = kwargs.get("max_driver_groups", 10)
    rep = build_report(result, profiles, data_notes=notes, **kwargs)
    _exact_errors(rep.context, state, result, int(kwargs.get("top_errors", 10)),
                  int(max_driver_groups))
    return rep


def scaling_notes(result: Any, state: StatsState, source: str) -> dict[str, str]:
    """Lines for the report's data section: exact / bounded / sampled numbers."""
    kinds = result.data["scaling"]
    exact = [m for m in result.metrics if kinds[m] == "exact"]
    notes = {"Computed out of core": (
        f"from {source}: exact per-group sums merged across partitions or batches; "
        f"{len(exact)} metrics are exact ({', '.join(exact)}).")}
    bounded = [m for m in result.metrics if kinds[m] == "bounded"]
    if bounded:
        parts = []
        for m in bounded:
            b = result.data["bounds"].get(m)
            top = max(b) if b else math.nan
            parts.append(f"{m} (error at most {top:.2g})")
        notes["Bounded metrics"] = (
            f"{', '.join(parts)}: read off {state.config.score_bins} fixed score bins; "
            "the true value lies within the bound.")
    sampled = [m for m in result.metrics if kinds[m] == "sampled"]
    if sampled:
        k = result.data.get("sample_size", 0)
        notes["Sampled metrics"] = (
            f"{', '.join(sampled)} and the figures: computed on a uniform sample of "
            f"{k:,} rows per group (the whole group when smaller); the error lists and "
            "counts are exact." if k else
            f"{', '.join(sampled)}: not computed (no sample was kept).")
    if result.ci is not None:
        notes["Intervals"] = ("Poisson bootstrap with counter-based streams from merged "
                              "replicate sums; DeLong's for the binned AUC, widened by its "
                              "bound; none where the reasons say why.")
    return notes


def _exact_errors(context: dict[str, Any], state: StatsState, result: Any, k: int,
                  max_groups: int) -> None:
    """Replace sample-based error counts and lists of the context by exact ones."""
    from calreport.stats.config import SCALARS

    i_w, i_ok = SCALARS.index("w"), SCALARS.index("w_ok")
    states = {None if not result.grouped else key: state for key in state.keys}
    by_name: dict[str, tuple[StatsState, int]] = {}
    for g in result.groups:
        st = states[g.key]
        by_name[g.name] = (st, st.keys.index(g.key) if result.grouped else 0)
    pooled = state.pooled() if result.grouped else None
    if pooled is not None:
        by_name["all groups pooled"] = (pooled, 0)
    errors = {}
    for name, (st, gi) in by_name.items():
        sc = st.sums["scalar"].to_float()[gi]
        errors[name] = float(sc[i_w] - sc[i_ok])
    for f in [*context["groups"], *context["cards"]]:
        if f["name"] in errors:
            f["n_errors"] = errors[f["name"]]
    flagged = [f for f in context["groups"] if f["band"] in ("risky", "evidence")
               or (f["n_certain_wrong"] or 0) > 0]
    drivers = []
    classes = state.schema.classes
    for f in flagged[:max_groups]:
        st, gi = by_name[f["name"]]
        key = st.keys[gi]
        top = (st.top or {}).get(key)
        sc = st.sums["scalar"].to_float()[gi]
        total = float(sc[SCALARS.index("csr_num")]) / float(sc[i_w])
        rows = []
        if top is not None:
            order = np.lexsort((top["conf"], top["u"]))[:k]
            for i in order.tolist():
                contrib = float(top["size"][i]) / float(sc[i_w])
                rows.append({
                    "row": str(top["row"][i]), "confidence": float(top["conf"][i]),
                    "y_true": None if classes is None or "y_true" not in top
                    else str(classes[int(top["y_true"][i])]),
                    "y_pred": None if classes is None or "y_pred" not in top
                    else str(classes[int(top["y_pred"][i])]),
                    "contribution": contrib,
                    "share": contrib / total if total > 0 else math.nan})
        drivers.append({"group": f["name"], "rows": rows, "n_errors": errors[f["name"]],
                        "csr": total, "share_top": (sum(r["contribution"] for r in rows) / total
                                                    if total > 0 else math.nan),
                        "k": len(rows), "has_labels": state.schema.layout != "minimal"})
    context["drivers"] = drivers
    context["n_flagged"] = len(flagged)
