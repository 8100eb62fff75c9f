"""Paired model comparison: ``df.groupby("model").calib.compare(baseline, row_id=...)``."""

from __future__ import annotations

import math

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy import special

import calreport  # noqa: F401  (registers the accessors)
from calreport.bootstrap import bootstrap_replicates, spawn_seeds
from calreport.compare import (
    COLUMNS,
    COVERAGE,
    COVERAGE_BINARY,
    COVERAGE_MULTICLASS,
    Comparison,
    paired_z_test,
    wald_interval,
)
from calreport.registry import REGISTRY
from calreport.settings import Settings
from calreport.summary import summarize

FAST = ["accuracy", "cwa", "csr", "sigma_csr", "z_csr", "ece", "brier", "log_loss", "auc",
        "aurc"]


def _binary(n: int = 300, models: int = 2, seed: int = 0, *, noise: float = 0.3,
            weight: bool = False) -> pd.DataFrame:
    """Models sharing a latent score per row: positively correlated predictions."""
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n)
    latent = rng.normal(0.0, 1.5, n) + (2 * y - 1)
    w = rng.uniform(0.2, 3.0, n)
    parts = []
    for i in range(models):
        p = 1.0 / (1.0 + np.exp(-(latent * (1.0 + 0.25 * i) + rng.normal(0.0, noise, n))))
        part = pd.DataFrame({"model": f"M{i}", "row": np.arange(n), "y": y, "p": p})
        if weight:
            part["w"] = w
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _multiclass(n: int = 300, seed: int = 0) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 3, n)
    logits = rng.normal(0.0, 1.0, (n, 3))
    logits[np.arange(n), y] += 1.5
    parts = []
    for i, temp in enumerate((1.0, 0.6)):
        z = (logits + rng.normal(0.0, 0.2, (n, 3))) / temp
        proba = np.exp(z) / np.exp(z).sum(axis=1, keepdims=True)
        part = pd.DataFrame(proba, columns=["p_0", "p_1", "p_2"])
        part.insert(0, "y", y)
        part.insert(0, "row", [f"r{j}" for j in range(n)])
        part.insert(0, "model", f"T{i}")
        parts.append(part)
    return pd.concat(parts, ignore_index=True)


def _compare(df: pd.DataFrame, baseline: str = "M0", **kw) -> Comparison:
    roles = kw.pop("roles", {"y": "y", "proba": "p"})
    kw.setdefault("metrics", FAST)
    kw.setdefault("n_boot", 200)
    kw.setdefault("seed", 1)
    return df.groupby("model").calib(**roles).compare(baseline, row_id="row", **kw)


# ------------------------------------------------------------------ identities
def test_a_model_against_itself_differs_by_exactly_zero():
    df = _binary(models=2)
    twin = df[df.model == "M0"].assign(model="M0 again")
    out = _compare(pd.concat([df, twin]), metrics=None, refit=True, n_boot=30)
    same = out.table.loc["M0 again"]
    defined = same["value"].notna()
    assert defined.sum() >= 20
    assert (same.loc[defined, "difference"] == 0.0).all()
    assert (same.loc[defined, "ci_low"] == 0.0).all()
    assert (same.loc[defined, "ci_high"] == 0.0).all()
    assert same.loc["csr", "p_value"] == 1.0 and same.loc["log_loss", "p_value"] == 1.0
    assert out.bands.loc["M0 again", "change"] == "same"
    # the other model is a real difference
    assert out.table.loc[("M1", "csr"), "difference"] != 0.0


@pytest.mark.parametrize("case", ["binary", "weighted", "multiclass"])
def test_difference_equals_the_metrics_computed_alone(case):
    if case == "multiclass":
        df, base, roles = _multiclass(), "T0", {"y": "y", "proba": ["p_0", "p_1", "p_2"]}
    else:
        df, base = _binary(weight=case == "weighted"), "M0"
        roles = {"y": "y", "proba": "p", **({"weight": "w"} if case == "weighted" else {})}
    out = _compare(df, base, roles=roles, metrics=None, refit=False, n_boot=20)
    # the same seed: P_risk's Monte Carlo null is seeded by it
    alone = {m: df[df.model == m].calib(**roles).summary(seed=1) for m in df.model.unique()}
    other = next(m for m in alone if m != base)
    rows = out.table.loc[other]
    for metric, row in rows.iterrows():
        ref_b, ref_m = alone[base][metric], alone[other][metric]
        assert row["baseline"] == pytest.approx(ref_b, rel=1e-9, abs=1e-12, nan_ok=True)
        assert row["value"] == pytest.approx(ref_m, rel=1e-9, abs=1e-12, nan_ok=True)
        if not math.isnan(ref_m - ref_b):
            assert row["difference"] == pytest.approx(ref_m - ref_b, rel=1e-9, abs=1e-12)


