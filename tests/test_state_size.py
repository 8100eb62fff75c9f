"""A state's size follows what its groups hold; its binary form round-trips bit for bit.

The fine score bins (AUC, cwAUC, AURC) and the fine confidence bins of the risk
verdict are held per group as the sorted occupied bins and their sums
(:class:`~calreport.stats.sparse.SparseSums`).  Checked here: the bins held are
exactly the distinct bins of the rows (computed independently), so the bytes follow
from them; densified, they equal the dense exact sums of every bin; merges stay exact
in any order; finishing a block of groups at a time changes no number; the binary
``to_bytes`` form round-trips bit for bit and refuses a tampered sparse index.
"""

import json
import math

import numpy as np
import pandas as pd
import pytest

from calreport.accumulator import Accumulator
from calreport.profile import ConfidenceProfile
from calreport.stats import StatsConfig, StatsState, sparse
from calreport.stats._exact import exact_bincount
from calreport.stats.binary import BinaryWriter, pack
from calreport.stats.sample import FINE
from calreport.stats.sparse import SparseSums
from calreport.stats.store import state_to_dict

pytestmark = pytest.mark.filterwarnings(
    "ignore::calreport.metrics.risk.ClippedConfidenceWarning")


def _binary_rows(n, groups, seed=0, weighted=False):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p).astype(int)
    codes = rng.integers(0, groups, n)
    w = rng.random(n) * 3 if weighted else None
    return ConfidenceProfile.from_arrays(y, p, sample_weight=w), codes


def _state(profile, codes, groups, config=None):
    return StatsState.from_profile(profile, codes=codes, keys=list(range(groups)),
                                   config=config)


def test_sparse_bins_are_the_rows_distinct_bins_and_set_the_size():
    """A group of 100 rows holds at most 100 of the 2^16 bins of each fine array: the
    bins held are exactly the distinct bins of its rows, and the bytes follow."""
    prof, codes = _binary_rows(300, 3)
    st = _state(prof, codes, 3)
    b = st.config.score_bins
    conf_bins = np.minimum((prof.conf * b).astype(np.int64), b - 1)
    score_bins = np.minimum((prof.score * b).astype(np.int64), b - 1)
    fine_bins = np.minimum((np.clip(prof.conf, st.config.eps, 1 - st.config.eps) * FINE)
                           .astype(np.int64), FINE - 1)
    expect = {"aurc_w": conf_bins, "auc_w": score_bins, "auc_wc": score_bins}
    held = {**{k: st.sums[k] for k in expect}, "all": st.fsums["all"]}
    sparse_bytes = dense_bytes = 0
    for name, s in held.items():
        for gi in range(3):
            cells = s.index[s.ptr[gi]:s.ptr[gi + 1]]
            if name == "all":  # float sums keep the bins of positive null variance
                assert np.isin(cells, np.unique(fine_bins[codes == gi])).all()
                continue
            np.testing.assert_array_equal(cells, np.unique(expect[name][codes == gi]))
        vals = s.values.limbs if s.exact else s.values
        per_cell = math.prod(vals.shape[1:]) * 8  # the sums of one cell (limbs)
        sparse_bytes += s.nbytes
        dense_bytes += 3 * s.width * per_cell
        assert s.nbytes == (3 + 1) * 8 + s.index.size * (8 + per_cell)
        assert s.index.size <= 300  # one cell per row at most (one class row)
    # the dense layout held every bin: width / (rows per group) times more
    assert sparse_bytes * 100 < dense_bytes
    assert st.nbytes() < dense_bytes / 100


def test_sparse_sums_densify_to_the_dense_exact_sums():
    """Independently: the dense exact sums of every bin (the previous layout)."""
    prof, codes = _binary_rows(2000, 4, seed=1, weighted=True)
    st = _state(prof, codes, 4, StatsConfig(score_bins=512))
    b = 512
    fine = np.minimum((prof.conf * b).astype(np.intp), b - 1)
    cell = codes * b + fine
    w = prof.sample_weight
    assert st.scale is None  # weights in [0, 3): held as they are
    dense = exact_bincount(cell, w, 4 * b).reshape((4, b))
    got = st.sums["aurc_w"].dense(slice(0, 4))[:, :, 0]
    assert got.equals(dense)
    wrong = exact_bincount(cell[~prof.correct], w[~prof.correct], 4 * b).reshape((4, b))
    assert st.sums["aurc_w"].dense(slice(0, 4))[:, :, 1].equals(wrong)


