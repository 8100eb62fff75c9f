"""Seeded generator of hostile prediction frames and the classifier of outcomes.

Shared by the fast CI profile (``tests/test_fuzz.py``) and the long campaign
(``benchmarks/fuzz.py``).  :func:`make_case` draws one frame from a seed (binary
and 2-12 classes; labels of every dtype; NaN/inf/denormal/boundary scores; ties;
float16/32, Decimal and object dtypes; duplicated and tuple column names; a
non-unique index; group keys with NaN, unobserved categories, several keys,
one-row and single-class groups; zero/negative/NaN/extreme weights;
``missing="drop"``).  :func:`run_case` makes the calls and classifies each as

- ``correct``: succeeded, and its value equals the independent oracle where one
  exists (n, accuracy, cwA, CSR, sigma_CSR, ECE, Brier, log loss, AUC via
  scikit-learn), grouped values equal the per-subset oracle, input unchanged and
  at most :data:`MAX_WARNINGS` warnings;
- ``clean``: ValueError/TypeError whose message names a column or an argument;
- ``unclear``: ValueError/TypeError that names neither;
- ``unexpected``: anything else (other exceptions, wrong numbers, mutated input,
  warning floods, a grouped call failing for a group-local reason).
"""

from __future__ import annotations

import decimal
import io
import re
import tempfile
import traceback
import warnings
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

import calreport  # noqa: F401  (registers the accessors)

MAX_WARNINGS = 5
EPS_CLIP = 1e-8
N_BINS = 15
ROLE_ARGS = ("y", "proba", "pred", "conf", "correct", "weight", "classes", "missing",
             "threshold", "pos_label", "weights", "eps", "n_boot", "ci", "seed", "tau",
             "n_bins", "view", "by", "group", "groups", "metric", "metrics")


@dataclass
class Case:
    """One generated frame, the role keywords and what the oracle may check."""

    seed: int
    df: pd.DataFrame
    kw: dict[str, Any]
    by: list[Any] | None
    mode: str                      # proba1 | probaK | conf_correct | pred_conf
    classes: list[Any]             # class labels (proba order) or []
    names: list[str]               # strings an error message may name
    oracle_ok: bool                # values recomputable by the oracle
    y: np.ndarray | None = None    # class index per row (oracle)
    P: np.ndarray | None = None    # (n, K) or (n,) probabilities (oracle)
    conf: np.ndarray | None = None
    correct: np.ndarray | None = None
    w: np.ndarray | None = None
    keep: np.ndarray | None = None  # rows that survive missing="drop"
    tags: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    """One classified call."""

    call: str
    kind: str           # correct | clean | unclear | unexpected
    cause: str = ""     # root-cause key of an unexpected/unclear outcome
    detail: str = ""


# =============================================================================
# generator
# =============================================================================
def _labels(rng: np.random.Generator, k: int, tags: list[str]) -> tuple[list[Any], str]:
    kinds = ["int", "str", "category", "Int64", "string", "object_mix", "float"]
    if k == 2:
        kinds += ["bool", "boolean"]
    kind = kinds[rng.integers(len(kinds))]
    tags.append(f"labels={kind}")
    if kind in ("int", "Int64"):
        return list(range(k)) if rng.random() < 0.7 else list(range(3, 3 + 2 * k, 2)), kind
    if kind == "float":
        return [float(i) for i in range(k)], kind
    if kind in ("bool", "boolean"):
        return [False, True], kind
    if kind == "object_mix":
        return [i if i % 2 else f"c{i}" for i in range(k)], kind
    alphabet = ["a", "b", "c", "d", "e", "f", "g", "h", "i", "j", "k", "l"]
    return [alphabet[i] + ("\r" if rng.random() < 0.05 else "") for i in range(k)], kind


def _label_series(vals: list[Any], kind: str, classes: list[Any]) -> pd.Series:
    if kind == "Int64":
        return pd.Series(vals, dtype="Int64")
    if kind == "boolean":
        return pd.Series(vals, dtype="boolean")
    if kind == "string":
        return pd.Series(vals, dtype="string")
    if kind == "category":
        return pd.Series(pd.Categorical(vals, categories=classes))
    if kind == "object_mix":
        return pd.Series(vals, dtype=object)
    return pd.Series(vals)


