"""The model-card report: escaping, self-containment, numbers, determinism, formats."""

from __future__ import annotations

import importlib.util
import io
import json
import math
import re
import sys

import numpy as np
import pandas as pd
import pytest

from calreport import ConfidenceProfile, report
from calreport.bootstrap import bootstrap_intervals
from calreport.settings import Settings as SummarySettings
from calreport.summary import summarize

HOSTILE = "<script>alert(1)</script>"
TS = "2026-03-01T09:30:00Z"


def _profile(seed: int, n: int, sharpen: float) -> ConfidenceProfile:
    rng = np.random.default_rng(seed)
    true_p = rng.beta(2, 2, n)
    y = np.where(rng.random(n) < true_p, "yes", "no")
    logit = np.log(true_p / (1 - true_p)) * sharpen
    return ConfidenceProfile.from_arrays(y, 1 / (1 + np.exp(-logit)), classes=["no", "yes"])


def _summary(profiles: dict, *, ci: bool = True, n_boot: int = 60) -> pd.DataFrame:
    """Groups x (metric, stat) built from the summary and bootstrap functions."""
    settings = SummarySettings(seed=0)
    parts = {}
    for key, prof in profiles.items():
        res = summarize(prof, settings=settings)
        iv = bootstrap_intervals(prof, res, n_boot=n_boot, seed=1) if ci else {}
        row = {}
        for m, val in res.values.items():
            row[(m, "value")] = val
            if ci:
                row[(m, "ci_low")], row[(m, "ci_high")] = iv.get(m, (math.nan, math.nan))
        parts[key] = row
    out = pd.DataFrame.from_dict(parts, orient="index")
    if ci:
        out.columns = pd.MultiIndex.from_tuples(out.columns, names=["metric", "stat"])
        out.attrs["ci"] = {"level": 0.95, "method": "percentile", "n_boot": n_boot, "seed": 1}
    else:
        out.columns = [c[0] for c in out.columns]
    out.attrs["settings"] = settings.to_dict()
    return out


@pytest.fixture(scope="module")
def profiles() -> dict[str, ConfidenceProfile]:
    return {"calibrated": _profile(0, 500, 1.0), "overconfident": _profile(1, 500, 3.0),
            HOSTILE: _profile(2, 300, 1.4)}


@pytest.fixture(scope="module")
def summary(profiles) -> pd.DataFrame:
    return _summary(profiles)


@pytest.fixture(scope="module")
def rep(profiles, summary) -> report.Report:
    labels = {k: [f"row-{i}" for i in range(p.n)] for k, p in profiles.items()}
    return report.build_report(profiles, summary, title="Audit of model X", subject="test set",
                               group_label="cohort", row_labels=labels, timestamp=TS)


@pytest.fixture(scope="module")
def html(rep) -> str:
    return rep.to_html()


@pytest.fixture(scope="module")
def pdf(rep) -> bytes:
    pytest.importorskip("weasyprint")
    return rep.to_pdf()


def _z(prof: ConfidenceProfile) -> float:
    """z = (CSR - 1) / sigma_CSR by the formulas of 000, section 2.1 (c < 1 here)."""
    c, wrong = prof.conf, ~prof.correct
    csr = np.sum(1 / (1 - c[wrong])) / prof.n
    sigma = np.sqrt(np.sum(c / (1 - c))) / prof.n
    return (csr - 1) / sigma


# ------------------------------------------------------------------------------ HTML
def test_hostile_names_are_escaped(profiles):
    frame = _summary(profiles, ci=False)
    frame["<img src=x onerror=alert(2)>"] = 1.0
    rep = report.build_report(profiles, frame, title="<b>t</b>", subject="<i>s</i>",
                              data_notes={"<u>k</u>": "<a href='http://x'>v</a>"},
                              timestamp=TS)
    html = rep.to_html()
    assert HOSTILE not in html and "<img src=x" not in html and "<b>t</b>" not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "&lt;img src=x onerror=alert(2)&gt;" in html
    assert "&lt;a href=&#39;http://x&#39;&gt;v&lt;/a&gt;" in html


def test_html_has_no_external_reference(html):
    assert "http://" not in html and "https://" not in html
    assert "<link" not in html and "@import" not in html and "url(" not in html
    assert "<script" not in html
    for src in re.findall(r"""src\s*=\s*["']?([^"' >]*)""", html):
        assert src.startswith("data:")
    assert "href=" not in html


