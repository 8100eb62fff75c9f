"""Pin today's outputs, so a restructuring proves "same numbers".

Each case computes public outputs (every metric, intervals, verdicts, reliability
tables, the report's JSON, the Accumulator's summary) on small seeded frames and
flattens them to ``path -> value``.  ``python tests/golden/make_golden.py`` writes
``golden.json.gz`` beside this file; ``tests/test_golden.py`` recomputes every case
and compares (numbers to 1e-12 relative, text exactly).  Regenerate only for a change
that is meant to change a number, and say which in the commit message.
"""

from __future__ import annotations

import gzip
import json
import math
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import calreport

HERE = Path(__file__).resolve().parent
GOLDEN = HERE / "golden.json.gz"
#: Long explanatory text that is not a number: left out of the fixture.
SKIP_KEYS = {"definitions", "band_rule", "references", "formula", "timestamp",
             "version", "calreport_version", "generated", "figures", "svg", "png"}


def _binary(n: int, seed: int, *, ties: bool = False, groups: int = 0,
            weights: str | None = None, shift: float = 0.0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2.0, 2.0, n)
    y = (rng.random(n) < np.clip(p + shift * (p - 0.5), 0, 1)).astype(int)
    if ties:
        p = np.round(p, 1)
    df = pd.DataFrame({"y": y, "p": p})
    if groups:
        df["g"] = np.array(list("abcdefgh"))[rng.integers(0, groups, n)]
    if weights == "frequency":
        df["w"] = rng.integers(1, 4, n).astype(float)
    elif weights == "importance":
        df["w"] = rng.gamma(2.0, 0.5, n)
    return df


