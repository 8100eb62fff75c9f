"""Exact AUC out of core by score buckets: scikit-learn's numbers, no score table on the client."""

import itertools
import threading

import numpy as np
import pandas as pd
import pytest
from sklearn.metrics import roc_auc_score

dd = pytest.importorskip("dask.dataframe")
dask = pytest.importorskip("dask")
distributed = pytest.importorskip("distributed")
pl = pytest.importorskip("polars")

import calreport  # noqa: E402, F401
from calreport import dask as calreport_dask  # noqa: E402
from calreport.dask import compute_auc_buckets, compute_state  # noqa: E402
from calreport.stats import StatsConfig  # noqa: E402
from calreport.stats._exact import FixedSum  # noqa: E402
from calreport.stats.exact_auc import (  # noqa: E402
    auc_from_buckets,
    bucket_count,
    bucket_edges,
    bucket_pairs,
    merge_tables,
    ordered_pairs,
    score_tables,
    split_tables,
)

calreport_dask.register()
pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")

TIED = 0.37  # the score a large share of the rows hold


def _frame(seed: int, n: int, classes: int) -> pd.DataFrame:
    """Ties (scores on a 0.01 grid or a few probability vectors), uneven weights, three
    groups, and a large share of rows at one score (one score bin)."""
    rng = np.random.default_rng(seed)
    g = rng.choice(["a", "b", "c"], n, p=[0.5, 0.35, 0.15])
    w = rng.choice([0.5, 1.0, 3.0], n) * rng.random(n).round(1).clip(0.1)
    if classes == 2:
        p = rng.random(n).round(2)
        p[rng.random(n) < 0.4] = TIED
        y = (rng.random(n) < p).astype(int)
        return pd.DataFrame({"g": g, "y": y, "proba": p, "w": w})
    protos = rng.dirichlet(np.ones(classes), 12)
    protos[0] = np.full(classes, 1.0 / classes)
    pick = np.where(rng.random(n) < 0.4, 0, rng.integers(1, 12, n))
    proba = protos[pick]
    y = (proba.cumsum(axis=1) < rng.random(n)[:, None]).sum(axis=1).clip(0, classes - 1)
    return pd.DataFrame({"g": g, "y": y, "w": w,
                         **{f"p{k}": proba[:, k] for k in range(classes)}})


def _roles(classes: int) -> dict:
    proba = "proba" if classes == 2 else [f"p{k}" for k in range(classes)]
    return {"y": "y", "proba": proba, "weight": "w"}


def _dask(df: pd.DataFrame, cuts: list[int]) -> object:
    """Partitions at the row positions ``cuts`` (sorted by group: "c" lies in the last
    non-empty partition only), with empty partitions first, in the middle and last."""
    df = df.sort_values("g", kind="stable")
    bounds = [0, *cuts, len(df)]
    pieces = [df.iloc[a:b] for a, b in itertools.pairwise(bounds)]
    empty = df.iloc[:0]
    pieces = [empty, *pieces[:1], empty, *pieces[1:], empty]
    return dd.from_delayed([dask.delayed(p) for p in pieces], meta=empty, verify_meta=False)


def _sklearn(sub: pd.DataFrame, classes: int) -> float:
    if classes == 2:
        return roc_auc_score(sub["y"], sub["proba"], sample_weight=sub["w"])
    proba = sub[[f"p{k}" for k in range(classes)]].to_numpy()
    return roc_auc_score(sub["y"], proba, multi_class="ovr", average="macro",
                         sample_weight=sub["w"], labels=list(range(classes)))


def _buckets(ddf, classes: int, rows_per_bucket: int):
    role_kw = ddf.calib(**_roles(classes))._role_kw
    st = compute_state(ddf, role_kw, ("g",), StatsConfig())
    return st, compute_auc_buckets(ddf, role_kw, ("g",), st, rows_per_bucket=rows_per_bucket)


