"""Streaming statistics: accumulate batches of predictions, merge states, store them.

:class:`Accumulator` keeps a :class:`~calreport.stats.StatsState` and adds each
batch to it, so ``acc.summary()`` after ten daily batches equals the summary of the
ten days at once (exactly for the sums; see :mod:`calreport.stats`).  Two
accumulators add with ``+``; ``to_json``/``to_bytes`` store a state to merge later.

The pandas side shared with the Dask and Polars front ends is in
:mod:`calreport._frames`, the results of a state in :mod:`calreport._state_results`.
"""

from __future__ import annotations

import hmac
import json
import math
from collections.abc import Hashable, Sequence
from typing import Any

import numpy as np

from calreport._frames import (
    FrameSpec,
    add_states,
    frame_state,
    resolve_spec,
    summary_frame,
)
from calreport._roles import Roles
from calreport._state_results import evaluate_state, report_from_state
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState, equal_mass
from calreport.stats import finish as _finish
from calreport.stats.binary import (
    MAGIC,
    BinaryWriter,
    check_max_bytes,
    digest,
    inflate,
    no_constant,
    pack,
    unpack,
)
from calreport.stats.config import SCALARS, Schema
from calreport.stats.frames import (
    calibration_error_frame,
    calibration_tests_frame,
    reliability_frame,
    risk_frame,
)
from calreport.stats.sampled import (
    full_table,
)
from calreport.stats.store import (
    MAX_BYTES,
    Encoder,
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

_FORMAT = "calreport.stats"
#: Version of the stored form: 3 keeps the resolved roles (and so the class set); 4
#: holds the fine bins sparse (per group, its occupied bins) and adds the binary form;
#: 5 holds the sums of every per-row column by name (:data:`calreport.stats.config.SCALARS`).
_VERSION = 5

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
                and not hasattr(batch, "columns"):
            raise TypeError(
                f"`batch` must be a pandas DataFrame or a ConfidenceProfile, got "
                f"{type(batch).__name__}; pass arrays by keyword instead "
                "(update(y_true=..., proba=...)), or wrap them in pd.DataFrame(...)")
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
        if strategy not in ("uniform", "quantile"):
            raise ValueError(f"`strategy` must be 'uniform' or 'quantile', got {strategy!r}.")
        table = full_table(self._state(), view=view, ci=ci)
        if strategy == "quantile":
            cfg = self._state().config
            equal_mass.apply(table, self._state(), n_bins=cfg.n_bins, min_count=cfg.min_count)
        return summary_frame(table, self.by if self._grouped() else ())

    def calibration_tests(self) -> Any:
        """Spiegelhalter's Z (exact); no Hosmer-Lemeshow, why in ``attrs["dropped"]``."""
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
            payload["hmac_sha256"] = digest(payload, key)
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
        check_max_bytes(max_bytes)
        if isinstance(text, (bytes, bytearray, memoryview)):
            text = bytes(text).decode("utf-8", errors="replace")
        if not isinstance(text, str):
            raise TypeError(f"`text` must be the str of to_json(), got {type(text).__name__}.")
        if len(text) > max_bytes:
            check_budget(len(text), max_bytes, "The JSON text")
        try:
            d = json.loads(text, parse_constant=no_constant)
        except (ValueError, RecursionError) as exc:
            raise ValueError(f"Not a calreport statistics state: the text is not valid JSON "
                             f"({exc}). Pass the str returned by to_json().") from None
        return _load(d, key, max_bytes)

    def to_bytes(self, *, key: bytes | str | None = None) -> bytes:
        """Compact binary form: the payload of :meth:`to_json` as a JSON header whose
        arrays are offsets into a body of their raw little-endian bytes, compressed
        (:mod:`calreport.stats.binary`), with its digest under ``key`` if given.

        Parameters
        ----------
        key : bytes or str, optional
            Adds an HMAC-SHA256 digest of the header and the body under this key.

        Returns
        -------
        bytes
        """
        writer = BinaryWriter()
        payload = _dump(self, writer)
        body = writer.body()
        if key is not None:
            payload["hmac_sha256"] = digest(payload, key, body)
        return pack(payload, body)

    @classmethod
    def from_bytes(cls, data: bytes, *, key: bytes | str | None = None,
                   max_bytes: int = MAX_BYTES) -> Accumulator:
        """Inverse of :meth:`to_bytes`: inflated no further than ``max_bytes``, then
        validated as :meth:`from_json` (same ``key`` and ``max_bytes``).  Bytes of the
        zlib-compressed JSON form are read as :meth:`from_json` reads the text.

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
        check_max_bytes(max_bytes)
        if not isinstance(data, (bytes, bytearray, memoryview)):
            raise TypeError(f"`data` must be the bytes of to_bytes(), got "
                            f"{type(data).__name__}.")
        data = bytes(data)
        if not data.startswith(MAGIC):
            return cls.from_json(inflate(data, max_bytes), key=key, max_bytes=max_bytes)
        head, body = unpack(data, max_bytes)
        return _load(head, key, max_bytes, body)


_ROLE_KEYS = ("y", "proba", "pred", "conf", "correct", "weight", "classes", "pos_label",
              "threshold", "missing")
_SPEC_KEYS = ("y", "proba", "classes", "pred", "conf", "correct", "weight", "threshold",
              "pos_label", "missing", "inferred", "class_source", "dropna")


def _dump(acc: Accumulator, encode: Encoder | None = None) -> dict[str, Any]:
    spec = None
    if acc._spec is not None:
        # the roles as resolved on the first batch (classes, their source), so a loaded
        # accumulator reads the next batch as this one would
        roles = acc._spec.roles
        spec = {k: plain_value(getattr(roles, k)) for k in _SPEC_KEYS if k != "dropna"}
        spec["dropna"] = acc._spec.dropna
    return {"format": _FORMAT, "version": _VERSION, "columns": list(SCALARS),
            "config": acc.config.to_dict(),
            "roles": {k: plain_value(v) for k, v in acc._role_kw.items()},
            "by": [plain_value(b) for b in acc.by], "stream": acc.stream, "spec": spec,
            "state": None if acc.state is None else
            state_to_dict(acc.state, *(() if encode is None else (encode,)))}


def _load(d: Any, key: bytes | str | None, max_bytes: int, body: bytes | None = None
          ) -> Accumulator:
    """An accumulator from a parsed payload (and the body of the binary form): its
    envelope, digest, then its state."""
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
    if d.get("columns") != list(SCALARS):
        raise ValueError(
            f"The state holds the sums of the per-row columns {d.get('columns')!r}; this "
            f"calreport sums {list(SCALARS)} (a metric's column was added or removed "
            "since it was written). Rebuild it from its batches with this version (or load "
            "it with the calreport that wrote it).")
    if key is not None:
        stored = d.get("hmac_sha256")
        if not isinstance(stored, str):
            raise ValueError("The state carries no HMAC-SHA256 digest but a `key` was given: "
                             "it was saved without to_json(key=...)/to_bytes(key=...), or the "
                             "digest was removed. Refusing an unauthenticated state.")
        if not hmac.compare_digest(stored, digest(d, key, body)):
            raise ValueError("The state's HMAC-SHA256 digest does not match: the state was "
                             "altered after it was saved, or the key is not the one it was "
                             "saved with.")
    check_fields(d, "the stored accumulator", ("format", "version", "columns", "config",
                                          "roles", "by", "stream", "spec", "state"),
                 ("hmac_sha256",))
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
        if body:
            raise ValueError(f"The binary state holds no state but {len(body):,} bytes of "
                             "arrays (altered). Pass exactly the bytes returned by "
                             "to_bytes().")
        # the next batch allocates a state of these settings: it must fit too
        check_budget(layout_bytes(config, Schema("proba", (0, 1), True, True), 1), max_bytes,
                     f"A state with score_bins={config.score_bins}, n_bins={config.n_bins}")
        return acc
    acc.state = state_from_dict(d["state"], config, max_bytes=max_bytes, body=body)
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