def _multiclass(n: int, seed: int, k: int = 4, *, groups: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    logits = rng.normal(0.0, 1.5, (n, k))
    proba = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    sharper = proba ** 1.3 / (proba ** 1.3).sum(axis=1, keepdims=True)
    y = np.array([rng.choice(k, p=row) for row in sharper])
    df = pd.DataFrame(proba, columns=[f"p{j}" for j in range(k)])
    df["y"] = y
    if groups:
        df["g"] = np.array(list("abcdefgh"))[rng.integers(0, groups, n)]
    return df


def _flat(obj: Any, path: str, out: dict[str, Any]) -> None:
    if isinstance(obj, dict):
        for k, v in obj.items():
            if str(k) in SKIP_KEYS:
                continue
            _flat(v, f"{path}/{k}", out)
    elif isinstance(obj, (list, tuple)):
        for i, v in enumerate(obj):
            _flat(v, f"{path}/{i}", out)
    elif isinstance(obj, pd.DataFrame):
        _flat({str(c): obj[c].tolist() for c in obj.columns}, path + "#cols", out)
        _flat([str(i) for i in obj.index], path + "#index", out)
    elif isinstance(obj, pd.Series):
        _flat({str(k): v for k, v in obj.items()}, path, out)
    elif isinstance(obj, (bool, np.bool_)):
        out[path] = bool(obj)
    elif isinstance(obj, (int, np.integer)):
        out[path] = int(obj)
    elif isinstance(obj, (float, np.floating)):
        x = float(obj)
        out[path] = None if math.isnan(x) else ("inf" if x == math.inf else
                                                 "-inf" if x == -math.inf else x)
    elif obj is None or isinstance(obj, str):
        out[path] = obj
    else:
        out[path] = str(obj)


def _result(df: pd.DataFrame, by: str | None = None, **kw: Any) -> dict[str, Any]:
    cal = df.groupby(by).calib(**ROLES[id(df)]) if by else df.calib(**ROLES[id(df)])
    return cal.evaluate(**kw).to_dict()


ROLES: dict[int, dict[str, Any]] = {}


def _frame(df: pd.DataFrame, **roles: Any) -> pd.DataFrame:
    ROLES[id(df)] = roles
    return df


def cases() -> dict[str, Callable[[], Any]]:
    """Name -> zero-argument function returning the outputs to pin."""
    b = _frame(_binary(400, 1), y="y", proba="p")
    bt = _frame(_binary(300, 2, ties=True, shift=0.4), y="y", proba="p")
    bg = _frame(_binary(900, 3, groups=3, weights="frequency", shift=-0.3), y="y", proba="p",
                weight="w", weights="frequency")
    bi = _frame(_binary(500, 4, weights="importance", shift=0.5), y="y", proba="p",
                weight="w")
    mc = _frame(_multiclass(600, 5, groups=2), y="y", proba=["p0", "p1", "p2", "p3"])
    tiny = _frame(_binary(900, 6, groups=3).assign(
        g=lambda d: np.where(np.arange(len(d)) < 6, "tiny", d["g"])), y="y", proba="p")
    big = _frame(_binary(20_000, 7, shift=0.2), y="y", proba="p")

    def acc() -> Any:
        a = calreport.Accumulator(y="y", proba="p", by="g", classes=[0, 1], n_boot=50,
                                  sample_size=500, stream=3)
        df = tiny.copy()
        for part in np.array_split(np.arange(len(df)), 3):
            a.update(df.iloc[part])
        return {"point": a.summary(), "ci": a.summary(ci=0.9)}

    def report() -> Any:
        r = bg.groupby("g").calib(y="y", proba="p", weight="w",
                                  weights="frequency").report(
            ci=0.95, n_boot=60, seed=0, refit=False, timestamp="2026-01-01T00:00:00")
        return r.to_dict()

    return {
        "binary_point": lambda: _result(b),
        "binary_ci": lambda: _result(b, ci=0.95, n_boot=80, seed=0, refit=None),
        "binary_ci_refit": lambda: _result(bt, ci=0.9, n_boot=20, seed=1, refit=True),
        "binary_quantile": lambda: _result(bt, strategy="quantile", n_bins=8),
        "binary_ties_reliability": lambda: bt.calib(y="y", proba="p").reliability(n_bins=10),
        "grouped_frequency": lambda: _result(bg, by="g"),
        "grouped_frequency_ci": lambda: _result(bg, by="g", ci=0.95, n_boot=60, seed=2,
                                                refit=False),
        "importance": lambda: _result(bi),
        "importance_ci": lambda: _result(bi, ci=0.95, n_boot=60, seed=3, refit=False),
        "multiclass_grouped": lambda: _result(mc, by="g"),
        "multiclass_ci": lambda: _result(mc, ci=0.95, n_boot=40, seed=4, refit=False),
        "multiclass_errors": lambda: mc.calib(y="y", proba=["p0", "p1", "p2", "p3"])
        .calibration_error(),
        "multiclass_scores": lambda: mc.calib(y="y", proba=["p0", "p1", "p2", "p3"]).scores(),
        "binary_tests": lambda: bt.calib(y="y", proba="p").calibration_tests(),
        "multiclass_reliability": lambda: mc.groupby("g").calib(
            y="y", proba=["p0", "p1", "p2", "p3"]).reliability(n_bins=6),
        "tiny_group": lambda: _result(tiny, by="g", ci=0.95, n_boot=40, seed=5, refit=False),
        "risk_grouped": lambda: tiny.groupby("g").calib(y="y", proba="p").risk(seed=0),
        "large_point": lambda: _result(big),
        "accumulator": acc,
        "report_json": report,
    }


def compute(names: list[str] | None = None) -> dict[str, dict[str, Any]]:
    out = {}
    for name, fn in cases().items():
        if names and name not in names:
            continue
        flat: dict[str, Any] = {}
        _flat(fn(), "", flat)
        out[name] = flat
    return out


if __name__ == "__main__":
    import time
    import warnings
    warnings.simplefilter("ignore")
    t = time.perf_counter()
    data = compute(sys.argv[1:] or None)
    for k, v in data.items():
        print(f"{k}: {len(v)} entries")
    with gzip.open(GOLDEN, "wt", encoding="utf-8") as fh:
        json.dump(data, fh, sort_keys=True, separators=(",", ":"))
    print(f"wrote {GOLDEN.name} ({GOLDEN.stat().st_size} bytes) in {time.perf_counter() - t:.1f} s")
