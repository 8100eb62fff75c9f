"""Out-of-core intervals are what the registry says: Poisson replicates, DeLong's AUC
interval, or none with the registry's note as the reason."""

import numpy as np
import pandas as pd
import pytest
from _profiles import labelled_frame

import calreport  # noqa: F401
from calreport.accumulator import Accumulator
from calreport.registry import REGISTRY, SAMPLED_NO_INTERVAL
from calreport.stats.config import key_seed
from calreport.stats.poisson import poisson_counts, replicate_metrics
from calreport.stats.scaling import scaling_of

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


@pytest.fixture(scope="module")
def frame():
    return labelled_frame(5, 3000, 1.3, ["a", "b"])


def _acc(frame, **kw):
    return Accumulator(y="y", proba="proba", by="g", n_boot=60, seed=4, sample_size=500,
                       **kw).update(frame)


def test_the_registry_claims_poisson_only_for_metrics_with_replicates(frame):
    reps = replicate_metrics(_acc(frame).state)
    poisson = {m for m in REGISTRY if scaling_of(m).interval == "poisson"}
    assert poisson <= set(reps)
    # and every registry metric with replicates says so
    assert {m for m in reps if m in REGISTRY} == poisson


def test_each_metric_has_the_interval_or_the_reason_the_registry_gives(frame):
    out = _acc(frame).summary(ci=0.95)
    why = out.attrs["no_interval"]
    for m in REGISTRY:
        sc = scaling_of(m)
        lo, hi, val = out[(m, "ci_low")], out[(m, "ci_high")], out[(m, "value")]
        if sc.interval == "none":
            assert lo.isna().all() and hi.isna().all(), m
            want = SAMPLED_NO_INTERVAL if out.attrs["kinds"][m] == "sampled" else \
                sc.interval_note
            assert why[m] == want, m
        else:
            assert m not in why, m
            finite = np.isfinite(val)
            assert finite.any(), m
            assert (lo[finite] <= val[finite] + 1e-12).all(), m
            assert (val[finite] <= hi[finite] + 1e-12).all(), m


def test_corp_unc_replicates_equal_a_hand_resampled_base_rate(frame):
    """One group, one batch: replicate b of UNC is o_b (1 - o_b), o_b the Poisson-weighted
    base rate with row i drawn ``poisson_counts(stream, i * B, B)``."""
    one = frame[frame["g"] == "a"].reset_index(drop=True)
    acc = Accumulator(y="y", proba="proba", n_boot=25, seed=9).update(one)
    got = replicate_metrics(acc.state)["corp_unc"][0]
    key = acc.state.keys[0]
    k = poisson_counts(key_seed(9, key), 0, len(one) * 25).reshape(len(one), 25)
    base = (k * one["y"].to_numpy()[:, None]).sum(axis=0) / k.sum(axis=0)
    np.testing.assert_allclose(got, base * (1 - base), rtol=1e-12)


@pytest.mark.parametrize("weighted", [False, True])
def test_sigma_csr_replicates_count_a_row_drawn_k_times_as_k_rows(frame, weighted):
    """Replicate b of sigma_CSR is sqrt(sum k w^2 c/(1-c)) / sum k w (the pandas
    bootstrap's: a row drawn k times is k rows), not with k^2."""
    one = frame[frame["g"] == "a"].reset_index(drop=True)
    rng = np.random.default_rng(3)
    w = rng.uniform(0.5, 2.0, len(one)) if weighted else np.ones(len(one))
    acc = Accumulator(y="y", proba="proba", weight="w" if weighted else None, n_boot=25,
                      seed=9).update(one.assign(w=w))
    got = replicate_metrics(acc.state)["sigma_csr"][0]
    k = poisson_counts(key_seed(9, acc.state.keys[0]), 0, len(one) * 25).reshape(len(one), 25)
    p = one["proba"].to_numpy()
    c = np.clip(np.maximum(p, 1 - p), 1e-8, 1 - 1e-8)
    w = w / w.max()  # importance weights on their group's scale (sigma is scale-free)
    want = np.sqrt((k * (w**2 * c / (1 - c))[:, None]).sum(axis=0)) / (k * w[:, None]).sum(0)
    np.testing.assert_allclose(got, want, rtol=1e-10)


