"""What a state is made of: its settings, its data schema and the names of its sums.

Kept apart from :mod:`calreport.stats.state` so that the kernels the state calls
(:mod:`~calreport.stats.poisson`, :mod:`~calreport.stats.sample`,
:mod:`~calreport.stats.weight_scale`) read these facts without importing the state.
"""

from __future__ import annotations

import hashlib
import itertools
import math
from collections.abc import Callable
from dataclasses import asdict, dataclass, fields
from typing import Any

import numpy as np

from calreport._finishers import COLUMNS, SIGNED, WEIGHT_DEGREE
from calreport.profile import ConfidenceProfile

__all__ = ["AUC_SUMS", "AURC_SUMS", "BIN_SUMS", "CLASSWISE_SUMS", "COUNTS", "RISK_FLOAT",
           "RISK_SUMS", "SCALARS", "SCALAR_DEGREES", "TAU_SUMS", "VIEWS", "Schema",
           "StatsConfig", "column_sums", "key_seed", "normalise_key", "sort_key"]

#: Per-group scalar sums, by name: ``Σ w col`` of every per-row column of
#: :func:`calreport._finishers.row_columns` (:data:`~calreport._finishers.COLUMNS`;
#: ``"one"`` is the weight total, a count when the data are unweighted), a signed
#: column as its positive part and its negative part ``name + "_neg"``, then the
#: sum of squared weights ``"w2"`` (Kish's effective size).  :func:`column_sums`
#: reads them back by column.
SCALARS = (*(part for name in COLUMNS
             for part in ((name, name + "_neg") if name in SIGNED else (name,))), "w2")
#: Degree in the weights of each scalar sum (:mod:`calreport.stats.weight_scale`)
SCALAR_DEGREES = {part: WEIGHT_DEGREE.get(part.removesuffix("_neg"), 1)
                  for part in SCALARS[:-1]} | {"w2": 2}


def column_sums(get: Callable[[str], Any]) -> dict[str, Any]:
    """The sum of every column (and ``"w2"``) from ``get(name)`` of the :data:`SCALARS`:
    a signed column is its positive part minus its negative part."""
    out = {name: get(name) - get(name + "_neg") if name in SIGNED else get(name)
           for name in COLUMNS}
    out["w2"] = get("w2")
    return out


COUNTS = ("n", "n_positive_weight", "n_clipped", "n_one")
BIN_SUMS = ("w", "w2", "w_s", "w_y", "w_s2", "w_sy")
TAU_SUMS = ("w", "w_ok", "w_c", "w_c_ok")
AUC_SUMS = ("w_pos", "w_neg", "wc_pos", "wc_neg")
AURC_SUMS = ("w", "w_err")
#: Per (class, uniform calibration bin) of every class column ``p_k`` (binary: the
#: columns ``1 - p`` and ``p``): the sums of ``w p_k`` and ``w 1[y = k]``, from which
#: the class-wise ECE finishes exactly.
CLASSWISE_SUMS = ("w_p", "w_y")
VIEWS = ("top_label", "positive")
#: Sums of the risk verdict (:func:`calreport.metrics.risk.risk_summary` in sum form)
#: over all rows (``a_``) and over the certainty claims (``c_``, raw confidence
#: >= 1 - eps; few rows, so cheap); the rows below certainty are their exact
#: difference.  ``k`` = copies (1, or the frequency weight), ``a`` = error size,
#: ``p = 1 - c``, ``p1 = min(2p, 1)`` the alternative of the power.  Third cumulants
#: and the Spiegelhalter numerator can be negative: positive and negative parts.
RISK_SUMS = ("sp_num_pos", "sp_num_neg", "sp_var", "c_w", "c_w2", "c_w_wrong", "c_count",
             "c_wrong", "c_s_obs", "c_var")
#: Float sums of the verdict's validity and power terms (third cumulant, mean and
#: variance under the alternative) over all rows (``a_``) and the rows below certainty
#: (``r_``): compared with thresholds only, so float64 (added in any order: equal to
#: a few ulps) rather than exact.
RISK_FLOAT = ("a_k3", "a_mean1", "a_var1", "r_k3", "r_mean1", "r_var1")


