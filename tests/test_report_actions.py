"""The report's action sections: "What recalibration would do" and the paired comparison.

The sections print what ``recalibrate()`` and ``compare()`` return (one set of
numbers), the next steps name the recommended method, and the CLI writes both.
"""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)
from calreport.cli import EXIT_OK, EXIT_USAGE, main
from calreport.recalibration.crossfit import METHODS
from calreport.report import verdict as vd
from calreport.report.actions import COMPARE_METRICS

TS = "2026-01-01T00:00:00Z"
METRICS = ["accuracy", "csr", "sigma_csr", "z_csr", "p_risk", "ece", "brier", "log_loss",
           "auc"]


def _models(n: int = 400, seed: int = 0) -> pd.DataFrame:
    """Two models of the same rows: one calibrated, one overconfident (expit(3 z))."""
    rng = np.random.default_rng(seed)
    z = rng.normal(0.0, 1.2, n)
    y = (rng.random(n) < 1.0 / (1.0 + np.exp(-z))).astype(int)
    parts = [pd.DataFrame({"model": name, "row": np.arange(n), "y": y,
                           "p": 1.0 / (1.0 + np.exp(-k * z))})
             for name, k in (("calibrated", 1.0), ("overconfident", 3.0))]
    return pd.concat(parts, ignore_index=True)


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _models()


@pytest.fixture(scope="module")
def advised(frame):
    acc = frame.groupby("model").calib(y="y", proba="p")
    res = acc.recalibrate(methods=["platt", "isotonic", "risk_aware_isotonic"], n_boot=60,
                          seed=3)
    rep = acc.report(metrics=METRICS, ci=None, timestamp=TS, recalibrate=res)
    return res, rep


def test_recalibration_section_prints_the_advisor_table(advised):
    res, rep = advised
    section = rep.context["recalibration"]
    assert [g["name"] for g in section["groups"]] == ["overconfident", "calibrated"]
    for g in section["groups"]:
        assert g["recommended"] == res.recommended[g["name"]]
        assert g["reason"] == res.reason[g["name"]]
        part = res.table.loc[g["name"]]
        assert [r["method"] for r in g["rows"]] == list(part.index)
        for r in g["rows"]:
            for m in ("log_loss", "brier", "ece", "csr", "p_risk"):
                assert r[m] == pytest.approx(part.loc[r["method"], m], rel=0, abs=0)
            assert r["band"] == part.loc[r["method"], "band"]
            assert r["log_loss_diff_ci"] == [part.loc[r["method"], "log_loss_diff_low"],
                                             part.loc[r["method"], "log_loss_diff_high"]]


def test_recalibration_in_every_output(advised):
    res, rep = advised
    html, md = rep.to_html(), rep.to_markdown()
    assert "What recalibration would do" in html and "What recalibration would do" in md
    for label in ("Platt scaling", "isotonic regression"):
        assert label in html and label in md
    # the intervals' measured coverage is printed with them, in every output
    from markupsafe import escape

    assert "Measured coverage of these" in res.options["coverage"]
    assert str(escape(res.options["coverage"])) in html
    assert "Measured coverage of these" in md
    data = json.loads(rep.to_json())
    assert data["recalibration"]["coverage"] == res.options["coverage"]
    got = {g["name"]: g["recommended"] for g in data["recalibration"]["groups"]}
    assert got == res.recommended.to_dict()


def test_next_steps_name_the_measured_best_method(advised):
    res, rep = advised
    best = res.recommended["overconfident"]
    assert best != "none"  # expit(3 z) is far from calibrated: a method helps
    over = [g for g in rep.context["groups"] if g["band"] in ("risky", "evidence")]
    assert [g["name"] for g in over] == ["overconfident"]
    steps = [s for s in rep.context["next_steps"] if s["action"].startswith("Recalibrate")]
    assert len(steps) == 1
    assert METHODS[best].label in steps[0]["action"]
    assert "group overconfident" in steps[0]["action"]
    assert "advisor's recommendation" in steps[0]["why"]