@pytest.mark.parametrize("classes", [2, 4])
@pytest.mark.parametrize("rows_per_bucket", [1 << 20, 300, 40])
def test_bucketed_auc_equals_scikit_learn_pandas_and_the_in_memory_table(classes,
                                                                         rows_per_bucket):
    df = _frame(classes, 3000, classes)
    n_first = int((df["g"] == "a").sum()) // 2
    st, buckets = _buckets(_dask(df, [n_first, 1900]), classes, rows_per_bucket)
    # 3000 rows x (1 or 4) classes: 1, 10 or 40, 75 or 300 buckets
    assert len(buckets) == bucket_count(st, rows_per_bucket)
    assert len(buckets) == -(-3000 * (1 if classes == 2 else classes) // rows_per_bucket)
    auc, cw = auc_from_buckets(buckets, st.keys)
    ref = df.groupby("g").calib(**_roles(classes)).summary()
    memory = pl.from_pandas(df).calib(**_roles(classes)).summary(
        by="g", exact_auc=True).to_pandas().set_index("g")
    for gi, key in enumerate(st.keys):
        sub = df[df["g"] == key]
        assert auc[gi] == pytest.approx(_sklearn(sub, classes), rel=1e-12)
        assert auc[gi] == pytest.approx(ref.loc[key, "auc"], rel=1e-12)
        assert cw[gi] == pytest.approx(ref.loc[key, "cwauc"], rel=1e-12)
        # the in-memory path (one table of all distinct scores): summation order only
        assert auc[gi] == pytest.approx(memory.loc[key, "auc"], rel=1e-14)
        assert cw[gi] == pytest.approx(memory.loc[key, "cwauc"], rel=1e-14)


@pytest.mark.parametrize("classes", [2, 4])
def test_bucketed_auc_is_independent_of_the_partitioning(classes):
    df = _frame(10 + classes, 2000, classes)
    got = [auc_from_buckets(b, st.keys) for st, b in
           (_buckets(_dask(df, cuts), classes, 50) for cuts in ([1000], [10, 20, 1500]))]
    np.testing.assert_array_equal(got[0][0], got[1][0])  # bit for bit
    np.testing.assert_array_equal(got[0][1], got[1][1])
    whole = _dask(df, []).calib(**_roles(classes)).summary(exact_auc=True)
    parts = _dask(df, [700, 1400]).calib(**_roles(classes)).summary(exact_auc=True)
    assert whole["auc"] == parts["auc"] and whole["cwauc"] == parts["cwauc"]
    assert whole["auc_bound"] == 0.0


def test_many_ties_in_one_bin_stay_in_one_bucket_once():
    df = _frame(3, 4000, 2)
    ddf = _dask(df, [1500])
    st, buckets = _buckets(ddf, 2, 20)  # 200 buckets; 40 % of the rows at one score
    edges = bucket_edges(st, len(buckets))
    prof, codes, keys, _ = calreport_dask.frame_profile(
        df, calreport_dask.resolve_spec(ddf._meta, ddf.calib(**_roles(2))._role_kw, ("g",),
                                        StatsConfig()))
    whole = score_tables(prof, codes, keys)
    pieces = split_tables(whole, edges, len(buckets))
    for kr, (scores, _) in whole.items():
        got = [p[kr][0] for p in pieces if kr in p]
        # the pieces cut the sorted distinct scores into ascending runs: nothing lost
        np.testing.assert_array_equal(np.concatenate(got), scores)
        holding = [s for s in got if TIED in s]
        assert len(holding) == 1 and int((holding[0] == TIED).sum()) == 1
    auc, _ = auc_from_buckets(buckets, st.keys)
    for gi, key in enumerate(st.keys):
        sub = df[df["g"] == key]
        assert auc[gi] == pytest.approx(_sklearn(sub, 2), rel=1e-12)


def test_pairs_across_buckets_use_the_one_pair_sum():
    # scores 0.1 < 0.5 < 0.9 with (positive, negative) weights (1, 2), (3, 1), (2, 2):
    # pairs positive above negative 3*2 + 2*(2 + 1) = 12, ties 1*2/2 + 3*1/2 + 2*2/2 = 4.5
    pos, neg = np.array([1.0, 3.0, 2.0]), np.array([2.0, 1.0, 2.0])
    assert ordered_pairs(pos, neg, 0.5) == 16.5
    assert ordered_pairs(pos, neg, 0.0) == 12.0
    one = {("k", 0): (np.array([0.1, 0.5, 0.9]), _sums(pos, neg))}
    split = split_tables(one, {("k", 0): np.array([0.3, 0.7])}, 3)
    auc_one = auc_from_buckets([bucket_pairs(one)], ["k"])[0][0]
    auc_split = auc_from_buckets([bucket_pairs(t) for t in split], ["k"])[0][0]
    assert auc_one == auc_split == 16.5 / (6.0 * 5.0)


def _sums(pos: np.ndarray, neg: np.ndarray) -> FixedSum:
    cols = np.stack([pos, neg, pos, neg], axis=1).astype(np.int64)
    return FixedSum(cols[..., None] << 32, 32)


def _sum_pairs(obj, found):
    """Every (array, FixedSum) pair inside nested dicts, lists and tuples."""
    if isinstance(obj, dict):
        obj = list(obj.values())
    if isinstance(obj, tuple) and len(obj) == 2 and isinstance(obj[1], FixedSum):
        found.append(obj)
    elif isinstance(obj, (list, tuple)):
        for item in obj:
            _sum_pairs(item, found)
    return found


def test_client_never_receives_a_score_table(client, monkeypatch):
    df = _frame(5, 3000, 4)
    ddf = _dask(df, [800, 1600])
    computed, merged_on = [], []
    real_compute = dask.compute

    def spy(*args, **kwargs):
        out = real_compute(*args, **kwargs)
        computed.append(out)
        return out

    def merge_spy(a, b):
        merged_on.append(threading.current_thread() is threading.main_thread())
        return merge_tables(a, b)

    monkeypatch.setattr(dask, "compute", spy)
    monkeypatch.setattr(calreport_dask, "merge_tables", merge_spy)
    got = ddf.calib(**_roles(4)).summary(exact_auc=True)
    st, buckets = _buckets(ddf, 4, 500)  # 24 buckets
    assert merged_on and not any(merged_on)  # every merge ran on a worker thread
    # a score table holds (distinct scores, sums (U, 4)); the client only ever gets
    # two pair sums and four totals per bucket, group and class holding scores: 4
    # classes (one bucket, no groups), then at most 24 buckets x 3 groups x 4 classes
    found = _sum_pairs(computed, [])
    assert len(found) == 4 + sum(len(b) for b in buckets) <= 4 + 24 * 3 * 4
    assert all(pairs.shape == (2,) and totals.shape == (4,) for pairs, totals in found)
    assert got["auc"] == pytest.approx(_sklearn(df, 4), rel=1e-12)
    for key, auc in zip(st.keys, auc_from_buckets(buckets, st.keys)[0], strict=True):
        assert auc == pytest.approx(_sklearn(df[df["g"] == key], 4), rel=1e-12)
