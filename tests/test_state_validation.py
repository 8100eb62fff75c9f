"""Stored accumulator states are validated like input; an HMAC digest proves them.

Hostile suite: each tampering of a saved state is refused with a ValueError naming
the field; the decompression bombs and a huge ``frac_bits`` are refused fast, with a
bounded peak of traced memory.  Round trips keep every value, setting and the class
set.
"""

import base64
import functools
import json
import time
import tracemalloc
import zlib

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401
from calreport._finishers import AT_MOST, row_columns
from calreport.accumulator import Accumulator
from calreport.profile import ConfidenceProfile
from calreport.settings import Settings
from calreport.stats._exact import FixedSum
from calreport.stats.binary import BinaryWriter, pack
from calreport.stats.config import SCALARS
from calreport.stats.sparse import SparseSums
from calreport.stats.state import StatsState, check_state

pytestmark = pytest.mark.filterwarnings(
    "ignore::calreport.metrics.risk.ClippedConfidenceWarning")

KEY = b"a key kept apart from the stored states"
#: Peak traced memory allowed while a bomb or a huge frac_bits is refused.
BOMB_PEAK = 16 * 2**20
#: Zeros inflated by the bomb: 200 MB, about 200 kB compressed.
BOMB_ZEROS = 200 * 2**20


def _frame(n=600, seed=0, groups=("a", "b")):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    return pd.DataFrame({"y": (rng.random(n) < p).astype(int), "p": p,
                         "g": rng.choice(list(groups), n)})


@pytest.fixture(scope="module")
def acc():
    # few score bins keep every payload small and each case fast
    return Accumulator(y="y", proba="p", by="g", classes=[0, 1], n_boot=4, sample_size=20,
                       top_errors=3, score_bins=1024).update(_frame())


@pytest.fixture(scope="module")
def text(acc):
    return acc.to_json()


@pytest.fixture(scope="module")
def bomb():
    """zlib of BOMB_ZEROS zero bytes, built in 1 MiB pieces (small in memory)."""
    z, chunk = zlib.compressobj(9), bytes(1 << 20)
    parts = [z.compress(chunk) for _ in range(BOMB_ZEROS >> 20)]
    return b"".join([*parts, z.flush()])


# ---------------------------------------------------------------- tampering helpers
def _get(d):
    raw = zlib.decompress(base64.b64decode(d["data"]))
    return np.frombuffer(raw, dtype=d["dtype"]).reshape(d["shape"]).copy()


def _put(d, a):
    a = np.ascontiguousarray(a)
    d.update(dtype=str(a.dtype), shape=list(a.shape),
             data=base64.b64encode(zlib.compress(a.tobytes())).decode())


def _limbs(d, name):
    return d["state"]["sums"][name]["limbs"]


def _scaled(limbs, factor):
    """Limbs of the sums times an integer, normalised as the code keeps them."""
    return FixedSum(limbs * factor, 0).limbs


def _negate(d):
    _put(_limbs(d, "scalar"), -_get(_limbs(d, "scalar")))


def _double_bins_only(d):
    _put(_limbs(d, "bins"), _scaled(_get(_limbs(d, "bins")), 2))


def _double_bin_counts_only(d):
    c = d["state"]["counts"]["bin_count"]
    _put(c, _get(c) * 2)


def _double_n_only(d):
    c = d["state"]["counts"]["n"]
    _put(c, _get(c) * 2)


def _double_counts_level(d):
    for name in ("n", "n_positive_weight", "n_clipped", "n_one", "bin_count"):
        c = d["state"]["counts"][name]
        _put(c, _get(c) * 2)
    d["state"]["ranks"] = None


def _overflow(d):
    a = _get(_limbs(d, "risk"))
    a[0, 0, -1] = 2**62
    _put(_limbs(d, "risk"), a)


def _inf_fsums(d):
    a = _get(d["state"]["fsums"]["all"]["values"])
    a[7] = np.inf
    _put(d["state"]["fsums"]["all"]["values"], a)


