"""The verdict a reviewer signs: one set of numbers, the printed rule, families of groups.

Regression tests for what a reviewer met: the demo's isotonic group printed with two
sets of numbers, a band that did not follow the printed z rule, a headline that went
red for most families of calibrated groups, and "undetermined" verdicts whose first
advice did not address the real cause (too few rows).
"""

from __future__ import annotations

import json
import math
import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import calreport
from calreport.cli import main
from calreport.metrics import risk
from calreport.metrics.bands import BAND_SEVERITY
from calreport.metrics.multiplicity import (
    adjust_verdicts,
    family_headline,
    p_value,
    resimulated,
)
from calreport.result import parse_gate

pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def _demo_accessor():
    df = calreport.datasets.load_breast_cancer()
    return df.groupby("calibration", sort=False).calib(
        y="y_true", proba="proba_benign", pos_label="benign")


@pytest.fixture(scope="module")
def demo_report():
    return _demo_accessor().report(ci=None, group_kind="alternatives", seed=0,
                                   timestamp="2026-01-01T00:00:00Z")


# --- one set of numbers ------------------------------------------------------------------


def test_demo_prints_one_set_of_numbers_per_group(demo_report):
    ctx = demo_report.context
    verdicts = _demo_accessor().risk(group_kind="alternatives", seed=0)
    data = json.loads(demo_report.to_json())
    places: dict[str, list[tuple[str, dict[str, float]]]] = {}

    def add(name, where, **vals):
        places.setdefault(name, []).append((where, vals))

    for g in ctx["groups"]:
        add(g["name"], "group facts", csr=g["csr"], z_csr=g["z_csr"], p_risk=g["p_risk"])
    for g in ctx["cards"]:
        add(g["name"], "card", csr=g["csr"], z_csr=g["z_csr"], p_risk=g["p_risk"])
    for g in ctx["overall"]["worst"]:
        add(g["name"], "worst groups", csr=g["csr"], z_csr=g["z_csr"], p_risk=g["p_risk"])
    for row in ctx["group_table"]["rows"]:
        cells = {c["name"]: c["value"] for c in row["cells"]}
        add(row["group"], "groups table",
            **{k: cells[k] for k in ("csr", "z_csr", "p_risk") if k in cells})
    for t in ctx["metric_tables"]["tables"]:
        for i, col in enumerate(t["columns"]):
            vals = {r["name"]: r["cells"][i]["value"] for r in t["rows"]
                    if r["name"] in ("csr", "z_csr", "p_risk")}
            add(col, "key metrics", **vals)
    for g in data["result"]["groups"]:
        add(g["name"], "JSON verdict", csr=g["risk"]["csr"], z_csr=g["risk"]["z_csr"],
            p_risk=g["risk"]["p_risk"])
        add(g["name"], "JSON metrics",
            **{k: g["metrics"][k]["value"] for k in ("csr", "z_csr", "p_risk")})
    for name, row in verdicts.iterrows():
        add(name, "risk()", csr=row["csr"], z_csr=row["z_csr"], p_risk=row["p_risk"])
    assert set(places) == {"raw", "isotonic", "platt"}  # no pooled column: alternatives
    for name, seen in places.items():
        for key in ("csr", "z_csr", "p_risk"):
            values = {where: vals[key] for where, vals in seen if key in vals}
            first = next(iter(values.values()))
            for where, val in values.items():
                assert val == pytest.approx(first, rel=1e-12, abs=1e-15), (name, key, where,
                                                                           values)
    # the isotonic group: certainty claims make z ~ 0, P_risk (simulated) decides
    iso = verdicts.loc["isotonic"]
    assert iso["p_risk_method"] == "monte_carlo" and abs(iso["z_csr"]) < 0.01
    assert iso["p_risk"] > risk.P_EVIDENCE and iso["band"] == "evidence"


# --- the printed rule is the applied rule ----------------------------------------------------