def test_sparse_merge_is_exact_in_any_order():
    prof, codes = _binary_rows(3000, 5, seed=2)
    whole = _state(prof, codes, 5)
    parts = []
    for lo, hi in ((0, 700), (700, 2000), (2000, 3000)):
        part = ConfidenceProfile.from_arrays(prof.y_true[lo:hi], prof.score[lo:hi])
        parts.append(StatsState.from_profile(
            part, codes=codes[lo:hi], keys=list(range(5)),
            row_offsets={k: int((codes[:lo] == k).sum()) for k in range(5)}))
    a, b, c = parts
    for merged in ((a + b) + c, a + (b + c), (c + a) + b, (b + c) + a):
        assert merged.equals(whole)
        for name in ("aurc_w", "auc_w", "auc_wc"):
            assert merged.sums[name].equals(whole.sums[name])


def test_finishing_block_by_block_changes_no_number(monkeypatch):
    prof, codes = _binary_rows(4000, 6, seed=3)
    st = _state(prof, codes, 6)
    from calreport.stats import finish

    whole = finish.summary(st).values
    monkeypatch.setattr(sparse, "_DENSE_CELLS", 1)  # one group at a time
    blocks = finish.summary(st).values
    for m, v in whole.items():
        np.testing.assert_array_equal(v, blocks[m], err_msg=m)


def _frame(n=3000, groups=8, seed=4, classes=2):
    rng = np.random.default_rng(seed)
    if classes == 2:
        p = rng.random(n)
        return pd.DataFrame({"y": (rng.random(n) < p).astype(int), "p": p,
                             "g": rng.integers(0, groups, n)}), {"proba": "p"}
    probs = rng.dirichlet(np.ones(classes), n)
    cols = {f"p{j}": probs[:, j] for j in range(classes)}
    y = np.array([rng.choice(classes, p=q) for q in probs])
    return (pd.DataFrame({"y": y, **cols, "g": rng.integers(0, groups, n),
                          "w": rng.random(n) * 2}), {"proba": list(cols), "weight": "w"})


@pytest.mark.parametrize("classes", [2, 5])
def test_binary_form_round_trips_bit_for_bit(classes):
    df, roles = _frame(classes=classes)
    acc = Accumulator(y="y", by="g", n_boot=3, sample_size=50, **roles).update(df)
    blob = acc.to_bytes()
    back = Accumulator.from_bytes(blob)
    assert back.state.equals(acc.state)
    for name, f in acc.state.fsums.items():
        other = back.state.fsums[name]
        assert f.equals(other) if isinstance(f, SparseSums) else np.array_equal(f, other)
    assert back.to_bytes() == blob  # the same bytes again
    assert len(blob) < len(acc.to_json())
    pd.testing.assert_frame_equal(back.summary(), acc.summary(), check_exact=True)
    keyed = acc.to_bytes(key=b"k")
    assert Accumulator.from_bytes(keyed, key=b"k").state.equals(acc.state)


def _tampered_binary(acc, change):
    writer = BinaryWriter()
    payload = json.loads(acc.to_json())
    state = state_to_dict(acc.state, writer)
    parts = writer.parts
    # the index of the sparse AURC bins, located by its header entry
    entry = state["sums"]["aurc_w"]["index"]
    at = next(i for i, p in enumerate(parts) if sum(q.nbytes for q in parts[:i]) == entry["at"])
    parts[at] = change(parts[at].copy())
    payload["state"] = state
    return pack(payload, writer.body())