def test_html_holds_the_figures(rep, html):
    ids = [f["id"] for f in rep.context["figures"]]
    assert ids == ["risk", "reliability", "calibration_curve", "confidence_histogram", "roc",
                   "selective", "risk_drivers"]
    assert all(f["uri"] for f in rep.context["figures"])
    assert html.count('src="data:image/svg+xml;base64,') == len(ids)
    for fig_id in ids:
        assert f'id="fig-{fig_id}"' in html


def test_html_shows_metrics_with_intervals(profiles, summary, html):
    for key in profiles:
        acc = summary.loc[key, ("accuracy", "value")]
        lo, hi = summary.loc[key, ("accuracy", "ci_low")], summary.loc[key, ("accuracy",
                                                                            "ci_high")]
        assert f"{acc:.4f}" in html
        assert f"{lo:.4f} to {hi:.4f}" in html
        brier = summary.loc[key, ("brier", "value")]
        assert f"{brier:.4f}" in html
    for label in ("ECE", "MCE", "Brier score", "Log loss", "CWSA", "P_risk"):
        assert label in html
    # the binning behind ECE and the bootstrap behind the intervals are stated
    assert "15 uniform bins" in html and "Replicates" in html and "percentile" in html


def test_verdict_first_with_band_by_z(rep, profiles, html):
    order = [html.index(f'id="{s}"') for s in ("verdict", "data", "metrics", "groups",
                                                "figures", "drivers", "methods", "signoff")]
    assert order == sorted(order)
    expected = {}
    for key, prof in profiles.items():
        z = _z(prof)
        expected[key] = ("no evidence of overconfidence" if z <= 1 else
                         "evidence of overconfidence" if z <= 3 else "risky")
    got = {g["name"]: g["band_label"] for g in rep.context["groups"]}
    assert got == expected
    zs = [g["z"] for g in rep.context["groups"]]
    assert zs == sorted(zs, reverse=True)
    assert got["overconfident"] == "risky"
    verdict = html[html.index('id="verdict"'):html.index('id="data"')]
    assert verdict.index("overconfident") < verdict.index("calibrated")
    assert "normal approximation" in verdict


def test_groups_table_worst_group_gap(rep, summary):
    gaps = {g["name"]: g for g in rep.context["group_table"]["gaps"]}
    acc = summary[("accuracy", "value")]
    assert gaps["accuracy"]["gap"] == pytest.approx(acc.max() - acc.min())
    assert gaps["accuracy"]["worst"] == acc.idxmin()
    csr = summary[("csr", "value")]
    assert gaps["csr"]["worst"] == (csr - 1).abs().idxmax()


def test_drivers_are_the_most_overconfident_errors(rep, profiles):
    prof = profiles["overconfident"]
    (d,) = [d for d in rep.context["drivers"] if d["group"] == "overconfident"]
    wrong = np.flatnonzero(~prof.correct)
    contrib = 1 / (1 - prof.conf[wrong]) / prof.n
    top = wrong[np.argsort(-contrib)][:10]
    assert [r["row"] for r in d["rows"]] == [f"row-{i}" for i in top]
    assert d["rows"][0]["share"] == pytest.approx(contrib.max() / contrib.sum())
    assert d["share_top"] == pytest.approx(np.sort(contrib)[::-1][:10].sum() / contrib.sum())
    assert {r["y_true"] for r in d["rows"]} <= {"no", "yes"}
    assert all(r["y_true"] != r["y_pred"] for r in d["rows"])


def test_methods_cite_papers(rep, html):
    refs = {r["file"]: r["number"] for r in rep.context["methods"]["references"]}
    assert "Beyond ECE: Calibrated Size Ratio" in html
    assert "Source file 000_efda01fc1c8d5c44.txt" in html
    assert f"[{refs['000_efda01fc1c8d5c44.txt']}] section 2.1, Definition 2" in html
    assert f"[{refs['001_d2625f96c7f90dfa.txt']}] section 3.2" in html
    assert "Reviewer name" in html and "approved with conditions" in html