def test_mce_replicates_keep_the_min_count_rule_and_ece_mce_get_upper_bounds():
    """20 wrong rows at 0.97 sit in a bin below min_count: the replicates leave that bin
    out as the point estimate does (hand-drawn counts), and ECE and MCE get the
    one-sided upper bound the registry names, as in the pandas path."""
    rng = np.random.default_rng(2)
    p = np.r_[rng.uniform(0.05, 0.9, 3000), np.full(20, 0.97)]
    y = np.r_[(rng.random(3000) < p[:3000]).astype(int), np.zeros(20, int)]
    df = pd.DataFrame({"y": y, "proba": p})
    acc = Accumulator(y="y", proba="proba", n_boot=40, seed=5, min_count=100).update(df)
    reps = replicate_metrics(acc.state)
    k = poisson_counts(key_seed(5, acc.state.keys[0]), 0, len(df) * 40).reshape(len(df), 40)
    bins = np.clip(np.ceil(p * 15).astype(int) - 1, 0, 14)
    hand = []
    for b in range(40):
        n = np.bincount(bins, weights=k[:, b], minlength=15)
        gap = np.abs(np.bincount(bins, weights=k[:, b] * (y - p), minlength=15))
        ok = n >= 100
        hand.append((gap[ok] / n[ok]).max())
    np.testing.assert_allclose(reps["mce"][0], hand, rtol=1e-10)
    out = acc.summary(ci=0.9)
    for m in ("ece", "mce"):
        v = out.loc[m, "value"]
        assert out.loc[m, "ci_low"] == 0.0
        assert out.loc[m, "ci_high"] == pytest.approx(max(v, np.quantile(reps[m][0], 0.9)),
                                                      rel=1e-12)
        assert out.loc[m, "ci_high_mcse"] > 0
    assert REGISTRY["mce"].interval.method == "upper"
    assert out.attrs["intervals"]["ece"]["one_sided"] is True


def test_another_view_has_no_interval_from_the_default_views_bins(frame):
    acc = _acc(frame)
    default = acc.summary(ci=0.95)
    other = acc.summary(ci=0.95, view="top_label")
    for m in ("ece", "mce", "signed_ece", "corp_unc"):
        assert np.isfinite(default[(m, "ci_low")]).all(), m
        assert other[(m, "ci_low")].isna().all(), m
        assert "default view (positive)" in other.attrs["no_interval"][m], m
    # the metrics that do not depend on the view keep theirs
    np.testing.assert_array_equal(other[("accuracy", "ci_low")], default[("accuracy", "ci_low")])


def test_equal_mass_bins_withdraw_the_uniform_bin_intervals_with_the_reason(frame):
    out = _acc(frame).summary(ci=0.95, strategy="quantile")
    for m in ("ece", "mce"):
        assert out[(m, "ci_low")].isna().all(), m
        assert out.attrs["no_interval"][m].startswith("strategy='quantile': "), m
        assert "equal-mass bins have none" in out.attrs["no_interval"][m], m


def test_readme_table_shows_each_interval():
    from calreport.stats.scaling import markdown_table

    rows = {line.split("|")[1].strip(" `"): line for line in markdown_table().splitlines()[2:]}
    assert set(rows) == set(REGISTRY)
    for m, line in rows.items():
        sc = scaling_of(m)
        assert line.rstrip(" |").endswith(sc.interval_note), m
        assert ("| none: " in line) == (sc.interval == "none"), m


def test_replicates_of_another_layout_are_refused_not_misread(frame):
    import dataclasses

    st = _acc(frame).state
    old = dataclasses.replace(st, boot=st.boot[..., 15:])  # 15 per-bin sums fewer
    with pytest.raises(ValueError, match="older calreport"):
        replicate_metrics(old)