def test_next_steps_without_the_advisor_point_to_it(frame):
    rep = frame.groupby("model").calib(y="y", proba="p").report(
        metrics=METRICS, ci=None, timestamp=TS)
    assert rep.context["recalibration"] is None
    step = next(s for s in rep.context["next_steps"] if s["action"].startswith("Recalibrate"))
    assert "report(recalibrate=True)" in step["why"]
    assert "What recalibration would do" not in rep.to_html()


def _facts(name: str, band: str) -> dict:
    return {"name": name, "band": band, "n_certain_wrong": 0, "n_certain": 0,
            "sample_size_text": "", "band_reason": "", "n": 100, "n_for_power": 0.0}


def _advice(name: str, method: str, diff: float, ci: tuple, before: str, after: str,
            fix: dict | None = None) -> dict:
    return {"name": name, "recommended": method, "recommended_label": METHODS[method].label,
            "log_loss_diff": diff, "log_loss_diff_ci": list(ci),
            "established": method != "none" and ci[1] < 0,
            "band_before": {"band": before, "band_label": before},
            "band_after": {"band": after, "band_label": after}, "band_fix": fix}


def test_next_steps_hand_worked():
    groups = [_facts("A", "risky"), _facts("B", "evidence"), _facts("C", "evidence")]
    advice = [_advice("A", "beta", -0.11, (-0.26, -0.02), "risky", "undetermined"),
              _advice("B", "none", 0.0, (0.0, 0.0), "evidence", "evidence"),
              _advice("C", "isotonic", -0.0015, (-0.016, 0.014), "evidence", "evidence",
                      {"label": "temperature scaling", "band_label": "undetermined",
                       "log_loss_diff": 0.002, "log_loss_diff_ci": [-0.004, 0.008]})]
    steps = vd.next_steps(groups, {}, False, advice)
    actions = [s["action"] for s in steps]
    assert actions[0] == ("Recalibrate group A on held-out data with beta calibration, then "
                          "re-run this audit.")
    assert "lowers the log loss by 0.1100" in steps[0]["why"]
    assert "not established" not in steps[0]["why"]
    assert actions[1].startswith("Review the model itself in group B")
    assert "isotonic regression" in actions[2]
    assert "so the gain is not established" in steps[2]["why"]
    assert ("temperature scaling would make the verdict 'undetermined' at a log-loss "
            "change of 0.0020 (paired interval −0.0040 to 0.0080)") in steps[2]["why"]
    # no method recommended, one would improve the verdict: the review step names it
    advice[1]["band_fix"] = {"label": "Platt scaling", "band_label": "undetermined",
                             "log_loss_diff": 0.003, "log_loss_diff_ci": [-0.001, 0.007]}
    review = vd.next_steps(groups, {}, False, advice)[1]
    assert review["action"].endswith("no recalibration method tried lowers the log loss "
                                     "beyond noise.")
    assert "Platt scaling would make the verdict 'undetermined'" in review["why"]
    # advice missing for an overconfident group: the generic step, nothing invented
    generic = vd.next_steps(groups, {}, False, advice[:1])
    assert "report(recalibrate=True)" in generic[0]["why"]


def test_next_steps_of_an_undetermined_group_with_certainty_claims():
    # short of rows and certainty claims: both steps; enough power (n_for_power, a normal
    # approximation, inflated by rows near certainty): only the certainty step
    short = {**_facts("A", "undetermined"), "n_certain": 3, "n": 300, "n_for_power": 900.0,
             "sample_size_text": vd.sample_size_text("undetermined", 900.0, 300.0, 0.4)}
    assert short["sample_size_text"]
    actions = [s["action"] for s in vd.next_steps([short], {}, False)]
    assert actions[0].startswith("Collect about 600 more labelled rows")
    assert actions[1].startswith("Decide whether predictions that claim certainty")
    powered = {**short, "sample_size_text": vd.sample_size_text(
        "undetermined", 143_523.0, 1_005.0, 1.0)}
    assert powered["sample_size_text"] == ""
    actions = [s["action"] for s in vd.next_steps([powered], {}, False)]
    assert len(actions) == 1 and "claim certainty" in actions[0]