def test_z_test_by_hand():
    # d = (1, 3) - (0, 0) = (1, 3): D = 2, SE^2 = 2/1 * ((1-2)^2 + (3-2)^2) / 2^2 = 1
    d, se, p = paired_z_test(np.array([1.0, 3.0]), np.zeros(2))
    assert (d, se) == (2.0, 1.0)
    assert p == pytest.approx(0.04550026389635842)  # 2 Phi(-2)
    # weights 1 and 3 on d = (0, 4): D = 12/4 = 3; SE^2 = 2 (1*9 + 9*1) / 16 = 2.25
    d, se, p = paired_z_test(np.array([0.0, 4.0]), np.zeros(2), np.array([1.0, 3.0]))
    assert (d, se) == (3.0, 1.5)


def test_p_values_match_the_paired_z_test_of_the_row_terms():
    df = _binary(weight=True)
    out = _compare(df, roles={"y": "y", "proba": "p", "weight": "w"})
    a, b = (df[df.model == m].sort_values("row") for m in ("M0", "M1"))
    y = a["y"].to_numpy()

    def terms(p):
        conf = np.maximum(p, 1 - p)
        wrong = (p >= 0.5) != (y == 1)
        pt = np.clip(np.where(y == 1, p, 1 - p), 1e-15, 1 - 1e-15)
        return wrong / (1 - conf), -np.log(pt)

    (csr_a, ll_a), (csr_b, ll_b) = terms(a["p"].to_numpy()), terms(b["p"].to_numpy())
    w = a["w"].to_numpy()
    assert out.table.loc[("M1", "csr"), "p_value"] == pytest.approx(
        paired_z_test(csr_b, csr_a, w)[2], rel=1e-9)
    assert out.table.loc[("M1", "log_loss"), "p_value"] == pytest.approx(
        paired_z_test(ll_b, ll_a, w)[2], rel=1e-9)
    assert out.table.loc[("M1", "ece"), "p_value"] != out.table.loc[("M1", "ece"), "p_value"]


# ------------------------------------------------------- CSR's Wald interval
def _csr_terms(df: pd.DataFrame, model: str) -> np.ndarray:
    """CSR's row terms (1 - correct) / (1 - c) of one model, in row-key order."""
    part = df[df.model == model].sort_values("row")
    p, y = part["p"].to_numpy(), part["y"].to_numpy()
    conf = np.clip(np.maximum(p, 1 - p), 1e-8, 1 - 1e-8)
    return ((p >= 0.5) != (y == 1)) / (1 - conf)


def test_wald_interval_by_hand():
    # D = 2, SE = 1 (the z-test example above): 2 -+ 1.959963984540054
    lo, hi, why = wald_interval(2.0, 1.0, 0.95)
    assert why == ""
    assert lo == pytest.approx(2.0 - 1.959963984540054, rel=1e-14)
    assert hi == pytest.approx(2.0 + 1.959963984540054, rel=1e-14)
    assert wald_interval(3.0, 1.5, 0.90)[:2] == pytest.approx(
        (3.0 - 1.5 * 1.6448536269514722, 3.0 + 1.5 * 1.6448536269514722), rel=1e-14)
    assert wald_interval(0.5, 0.0)[:2] == (0.5, 0.5)
    lo, hi, why = wald_interval(math.nan, math.nan)
    assert math.isnan(lo) and math.isnan(hi) and "fewer than 2 rows" in why