@pytest.mark.parametrize("change, message", [
    (lambda a: a[::-1].copy(), r"`sums.aurc_w`.index holds \d+ cells not sorted or repeated "
                               r"within a group \(first: cell \d+ of group 0\)"),
    (lambda a: np.where(np.arange(a.size) == 3, 1 << 16, a),
     r"`sums.aurc_w`.index holds 1 cells outside the grid \[0, 65536\)"),
    (lambda a: np.where(np.arange(a.size) == 1, a[0], a),
     r"`sums.aurc_w`.index holds 1 cells not sorted or repeated"),
])
def test_tampered_sparse_index_is_refused(change, message):
    df, roles = _frame(n=400, groups=2)
    acc = Accumulator(y="y", by="g", **roles).update(df)
    with pytest.raises(ValueError, match=message):
        Accumulator.from_bytes(_tampered_binary(acc, change))


def test_binary_body_must_be_exactly_the_arrays():
    df, roles = _frame(n=400, groups=2)
    acc = Accumulator(y="y", by="g", **roles).update(df)
    writer = BinaryWriter()
    payload = json.loads(acc.to_json())
    payload["state"] = state_to_dict(acc.state, writer)
    with pytest.raises(ValueError, match=r"The body of the binary state holds [\d,]+ bytes; "
                                         r"its arrays take [\d,]+"):
        Accumulator.from_bytes(pack(payload, writer.body() + bytes(8)))
    with pytest.raises(ValueError, match=r"`state.counts.n.at` is .* must lie within"):
        Accumulator.from_bytes(pack(payload, writer.body()[:16]))


def test_binary_form_of_an_empty_accumulator():
    empty = Accumulator(y="y", proba="p", score_bins=64)
    back = Accumulator.from_bytes(empty.to_bytes())
    assert back.state is None and back.config == empty.config
    payload = json.loads(empty.to_json())
    with pytest.raises(ValueError, match=r"holds no state but 8 bytes of arrays"):
        Accumulator.from_bytes(pack(payload, bytes(8)))


@pytest.mark.parametrize("budget", [1, 40, None])
def test_padded_rows_hold_each_rows_occupied_cells_in_order(budget):
    rng = np.random.default_rng(7)
    dense = rng.random((9, 3, 50)) * (rng.random((9, 3, 50)) < rng.random((9, 3, 1)))
    dense[4] = 0.0  # a group without rows
    sums = SparseSums.from_dense(dense)
    seen = []
    for rows, block in sums.padded(budget):
        width = block.shape[1]
        assert width >= 8 and width & (width - 1) == 0  # a power of two, at least 8
        for j, row in enumerate(rows):
            occupied = dense.reshape(27, 50)[row]
            occupied = occupied[occupied != 0]
            np.testing.assert_array_equal(block[j, :occupied.size], occupied)
            assert not block[j, occupied.size:].any()
        seen += rows.tolist()
    assert sorted(seen) == list(range(27))


def test_binned_auc_is_the_auc_of_the_fine_bins():
    # independent reference: scikit-learn's AUC of each row's fine bin (ties one half)
    from sklearn.metrics import roc_auc_score

    prof, codes = _binary_rows(3000, 7, seed=5)
    st = _state(prof, codes, 7)
    from calreport.stats import finish

    bins = np.minimum((prof.score * st.config.score_bins).astype(np.intp),
                      st.config.score_bins - 1)
    auc = finish.summary(st).values["auc"]
    for gi in range(7):
        rows = codes == gi
        expect = roc_auc_score(prof.y_true[rows] == 1, bins[rows])
        assert math.isclose(auc[gi], expect, rel_tol=1e-13)


def test_risk_verdicts_of_small_groups_are_each_groups_alone():
    # groups of 40 rows: the Monte Carlo null, its first look drawn for all at once
    from calreport.stats.verdict import risk_verdicts

    rng = np.random.default_rng(11)
    n, groups = 400, 10
    conf = 0.5 + 0.49 * rng.random(n)
    correct = (rng.random(n) < conf * 0.9).astype(int)
    codes = np.repeat(np.arange(groups), n // groups)
    prof = ConfidenceProfile.from_arrays(conf=conf, correct=correct)
    together = risk_verdicts(_state(prof, codes, groups))
    assert {r.p_risk_method for r in together} == {"monte_carlo"}
    for gi in range(groups):
        rows = codes == gi
        alone = ConfidenceProfile.from_arrays(conf=conf[rows], correct=correct[rows])
        assert together[gi] == risk_verdicts(StatsState.from_profile(alone))[0]