def _sparse(part, change):
    """Tamper with the compressed rows of the sparse sums ``state.sums.aurc_w``."""
    def tamper(d):
        entry = d["state"]["sums"]["aurc_w"]
        a = _get(entry[part])
        _put(entry[part], change(a))
    return tamper


def _swap_first(a):
    a[[0, 1]] = a[[1, 0]]
    return a


def _repeat_first(a):
    a[1] = a[0]
    return a


def _out_of_grid(a):
    a[-1] = 1024  # score_bins of the fixture
    return a


def _ptr_falls(a):
    a[1] = a[2] + 1
    return a


def _nan_boot(d):
    a = _get(d["state"]["boot"])
    a[0, 1, 2] = np.nan
    _put(d["state"]["boot"], a)


def _mean_above_one(d):
    # per-bin sum of w s three times the sum of w: ECE far above 1, totals untouched
    a = _get(_limbs(d, "bins"))
    a[:, :, :, 2] = _scaled(a[:, :, :, 0], 3)[..., :a.shape[-1]]
    _put(_limbs(d, "bins"), a)


def _set(path, value):
    def tamper(d):
        *head, last = path
        for k in head:
            d = d[k]
        d[last] = value(d[last]) if callable(value) else value
    return tamper


def _negative_count(d):
    c = d["state"]["counts"]["n_clipped"]
    a = _get(c)
    a[0] = -1
    _put(c, a)


def _sample_u_out_of_range(d):
    u = d["state"]["sample"][0]["arrays"]["u"]
    a = _get(u)
    a[0] = 1.5
    _put(u, a)


@functools.cache
def _zeros_b64(mib):
    """base64 of zlib of ``mib`` MiB of zeros (built once)."""
    z = zlib.compressobj(9)
    data = b"".join([z.compress(bytes(1 << 20)) for _ in range(mib)] + [z.flush()])
    return base64.b64encode(data).decode()


def _inner_bomb(d):
    # a two-cell count array whose data inflate to 200 MB
    d["state"]["counts"]["n"]["data"] = _zeros_b64(BOMB_ZEROS >> 20)


def _overlapping_ranks(d):
    r = d["state"]["ranks"][0]["arrays"]["r"]
    a = _get(r)
    _put(r, np.vstack([a, a]))