@pytest.mark.parametrize("weighted", [False, True])
def test_csr_and_log_loss_intervals_are_the_z_tests_wald_interval(weighted):
    """compare()'s CSR interval, brute-forced from the row terms: D -+ z SE with the
    sandwich SE, and each bound is the difference the z-test rejects at exactly 1 - ci."""
    df = _binary(n=150, weight=weighted)
    roles = {"y": "y", "proba": "p", **({"weight": "w"} if weighted else {})}
    out = _compare(df, roles=roles, ci=0.9, n_boot=50)
    row = out.table.loc[("M1", "csr")]
    a, b = _csr_terms(df, "M0"), _csr_terms(df, "M1")
    w = df[df.model == "M0"].sort_values("row")["w"].to_numpy() if weighted \
        else np.ones(a.size)
    d = b - a
    diff = np.sum(w * d) / w.sum()
    n = d.size
    se = math.sqrt(n / (n - 1) * np.sum(w**2 * (d - diff) ** 2) / w.sum() ** 2)
    z = 1.6448536269514722  # Phi^-1(0.95)
    assert row["difference"] == pytest.approx(diff, rel=1e-9)
    assert row["ci_low"] == pytest.approx(diff - z * se, rel=1e-9)
    assert row["ci_high"] == pytest.approx(diff + z * se, rel=1e-9)
    # the interval is the set of differences the test does not reject at 10 %
    for bound in (row["ci_low"], row["ci_high"]):
        assert paired_z_test(b - bound, a, w)[2] == pytest.approx(0.10, rel=1e-9)
    # log loss: the same construction on its row terms -log p_true
    part = [df[df.model == m].sort_values("row") for m in ("M0", "M1")]
    ll = [-np.log(np.clip(np.where(q["y"] == 1, q["p"], 1 - q["p"]), 2.2e-16, 1))
          for q in part]
    d_ll, se_ll, _ = paired_z_test(ll[1], ll[0], w)
    row = out.table.loc[("M1", "log_loss")]
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(
        (d_ll - z * se_ll, d_ll + z * se_ll), rel=1e-9)
    # the other metrics keep the paired bootstrap percentile interval
    assert "percentile" in out.methods["interval"] and "Wald" in out.methods["interval"]


def test_one_quantity_gets_one_interval_the_top_label_log_loss_of_binary_models():
    # binary input: the top-label log loss is the log loss, row by row, so its
    # difference, interval and p-value are the log loss's (they were two intervals)
    out = _compare(_binary(weight=True), roles={"y": "y", "proba": "p", "weight": "w"},
                   metrics=["log_loss", "top_label_log_loss"])
    ll, top = (out.table.loc[("M1", m)] for m in ("log_loss", "top_label_log_loss"))
    for col in ("difference", "ci_low", "ci_high", "p_value"):
        assert top[col] == pytest.approx(ll[col], rel=1e-12), col
    # multiclass: its own row terms, -log of the top-label probability of the outcome
    df = _multiclass()
    out = _compare(df, baseline="T0", roles={"y": "y", "proba": ["p_0", "p_1", "p_2"]},
                   metrics=["top_label_log_loss"])
    terms = []
    for m in ("T0", "T1"):
        part = df[df.model == m].sort_values("row")
        proba = part[["p_0", "p_1", "p_2"]].to_numpy()
        conf = np.clip(proba.max(axis=1), np.finfo(float).eps, 1 - np.finfo(float).eps)
        ok = proba.argmax(axis=1) == part["y"].to_numpy()
        terms.append(-np.log(np.where(ok, conf, 1 - conf)))
    d, se, p = paired_z_test(terms[1], terms[0], None)
    row = out.table.loc[("T1", "top_label_log_loss")]
    assert (row["difference"], row["p_value"]) == pytest.approx((d, p), rel=1e-9)
    assert (row["ci_low"], row["ci_high"]) == pytest.approx(wald_interval(d, se)[:2],
                                                            rel=1e-9)


def test_csr_of_a_model_against_itself_is_zero_with_interval_zero_zero():
    df = _binary(n=80, models=1, weight=True)
    twin = df.assign(model="M0 again")
    for roles in ({"y": "y", "proba": "p"}, {"y": "y", "proba": "p", "weight": "w"}):
        row = _compare(pd.concat([df, twin]), roles=roles, metrics=["csr"],
                       n_boot=10).table.loc[("M0 again", "csr")]
        assert (row["difference"], row["ci_low"], row["ci_high"], row["p_value"]) == \
            (0.0, 0.0, 0.0, 1.0)
    # the Wald interval alone gives [0, 0] too: D = 0 and SE = 0
    t = _csr_terms(df, "M0")
    assert wald_interval(*paired_z_test(t, t)[:2]) == (0.0, 0.0, "")