def _probs(rng: np.random.Generator, n: int, k: int, tags: list[str]) -> np.ndarray:
    alpha = rng.choice([0.2, 1.0, 5.0])
    P = rng.dirichlet(np.full(k, alpha), size=n)
    r = rng.random()
    if r < 0.15:  # ties: coarse rounding, renormalised on a grid
        P = np.round(P * 10) + 1e-9
        P = P / P.sum(axis=1, keepdims=True)
        tags.append("ties")
    elif r < 0.25 and k == 2:
        P[:, 1] = rng.choice([0.0, 1.0, 0.5, 5e-324, 1 - 1e-16, 2 / 15, 1 / 15], size=n)
        P[:, 0] = 1 - P[:, 1]
        tags.append("boundary")
    return P


def make_case(seed: int) -> Case:
    """The hostile frame of ``seed`` (deterministic)."""
    rng = np.random.default_rng(seed)
    tags: list[str] = []
    k = int(rng.choice([2, 2, 2, 3, 4, 5, 12]))
    n = int(rng.choice([1, 2, 3, 5, 12, 40, 120]))
    classes, lkind = _labels(rng, k, tags)
    yi = rng.integers(0, k, size=n)
    if rng.random() < 0.1:
        yi[:] = yi[0]
        tags.append("single_class")
    P = _probs(rng, n, k, tags)
    mode = str(rng.choice(["proba1", "probaK", "conf_correct", "pred_conf"])
               if k == 2 else rng.choice(["probaK", "probaK", "conf_correct", "pred_conf"]))
    tags.append(f"mode={mode}")
    oracle_ok = True

    yvals = [classes[i] for i in yi]
    cols: dict[Any, Any] = {}
    kw: dict[str, Any] = {}
    names: list[str] = []

    def colname(base: str) -> Any:
        return ("t", base) if tuple_cols else base

    tuple_cols = rng.random() < 0.06
    if tuple_cols:
        tags.append("tuple_columns")
    ycol = colname("label")
    cols[ycol] = _label_series(yvals, lkind, classes)
    kw["y"] = ycol
    score_cols: list[Any] = []
    if mode == "proba1":
        score_cols = [colname("score")]
        cols[score_cols[0]] = P[:, 1]
        kw["proba"] = score_cols[0]
        kw["pos_label"] = classes[1]
        conf = np.maximum(P[:, 1], 1 - P[:, 1])
        pred = (P[:, 1] >= 0.5).astype(int)
    elif mode == "probaK":
        score_cols = [colname(f"p{j}") for j in range(k)]
        for j, c in enumerate(score_cols):
            cols[c] = P[:, j]
        kw["proba"] = list(score_cols)
        kw["classes"] = list(classes)
        conf = P.max(axis=1)
        pred = P.argmax(axis=1)
    elif mode == "conf_correct":
        conf = P.max(axis=1)
        pred = P.argmax(axis=1)
        cc, kc = colname("conf"), colname("correct")
        cols[cc] = conf
        cols[kc] = (pred == yi).astype(int)
        kw = {"conf": cc, "correct": kc}
        score_cols = [cc]
        if rng.random() < 0.1:  # string correctness
            cols[kc] = np.where(pred == yi, "yes", "no")
            oracle_ok = False
            tags.append("string_correct")
    else:
        conf = P.max(axis=1)
        pred = P.argmax(axis=1)
        pc, cc = colname("pred"), colname("conf")
        cols[pc] = _label_series([classes[i] for i in pred], lkind, classes)
        cols[cc] = conf
        kw["pred"], kw["conf"] = pc, cc
        score_cols = [cc]
    correct = (pred == yi).astype(float)

    # --- score corruption -------------------------------------------------
    r = rng.random()
    if r < 0.08 and n > 0:
        bad = rng.choice([np.nan, np.inf, -np.inf, 1.5, -0.2])
        col = score_cols[rng.integers(len(score_cols))]
        arr = np.array(cols[col], dtype=float)
        idx = rng.integers(0, n, size=max(1, n // 10))
        arr[idx] = bad
        cols[col] = arr
        tags.append(f"bad_score={bad}")
        if mode == "conf_correct" or mode == "pred_conf":
            conf = arr
        oracle_ok = oracle_ok and bool(np.isnan(bad))
        if np.isnan(bad):
            tags.append("nan_score")
    elif r < 0.2:
        dt = rng.choice(["float16", "float32", "decimal", "object", "str"])
        tags.append(f"score_dtype={dt}")
        for c in score_cols:
            arr = np.asarray(cols[c], dtype=float)
            if dt == "float16":
                cols[c] = arr.astype(np.float16)
            elif dt == "float32":
                cols[c] = arr.astype(np.float32)
            elif dt == "decimal":
                cols[c] = pd.Series([decimal.Decimal(repr(float(v))) for v in arr], dtype=object)
            elif dt == "object":
                cols[c] = pd.Series(list(arr), dtype=object)
            else:
                cols[c] = pd.Series([repr(float(v)) for v in arr], dtype=object)
        if dt in ("float16", "float32"):
            oracle_ok = False  # rounding changes the values; only invariants checked
    # --- weights -----------------------------------------------------------
    w = np.ones(n)
    if rng.random() < 0.35:
        kind = rng.choice(["uniform", "scale", "zeros", "negative", "nan", "allzero", "tiny_huge"])
        tags.append(f"weights={kind}")
        w = rng.random(n) + 0.1
        if kind == "scale":
            w = w * 10.0 ** rng.choice([-300, -150, -100, 80, 160, 300])
        elif kind == "zeros":
            w[rng.random(n) < 0.3] = 0.0
        elif kind == "negative":
            w[rng.integers(n)] = -1.0
            oracle_ok = False
        elif kind == "nan":
            w[rng.integers(n)] = np.nan
        elif kind == "allzero":
            w[:] = 0.0
            oracle_ok = False
        elif kind == "tiny_huge":
            w = np.where(rng.random(n) < 0.5, 1e-300, 1e300) * (rng.random(n) + 0.5)
        wc = colname("w")
        cols[wc] = w
        kw["weight"] = wc
    # --- missing labels ------------------------------------------------------
    if rng.random() < 0.08 and n > 1 and "y" in kw:
        ser = cols[ycol]
        if lkind in ("int",):
            ser = ser.astype(float)
        ser = ser.astype(object) if lkind in ("bool", "str", "object_mix") else ser
        ser.iloc[0] = None if lkind != "float" else np.nan
        cols[ycol] = ser
        tags.append("nan_label")
    keep = np.ones(n, dtype=bool)
    if rng.random() < 0.3:
        kw["missing"] = "drop"
        tags.append("drop")
    # --- frame --------------------------------------------------------------
    df = pd.DataFrame({i: (v.reset_index(drop=True) if isinstance(v, pd.Series) else v)
                       for i, v in enumerate(cols.values())})
    df.columns = pd.MultiIndex.from_tuples(list(cols)) if tuple_cols else list(cols)
    for c in df.columns:  # what a missing="drop" would remove
        s = df[c]
        if c in score_cols or c == kw.get("weight") or c == ycol or c == kw.get("pred") \
                or c == kw.get("correct"):
            keep &= ~pd.isna(s).to_numpy()
    if not keep.all() and kw.get("missing") != "drop":
        oracle_ok = False
    by = None
    r = rng.random()
    if r < 0.45:
        kind = str(rng.choice(["plain", "nan", "category", "two", "one_row", "single_class"]))
        tags.append(f"groupby={kind}")
        gvals = rng.choice(["g1", "g2", "g3"], size=n).astype(object)
        if kind == "nan":
            gvals[rng.random(n) < 0.3] = np.nan
        if kind == "one_row":
            gvals = np.array([f"r{i}" for i in range(n)], dtype=object)
        if kind == "single_class":
            gvals = np.array([f"k{v}" for v in yi], dtype=object)
        gname = colname("grp")
        df[gname] = pd.Categorical(gvals, categories=["g1", "g2", "g3", "g_unused"]) \
            if kind == "category" else gvals
        by = [gname]
        if kind == "category" and rng.random() < 0.5:
            tags.append("unobserved")  # groupby(observed=False): an empty group
        if kind == "two":
            g2 = colname("grp2")
            df[g2] = rng.integers(0, 2, size=n)
            by.append(g2)
        names += [str(b) for b in by]
    # --- column name hostility ----------------------------------------------
    if rng.random() < 0.05:
        dup = list(cols)[rng.integers(len(cols))]
        df = pd.concat([df, df[[dup]]], axis=1)
        tags.append("duplicate_column")
        oracle_ok = False
    if rng.random() < 0.15:
        idx = rng.integers(0, max(1, n // 2 + 1), size=n)
        df.index = idx
        tags.append("nonunique_index")
    if rng.random() < 0.03 and n > 1:  # a Series instead of a column name
        kw["y"] = df[ycol]
        tags.append("series_arg")
        oracle_ok = False
    for c in list(cols):
        names.append(str(c))
        if isinstance(c, tuple):
            names += [str(x) for x in c]
    case = Case(seed=seed, df=df, kw=kw, by=by, mode=mode, classes=classes, names=names,
                oracle_ok=oracle_ok, y=yi, P=P, conf=np.asarray(conf, dtype=float),
                correct=correct, w=w, keep=keep, tags=tags)
    return case


# =============================================================================
# oracle
# =============================================================================
def _norm_w(w: np.ndarray) -> np.ndarray:
    """Weights over their maximum; a positive weight below 2**-500 of it weighs 2**-500
    (it still counts as a row: 1e-300 beside 1e300 would underflow to 0)."""
    m = np.max(w) if w.size else 1.0
    if not m > 0:
        return w
    with np.errstate(under="ignore"):
        out = w / m
    return np.where((w > 0) & (out < 2.0**-500), 2.0**-500, out)


def _ece(s: np.ndarray, o: np.ndarray, w: np.ndarray) -> float:
    edges = np.linspace(0.0, 1.0, N_BINS + 1)
    b = np.clip(np.searchsorted(edges[1:-1], s, side="left"), 0, N_BINS - 1)
    W = np.bincount(b, weights=w, minlength=N_BINS)
    gap = np.abs(np.bincount(b, weights=w * o, minlength=N_BINS)
                 - np.bincount(b, weights=w * s, minlength=N_BINS))
    return float(gap.sum() / W.sum())


def oracle(case: Case, rows: np.ndarray) -> dict[str, float]:
    """Independent values of the recomputable metrics on ``rows`` (bool mask)."""
    from sklearn.metrics import roc_auc_score

    m = rows & case.keep
    if not m.any():
        return {}
    w = _norm_w(case.w[m])
    if not np.all(w >= 0) or w.sum() <= 0:
        return {}
    c = case.conf[m]
    ok = case.correct[m]
    out: dict[str, float] = {"n": float((w > 0).sum())}  # rows of positive weight
    W = w.sum()
    out["accuracy"] = float((w * ok).sum() / W)
    if (w * c).sum() > 0:
        out["cwa"] = float((w * c * ok).sum() / (w * c).sum())
    cc = np.clip(c, EPS_CLIP, 1 - EPS_CLIP)
    out["csr"] = float((w * (1 - ok) / (1 - cc)).sum() / W)
    out["sigma_csr"] = float(np.sqrt((w * w * cc / (1 - cc)).sum()) / W)
    k = len(case.classes)
    yi = case.y[m]
    if case.mode in ("proba1", "probaK"):
        P = case.P[m]
        eps = np.finfo(np.float64).eps
        if k == 2:
            p1 = P[:, 1]
            y1 = (yi == 1).astype(float)
            out["ece"] = _ece(p1, y1, w)
            out["brier"] = float((w * (p1 - y1) ** 2).sum() / W)
            if case.mode == "proba1":
                ll = -(y1 * np.log(np.clip(p1, eps, 1 - eps))
                       + (1 - y1) * np.log(np.clip(1 - p1, eps, 1 - eps)))
            else:
                py = P[np.arange(len(yi)), yi]
                ll = -np.log(np.clip(py, eps, 1 - eps))
            out["log_loss"] = float((w * ll).sum() / W)
            pos, neg = (w * y1).sum(), (w * (1 - y1)).sum()
            if pos > 0 and neg > 0 and len(np.unique(y1[w > 0])) == 2:
                out["auc"] = float(roc_auc_score(y1[w > 0], p1[w > 0], sample_weight=w[w > 0]))
        else:
            out["ece"] = _ece(c, ok, w)
            Y = np.eye(k)[yi]
            out["brier"] = float((w * ((P - Y) ** 2).sum(axis=1)).sum() / W)
            py = P[np.arange(len(yi)), yi]
            out["log_loss"] = float((w * -np.log(np.clip(py, eps, 1 - eps))).sum() / W)
            aucs = []
            for j in range(k):
                t = (yi == j).astype(float)
                if (w * t).sum() > 0 and (w * (1 - t)).sum() > 0:
                    aucs.append(roc_auc_score(t[w > 0], P[w > 0, j], sample_weight=w[w > 0]))
            if aucs:
                out["auc"] = float(np.mean(aucs))
    else:
        out["ece"] = _ece(c, ok, w)
    return out


# =============================================================================
# classification of calls
# =============================================================================
def _names_something(msg: str, case: Case) -> bool:
    low = msg.lower()
    for nm in case.names:
        if nm and (f"'{nm}'" in msg or f'"{nm}"' in msg or f"`{nm}`" in msg or nm in msg):
            return True
    if re.search(r"`[A-Za-z_][A-Za-z0-9_]*`", msg):  # the project's way to name an argument
        return True
    for a in ROLE_ARGS:
        if re.search(rf"(?<![a-z_]){re.escape(a)}(?![a-z_])", low):
            return True
    return False


def _where(exc: BaseException) -> str:
    tb = traceback.extract_tb(exc.__traceback__)
    frames = [f for f in tb if "calreport" in f.filename]
    f = frames[-1] if frames else (tb[-1] if tb else None)
    if f is None:
        return type(exc).__name__
    return f"{type(exc).__name__} at {Path(f.filename).name}:{f.lineno} ({f.name})"


def _close(a: Any, b: float) -> bool:
    try:
        a = float(a)
    except (TypeError, ValueError):
        return False
    if np.isnan(b):
        return bool(np.isnan(a))
    if np.isinf(b):
        return a == b
    return bool(np.isclose(a, b, rtol=1e-7, atol=1e-9))


def _frame_snapshot(df: pd.DataFrame) -> tuple[Any, ...]:
    return (df.copy(deep=True), list(df.dtypes), df.index.copy(), df.columns.copy())


def _unchanged(df: pd.DataFrame, snap: tuple[Any, ...]) -> bool:
    before, dtypes, index, columns = snap
    return (df.shape == before.shape and list(df.dtypes) == dtypes
            and df.index.equals(index) and df.columns.equals(columns) and df.equals(before))


def classify(case: Case, call: str, fn: Callable[[], Any],
             check: Callable[[Any], str | None] | None = None) -> Outcome:
    """Run ``fn`` and classify it (see the module docstring)."""
    snap = _frame_snapshot(case.df)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            with np.errstate(all="warn"):
                val = fn()
        except (ValueError, TypeError) as exc:
            msg = str(exc)
            if not _unchanged(case.df, snap):
                return Outcome(call, "unexpected", "input mutated", msg[:200])
            if _names_something(msg, case):
                return Outcome(call, "clean", "", msg[:200])
            return Outcome(call, "unclear", f"{_where(exc)}: {msg[:120]}", msg[:300])
        except SystemExit as exc:
            return Outcome(call, "unexpected", f"SystemExit {exc.code}", "")
        except Exception as exc:
            return Outcome(call, "unexpected", _where(exc), f"{type(exc).__name__}: {exc}"[:300])
    if not _unchanged(case.df, snap):
        return Outcome(call, "unexpected", "input mutated", "")
    if len(caught) > MAX_WARNINGS:
        cats = sorted({type(w.message).__name__ if isinstance(w.message, Warning)
                       else str(w.category) for w in caught})
        return Outcome(call, "unexpected", f"warning flood ({'/'.join(cats)})",
                       f"{len(caught)} warnings: {str(caught[0].message)[:150]}")
    if check is not None:
        try:
            problem = check(val)
        except Exception as exc:
            problem = f"result shape: {type(exc).__name__}: {exc}"
        if problem:
            return Outcome(call, "unexpected", f"{call}: {problem.split(':')[0]}", problem)
    return Outcome(call, "correct")


# =============================================================================
# calls
# =============================================================================
SCALARS = ("accuracy", "cwa", "csr", "sigma_csr", "ece", "brier", "log_loss", "auc")


def _group_masks(case: Case) -> dict[Any, np.ndarray]:
    """Group key -> row mask, from pandas itself (the semantics the accessor follows)."""
    gb = case.df.groupby(case.by if len(case.by) > 1 else case.by[0], observed=True,
                         dropna=True)
    out = {}
    pos = np.arange(len(case.df))
    for key, idx in gb.indices.items():
        m = np.zeros(len(case.df), dtype=bool)
        m[pos[idx]] = True
        out[key] = m
    return out


def _check_scalar(case: Case, name: str, grouped: bool) -> Callable[[Any], str | None]:
    def check(val: Any) -> str | None:
        if not case.oracle_ok:
            return None
        if not grouped:
            exp = oracle(case, np.ones(len(case.df), dtype=bool)).get(name)
            if exp is not None and not _close(val, exp):
                return f"{name} mismatch: got {val!r}, oracle {exp!r}"
            return None
        masks = _group_masks(case)
        if not isinstance(val, pd.Series):
            return f"grouped {name} is {type(val).__name__}, not a Series"
        for key, m in masks.items():
            if key not in val.index:
                return f"group missing from the result: {key!r}"
            exp = oracle(case, m).get(name)
            got = val.loc[key]
            if exp is not None and not _close(got, exp):
                return (f"grouped {name} != per-subset oracle: group {key!r} got {got!r}, "
                        f"oracle {exp!r}")
        return None
    return check


def _check_summary(case: Case, grouped: bool) -> Callable[[Any], str | None]:
    def check(val: Any) -> str | None:
        if not case.oracle_ok:
            return None
        if isinstance(val, pd.DataFrame) and "value" in val.columns and not grouped:
            val = val["value"]
        names = ("n", "accuracy", "cwa", "csr", "sigma_csr", "ece", "brier", "log_loss", "auc")
        if not grouped:
            exp = oracle(case, np.ones(len(case.df), dtype=bool))
            for nm in names:
                if nm in exp and nm in val.index and not _close(val[nm], exp[nm]):
                    return f"summary {nm} mismatch: got {val[nm]!r}, oracle {exp[nm]!r}"
            return None
        for key, m in _group_masks(case).items():
            exp = oracle(case, m)
            if key not in val.index:
                return f"group missing from the summary: {key!r}"
            row = val.loc[key]
            for nm in names:
                got = row[nm] if nm in row.index else (row[(nm, "value")]
                                                      if (nm, "value") in row.index else None)
                if got is not None and nm in exp and not _close(got, exp[nm]):
                    return (f"grouped summary {nm} != per-subset oracle: {key!r} got "
                            f"{got!r}, oracle {exp[nm]!r}")
        return None
    return check


def _accessor(case: Case, grouped: bool) -> Any:
    if grouped:
        observed = "unobserved" not in case.tags
        gb = case.df.groupby(case.by if len(case.by) > 1 else case.by[0], observed=observed)
        return gb.calib(**case.kw)
    return case.df.calib(**case.kw)


def _cli_call(case: Case) -> Callable[[], Any]:
    def run() -> Any:
        from calreport.cli import main

        df = case.df
        if isinstance(df.columns, pd.MultiIndex) or df.columns.duplicated().any() \
                or any(not isinstance(v, (str, list, type(None))) for v in case.kw.values()):
            return None  # the CSV round trip cannot express these roles
        args = ["summary", "", "--format", "csv", "--metrics", "accuracy,cwa,csr,ece"]
        for role in ("y", "pred", "conf", "correct", "weight"):
            if case.kw.get(role) is not None:
                args += [f"--{role}", str(case.kw[role])]
        proba = case.kw.get("proba")
        for p in ([proba] if isinstance(proba, str) else proba or []):
            args += ["--proba", p]
        if case.kw.get("missing") == "drop":
            args += ["--missing", "drop"]
        if case.kw.get("pos_label") is not None:
            args += ["--pos-label", str(case.kw["pos_label"])]
        for b in case.by or []:
            args += ["--by", str(b)]
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "pred.csv"
            # "\r\n" line ends: the csv writer then quotes a label holding a bare
            # "\r" (with "\n" alone it does not, and read_csv ends the row there)
            df.to_csv(path, index=False, lineterminator="\r\n")
            args[1] = str(path)
            out, err = io.StringIO(), io.StringIO()
            with redirect_stdout(out), redirect_stderr(err):
                try:
                    code = main(args)
                except SystemExit as exc:  # argparse usage errors
                    code = exc.code
        text = err.getvalue()
        if code not in (0, 2):
            raise RuntimeError(f"CLI exit {code}: {text.strip()[:200]}")
        if code == 2:
            if "Traceback" in text:
                raise RuntimeError(f"CLI printed a traceback: {text[-200:]}")
            raise ValueError(text.strip()[:300] or "exit 2 without a message")
        return out.getvalue()
    return run


def _check_cli(case: Case) -> Callable[[Any], str | None]:
    """Ungrouped CLI values equal the oracle (labels that survive a CSV round trip)."""
    def check(text: Any) -> str | None:
        plain = any(t in case.tags for t in ("labels=int", "labels=str", "labels=float"))
        if text is None or case.by or not case.oracle_ok or not plain \
                or any(t.startswith("score_dtype") for t in case.tags):
            return None
        got = pd.read_csv(io.StringIO(text), index_col=0)["value"]
        exp = oracle(case, np.ones(len(case.df), dtype=bool))
        for nm in ("n", "accuracy", "cwa", "csr", "ece"):
            if nm in exp and nm in got.index and not _close(got[nm], exp[nm]):
                return f"CLI {nm} mismatch: got {got[nm]!r}, oracle {exp[nm]!r}"
        return None
    return check


def run_case(case: Case, rng: np.random.Generator | None = None, *,
             cli: bool = False, ci: bool = False) -> list[Outcome]:
    """All calls of one case, classified."""
    rng = rng or np.random.default_rng(case.seed + 1)
    outs: list[Outcome] = []
    variants = [False] + ([True] if case.by else [])
    for grouped in variants:
        tag = "grouped." if grouped else ""
        try:
            acc = None
            bind = classify(case, f"{tag}bind", lambda g=grouped: _accessor(case, g))
            if bind.kind != "correct":
                outs.append(bind)
                continue
            acc = _accessor(case, grouped)
        except Exception as exc:
            outs.append(Outcome(f"{tag}bind", "unexpected", _where(exc), str(exc)[:200]))
            continue
        picks = rng.choice(len(SCALARS), size=3, replace=False)
        for i in picks:
            name = SCALARS[i]
            outs.append(classify(case, f"{tag}{name}", getattr(acc, name),
                                 _check_scalar(case, name, grouped)))
        outs.append(classify(case, f"{tag}summary",
                             lambda a=acc: a.summary(metrics=["accuracy", "cwa", "csr",
                                                              "sigma_csr", "ece", "brier",
                                                              "log_loss", "auc", "mce",
                                                              "cwsa"]),
                             _check_summary(case, grouped)))
        if ci:
            outs.append(classify(case, f"{tag}summary_ci",
                                 lambda a=acc: a.summary(metrics=["accuracy", "csr", "ece",
                                                                  "auc"],
                                                         ci=0.9, n_boot=20, seed=1)))
        extra = ["risk", "reliability", "selective", "cw_confusion", "calibration_tests"]
        for name in rng.choice(extra, size=2, replace=False):
            if name == "risk":
                outs.append(classify(case, f"{tag}risk",
                                     lambda a=acc: a.risk(p_risk_method="normal")))
            else:
                outs.append(classify(case, f"{tag}{name}", getattr(acc, str(name))))
        # one hostile argument per accessor: must be a clean error naming it
        bad = [lambda a=acc: a.ece(n_bins=int(rng.choice([0, -3]))),
               lambda a=acc: a.summary(ci=float(rng.choice([0.0, 1.0, 1.5, np.nan])),
                                       n_boot=10),
               lambda a=acc: a.summary(metrics=["accuracy"], ci=0.9, n_boot=1),
               lambda a=acc: a.cwsa(tau=float(rng.choice([1.0, -0.1, np.nan]))),
               lambda a=acc: a.csr(eps=float(rng.choice([0.0, 0.5, -1e-8, np.inf]))),
               lambda a=acc: a.summary(metrics=["no_such_metric"]),
               lambda a=acc: a.reliability(strategy="median"),
               lambda a=acc: a.selective(taus=[0.2, 1.0])]
        j = int(rng.integers(len(bad)))
        out = classify(case, f"{tag}bad_argument[{j}]", bad[j])
        if out.kind == "correct":  # accepted a value it must reject
            out = Outcome(out.call, "unexpected", f"bad argument {j} accepted", "")
        outs.append(out)
    if cli:
        outs.append(classify(case, "cli.summary", _cli_call(case), _check_cli(case)))
    return outs