def test_a_csr_below_1_beside_a_risky_verdict_is_read_as_the_verdict_reads_it():
    # 200 correct certainty claims and 100 rows at 0.9 with twice the claimed errors:
    # risky, with CSR 2/3 (the claims weigh in its denominator): no output may read that
    # CSR as "above 1, wrong more often"
    y = np.r_[np.ones(280), np.zeros(20)].astype(int)
    p = np.r_[np.ones(200), np.full(100, 0.9)]
    df = pd.DataFrame({"y": y, "p": p})
    with pytest.warns(UserWarning):
        rep = df.calib(y="y", proba="p").report(ci=None, timestamp=TS)
    assert rep.context["overall"]["band"] == "risky"
    assert rep.context["overall"]["head"]["csr"] < 1.0
    for text in (rep.to_html(), rep.to_markdown()):
        assert "above 1, wrong more often" not in text
        assert "CSR above 1" not in text
        assert "yet above most of its values under calibration" in text
    (step,) = [s for s in rep.context["next_steps"] if s["action"].startswith("Recalibrate")]
    assert "where CSR is below 1, its mean under calibration" in step["why"]


def test_comparison_section_prints_the_comparison(frame):
    acc = frame.groupby("model").calib(y="y", proba="p")
    cmp = acc.compare("calibrated", row_id="row", metrics=list(COMPARE_METRICS), n_boot=80,
                      seed=5)
    rep = acc.report(metrics=METRICS, ci=None, timestamp=TS, group_kind="alternatives",
                     compare=cmp, row_id="row")
    section = rep.context["comparison"]
    assert section["baseline"] == "calibrated" and section["n_rows"] == 400
    (model,) = section["models"]
    assert model["name"] == "overconfident"
    assert [r["metric"] for r in model["rows"]] == list(COMPARE_METRICS)
    for r in model["rows"]:
        row = cmp.table.loc[("overconfident", r["metric"])]
        assert r["difference"] == row["difference"]
        assert r["ci"][0] == row["ci_low"] or (math.isnan(r["ci"][0])
                                                and math.isnan(row["ci_low"]))
        assert r["p_value"] == row["p_value"] or math.isnan(row["p_value"])
    assert model["change"] == cmp.bands.loc["overconfident", "change"]
    html, md = rep.to_html(), rep.to_markdown()
    assert "Paired comparison against calibrated" in html
    assert "Paired comparison against calibrated" in md
    assert cmp.methods["coverage"].split(";")[0] in html


def test_report_runs_the_comparison_it_is_asked_for(frame):
    acc = frame.groupby("model").calib(y="y", proba="p")
    rep = acc.report(metrics=METRICS, ci=0.9, n_boot=40, seed=2, timestamp=TS,
                     group_kind="alternatives", compare="calibrated", row_id="row")
    cmp = acc.compare("calibrated", row_id="row", metrics=list(COMPARE_METRICS), ci=0.9,
                      n_boot=40, seed=2)
    got = {r["metric"]: r["ci"] for r in rep.context["comparison"]["models"][0]["rows"]}
    assert got["log_loss"] == [cmp.table.loc[("overconfident", "log_loss"), "ci_low"],
                               cmp.table.loc[("overconfident", "log_loss"), "ci_high"]]


def test_a_report_without_seed_prints_one_p_risk_per_group_and_is_reproducible(frame):
    # seed None is 0 for every number of the report (the CLI's default): the comparison
    # and the verdicts print the same P_risk, and a second run the same numbers
    acc = frame.groupby("model").calib(y="y", proba="p")

    def run(**kw):
        return acc.report(metrics=METRICS, ci=0.9, n_boot=40, timestamp=TS,
                          group_kind="alternatives", compare="calibrated", row_id="row",
                          **kw).to_dict()

    d = run()
    verdict = {g["name"]: g["p_risk"] for g in d["groups"]}
    (model,) = d["comparison"]["models"]
    (row,) = [r for r in model["rows"] if r["metric"] == "p_risk"]
    assert (row["baseline"], row["value"]) == (verdict["calibrated"],
                                               verdict["overconfident"])
    assert d["comparison"]["seed"] == d["result"]["settings"]["seed"] == 0
    assert run() == d and run(seed=0) == d