#: Random frames of two (or three) models of the same rows: any size from 2 rows,
#: probabilities anywhere in [0, 1] (exact 0, 1/2 and 1 included), optional weights.
PROBS = st.one_of(st.floats(0.0, 1.0), st.sampled_from([0.0, 0.5, 1.0, 1e-9, 1 - 1e-9]))


@st.composite
def _frames(draw):
    n = draw(st.integers(2, 40))
    models = draw(st.integers(2, 3))
    y = draw(st.lists(st.integers(0, 1), min_size=n, max_size=n))
    w = draw(st.one_of(st.none(), st.lists(st.floats(0.1, 5.0), min_size=n, max_size=n)))
    parts = []
    for i in range(models):
        if i and draw(st.booleans()):  # sometimes a copy of the baseline's scores
            p = parts[0]["p"].to_numpy()
        else:
            p = draw(st.lists(PROBS, min_size=n, max_size=n))
        part = pd.DataFrame({"model": f"M{i}", "row": np.arange(n), "y": y, "p": p})
        if w is not None:
            part["w"] = w
        parts.append(part)
    return pd.concat(parts, ignore_index=True), w is not None


@settings(max_examples=60, deadline=None)
@given(frame=_frames(), ci=st.sampled_from([0.5, 0.8, 0.9, 0.95, 0.99]))
def test_interval_and_p_value_never_contradict(frame, ci):
    """CSR's and log loss's intervals exclude 0 exactly when p < 1 - ci."""
    df, weighted = frame
    roles = {"y": "y", "proba": "p", **({"weight": "w"} if weighted else {})}
    out = _compare(df, roles=roles, metrics=["csr", "log_loss"], n_boot=2, ci=ci)
    for model, metric in out.table.index:
        row = out.table.loc[(model, metric)]
        p, lo, hi = row["p_value"], row["ci_low"], row["ci_high"]
        assert math.isnan(p) == math.isnan(lo) == math.isnan(hi)
        if math.isnan(p):
            continue
        assert lo <= row["difference"] <= hi or math.isclose(
            row["difference"], lo, rel_tol=1e-12) or math.isclose(
            row["difference"], hi, rel_tol=1e-12)
        if abs(p - (1 - ci)) < 1e-9:  # |D| / SE = z to rounding: either reading holds
            continue
        assert (lo > 0 or hi < 0) == (p < 1 - ci), (model, metric, p, lo, hi)


def test_frequency_weights_equal_repeated_rows():
    df = _binary(n=120)
    df["k"] = np.tile(np.random.default_rng(3).integers(1, 4, 120), 2)
    weighted = _compare(df, roles={"y": "y", "proba": "p", "weight": "k",
                                   "weights": "frequency"}, refit=False)
    rep = df.loc[df.index.repeat(df["k"])].copy()
    rep["row"] = rep["row"].astype(str) + "_" + rep.groupby(["model", "row"]).cumcount().astype(str)
    repeated = _compare(rep, refit=False)
    for col in ("baseline", "value", "difference"):
        np.testing.assert_allclose(weighted.table[col], repeated.table[col], rtol=1e-9)
    assert weighted.n_rows == repeated.n_rows == int(df["k"].sum() / 2)


# ------------------------------------------------------------- order invariance
def test_row_order_and_group_order_do_not_change_results():
    df = _binary(models=3)
    out = _compare(df, "M1")
    shuffled = df.sample(frac=1.0, random_state=7)
    renamed = shuffled.assign(model=shuffled.model.map({"M0": "z", "M1": "M1", "M2": "a"}))
    again = _compare(shuffled, "M1")
    pd.testing.assert_frame_equal(out.table, again.table)
    pd.testing.assert_frame_equal(out.bands, again.bands)
    # other groups' names (and thus their order) leave each model's numbers unchanged
    other = _compare(renamed, "M1")
    np.testing.assert_array_equal(other.table.loc["z"].to_numpy(),
                                  out.table.loc["M0"].to_numpy())
    np.testing.assert_array_equal(other.table.loc["a"].to_numpy(),
                                  out.table.loc["M2"].to_numpy())