profiles = st.tuples(
    st.integers(5, 120),                       # rows
    st.floats(0.5, 0.999),                     # centre of the confidences
    st.floats(0.5, 1.5),                       # error multiplier (1 = calibrated)
    st.integers(0, 3),                         # certainty claims
    st.booleans(),                             # one of them wrong
    st.integers(0, 2**31 - 1),
)


@settings(max_examples=40, deadline=None)
@given(profiles)
def test_band_follows_the_printed_quantities_by_the_printed_rule(case):
    n, centre, mult, n_cert, cert_wrong, seed = case
    rng = np.random.default_rng(seed)
    conf = np.clip(centre + rng.normal(0, 0.05, n), 0.5, 0.9999)
    correct = rng.random(n) >= np.minimum(mult * (1 - conf), 1.0)
    conf = np.r_[conf, np.ones(n_cert)]
    correct = np.r_[correct, np.ones(n_cert, bool)]
    if n_cert and cert_wrong:
        correct[-1] = False
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = risk.risk_summary(conf, correct, seed=seed % 1000)
    assert r.band == risk.decide_band(r.p_risk, r.power, r.n_certain, r.n_certain_wrong)
    # the rule in words, applied by hand to the printed numbers
    if r.n_certain_wrong:
        want = "risky"
    elif r.p_risk > risk.P_RISKY:
        want = "risky"
    elif r.p_risk > risk.P_EVIDENCE:
        want = "evidence"
    elif r.n_certain or not r.power >= 0.5:
        want = "undetermined"
    else:
        want = "no_evidence"
    assert r.band == want
    if r.p_risk_method == "normal":  # the normal reading: P_risk = Phi(z)
        from scipy.stats import norm

        assert r.p_risk == pytest.approx(norm.cdf(r.z_csr), abs=1e-12)


def test_band_rule_is_printed_in_readme_report_and_json(demo_report):
    from pathlib import Path

    readme = (Path(__file__).resolve().parents[1] / "README.md").read_text()
    assert " ".join(risk.BAND_RULE.split()) in " ".join(readme.split())
    assert risk.BAND_RULE in demo_report.to_html().replace("&#39;", "'")
    assert json.loads(demo_report.to_json())["result"]["band_rule"] == risk.BAND_RULE


def test_digits_like_small_z_with_simulated_p_risk_reads_its_rule():
    """A band decided by a simulated P_risk prints z only as the normal reading."""
    rng = np.random.default_rng(3)
    conf = np.r_[rng.uniform(0.9, 0.999, 300), [0.999999] * 3]
    correct = np.r_[rng.random(300) >= 1.6 * (1 - conf[:300]), [True, True, False]]
    r = risk.risk_summary(conf, correct, seed=0)
    assert r.p_risk_method == "monte_carlo"
    assert r.band == risk.decide_band(r.p_risk, r.power, r.n_certain, r.n_certain_wrong)
    assert f"P_risk {r.p_risk:.1%}" in r.band_reason


# --- families of groups --------------------------------------------------------------------


def _family(n_groups, rows, seed, bad=None, power=1.5):
    rng = np.random.default_rng(seed)
    frames = []
    for g in range(n_groups):
        c = 0.5 + 0.5 * rng.beta(2, 2, rows)
        acc = c ** power if g == bad else c
        frames.append(pd.DataFrame({"g": g, "confidence": c, "correct": rng.random(rows) < acc}))
    return pd.concat(frames, ignore_index=True)


def test_adjusted_bands_follow_the_rule_on_adjusted_p_risk():
    df = _family(20, 200, seed=1, bad=3)
    # the normal reading: no verdict is re-simulated, so Holm can be redone by hand
    res = df.groupby("g").calib(conf="confidence", correct="correct").evaluate(
        ["p_risk"], seed=0, p_risk_method="normal")
    assert res.family["adjust"] == "holm" and res.family["n_tests"] == 21  # + pooled
    verdicts = [g.risk for g in res.groups] + [res.overall.risk]
    p = np.array([p_value(v) for v in verdicts])
    # Holm by hand: sorted p-values times (m - rank + 1), running maximum
    order = np.argsort(p, kind="stable")
    adj = np.maximum.accumulate(np.minimum(1, (21 - np.arange(21)) * p[order]))
    want = np.empty(21)
    want[order] = adj
    for v, q in zip(verdicts, want, strict=True):
        assert v.p_risk_adjusted == pytest.approx(1 - q, abs=1e-12)
        assert v.band_adjusted == risk.decide_band(v.p_risk_adjusted, v.power,
                                                   v.n_certain, v.n_certain_wrong)
        assert BAND_SEVERITY[v.band_adjusted] <= max(BAND_SEVERITY[v.band], 1)
    assert res.family["headline"] == family_headline(verdicts)