def test_repr_html_is_a_scoped_fragment(rep):
    frag = rep._repr_html_()
    assert "<html" not in frag and "<body" not in frag
    css = frag[frag.index("<style>") + 7:frag.index("</style>")]
    css = re.sub(r"/\*.*?\*/", "", css, flags=re.S)
    css = re.sub(r"@page[^{]*\{([^{}]*\{[^{}]*\})*[^{}]*\}", "", css)
    css = re.sub(r"@media[^{]*\{", "", css)
    selectors = [s.strip() for block in re.findall(r"([^{}]+)\{[^{}]*\}", css)
                 for s in block.split(",")]
    assert selectors and all(s.startswith(".calreport") for s in selectors if s)


# --------------------------------------------------------------------- determinism
def test_output_is_deterministic(profiles, summary, rep, request):
    again = report.build_report(profiles, summary, title="Audit of model X",
                                subject="test set", group_label="cohort",
                                row_labels={k: [f"row-{i}" for i in range(p.n)]
                                            for k, p in profiles.items()}, timestamp=TS)
    assert again.to_html() == rep.to_html()
    assert again.to_markdown() == rep.to_markdown()
    assert again.to_json() == rep.to_json()
    if importlib.util.find_spec("weasyprint") is not None:
        assert again.to_pdf() == request.getfixturevalue("pdf")


# ------------------------------------------------------------------------------ JSON
def test_json_parses_without_nan(profiles):
    frame = _summary(profiles, ci=False)
    frame.loc["calibrated", "auc"] = np.nan
    rep = report.build_report(profiles, frame, timestamp=TS)
    text = rep.to_json()
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    assert data["schema_version"] == report.SCHEMA_VERSION
    auc = next(r for r in data["metrics"] if r["name"] == "auc")
    assert auc["cells"][[g["name"] for g in data["groups"]].index("calibrated")][
        "value"] is None
    assert data["meta"]["timestamp"] == "2026-03-01 09:30:00 UTC"
    assert all("uri" not in f for f in data["figures"])


def test_to_jsonable_handles_pandas_and_numpy(summary):
    out = report.to_jsonable(summary)
    assert set(out) == set(summary.index)
    assert out["calibrated"]["accuracy"]["value"] == summary.loc["calibrated",
                                                                 ("accuracy", "value")]
    assert report.to_jsonable(pd.Series({"a": np.nan, "b": np.int64(3)})) == {"a": None,
                                                                              "b": 3}
    json.dumps(report.to_jsonable(summary), allow_nan=False)


# -------------------------------------------------------------------------- Markdown
def test_markdown_has_the_same_numbers(profiles, summary, rep, html):
    md = rep.to_markdown()
    for key in profiles:
        for metric in ("accuracy", "ece", "brier"):
            val = summary.loc[key, (metric, "value")]
            lo, hi = summary.loc[key, (metric, "ci_low")], summary.loc[key, (metric,
                                                                             "ci_high")]
            for text in (f"{val:.4f}", f"{lo:.4f} to {hi:.4f}"):
                assert text in md and text in html
    assert HOSTILE not in md
    assert r"\<script\>alert(1)\</script\>" in md
    assert md.startswith("# Audit of model X")
    assert "## Verdict" in md and "Reviewer name" in md


# ------------------------------------------------------------------------------- PDF
def test_pdf_is_valid_multipage_with_verdict_and_attachment(pdf, rep, summary):
    pypdf = pytest.importorskip("pypdf")
    assert pdf.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) >= 4
    text = "\n".join(p.extract_text() for p in reader.pages)
    assert "Verdict" in text and "risky" in text
    acc = summary.loc["overconfident", ("accuracy", "value")]
    assert f"{acc:.4f}" in text
    assert "Page 1 of" in text
    assert "<script>alert(1)</script>" in text  # shown literally, as text
    def titles(items):
        for item in items:
            yield from titles(item) if isinstance(item, list) else [item.title]

    outline = list(titles(reader.outline))
    assert outline[0] == "Audit of model X"
    assert {"Verdict", "Key metrics", "Figures", "Methods", "Review and sign-off"} <= set(
        outline)
    (attached,) = reader.attachments["calreport-report.json"]
    assert json.loads(attached) == json.loads(rep.to_json())


def test_pdf_fetcher_refuses_everything_but_data_and_fonts():
    weasyprint = pytest.importorskip("weasyprint")
    faces, allowed = report._font_faces()
    assert len(allowed) >= 2 and "DejaVuSans.ttf" in faces
    fetch = report._url_fetcher(weasyprint, allowed)
    call = getattr(fetch, "fetch", fetch)
    for url in ("http://example.com/x.png", "https://example.com", "file:///etc/passwd"):
        with pytest.raises(ValueError, match="fetch no external resource"):
            call(url)
    assert call("data:text/plain;base64,aGk=").read() == b"hi"