@dataclass(frozen=True)
class StatsConfig:
    """Settings fixed before any data is seen (states with different settings never merge).

    Attributes
    ----------
    n_bins : int
        Uniform calibration bins ``((m-1)/M, m/M]`` (0 in the first bin).
    score_bins : int
        Fine uniform score bins of AUC, cwAUC and AURC (error bound reported).
    taus : tuple of float
        Grid of selective thresholds; must start at 0 and contain ``tau``.
    tau : float
        Threshold of CWSA / CWSA+ / coverage in the summary.
    eps : float
        Confidence clipping of CSR.
    weights : {"importance", "frequency"}
        Meaning of sample weights for sigma_CSR: importance weights use
        ``sum w^2 c/(1-c)`` (invariant to scaling the weights), frequency weights
        ``sum w c/(1-c)`` (integer weights = repeated rows).
    min_count : int
        Minimum bin occupancy of MCE.
    n_boot : int
        Poisson bootstrap replicates accumulated with the state (0 = none).
    seed : int
        Master seed of the counter-based bootstrap streams.
    sample_size : int
        Rows per group kept in a uniform sample for the metrics that refit a curve
        (see :mod:`calreport.stats.sample`); 0 = no sample.
    top_errors : int
        Errors of largest CSR contribution kept per group (exact top-k); 0 = none.
    heavy_rows : int
        Rows of largest null variance kept per group (all rows, and rows below
        certainty) for the Monte Carlo null of P_risk where the normal approximation
        is invalid (:mod:`calreport.stats.verdict`).
    smooth_groups : int
        Most groups whose smooth-ECE node masses are kept (the smooth ECE from all
        rows, about 0.33 MB per group; :mod:`calreport.stats.smooth_grid`); above, or
        with 0, the smooth ECE is computed on the sample.
    """

    n_bins: int = 15
    score_bins: int = 1 << 16
    taus: tuple[float, ...] = tuple(float(k) / 20.0 for k in range(20))
    tau: float = 0.5
    eps: float = 1e-8
    weights: str = "importance"
    min_count: int = 1
    n_boot: int = 0
    seed: int = 0
    sample_size: int = 0
    top_errors: int = 0
    heavy_rows: int = 4096
    smooth_groups: int = 64

    def __post_init__(self) -> None:
        if int(self.n_bins) < 1 or int(self.score_bins) < 2:
            raise ValueError(
                f"`n_bins` ({self.n_bins}) must be >= 1 and `score_bins` ({self.score_bins}) "
                ">= 2."
            )
        taus = tuple(float(t) for t in self.taus)
        if not taus or taus[0] != 0.0 or any(b <= a for a, b in itertools.pairwise(taus)) \
                or taus[-1] >= 1.0:
            raise ValueError(
                "`taus` must be increasing, start at 0.0 and stay below 1; got "
                f"{list(taus)[:5]}..."
            )
        if float(self.tau) not in taus:
            raise ValueError(f"`tau`={self.tau} must be one of `taus`; add it to the grid.")
        if self.weights not in ("importance", "frequency"):
            raise ValueError(
                f"`weights` must be 'importance' or 'frequency', got {self.weights!r}."
            )
        if not 0.0 < float(self.eps) < 0.5:
            raise ValueError(f"`eps` must be in (0, 0.5), got {self.eps!r}.")
        if int(self.n_boot) < 0:
            raise ValueError(f"`n_boot` must be >= 0, got {self.n_boot!r}.")
        if int(self.smooth_groups) < 0:
            raise ValueError(f"`smooth_groups` must be >= 0, got {self.smooth_groups!r}.")
        if int(self.top_errors) < 0:
            raise ValueError(f"`top_errors` must be >= 0, got {self.top_errors!r}.")
        if int(self.sample_size) < 0:
            raise ValueError(f"`sample_size` must be >= 0 (0 = no sample), got "
                             f"{self.sample_size!r}.")
        object.__setattr__(self, "taus", taus)

    def to_dict(self) -> dict[str, Any]:
        """Plain-dict form."""
        d = asdict(self)
        d["taus"] = list(self.taus)
        return d

    @classmethod
    def from_dict(cls, d: Any) -> StatsConfig:
        """Inverse of :meth:`to_dict` for stored settings: every field present, typed.

        Raises
        ------
        ValueError
            For anything but a mapping of exactly the fields of :meth:`to_dict`, a
            value of the wrong type, or one out of its range.
        """
        names = [f.name for f in fields(cls)]
        if not isinstance(d, dict):
            raise ValueError(f"`config` must be an object of the settings {names}, got "
                             f"{type(d).__name__}.")
        unknown, missing = sorted(set(d) - set(names)), [n for n in names if n not in d]
        if unknown or missing:
            raise ValueError(
                f"`config` has {'unknown settings ' + str(unknown) if unknown else ''}"
                f"{' and ' if unknown and missing else ''}"
                f"{'no ' + str(missing) if missing else ''}; a stored state holds exactly "
                f"{names}. It was written by another calreport version or altered."
            )

        def number(v: Any) -> bool:
            return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)

        for f in fields(cls):
            v, default = d[f.name], f.default
            ok = (all(number(t) for t in v) if isinstance(v, list) else False) \
                if f.name == "taus" else \
                (isinstance(v, int) and not isinstance(v, bool)) if isinstance(default, int) \
                else number(v) if isinstance(default, float) else isinstance(v, type(default))
            if not ok:
                want = {"taus": "a list of numbers"}.get(f.name, type(default).__name__)
                raise ValueError(f"`config.{f.name}` must be {want}, got {v!r}.")
        return cls(**{**d, "taus": tuple(d["taus"])})


@dataclass(frozen=True)
class Schema:
    """What the data hold: it must agree between merged states."""

    layout: str  # "proba", "labels" or "minimal"
    classes: tuple[Any, ...] | None
    binary: bool
    weighted: bool

    @property
    def n_classes(self) -> int:
        return 0 if self.classes is None else len(self.classes)

    @property
    def auc_rows(self) -> int:
        if self.layout != "proba":
            return 0
        return 1 if self.binary else self.n_classes

    @classmethod
    def of(cls, p: ConfidenceProfile) -> Schema:
        layout = "proba" if p.has_proba else ("labels" if p.has_labels else "minimal")
        classes = None if p.classes is None else tuple(normalise_key(c) for c in p.classes)
        return cls(layout, classes, p.score is not None, p.sample_weight is not None)


def normalise_key(key: Any) -> Any:
    """Group key as plain Python values (NumPy scalars unwrapped, tuples kept)."""
    if isinstance(key, tuple):
        return tuple(normalise_key(k) for k in key)
    if isinstance(key, np.generic):
        return key.item()
    return key


def sort_key(key: Any) -> tuple:
    if isinstance(key, tuple):
        return (0, tuple(sort_key(k) for k in key))
    if key is None or (isinstance(key, float) and math.isnan(key)):
        return (2, "", 0)
    if isinstance(key, (bool, int, float)):
        return (0, "number", key)
    return (1, type(key).__name__, str(key))


def key_seed(seed: int, key: Any) -> int:
    """128-bit Philox key from the master seed and a group key (not its position)."""
    text = repr((int(seed), normalise_key(key))).encode()
    return int.from_bytes(hashlib.blake2b(text, digest_size=16).digest(), "little")