def test_group_keys_index_the_table():
    df = _binary(models=3)
    df["model"] = df["model"].str[1:].astype(int)  # keys 0, 1, 2
    out = _compare(df, 0, metrics=["csr", "brier"])
    assert list(out.table.index) == [(1, "csr"), (1, "brier"), (2, "csr"), (2, "brier")]
    assert list(out.bands.index) == [1, 2] and out.baseline == 0


def test_seed_repeats_and_is_recorded():
    df = _binary()
    a, b = _compare(df, seed=5), _compare(df, seed=5)
    pd.testing.assert_frame_equal(a.table, b.table)
    # no seed: one is drawn, recorded, and repeats the run (P_risk's null included)
    c = _compare(df, seed=None, metrics=["csr", "p_risk", "log_loss"])
    again = _compare(df, seed=c.seed, metrics=["csr", "p_risk", "log_loss"])
    pd.testing.assert_frame_equal(c.table, again.table)
    gen = _compare(df, seed=np.random.default_rng(3), metrics=["csr"])
    assert gen.seed == int(np.random.default_rng(3).integers(2**63))
    with pytest.raises(ValueError, match="`seed` must be a non-negative integer"):
        _compare(df, seed=-1)
    frame = a.to_frame()
    assert list(frame.columns) == list(COLUMNS)
    assert frame.attrs["n_boot"] == 200 and frame.attrs["seed"] == 5
    assert "paired" in frame.attrs["methods"]["interval"]
    assert "Wald" in frame.attrs["methods"]["interval"]
    assert "z-test" in frame.attrs["methods"]["test"]
    assert frame.attrs["methods"]["coverage"] == COVERAGE_BINARY  # binary models
    text = repr(a)
    assert "baseline 'M0'" in text and "Risk bands" in text
    # how the intervals were made and their measured rates are printed with the table
    assert a.methods["interval"] in text and COVERAGE_BINARY in text
    html = a._repr_html_()
    assert "<table" in html and COVERAGE_BINARY in html and "Wald interval" in html



def _study_cells(section: str) -> list[tuple[str, str, str, str, float]]:
    """(regime, classes, rows, metric, miss rate in %) of a compare_size section."""
    from pathlib import Path

    text = (Path(__file__).resolve().parents[1] / "benchmarks" / "RESULTS.md").read_text()
    body = text[text.index(f"<!-- begin:{section} -->"):text.index(f"<!-- end:{section} -->")]
    cells = []
    for line in body.splitlines():
        parts = [x.strip() for x in line.strip().strip("|").split("|")]
        if len(parts) == 8 and parts[0] in ("mild", "confident", "unequal-mild",
                                            "unequal-confident"):
            rate = float(parts[6].strip("*").split("%")[0])
            cells.append((parts[0], parts[1], parts[2], parts[3], rate))
    return cells


def test_coverage_names_every_measured_cell_above_six_percent():
    """COVERAGE quotes benchmarks/RESULTS.md: each multiclass Wald cell that missed the
    truth in more than 6 % of runs is named with its rate (CSR's clipping cells as one
    range), and the percentile intervals' counts of such cells are the measured ones."""
    cells = _study_cells("compare_multiclass")
    assert len(cells) == 2 * 4 * 2 * 7
    for regime, _k, _n, metric, rate in cells:
        if metric in ("top_label_log_loss", "log_loss", "csr") and rate > 6.0:
            if metric == "csr" and regime == "unequal-confident":
                assert rate > 60.0 and "63-78 %" in COVERAGE_MULTICLASS
            else:
                assert f"{rate:.1f} %" in COVERAGE_MULTICLASS, (regime, _k, _n, metric, rate)
    binary = _study_cells("compare_other")
    for study, n_cells, text in ((binary, 12, COVERAGE_BINARY),
                                 (cells, 16, COVERAGE_MULTICLASS)):
        over = [sum(r > 6.0 for *_, m, r in study if m == metric)
                for metric in ("accuracy", "brier", "auc")]
        assert sum(m == "auc" for *_, m, _ in study) == n_cells
        assert f"above 6 % in {over[0]}, {over[1]} and {over[2]} of {n_cells} cells" \
            in text, over


# ------------------------------------------------------------------- pairing
def _unpaired_width(df: pd.DataFrame, metric: str, n_boot: int) -> float:
    """Width of the interval of the difference from independent resamples."""
    profiles = df.groupby("model").calib(y="y", proba="p").profiles()
    reps = [bootstrap_replicates(profiles[m], metrics=[metric], n_boot=n_boot, seed=s)[metric]
            for m, s in (("M0", 11), ("M1", 12))]
    lo, hi = np.quantile(reps[1] - reps[0], [0.025, 0.975])
    return hi - lo