def test_pdf_needs_weasyprint(rep, monkeypatch):
    monkeypatch.setitem(sys.modules, "weasyprint", None)
    with pytest.raises(ImportError, match=r"pip install calreport\[pdf\]"):
        rep.to_pdf()


# ------------------------------------------------------------------------- save, misc
def test_save_dispatches_on_suffix(rep, tmp_path):
    assert rep.save(tmp_path / "r.html").read_text(encoding="utf-8") == rep.to_html()
    assert json.loads((tmp_path / "r.json").read_text(encoding="utf-8")) if rep.save(
        tmp_path / "r.json") else False
    assert rep.save(tmp_path / "r.md").read_text(encoding="utf-8") == rep.to_markdown()
    with pytest.raises(ValueError, match=r"use \.html, \.pdf, \.json or \.md"):
        rep.save(tmp_path / "r.docx")


def test_ungrouped_point_estimates(profiles):
    prof = profiles["calibrated"]
    s = pd.Series(summarize(prof).values)
    rep = report.build_report({"all": prof}, s, timestamp=TS)
    html = rep.to_html()
    assert "No intervals were requested" in html
    assert 'id="groups"' not in html  # no group comparison for one group
    assert f"{s['accuracy']:.4f}" in html
    assert next(f["id"] for f in rep.context["figures"]) == "reliability"
    assert rep.context["data"]["grouped"] is False


def test_minimal_profile_and_unknown_metric():
    prof = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95, 0.7, 0.8],
                                         correct=[1, 1, 0, 1, 1])
    s = pd.Series({"n": 5.0, "accuracy": 0.8, "my_metric": 0.123456})
    rep = report.build_report({"all": prof}, s, timestamp=TS)
    html = rep.to_html()
    assert "my_metric" in html and "0.1235" in html
    assert "roc" not in [f["id"] for f in rep.context["figures"]]
    assert rep.context["drivers"][0]["has_labels"] is False
    # z from the profile when the summary lacks it: one error at 0.95 -> CSR = 20/5 = 4
    assert rep.context["groups"][0]["csr"] == pytest.approx(4.0)


def test_bad_arguments():
    prof = ConfidenceProfile.from_arrays(conf=[0.6, 0.9], correct=[1, 0])
    s = pd.Series({"n": 2.0})
    with pytest.raises(TypeError, match="non-empty mapping of group -> ConfidenceProfile"):
        report.build_report({}, s)
    with pytest.raises(TypeError, match=r"`profiles\['a'\]` is a list"):
        report.build_report({"a": [1]}, s)
    with pytest.raises(ValueError, match=r"`row_labels\['all'\]` has 1 labels"):
        report.build_report({"all": prof}, s, row_labels={"all": ["x"]})
    with pytest.raises(ValueError, match="not an ISO 8601 date-time"):
        report.build_report({"all": prof}, s, timestamp="yesterday")
    with pytest.raises(TypeError, match="`summary` must be a pandas DataFrame or Series"):
        report.build_report({"all": prof}, {"n": 2})


def test_templates_found_in_source_tree():
    folder = report.template_dir()
    assert (folder / "report.html.j2").is_file() and (folder / "report.css").is_file()


# ------------------------------------------------------------------------- accessor
def test_accessor_report(profiles):
    import calreport  # noqa: F401  (registers the accessors)

    rng = np.random.default_rng(4)
    p = rng.uniform(size=400)
    df = pd.DataFrame({"y_true": (rng.random(400) < p).astype(int), "proba": p,
                       "site": np.repeat(["north", "south"], 200),
                       "patient": [f"P{i:03d}" for i in range(400)]})
    rep = df.groupby("site").calib(y="y_true", proba="proba").report(
        n_boot=50, seed=0, row_label="patient", timestamp=TS)
    assert {g["name"] for g in rep.context["groups"]} == {"north", "south"}
    assert rep.context["data"]["group_label"] == "site"
    assert all(r["row"].startswith("P") for d in rep.context["drivers"] for r in d["rows"])
    single = df.calib(y="y_true", proba="proba").report(ci=None, timestamp=TS)
    assert [g["name"] for g in single.context["groups"]] == ["all"]
    assert single.context["data"]["n_rows"] == 400