HOSTILE = {
    "negated sums": (_negate, r"state: `sums.scalar` holds .*negated sum"),
    "sums doubled in one level": (_double_bins_only,
                                  r"`sums.bins` adds up to another weight total"),
    "bin counts doubled in one level": (_double_bin_counts_only,
                                        r"`counts.bin_count` does not add up"),
    "row counts doubled in one level": (_double_n_only,
                                        r"`state.ranks\[0\].arrays.r` \(group 'a'\) .* cover "
                                        r"exactly the group's 570 rows"),
    "all counts doubled, no stream ranges": (_double_counts_level,
                                             r"`sums.scalar` weight total differs from the "
                                             r"row count `counts.n`"),
    "overflowing sum": (_overflow, r"`sums.risk` holds .*overflowing sum"),
    "inf array": (_inf_fsums, r"`fsums.all` holds NaN or infinite"),
    "NaN array": (_nan_boot, r"`boot` holds NaN or infinite"),
    "per-bin mean above 1": (_mean_above_one, r"`sums.bins` has `w_s` above `w`"),
    "frac_bits changed": (_set(("state", "sums", "scalar", "frac_bits"), 62),
                          r"`state.sums.scalar.frac_bits` is 62; .*2\^-63 grid"),
    "frac_bits huge": (_set(("state", "sums", "aurc_w", "frac_bits"), 10**9),
                       r"`state.sums.aurc_w.frac_bits` is 1000000000"),
    "negative count": (_negative_count, r"`counts.n_clipped` holds negative counts"),
    "config n_bins changed": (_set(("config", "n_bins"), 10),
                              r"`state.counts.bin_count` has shape \(2, 2, 15\); the stored "
                              r"settings and groups give \(2, 2, 10\)"),
    "config score_bins huge": (_set(("config", "score_bins"), 2**40),
                               r"score_bins=1099511627776.* above `max_bytes`"),
    "config unknown key": (_set(("config", "colour"), "red"),
                           r"`config` has unknown settings \['colour'\]"),
    "config wrong type": (_set(("config", "n_bins"), "15"), r"`config.n_bins` must be int"),
    "duplicate group keys": (_set(("state", "keys"), ["a", "a"]),
                             r"`state.keys` holds 'a' twice"),
    "key-count mismatch": (_set(("state", "keys"), ["a", "b", "c"]),
                           r"`state.counts.n` has shape \(2,\); .* give \(3,\)"),
    "sample key not a group": (_set(("state", "sample", 0, "key"), "zz"),
                               r"`state.sample\[0\].key` is 'zz': not a group"),
    "sample priority out of range": (_sample_u_out_of_range,
                                     r"`state.sample\[0\].arrays.u` holds 1 values outside"),
    "overlapping stream ranges": (_overlapping_ranks,
                                  r"`state.ranks\[0\].arrays.r` .* sorted, disjoint"),
    "inner array bomb": (_inner_bomb, r"`state.counts.n.data` does not hold the 16 bytes"),
    "unknown top-level field": (_set(("extra",), 1), r"unknown fields \['extra'\]"),
    "missing state field": (_set(("state",), lambda s: {k: v for k, v in s.items()
                                                        if k != "ranks"}),
                            r"`state` has no \['ranks'\]"),
    "malformed spec": (_set(("spec", "class_source"), "guess"),
                       r"`spec.class_source` .* is malformed"),
    "wrong version": (_set(("version",), 2), r"format version 2; this calreport reads "
                                             r"version 5"),
    "older version (dense fine bins)": (_set(("version",), 3),
                                        r"format version 3; this calreport reads version 5"),
    "older version (positional sums)": (_set(("version",), 4),
                                        r"format version 4; this calreport reads version 5"),
    "other per-row columns": (_set(("columns",), ["one", "correct"]),
                              r"holds the sums of the per-row columns \['one', 'correct'\]; "
                              r"this calreport sums \['one', 'correct', 'c_correct'"),
    "no per-row columns": (_set(("columns",), None), r"per-row columns None"),
    "sparse cells unsorted": (_sparse("index", _swap_first),
                              r"`sums.aurc_w`.index holds 1 cells not sorted or repeated "
                              r"within a group \(first: cell \d+ of group 'a'\)"),
    "sparse cell repeated": (_sparse("index", _repeat_first),
                             r"`sums.aurc_w`.index holds 1 cells not sorted or repeated"),
    "sparse cell outside the grid": (_sparse("index", _out_of_grid),
                                     r"`sums.aurc_w`.index holds 1 cells outside the grid "
                                     r"\[0, 1024\) \(first: cell 1024 of group 'b'\)"),
    "sparse rows not rising": (_sparse("ptr", _ptr_falls),
                               r"`sums.aurc_w`.ptr must rise from 0 to the \d+ entries"),
    "heavy rows refer to themselves": (_set(("state", "heavy", 0, "arrays"), "all"),
                                       r"`state.heavy\[0\].arrays` is 'all' .* only a 'rest' "
                                       r"entry of a group with an 'all' entry refers to it"),
    "sparse values fewer than cells": (_sparse("limbs", lambda a: a[:-1]),
                                       r"`state.sums.aurc_w.limbs` has shape \(\d+, 2, 1\); "
                                       r"the stored settings and groups give \(\d+, 2, any\)"),
    "no version": (_set(("version",), None), r"format version None"),
    "wrong format": (_set(("format",), "calreport.stats/2"),
                     r"Not a calreport statistics state \(format 'calreport.stats/2'"),
}


def _binary(d):
    """The binary form of a (tampered) JSON payload: its arrays moved to the body."""
    writer = BinaryWriter()

    def move(p):
        if isinstance(p, dict) and set(p) == {"dtype", "shape", "data"}:
            return writer(_get(p))
        if isinstance(p, dict):
            return {k: move(v) for k, v in p.items()}
        return [move(v) for v in p] if isinstance(p, list) else p

    head = move(d)
    return pack(head, writer.body())