def test_edgeworth_p_value_of_the_normal_reading():
    """1 - F(z), F = Phi(z) - skew / 6 (z^2 - 1) phi(z): the far tail of a right-skewed
    null is thicker than the normal one."""
    from scipy.stats import norm

    r = risk.risk_summary([0.6] * 50, [1] * 20 + [0] * 30, method="normal")
    z, g = r.z_csr, r.null_skewness
    assert g == pytest.approx(0.2 / math.sqrt(50 * 0.24))  # (1 - 2p) / sqrt(n p (1 - p))
    want = norm.sf(z) + g / 6 * (z * z - 1) * norm.pdf(z)
    assert p_value(r) == pytest.approx(want, rel=1e-12) and p_value(r) > norm.sf(z)


def test_a_verdict_near_an_adjusted_level_is_resimulated(demo_report):
    """The demo's isotonic group stopped at 1,000 draws (its own band was settled) with
    its Holm-adjusted P_risk within Monte Carlo error of 84.13 %: its p-value is drawn
    again, 12,500 then 50,000 times, until the adjusted value is 2 standard errors
    clear of the level; the band is the one the full 200,000 draws give."""
    iso = next(g for g in demo_report.context["groups"] if g["name"] == "isotonic")
    assert "re-simulated with 50,000 draws" in iso["band_reason"]
    assert "could go either way" not in iso["band_reason"]
    df = calreport.datasets.load_breast_cancer()
    rows = df[df["calibration"] == "isotonic"]
    prof = rows.calib(y="y_true", proba="proba_benign", pos_label="benign").profile()
    first = risk.risk_summary(prof.conf, prof.correct, method="monte_carlo", n_sim=12_500,
                              seed=0)
    assert 2 * p_value(first) == pytest.approx(1 - 0.8413, abs=2 * 2 * first.p_risk_se)
    full = risk.risk_summary(prof.conf, prof.correct, method="monte_carlo",
                             n_sim=200_000, seed=0)
    assert risk.decide_band(1 - 2 * p_value(full), iso["power"], iso["n_certain"],
                            iso["n_certain_wrong"]) == iso["band"]
    again = risk.risk_summary(prof.conf, prof.correct, method="monte_carlo", n_sim=50_000,
                              seed=0)
    raw = next(g for g in demo_report.context["groups"] if g["name"] == "raw")
    platt = next(g for g in demo_report.context["groups"] if g["name"] == "platt")
    assert raw["n_tests"] == 3
    # Holm by hand: raw's p-value is the smallest, isotonic's the second of three, so
    # isotonic's adjusted p-value is max(raw's adjusted, 2 p_isotonic)
    p_iso = p_value(again)
    assert 1 - raw["p_risk_adjusted"] < 2 * p_iso < 1 - platt["p_risk"]
    assert iso["p_risk_adjusted"] == pytest.approx(1 - 2 * p_iso, abs=1e-12)
    assert iso["band"] == risk.decide_band(iso["p_risk_adjusted"], iso["power"],
                                           iso["n_certain"], iso["n_certain_wrong"])