#: Data sets of the pairing property: a seed and the private noise of each model.
DATA_SEEDS = st.integers(0, 10_000)
PRIVATE_NOISE = st.sampled_from([0.1, 0.3, 0.6])


@settings(max_examples=8, deadline=None)
@given(seed=DATA_SEEDS, noise=PRIVATE_NOISE)
def test_paired_interval_narrower_than_unpaired_for_correlated_models(seed, noise):
    df = _binary(n=400, seed=seed, noise=noise)
    out = _compare(df, metrics=["log_loss", "brier", "accuracy"], n_boot=300)
    for metric in ("log_loss", "brier"):
        row = out.table.loc[("M1", metric)]
        assert row["ci_low"] <= row["difference"] <= row["ci_high"]
        assert row["ci_high"] - row["ci_low"] < _unpaired_width(df, metric, 300)


@pytest.mark.parametrize("weighted", [False, True])
def test_each_replicate_is_the_metrics_of_the_same_resampled_rows(weighted):
    """Replicate r of every model equals the core metrics on the rows that replicate
    drew, the same rows for both models."""
    from calreport.bootstrap.resampling import Resampler
    from calreport.compare import _replicates

    df = _binary(n=80, weight=weighted)
    roles = {"y": "y", "proba": "p", **({"weight": "w"} if weighted else {})}
    profiles = df.groupby("model").calib(**roles).profiles()
    aligned = {m: p.take(np.argsort(df.loc[df.model == m, "row"].to_numpy()))
               for m, p in profiles.items()}
    names = ["accuracy", "csr", "sigma_csr", "ece", "brier", "log_loss", "auc", "aurc"]
    reps = _replicates(aligned, Settings(), names, [], 20, 0, np.random.SeedSequence(4))
    streams = spawn_seeds(np.random.SeedSequence(4), 2)  # 16 replicates per stream
    counts = Resampler.of(80, "multinomial").draw_block(streams, 0, 20)
    assert (counts.sum(axis=1) == 80).all()
    for r in (0, 7, 19):
        rows = np.repeat(np.arange(80), counts[r].astype(np.int64))
        for m, prof in aligned.items():
            ref = summarize(prof.take(rows), metrics=names).values
            for name in names:
                assert reps[m][name][r] == pytest.approx(ref[name], rel=1e-9), (m, name, r)


# ---------------------------------------------------------------------- size
def test_p_value_size_under_equally_calibrated_models():
    """Two calibrated, exchangeable, correlated models of the same rows (each predicts
    its exact conditional probability from a shared and a private signal, as in
    benchmarks/compare_size.py): the share of p <= 0.05 stays within 5 % plus three
    Monte Carlo standard errors."""
    rng = np.random.default_rng(2026)
    runs, n = 400, 300
    rejected = {"csr": 0, "log_loss": 0}
    for _ in range(runs):
        c, u, v, e = rng.standard_normal((4, n))
        y = c + u + v + e > 0
        p = [special.ndtr((c + x) / math.sqrt(2.0)) for x in (u, v)]  # P(y | c + x)
        for metric in rejected:
            if metric == "csr":
                conf = [np.maximum(q, 1 - q) for q in p]
                t = [((q >= 0.5) != y) / (1 - cf) for q, cf in zip(p, conf, strict=True)]
            else:
                t = [-np.log(np.where(y, q, 1 - q)) for q in p]
            rejected[metric] += paired_z_test(t[1], t[0])[2] <= 0.05
    limit = 0.05 + 3 * math.sqrt(0.05 * 0.95 / runs)
    for metric, k in rejected.items():
        assert k / runs <= limit, (metric, k / runs)


# -------------------------------------------------------------------- errors
def test_a_missing_or_repeated_row_key_names_models_and_keys():
    df = _binary(n=50)
    with pytest.raises(ValueError, match=r"model 'M1' lacks 1 row key.*e\.g\. 7\b.*"
                                         r"drop_duplicates"):
        _compare(df[~((df.model == "M1") & (df.row == 7))])
    dup = pd.concat([df, df[(df.model == "M0") & (df.row == 3)]])
    with pytest.raises(ValueError, match=r"model 'M0' has 1 row key\(s\) more than once "
                                         r"\(e\.g\. 3\)"):
        _compare(dup)