@pytest.mark.parametrize("case", list(HOSTILE))
def test_hostile_state_is_refused(text, case):
    tamper, message = HOSTILE[case]
    d = json.loads(text)
    tamper(d)
    with pytest.raises(ValueError, match=message):
        Accumulator.from_json(json.dumps(d))
    # the same as compressed JSON, and in the binary form (arrays as raw bytes)
    with pytest.raises(ValueError, match=message):
        Accumulator.from_bytes(zlib.compress(json.dumps(d).encode()))
    if case != "inner array bomb":  # its data are no array to move
        with pytest.raises(ValueError, match=message):
            Accumulator.from_bytes(_binary(d))


@pytest.mark.parametrize("text, message", [
    ("[1, 2]", r"format 'list'"),
    ("3", r"format 'int'"),
    ('"state"', r"format 'str'"),
    ("{bad json", r"the text is not valid JSON"),
    ("[" * 100_000, r"the text is not valid JSON"),
    ('{"format": "calreport.stats", "version": 3, "x": NaN}', r"NaN is not a stored value"),
])
def test_not_a_state_object(text, message):
    with pytest.raises(ValueError, match=message):
        Accumulator.from_json(text)


def test_truncated_and_foreign_bytes(acc):
    blob = acc.to_bytes()
    with pytest.raises(ValueError, match="truncated"):
        Accumulator.from_bytes(blob[: len(blob) // 2])
    with pytest.raises(ValueError, match="not zlib data"):
        Accumulator.from_bytes(b"hello, not a state")
    with pytest.raises(ValueError, match="past the compressed state"):
        Accumulator.from_bytes(blob + b"trailing")
    with pytest.raises(ValueError, match="do not inflate to a JSON object"):
        Accumulator.from_bytes(zlib.compress(b"[1, 2, 3]"))


def _refused_within_bounds(call, message):
    """Run ``call``, expect the ValueError, return (seconds, peak traced bytes)."""
    tracemalloc.start()
    t0 = time.perf_counter()
    try:
        with pytest.raises(ValueError, match=message):
            call()
        return time.perf_counter() - t0, tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_zlib_bomb_is_refused_fast_and_small(bomb):
    # 200 MB of zeros: refused on the first 64 kB inflated (not a JSON object)
    secs, peak = _refused_within_bounds(lambda: Accumulator.from_bytes(bomb),
                                        "do not inflate to a JSON object")
    assert len(bomb) < 1 << 20 and secs < 1.0 and peak < BOMB_PEAK, (secs, peak)


def test_binary_form_bomb_is_refused_fast_and_small(bomb):
    # the binary form's opening, then 200 MB of zeros: its header length and header
    # are checked on the first piece inflated, not after max_bytes of zeros
    from calreport.stats.binary import MAGIC

    secs, peak = _refused_within_bounds(lambda: Accumulator.from_bytes(MAGIC + bomb),
                                        "do not inflate to a JSON object")
    assert secs < 1.0 and peak < BOMB_PEAK, (secs, peak)


def test_binary_header_length_above_max_bytes_is_refused_at_once(acc):
    from calreport.stats.binary import MAGIC

    head = (1 << 40).to_bytes(8, "little") + b'{"format": "calreport.stats"}'
    blob = MAGIC + zlib.compress(head)
    with pytest.raises(ValueError, match=r"The binary state's header needs 1,099,511,627,776"):
        Accumulator.from_bytes(blob)


def test_json_looking_bomb_stops_at_max_bytes():
    # an object opening followed by 200 MB of spaces: inflated no further than max_bytes
    z = zlib.compressobj(9)
    spaces = b" " * (1 << 20)
    bomb = b"".join([z.compress(b'{"format": "calreport.stats", "pad": "'),
                     *(z.compress(spaces) for _ in range(200)), z.flush()])
    secs, peak = _refused_within_bounds(
        lambda: Accumulator.from_bytes(bomb, max_bytes=4 << 20),
        r"The inflated payload needs 5,24\d,\d{3} bytes, above `max_bytes`=4,194,304")
    assert secs < 1.0 and peak < BOMB_PEAK, (secs, peak)


def test_inner_bomb_and_huge_frac_bits_stay_small(text):
    d = json.loads(text)
    _inner_bomb(d)
    bombed = json.dumps(d)
    secs, peak = _refused_within_bounds(lambda: Accumulator.from_json(bombed),
                                        "does not hold the 16 bytes")
    # the JSON text itself (about 0.6 MB) is traced while parsed
    assert secs < 1.0 and peak < BOMB_PEAK, (secs, peak)
    d = json.loads(text)
    d["state"]["sums"]["scalar"]["frac_bits"] = 10**9
    huge = json.dumps(d)
    secs, peak = _refused_within_bounds(lambda: Accumulator.from_json(huge),
                                        "frac_bits` is 1000000000")
    assert secs < 1.0 and peak < BOMB_PEAK, (secs, peak)


def test_declared_shape_above_max_bytes_is_refused_before_decoding(acc, text):
    d = json.loads(text)
    d["state"]["sample"][0]["arrays"]["u"]["shape"] = [10**12]
    with pytest.raises(ValueError, match=r"Decoding `state.sample\[0\].arrays.u` .* needs "
                                         r"8,000,000,\d{3},\d{3} bytes"):
        Accumulator.from_json(json.dumps(d))
    with pytest.raises(ValueError, match=r"The JSON text needs .* above `max_bytes`=1,000"):
        Accumulator.from_json(text, max_bytes=1000)
    with pytest.raises(ValueError, match=r"`max_bytes` must be a positive integer"):
        Accumulator.from_bytes(acc.to_bytes(), max_bytes=0)


# ---------------------------------------------------------------- the digest
def test_digest_round_trip_and_refusals(acc):
    text = acc.to_json(key=KEY)
    assert Accumulator.from_json(text, key=KEY).state.equals(acc.state)
    # a key as str is its UTF-8 bytes
    assert Accumulator.from_json(text, key=KEY.decode()).state.equals(acc.state)
    for blob in (acc.to_bytes(key=KEY), zlib.compress(text.encode())):
        assert Accumulator.from_bytes(blob, key=KEY).state.equals(acc.state)
        assert Accumulator.from_bytes(blob, key=KEY.decode()).state.equals(acc.state)
    with pytest.raises(ValueError, match=r"digest does not match.*key is not the one"):
        Accumulator.from_bytes(acc.to_bytes(key=KEY), key=b"another key")
    with pytest.raises(ValueError, match="carries no HMAC-SHA256 digest but a `key` was given"):
        Accumulator.from_bytes(acc.to_bytes(), key=KEY)
    with pytest.raises(ValueError, match="`key` is empty"):
        acc.to_json(key=b"")
    # without a key the digest is not required (nor checked)
    assert Accumulator.from_json(acc.to_json(key=KEY)).state.equals(acc.state)
    d = json.loads(acc.to_json(key=KEY))
    d["hmac_sha256"] = "0" * 64
    with pytest.raises(ValueError, match="digest does not match"):
        Accumulator.from_json(json.dumps(d), key=KEY)


def test_consistent_alteration_passes_validation_only_the_digest_refuses_it(acc):
    """Every count and sum doubled consistently looks like a real state: only the
    digest tells (the limitation the docs state)."""
    d = json.loads(acc.to_json(key=KEY))
    st = d["state"]
    for name in ("n", "n_positive_weight", "n_clipped", "n_one", "bin_count"):
        _put(st["counts"][name], _get(st["counts"][name]) * 2)
    for s in st["sums"].values():
        _put(s["limbs"], _scaled(_get(s["limbs"]), 2))
    st["ranks"] = None
    st["boot"] = None  # replicates would need the doubled rows' streams
    d["config"]["n_boot"] = 0
    forged = Accumulator.from_json(json.dumps(d))
    np.testing.assert_array_equal(forged.state.counts["n"], 2 * acc.state.counts["n"])
    with pytest.raises(ValueError, match="digest does not match"):
        Accumulator.from_json(json.dumps(d), key=KEY)


# ---------------------------------------------------------------- round trips
def _same(a, b, summary=True):
    assert a.state.equals(b.state)
    assert a.config == b.config and a.by == b.by and a.stream == b.stream
    assert a._role_kw == b._role_kw and a._spec == b._spec
    for part in ("boot",):
        x, y = getattr(a.state, part), getattr(b.state, part)
        assert (x is None) == (y is None) and (x is None or np.array_equal(x, y))
    for part in ("sample", "top", "heavy", "smooth"):
        x, y = getattr(a.state, part), getattr(b.state, part)
        assert (x is None) == (y is None)
        for k in x or {}:
            for f in x[k]:
                np.testing.assert_array_equal(x[k][f], y[k][f])
    for k, f in a.state.fsums.items():
        if isinstance(f, SparseSums):
            assert f.equals(b.state.fsums[k]), k
        else:
            np.testing.assert_array_equal(f, b.state.fsums[k])
    assert a.state.ranks.keys() == b.state.ranks.keys()
    if not summary:
        return
    x, y = a.summary(), b.summary()
    assert type(x) is type(y)
    (pd.testing.assert_series_equal if isinstance(x, pd.Series)
     else pd.testing.assert_frame_equal)(x, y, check_exact=True)


def _variants():
    rng = np.random.default_rng(5)
    n = 500
    probs = rng.dirichlet([1, 1, 1], n)
    multi = pd.DataFrame({"y": rng.choice(["c0", "c1", "c2"], n), "g": rng.integers(0, 3, n),
                          "h": rng.choice(["x", "y"], n), "w": rng.random(n) * 3,
                          "count": rng.integers(0, 4, n).astype(float),
                          **{f"proba_c{j}": probs[:, j] for j in range(3)}})
    multi["pred"] = multi[[f"proba_c{j}" for j in range(3)]].to_numpy().argmax(1)
    multi["pred"] = "c" + multi["pred"].astype(str)
    multi["conf"] = probs.max(1)
    multi["correct"] = multi["pred"] == multi["y"]
    cols = [f"proba_c{j}" for j in range(3)]
    return {
        "binary, boot, sample, top": (Accumulator(y="y", proba="p", by="g", n_boot=3,
                                                  sample_size=10, top_errors=2, score_bins=512),
                                      _frame()),
        "importance weights": (Accumulator(y="y", proba=cols, weight="w", by="g",
                                           score_bins=512), multi),
        "frequency weights": (Accumulator(y="y", proba=cols, weight="count", by=["g", "h"],
                                          weights="frequency", n_bins=7, score_bins=512), multi),
        "labels and confidence": (Accumulator(y="y", pred="pred", conf="conf", by="h",
                                              classes=["c0", "c1", "c2"], score_bins=512), multi),
        "confidence and correctness": (Accumulator(conf="conf", correct="correct",
                                                   score_bins=512), multi),
    }


@pytest.mark.parametrize("name", list(_variants()))
def test_round_trip_keeps_values_and_settings(name):
    acc, frame = _variants()[name]
    acc.update(frame.iloc[:300])
    check_state(acc.state)
    backs = [Accumulator.from_json(acc.to_json()), Accumulator.from_bytes(acc.to_bytes()),
             Accumulator.from_bytes(acc.to_bytes(key=KEY), key=KEY)]
    for i, back in enumerate(backs):
        _same(back, acc, summary=i == 0)
    # and goes on as the original would
    _same(backs[0].update(frame.iloc[300:]), acc.update(frame.iloc[300:]), summary=False)


def test_merged_streams_and_pooled_states_validate():
    days = [Accumulator(y="y", proba="p", by="g", n_boot=2, stream=s).update(_frame(seed=s))
            for s in range(3)]
    merged = days[0] + days[1] + days[2]
    assert merged.state.ranks["a"].shape == (3, 2)  # three disjoint stream ranges
    _same(Accumulator.from_bytes(merged.to_bytes()), merged)
    check_state(merged.state.pooled())
    empty = Accumulator(y="y", proba="p", score_bins=64)
    back = Accumulator.from_json(empty.to_json())
    assert back.state is None and back.config == empty.config


def test_class_missing_from_first_batch_survives_round_trip():
    """First batch without class c1, saved and loaded: the next batch with c1 adds up
    to the one-shot pandas answer."""
    rng = np.random.default_rng(11)
    cols = ["proba_c0", "proba_c1", "proba_c2"]

    def batch(n, labels):
        probs = rng.dirichlet([1, 1, 1], n)
        return pd.DataFrame({"y": rng.choice(labels, n), **dict(zip(cols, probs.T, strict=True))})

    first, second = batch(400, ["c0", "c2"]), batch(400, ["c0", "c1", "c2"])
    for cols_arg in (cols, ["proba_c0", "proba_c1", "proba_c2"]):
        saved = Accumulator(y="y", proba=cols_arg).update(first)
        for back in (Accumulator.from_json(saved.to_json()),
                     Accumulator.from_bytes(saved.to_bytes(key=KEY), key=KEY)):
            back.update(second)
            assert back.state.schema.classes == ("c0", "c1", "c2")
            got = back.summary()
            ref = pd.concat([first, second], ignore_index=True).calib(
                y="y", proba=cols).summary()
            for m in ("n", "accuracy", "ece", "brier", "log_loss", "csr", "sigma_csr"):
                np.testing.assert_allclose(got[m], ref[m], rtol=1e-12, err_msg=m)


def test_built_states_pass_their_own_checks():
    from calreport.profile import ConfidenceProfile

    p = ConfidenceProfile.from_arrays([0, 1, 1, 0], [0.2, 0.9, 0.4, 1.0], sample_weight=[
        1.0, 0.0, 2.5, 1e300])
    st = StatsState.from_profile(p, codes=np.array([0, 1, 0, 1]), keys=["x", "y"])
    check_state(st)
    check_state(st + st)


@pytest.mark.parametrize("part, whole", [(p, w) for p, ws in AT_MOST.items() for w in ws
                                         if p != "correct"])  # correct: also in sums.tau
def test_a_state_breaking_the_row_order_of_its_columns_is_refused(text, part, whole):
    # the part's sum in group 'a' set to twice the whole's: no rows give that
    d = json.loads(text)
    a = _get(_limbs(d, "scalar"))
    a[0, SCALARS.index(part)] = _scaled(a[0, SCALARS.index(whole)], 2)[..., :a.shape[-1]]
    _put(_limbs(d, "scalar"), a)
    # (a part under two columns may exceed the other one first)
    either = "|".join(AT_MOST[part])
    with pytest.raises(ValueError, match=rf"`sums.scalar` has `{part}` above `({either})` "
                                         r"\(rows never give that\) \(1 cells; first in "
                                         r"group 'a'\)"):
        Accumulator.from_json(json.dumps(d))


def test_the_declared_row_order_of_the_columns_holds_on_every_row():
    # AT_MOST is a claim about rows; check it where it is hardest: confidences 0, tau and
    # 1, weights, multiclass probabilities
    rng = np.random.default_rng(3)
    for proba, weights in [(rng.dirichlet([0.3] * 4, 500), None),
                           (rng.random(500), rng.exponential(size=500))]:
        if proba.ndim == 1:
            proba[:6] = [0.0, 1.0, 0.5, 0.3, 1.0, 0.0]
        y = rng.integers(0, 4 if proba.ndim == 2 else 2, 500)
        prof = ConfidenceProfile.from_arrays(y_true=y, proba=proba, sample_weight=weights)
        for tau in (0.0, 0.3, 0.5, 0.9):
            cols = row_columns(prof, Settings(tau=tau))
            cols["cwsa_neg"] = np.maximum(-cols["cwsa"], 0.0)
            cols["cwsa"] = np.maximum(cols["cwsa"], 0.0)
            for part, wholes in AT_MOST.items():
                for whole in wholes:
                    assert (cols[part] <= cols[whole]).all(), (part, whole, tau)