def test_action_arguments_are_checked(frame):
    acc = frame.groupby("model").calib(y="y", proba="p")
    with pytest.raises(ValueError, match="needs `row_id`"):
        acc.report(ci=None, compare="calibrated")
    with pytest.raises(TypeError, match="`recalibrate` must be True, False"):
        acc.report(ci=None, recalibrate="platt")
    one = frame[frame.model == "calibrated"]
    with pytest.raises(ValueError, match="`compare` needs groups"):
        one.calib(y="y", proba="p").report(ci=None, compare="x", row_id="row")


def test_ungrouped_recalibrate_true():
    rng = np.random.default_rng(1)
    z = rng.normal(0, 1.2, 300)
    df = pd.DataFrame({"y": (rng.random(300) < 1 / (1 + np.exp(-z))).astype(int),
                       "p": 1 / (1 + np.exp(-3 * z))})
    rep = df.calib(y="y", proba="p").report(metrics=METRICS, ci=None, timestamp=TS,
                                            recalibrate=True)
    (g,) = rep.context["recalibration"]["groups"]
    res = df.calib(y="y", proba="p").recalibrate(seed=0)
    assert g["recommended"] == res.recommended
    assert [r["log_loss"] for r in g["rows"]] == list(res.table["log_loss"])


def test_cli_compare_json_and_report_sections(tmp_path, frame):
    csv = tmp_path / "models.csv"
    frame.to_csv(csv, index=False)
    base = [str(csv), "--by", "model", "--y", "y", "--proba", "p", "--n-boot", "40"]
    out = tmp_path / "cmp.json"
    import contextlib
    import io

    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        assert main(["compare", *base, "--baseline", "calibrated", "--row-id", "row",
                     "--format", "json"]) == EXIT_OK
    data = json.loads(buf.getvalue())
    out.write_text(buf.getvalue())
    cmp = frame.groupby("model").calib(y="y", proba="p").compare(
        "calibrated", row_id="row", n_boot=40, seed=0)
    rows = {r["metric"]: r for r in data["models"][0]["rows"]}
    assert set(rows) == set(cmp.table.loc["overconfident"].index)
    assert rows["csr"]["difference"] == cmp.table.loc[("overconfident", "csr"), "difference"]
    md = tmp_path / "audit.md"
    assert main(["report", *base, "--group-kind", "alternatives", "--recalibrate",
                 "--compare", "calibrated", "--row-id", "row", "-o", str(md)]) == EXIT_OK
    text = md.read_text()
    assert "What recalibration would do" in text and "Paired comparison against" in text
    assert main(["report", *base, "--compare", "calibrated", "-o", str(md)]) == EXIT_USAGE


def test_the_error_list_shows_the_confidence_csr_counted():
    # an error above 1 - eps is counted at 1 - eps; its row says so beside the raw value
    p = np.r_[np.full(50, 0.9), 1 - 6.4e-10, 0.2]
    y = np.r_[np.ones(45), np.zeros(5), 0, 1].astype(int)
    with pytest.warns(UserWarning):
        rep = pd.DataFrame({"y": y, "p": p}).calib(y="y", proba="p").report(
            ci=None, timestamp=TS)
    md = rep.to_markdown()
    assert "| 50 | 1 − 6.4e−10 (counted as 1 − 1.0e−08) |" in md
    assert "| 45 | 0.900000 |" in md
    (top,) = [r for r in rep.context["drivers"][0]["rows"] if r["row"] == "50"]
    assert top["contribution"] == pytest.approx(1 / (52 * 1e-8), rel=1e-6)


def test_page_one_counts_alternatives_as_the_same_rows_scored_again(frame):
    acc = frame.groupby("model").calib(y="y", proba="p")
    md = acc.report(metrics=METRICS, ci=None, timestamp=TS,
                    group_kind="alternatives").to_markdown()
    assert "**What it rests on:** 2 alternatives scoring the same 400 rows, 800 predictions" \
        " in all" in md
    sub = acc.report(metrics=METRICS, ci=None, timestamp=TS).to_markdown()
    assert "**What it rests on:** 800 predictions in 2 groups" in sub