def test_labels_and_weights_must_agree_per_row_key():
    df = _binary(n=50, weight=True)
    bad = df.copy()
    bad.loc[(bad.model == "M1") & (bad.row == 4), "y"] ^= 1
    with pytest.raises(ValueError, match=r"true label of a row key .* 'M0' and 'M1' differ "
                                         r"on 1 key\(s\) \(e\.g\. 4\)"):
        _compare(bad)
    bad = df.copy()
    bad.loc[(bad.model == "M1") & (bad.row == 9), "w"] += 1.0
    with pytest.raises(ValueError, match=r"sample weight .* \(e\.g\. 9\)"):
        _compare(bad, roles={"y": "y", "proba": "p", "weight": "w"})


def test_rows_dropped_for_missing_values_in_every_model():
    df = _binary(n=60)
    gone = df.assign(p=df.p.where(df.row != 11))  # key 11 has no score in any model
    out = _compare(gone, roles={"y": "y", "proba": "p", "missing": "drop"})
    ref = _compare(df[df.row != 11])
    pd.testing.assert_frame_equal(out.table, ref.table)
    one = df.assign(p=df.p.where((df.row != 11) | (df.model == "M0")))
    with pytest.raises(ValueError, match=r"model 'M1' lacks 1 row key.*e\.g\. 11\b"):
        _compare(one, roles={"y": "y", "proba": "p", "missing": "drop"})


def test_bad_arguments():
    df = _binary(n=50)
    with pytest.raises(ValueError, match=r"`baseline`='nope' is not a group"):
        _compare(df, "nope")
    with pytest.raises(ValueError, match=r"`row_id`='id' is not a column"):
        df.groupby("model").calib(y="y", proba="p").compare("M0", row_id="id")
    with pytest.raises(ValueError, match=r"`row_id` column 'row' has 1 missing"):
        _compare(df.assign(row=df.row.where(df.index != 5)))
    with pytest.raises(ValueError, match=r"needs a second model beside the baseline"):
        _compare(df[df.model == "M0"])
    with pytest.raises(ValueError, match=r"`n_boot` must be an integer >= 2"):
        _compare(df, n_boot=1)
    with pytest.raises(ValueError, match=r"`ci` must be a level in \(0, 1\)"):
        _compare(df, ci=95)
    with pytest.raises(TypeError, match=r"unknown keyword\(s\) \['n_bin'\]"):
        _compare(df, n_bin=10)


def test_multiclass_intervals_and_bands():
    out = _compare(_multiclass(), "T0", roles={"y": "y", "proba": ["p_0", "p_1", "p_2"]})
    rows = out.table.loc["T1"]
    assert rows.loc["log_loss", "ci_low"] <= rows.loc["log_loss", "ci_high"]
    assert rows.loc["csr", "difference"] > 0  # sharpened by temperature 0.6
    assert 0.0 <= rows.loc["csr", "p_value"] < 0.05
    assert out.bands.loc["T1", "change"] in {"same", "worse", "better"}
    # the measured coverage printed is the multiclass study's
    assert out.methods["coverage"] == COVERAGE_MULTICLASS and COVERAGE_MULTICLASS in repr(out)
    assert COVERAGE_BINARY in COVERAGE and COVERAGE_MULTICLASS in COVERAGE