def test_opting_out_keeps_each_group_at_its_own_level():
    df = _family(5, 200, seed=2)
    acc = df.groupby("g").calib(conf="confidence", correct="correct")
    raw = acc.risk(adjust=None)
    assert (raw["band_adjusted"] == raw["band"]).all() and raw.attrs["family"]["adjust"] is None
    adj = acc.risk()
    assert adj.attrs["family"]["adjust"] == "holm" and (adj["n_tests"] == 5).all()
    # n_tests: the groups listed
    assert (adj["p_risk"] == raw["p_risk"]).all()
    assert (adj["p_risk_adjusted"] <= adj["p_risk"] + 1e-15).all()


def test_family_of_one_is_not_adjusted():
    df = _family(1, 300, seed=4)
    r = adjust_verdicts([df.calib(conf="confidence", correct="correct").evaluate(
        ["p_risk"]).groups[0].risk])[0]
    assert r.p_risk_adjusted == r.p_risk and r.band_adjusted == r.band and r.n_tests == 1


def test_unknown_family_options_are_refused():
    acc = _family(2, 50, seed=5).groupby("g").calib(conf="confidence", correct="correct")
    with pytest.raises(ValueError, match=r"group_kind.*'subgroups'.*'alternatives'"):
        acc.risk(group_kind="models")
    with pytest.raises(ValueError, match=r"`adjust` must be one of"):
        acc.evaluate(["p_risk"], adjust="bonferroni")


def test_alternatives_have_no_pooled_verdict(demo_report):
    res = _demo_accessor().evaluate(["p_risk"], group_kind="alternatives")
    assert res.overall is None and not res.family["pooled_in_family"]
    assert demo_report.context["overall"]["head"] is None
    assert "no pooled verdict" in demo_report.context["overall"]["family_text"]
    assert "All rows pooled" not in demo_report.to_markdown()


def test_gates_over_groups_read_the_adjusted_verdicts():
    df = _family(20, 200, seed=6)
    res = df.groupby("g").calib(conf="confidence", correct="correct").evaluate(
        ["p_risk"], seed=0)
    out = res.check(["p_risk>0.5"])
    for o in out:
        g = next(x for x in [*res.groups, res.overall] if x.name == o.group)
        assert o.value == g.risk.p_risk_adjusted and "adjusted P_risk" in o.note
    band = res.check(["band>=evidence"])
    assert [o.failed for o in band] == [
        BAND_SEVERITY[g.risk.band_adjusted] >= 2 for g in [*res.groups, res.overall]]
    assert str(parse_gate("band >= evidence")) == "band>=evidence"
    with pytest.raises(ValueError, match="Unknown band 'red'"):
        parse_gate("band>=red")


def test_cli_family_flags(tmp_path, capsys):
    df = _family(4, 300, seed=7, bad=0, power=3.0)
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    args = ["summary", str(path), "--by", "g", "--conf", "confidence", "--correct",
            "correct", "--metrics", "p_risk", "--fail-on", "band>=evidence",
            "--group-kind", "alternatives", "--adjust", "bh"]
    res = df.groupby("g").calib(conf="confidence", correct="correct").evaluate(
        ["p_risk"], group_kind="alternatives", adjust="bh", seed=0)
    assert res.overall is None
    flagged = [g.name for g in res.groups if g.risk.band_adjusted in ("evidence", "risky")]
    assert flagged == ["0"]  # the overconfident group, after the BH adjustment
    assert main(args) == 1
    err = capsys.readouterr().err
    assert "group 0" in err and "adjusted: bh, 4 tests" in err
    # the same gate passes when nothing is overconfident
    calm = _family(4, 300, seed=7)
    calm.to_csv(path, index=False)
    assert main(args) == 0


# --- what would decide an undetermined verdict ---------------------------------------------


def test_undetermined_for_too_few_rows_says_how_many_rows_would_decide(demo_report):
    platt = next(g for g in demo_report.context["groups"] if g["name"] == "platt")
    assert platt["band"] == "undetermined"
    assert platt["n_for_power"] > platt["n"]
    assert f"About {platt['n_for_power']:,.0f} rows" in platt["sample_size_text"]
    steps = demo_report.context["next_steps"]
    first_undetermined = next(s for s in steps if "platt" in s["why"])
    assert first_undetermined["action"].startswith("Collect about")
    assert not any("Cap the confidences" in s["action"] for s in steps)