# ----------------------------------------------------------------------- CLI
def test_cli_compare(tmp_path, capsys):
    from calreport.cli import main

    path = tmp_path / "scores.csv"
    df = _binary(n=120)
    df.to_csv(path, index=False)
    base = ["compare", str(path), "--by", "model", "--row-id", "row", "--n-boot", "50"]
    assert main([*base, "--baseline", "M0", "--format", "csv", "--metrics",
                 "csr,log_loss"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0] == "model,metric," + ",".join(COLUMNS)
    assert [ln.split(",")[:2] for ln in lines[1:]] == [["M1", "csr"], ["M1", "log_loss"]]
    expected = _compare(df, metrics=["csr", "log_loss"], n_boot=50, seed=0)
    assert float(lines[2].split(",")[4]) == pytest.approx(
        expected.table.loc[("M1", "log_loss"), "difference"], rel=1e-12)
    assert main([*base, "--baseline", "M0", "--metrics", "csr,ece,lcs,p_risk"]) == 0
    printed = capsys.readouterr().out
    assert "baseline_band" in printed and "paired z-test" in printed
    # what the library prints: the measured coverage, and why an interval is missing,
    # in the CLI's words
    assert printed.rstrip().endswith(_compare(df, metrics=["csr", "ece", "lcs", "p_risk"],
                                              n_boot=50, seed=0).to_text().split(
        "\nMeasured: ")[1].split("\n")[0])
    assert "No interval (NaN):\n" in printed and "pass --refit" in printed
    assert "p_risk: the metric has none" in printed
    assert main([*base, "--baseline", "nope"]) == 2
    assert "`baseline`='nope' is not a group" in capsys.readouterr().err
    assert main(["compare", str(path), "--baseline", "M0", "--row-id", "row"]) == 2
    assert "compare needs --by" in capsys.readouterr().err


def test_intervals_below_their_level_are_marked_beside_them():
    """The study's cells where an interval missed far more often than 5 % (CSR between
    a model and a very confident, sharper one; multiclass ECE there too) are printed
    beside the interval, in the repr, the CLI text and the report."""
    from calreport._paired_test import BELOW_NOMINAL_BINARY, BELOW_NOMINAL_MULTICLASS
    from calreport.report.actions import comparison_section

    binary = _compare(_binary(n=150), metrics=["csr", "ece", "brier"], n_boot=30, seed=0)
    assert binary.caveats == {"csr": BELOW_NOMINAL_BINARY["csr"]}
    assert ("Interval below its level in the study:\n  csr: "
            + BELOW_NOMINAL_BINARY["csr"]) in binary.to_text()
    assert binary.to_frame().attrs["caveats"] == binary.caveats
    # the rates are the ones the coverage statement quotes
    assert "24-33 %" in BELOW_NOMINAL_BINARY["csr"] and "24-33 %" in COVERAGE_BINARY
    multi = _compare(_multiclass(n=150), "T0", roles={"y": "y", "proba": ["p_0", "p_1", "p_2"]},
                     metrics=["ece", "brier"], n_boot=30, seed=0)
    assert multi.caveats == {"ece": BELOW_NOMINAL_MULTICLASS["ece"]}
    assert "99-100 %" in multi.caveats["ece"] and "99-100 %" in COVERAGE_MULTICLASS
    section = comparison_section(multi, {})
    assert {r["metric"]: r["caveat"] for r in section["models"][0]["rows"]} == {
        "ece": True, "brier": False}
    assert section["caveats"] == [{"metric": "ece", "label": REGISTRY["ece"].label,
                                   "text": BELOW_NOMINAL_MULTICLASS["ece"]}]


def test_printed_p_values_read_in_decimals_never_in_scientific_notation():
    df = _binary(n=3000)
    rows = df["model"] == "M1"
    df.loc[rows, "p"] = df.loc[rows, "p"] ** 0.3  # far less calibrated: tiny p-values
    out = _compare(df, metrics=["accuracy", "csr", "log_loss"], n_boot=50, seed=0)
    p = out.table["p_value"]
    assert p.loc[("M1", "csr")] < 1e-5  # would print as 1e-06 in ``.4g``
    text, html = out.to_text(full=True), out._repr_html_()
    for shown, less in ((text, "< 0.0001"), (html, "&lt; 0.0001")):
        assert less in shown and "e-0" not in shown.split("Risk bands")[0]
    line = next(ln for ln in text.splitlines() if "accuracy" in ln)
    assert line.rstrip().endswith("NaN")  # untested metrics have no p-value


def test_refits_draw_the_rows_of_the_batched_replicates_again():
    # compare() draws the refits' rows a second time from the same master seed: the
    # streams must not depend on how often they were asked for
    from calreport.bootstrap.paired import paired_streams

    master = np.random.SeedSequence(5)
    sampler, first = paired_streams(master, 200, 40)
    again = paired_streams(master, 200, 40)[1]
    assert master.n_children_spawned == 0
    np.testing.assert_array_equal(sampler.draw_block(first, 0, 40),
                                  sampler.draw_block(again, 0, 40))
    np.testing.assert_array_equal(sampler.draw_block(first, 0, 40),
                                  sampler.draw_block(master.spawn(3), 0, 40))