def test_rows_for_power_reaches_the_power_by_simulation():
    conf = np.full(50, 0.9)
    n = math.ceil(risk.rows_for_power(conf))
    rng = np.random.default_rng(0)
    # "evidence" at n rows: errors above the null's one-sigma level; alternative 20 %
    crit = 0.1 * n + math.sqrt(n * 0.09)
    errors = rng.binomial(n, 0.2, 20000)
    assert np.mean(errors > crit) == pytest.approx(0.8, abs=0.06)


def test_bh_of_the_accessor_is_adjust_verdicts_with_its_resimulation():
    """``evaluate(adjust="bh")`` equals :func:`adjust_verdicts` on the same verdicts with
    :func:`resimulated` as the re-simulation rule.  In this family (20 groups of 2,000
    rows, group 0 with accuracy c - 0.05) group 0 stopped at 16,000 draws, too few for
    a BH-adjusted p-value below 0.135 %; re-simulated, it reads "risky"."""
    rng = np.random.default_rng(4)
    c = 0.1 + 0.9 * rng.beta(2.0, 2.0, 20 * 2000)
    acc = c.copy()
    acc[:2000] = np.clip(c[:2000] - 0.05, 0.0, 1.0)
    df = pd.DataFrame({"g": np.repeat(np.arange(20), 2000), "confidence": c,
                       "correct": rng.random(c.size) < acc})
    acc_ = df.groupby("g").calib(conf="confidence", correct="correct")
    holm = acc_.evaluate(["p_risk"], group_kind="subgroups", adjust="holm", seed=1)
    bh = acc_.evaluate(["p_risk"], group_kind="subgroups", adjust="bh", seed=1)
    verdicts = [g.risk for g in holm.groups] + [holm.overall.risk]
    rows = [df[df["g"] == g.key] for g in holm.groups] + [df]

    def again(i, n_sim):
        return resimulated(verdicts[i], rows[i]["confidence"].to_numpy(),
                           rows[i]["correct"].to_numpy(), eps=1e-8, seed=1, n_sim=n_sim)

    plain = [v.band_adjusted for v in adjust_verdicts(verdicts, "bh")]
    by_hand = [v.band_adjusted for v in adjust_verdicts(verdicts, "bh", resimulate=again)]
    got = [g.risk.band_adjusted for g in bh.groups] + [bh.overall.risk.band_adjusted]
    assert got == by_hand
    assert verdicts[0].n_sim == 16_000
    assert (plain[0], by_hand[0]) == ("evidence", "risky")
    assert "re-simulated with 100,000 draws" in bh.groups[0].risk.band_adjusted_reason


def test_resimulation_draws_four_times_more_each_time_and_the_cap_once(monkeypatch):
    """A member that stays near a level is drawn 12,500, 50,000 and 200,000 times (the
    cap), once each; one that is settled at once is drawn 12,500 times only."""
    from calreport.metrics import multiplicity

    conf, ok = np.full(400, 0.9), np.r_[np.ones(340, bool), np.zeros(60, bool)]
    v = risk.risk_summary(conf, ok, method="monte_carlo", n_sim=1000, seed=0)
    calls = []

    def again(i, n_sim):
        calls.append((i, n_sim))
        return resimulated(v, conf, ok, eps=1e-8, seed=0, n_sim=n_sim)

    monkeypatch.setattr(multiplicity, "_near_threshold", lambda r, p: " (near)")
    adjust_verdicts([v, v], "holm", resimulate=again)
    assert calls == [(0, 12_500), (0, 50_000), (0, 200_000),
                     (1, 12_500), (1, 50_000), (1, 200_000)]
    calls.clear()
    monkeypatch.setattr(multiplicity, "_near_threshold",
                        lambda r, p: " (near)" if r.n_sim < 12_500 else "")
    adjust_verdicts([v, v], "holm", resimulate=again)
    assert calls == [(0, 12_500), (1, 12_500)]
