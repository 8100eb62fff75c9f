"""The model-card report: escaping, self-containment, numbers, determinism, formats."""

from __future__ import annotations

import importlib.util
import io
import json
import re
import sys
import threading

import numpy as np
import pandas as pd
import pytest
from markupsafe import escape

import calreport  # noqa: F401  (registers the accessors)
from calreport import references, report
from calreport.registry import REGISTRY
from calreport.report import pdf as report_pdf
from calreport.report.formatting import _fmt_ci, _fmt_count, _fmt_metric

HOSTILE = "<script>alert(1)</script>"
TS = "2026-03-01T09:30:00Z"
METRICS = ["accuracy", "cwa", "csr", "sigma_csr", "z_csr", "p_risk", "ece", "brier", "auc",
           "cwsa"]
#: Internal file names and paths that must never reach a reader.
INTERNAL = re.compile(r"[0-9]{3}_[0-9a-f]{16}\.txt|" + "shar" + r"ed/|formulas\.md|DESIGN\.md")


def _frame() -> pd.DataFrame:
    """Three cohorts: calibrated, overconfident (logits x3) and a hostile-named one."""
    rng = np.random.default_rng(0)
    parts = []
    for name, n, sharpen in (("calibrated", 500, 1.0), ("overconfident", 500, 3.0),
                             (HOSTILE, 300, 1.4)):
        true_p = rng.beta(2, 2, n)
        y = np.where(rng.random(n) < true_p, "yes", "no")
        logit = np.log(true_p / (1 - true_p)) * sharpen
        parts.append(pd.DataFrame({"cohort": name, "y": y, "p": 1 / (1 + np.exp(-logit))}))
    df = pd.concat(parts, ignore_index=True)
    df["pid"] = [f"P{i:05d}" for i in range(len(df))]
    return df


@pytest.fixture(scope="module")
def frame() -> pd.DataFrame:
    return _frame()


@pytest.fixture(scope="module")
def small(frame) -> pd.DataFrame:
    """The first 100 rows of each cohort: for tests of rendering, escaping and errors,
    which hold on any rows (a report's cost grows with them: its P_risk draws)."""
    return frame.groupby("cohort", sort=False).head(100).reset_index(drop=True)


def _acc(frame):
    return frame.groupby("cohort").calib(y="y", proba="p", pos_label="yes")


def _build(frame, **kw):
    return _acc(frame).report(metrics=METRICS, n_boot=60, seed=1, timestamp=TS,
                              title="Audit of model X", subject="test set", row_label="pid",
                              model="model X", model_version="1.2",
                              data_description="hold-out 2025", **kw)


@pytest.fixture(scope="module")
def rep(frame) -> report.Report:
    return _build(frame)


@pytest.fixture(scope="module")
def html(rep) -> str:
    return rep.to_html()


@pytest.fixture(scope="module")
def pdf(rep) -> bytes:
    pytest.importorskip("weasyprint")
    return rep.to_pdf()


def _z(conf: np.ndarray, correct: np.ndarray) -> float:
    """z = (CSR - 1) / sigma_CSR written out (c < 1 here, no weights)."""
    n = conf.size
    csr = np.sum(1 / (1 - conf[~correct])) / n
    sigma = np.sqrt(np.sum(conf / (1 - conf))) / n
    return (csr - 1) / sigma


def _group_rows(frame, name):
    sub = frame[frame["cohort"] == name]
    p = sub["p"].to_numpy()
    pred_yes = p >= 0.5
    conf = np.where(pred_yes, p, 1 - p)
    correct = pred_yes == (sub["y"].to_numpy() == "yes")
    return sub, conf, correct


# ------------------------------------------------------------------------------ HTML
def test_hostile_names_are_escaped(small):
    rep = _acc(small).report(metrics=["accuracy", "csr"], ci=None, title="<b>t</b>",
                             subject="<i>s</i>", model="<img src=x onerror=alert(2)>",
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
    # the only links are page references inside the document, to ids it holds
    targets = re.findall(r"""href\s*=\s*["']?([^"' >]*)""", html)
    assert targets and all(t.startswith("#") for t in targets)
    assert all(f'id="{t[1:]}"' in html for t in targets)


def test_html_holds_the_figures(rep, html):
    ids = [f["id"] for f in rep.context["figures"]]
    assert ids == ["risk", "corp", "reliability", "lowess_curve", "confidence_histogram",
                   "roc", "selective", "murphy", "risk_drivers"]
    assert not any(f["error"] for f in rep.context["figures"])
    assert html.count('src="data:image/svg+xml;base64,') == len(ids)
    for fig_id in ids:
        assert f'id="fig-{fig_id}"' in html


def test_band_colours_come_from_plotting(html):
    from calreport.plotting import BAND_COLORS

    for band, colour in BAND_COLORS.items():
        assert f".calreport .badge.band-{band} {{ background: {colour}; }}" in html
    css = (report.template_dir() / "report.css").read_text(encoding="utf-8")
    # the neutral grey of "undetermined" is also the muted text colour
    assert not any(BAND_COLORS[b] in css for b in ("risky", "evidence", "no_evidence"))


def test_html_shows_metrics_with_intervals(rep, html):
    res = rep.result
    for g in res.groups:
        lo, hi = g.intervals["accuracy"]
        assert f"{g.get('accuracy'):.4f}" in html
        assert f"{lo:.4f} to {hi:.4f}" in html


def test_verdict_first_page_story(rep, frame, html):
    order = [html.index(f'id="{s}"') for s in ("verdict", "cards", "groups", "figures",
                                                "metrics", "data", "methods", "drivers",
                                                "signoff")]
    assert order == sorted(order)
    for g in rep.context["groups"]:
        _, conf, correct = _group_rows(frame, g["name"])
        assert g["z_csr"] == pytest.approx(_z(conf, correct), rel=1e-9)
    bands = {g["name"]: g["band"] for g in rep.context["groups"]}
    assert bands["overconfident"] == "risky" and bands["calibrated"] != "risky"
    counts = {c["band"]: c["count"] for c in rep.context["overall"]["counts"]}
    assert sum(counts.values()) == 3 and counts["risky"] >= 1
    verdict = html[html.index('id="verdict"'):html.index('id="cards"')]
    assert "Worst groups by P_risk" in verdict and "What would change it" in verdict
    assert "model X" in html[:html.index('id="verdict"')]
    # page 1 in plain words: the decision asked, what the verdict rests on, where to
    # sign; the statistics of the rule and the adjustment are in the methods section
    story = rep.context["overall"]
    assert "Your decision:" in verdict and 'href="#signoff"' in verdict
    assert f"{_fmt_count(rep.context['data']['n_errors'])} of them wrong" in verdict
    assert escape(story["plain"]) in verdict and escape(story["plain_family"]) in verdict
    assert "1 in 740 for 'risky'" in story["plain_family"]
    methods = html[html.index('id="methods"'):html.index('id="drivers"')]
    for text in (story["family_text"], rep.context["band_rule"]["text"]):
        assert escape(text) not in verdict and escape(text) in methods
    assert rep.context["data"]["n_errors"] == sum(g["n_errors"] for g in rep.context["groups"])
    worst = verdict[verdict.index("Worst groups by P_risk"):]
    assert worst.index("overconfident") < worst.index(" calibrated</td>")
    steps = " ".join(s["action"] for s in rep.context["next_steps"])
    assert "Recalibrate" in steps


def test_card_prints_p_risk_with_its_meaning(rep):
    for g in rep.context["groups"]:
        if g["csr"] <= 1.0 and g["p_risk"] == 0.0:
            assert g["p_risk_note"].startswith("CSR ≤ 1")
        assert g["p_risk_method"]
        # badge and P_risk come from one verdict: risky groups have P_risk near 1
        if g["band"] == "risky" and g["n_certain_wrong"] == 0:
            assert g["p_risk"] > 0.99


def test_drivers_are_the_most_overconfident_errors(rep, frame):
    sub, conf, correct = _group_rows(frame, "overconfident")
    (d,) = [d for d in rep.context["drivers"] if d["group"] == "overconfident"]
    wrong = np.flatnonzero(~correct)
    contrib = 1 / (1 - conf[wrong]) / conf.size
    top = wrong[np.argsort(-contrib, kind="stable")][:10]
    assert [r["row"] for r in d["rows"]] == list(sub["pid"].to_numpy()[top])
    assert d["rows"][0]["share"] == pytest.approx(contrib.max() / contrib.sum())
    assert {r["y_true"] for r in d["rows"]} <= {"no", "yes"}
    assert all(r["y_true"] != r["y_pred"] for r in d["rows"])
    assert rep.context["row_label_name"] == "pid"


def test_methods_cite_registry_and_references(rep, html):
    refs = {r["key"]: r["number"] for r in rep.context["methods"]["references"]}
    assert references.cite("MartinMaroto2026") in html.replace("&amp;", "&")
    assert "arXiv:2605.01796" in html
    where = REGISTRY["csr"].references[0].where
    assert f"[{refs['MartinMaroto2026']}] {where}" in html
    assert REGISTRY["ece"].formula in html
    assert "Reviewer name" in html and "approved with conditions" in html


def test_no_internal_file_names_in_any_output(rep, html):
    for text in (html, rep.to_markdown(), rep.to_json()):
        assert not INTERNAL.search(text)
    for path in report.template_dir().iterdir():
        assert not INTERNAL.search(path.read_text(encoding="utf-8"))


def test_reliability_caption_is_right_for_both_views():
    from calreport.plotting import reliability_caption

    pos = reliability_caption("positive", 10, "uniform")
    assert "above 0.5" in pos and "below 0.5" in pos
    assert "above the diagonal are overconfident" in pos
    top = reliability_caption("top_label", 10, "uniform")
    assert "below the diagonal are overconfident" in top


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


def test_template_override_is_searched_first(small, tmp_path):
    (tmp_path / "report.html.j2").write_text(
        '{% extends "base.html.j2" %}{% block body %}<p>custom {{ title }}</p>{% endblock %}',
        encoding="utf-8")
    rep = _acc(small).report(metrics=["accuracy", "csr"], ci=None, timestamp=TS,
                             template_dir=tmp_path)
    html = rep.to_html()
    assert "<p>custom Calibration audit</p>" in html and "report.css" not in html
    assert "@page" in html  # the packaged base and CSS are still found
    with pytest.raises(ValueError, match="is not a folder"):
        _acc(small).report(ci=None, metrics=["accuracy"], template_dir=tmp_path / "nope")


# --------------------------------------------------------------------- determinism
def test_output_is_deterministic(frame, rep, request):
    again = _build(frame)
    assert again.to_html() == rep.to_html()
    assert again.to_markdown() == rep.to_markdown()
    assert again.to_json() == rep.to_json()
    if importlib.util.find_spec("weasyprint") is not None:
        assert again.to_pdf() == request.getfixturevalue("pdf")


def test_concurrent_reports_are_byte_identical(small):
    serial = _acc(small).report(metrics=["accuracy", "csr", "ece"], ci=None,
                                timestamp=TS).to_html()
    out: list[str] = []
    errors: list[BaseException] = []

    def work() -> None:
        try:
            out.append(_acc(small).report(metrics=["accuracy", "csr", "ece"], ci=None,
                                          timestamp=TS).to_html())
        except BaseException as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(2)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and len(out) == 2
    assert all(h == serial for h in out)


def test_svg_ids_do_not_depend_on_the_process_salt():
    import matplotlib
    from matplotlib.figure import Figure

    from calreport.plotting import figure_to_data_uri

    def draw() -> str:
        fig = Figure()
        fig.add_subplot().plot([0, 1], [0, 1], "o")
        return figure_to_data_uri(fig, fmt="svg")

    before = matplotlib.rcParams["svg.hashsalt"]
    first = draw()
    with matplotlib.rc_context({"svg.hashsalt": "something else"}):
        assert draw() == first
    assert matplotlib.rcParams["svg.hashsalt"] == before


# ------------------------------------------------------------------------------ JSON
def _numbers_are_numbers(node, path="") -> None:
    if isinstance(node, dict):
        for k, v in node.items():
            _numbers_are_numbers(v, f"{path}.{k}")
    elif isinstance(node, list):
        for i, v in enumerate(node):
            _numbers_are_numbers(v, f"{path}[{i}]")
    elif isinstance(node, str) and not path.endswith("schema_version") and not \
            path.startswith(".signoff"):  # user text such as a model version "1.2"
        assert not re.fullmatch(r"[-−]?[\d,]+(\.\d+)?( ?%)?", node), f"{path} = {node!r}"


def test_json_numbers_are_numbers(rep):
    text = rep.to_json()
    assert "NaN" not in text and "Infinity" not in text
    data = json.loads(text)
    assert data["schema_version"] == report.SCHEMA_VERSION
    _numbers_are_numbers(data)
    groups = {g["name"]: g for g in data["result"]["groups"]}
    res = {g.name: g for g in rep.result.groups}
    assert groups["calibrated"]["metrics"]["accuracy"]["value"] == res["calibrated"].get(
        "accuracy")
    assert isinstance(data["groups"][0]["n"], float)
    assert data["meta"]["timestamp_iso"] == "2026-03-01T09:30:00Z"
    assert data["signoff"] == {"model": "model X", "model_version": "1.2",
                               "data_description": "hold-out 2025"}
    assert all("uri" not in f for f in data["figures"])
    assert data["references"][0]["citation"].startswith("Martin-Maroto")


def test_to_jsonable_handles_pandas_and_numpy(rep):
    summary = rep.summary
    out = report.to_jsonable(summary)
    assert set(out) == {str(k) for k in summary.index}
    assert report.to_jsonable(pd.Series({"a": np.nan, "b": np.int64(3)})) == {"a": None,
                                                                              "b": 3}
    json.dumps(out, allow_nan=False)


# -------------------------------------------------------------------------- Markdown
def test_markdown_has_the_same_numbers(rep, html):
    md = rep.to_markdown()
    for g in rep.result.groups:
        for metric in ("accuracy", "ece", "brier"):
            lo, hi = g.intervals[metric]
            # ECE's interval is a one-sided upper bound: printed "≤ u"
            bound = f"≤ {hi:.4f}" if metric == "ece" else f"{lo:.4f} to {hi:.4f}"
            for text in (f"{g.get(metric):.4f}", bound):
                assert text in md and text in html
    assert HOSTILE not in md
    assert r"\<script\>alert(1)\</script\>" in md
    assert md.startswith("# Audit of model X")
    assert "## Verdict" in md and "Reviewer name" in md


# ------------------------------------------------------------------------------- PDF
def test_pdf_is_valid_multipage_with_verdict_and_attachment(pdf, rep):
    pypdf = pytest.importorskip("pypdf")
    assert pdf.startswith(b"%PDF-")
    reader = pypdf.PdfReader(io.BytesIO(pdf))
    assert len(reader.pages) >= 4
    first = reader.pages[0].extract_text()
    assert "Verdict" in first and "risky" in first
    # the verdict section (family statement, worst groups) runs onto the next page
    assert "Worst groups by P_risk" in first + reader.pages[1].extract_text()
    text = "\n".join(p.extract_text() for p in reader.pages)
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


def test_pdf_embeds_every_figure_as_a_200_dpi_image_and_html_keeps_svg(pdf, rep, html):
    # WeasyPrint draws SVG node by node in Python: the PDF gets PNG figures, the HTML
    # keeps its vector figures (also after to_pdf() has drawn the PNG versions)
    pypdf = pytest.importorskip("pypdf")
    from calreport.report.figures import PRINT_DPI

    reader = pypdf.PdfReader(io.BytesIO(pdf))
    # the PDF's pages share one resource dictionary: count each image once (and decode
    # each image object once, not once a page: about 1 CPU-s a page)
    found = {}
    for page in reader.pages:
        xobjects = page["/Resources"].get("/XObject", {})
        for key in page.images.keys():
            ref = xobjects.raw_get(key) if isinstance(key, str) and key in xobjects else None
            ident = (ref.idnum if isinstance(ref, pypdf.generic.IndirectObject)
                     else (page.page_number, str(key)))
            if ident not in found:
                found[ident] = page.images[key]
    images = list({img.data: img for img in found.values()}.values())
    figures = re.findall(r'src="(data:image/svg\+xml;base64,[^"]+)"', html)
    assert len(images) == len(figures) == len(rep.context["figures"])
    sizes = sorted(img.image.size for img in images)
    for uri in figures:
        fig_w, fig_h = _svg_inches(uri)
        # each figure's pixels are its size in inches x PRINT_DPI (truncated)
        assert (int(fig_w * PRINT_DPI + 1e-6), int(fig_h * PRINT_DPI + 1e-6)) in sizes
    assert all(img.image.mode == "RGB" for img in images)  # opaque: no alpha mask
    assert rep.to_html() == html
    assert html.count('src="data:image/svg+xml;base64,') == len(figures)


def _svg_inches(uri: str) -> tuple[float, float]:
    import base64

    svg = base64.b64decode(uri.split(",", 1)[1]).decode("utf-8")
    w, h = (float(re.search(rf'{k}="([0-9.]+)pt"', svg).group(1)) / 72 for k in ("width",
                                                                              "height"))
    return w, h


def test_each_output_encodes_only_the_figures_it_embeds(small, monkeypatch):
    """A PDF alone encodes no SVG; the HTML is the same whether it comes before or
    after the PDF (the layout is computed once, when the report is built)."""
    pytest.importorskip("weasyprint")
    from calreport.plotting import _base

    svg_saves = []
    encode = _base.svg_data_uri
    monkeypatch.setattr(_base, "svg_data_uri",
                        lambda fig, **kw: svg_saves.append(fig) or encode(fig, **kw))
    pdf_first = _build(small)
    pdf_first.to_pdf()
    assert svg_saves == []
    after_pdf = pdf_first.to_html()
    assert len(svg_saves) == len(pdf_first.context["figures"])
    assert _build(small).to_html() == after_pdf


def test_pdf_fetcher_refuses_everything_but_data_and_fonts():
    weasyprint = pytest.importorskip("weasyprint")
    faces, allowed = report_pdf._font_faces()
    assert len(allowed) >= 2 and "DejaVuSans.ttf" in faces
    fetch = report_pdf._url_fetcher(weasyprint, allowed)
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
    assert json.loads(rep.save(tmp_path / "r.json").read_text(encoding="utf-8"))
    assert rep.save(tmp_path / "r.md").read_text(encoding="utf-8") == rep.to_markdown()
    with pytest.raises(ValueError, match=r"use \.html, \.pdf, \.json or \.md"):
        rep.save(tmp_path / "r.docx")


def test_ungrouped_point_estimates(small):
    sub = small[small["cohort"] == "calibrated"]
    rep = sub.calib(y="y", proba="p", pos_label="yes").report(metrics=METRICS, ci=None,
                                                               timestamp=TS)
    html = rep.to_html()
    assert "No intervals were requested" in html
    assert 'id="groups"' not in html and 'id="cards"' not in html
    assert f"{rep.result.groups[0].get('accuracy'):.4f}" in html
    assert next(f["id"] for f in rep.context["figures"]) == "corp"
    assert rep.context["data"]["grouped"] is False
    assert len(rep.context["cards"]) == 1  # the one verdict card is on the first page
    assert rep.context["row_label_name"] == "Row"


def test_confidence_only_profile():
    df = pd.DataFrame({"c": [0.6, 0.9, 0.95, 0.7, 0.8] * 20, "ok": [1, 1, 0, 1, 1] * 20})
    rep = df.calib(conf="c", correct="ok").report(ci=None, metrics=["accuracy", "csr"],
                                                  timestamp=TS)
    assert "roc" not in [f["id"] for f in rep.context["figures"]]
    assert rep.context["drivers"][0]["has_labels"] is False
    # 20 errors at 0.95 among 100 rows: CSR = 20 * 20 / 100 = 4
    assert rep.context["groups"][0]["csr"] == pytest.approx(4.0)


def test_bad_arguments(frame, small, rep):
    with pytest.raises(TypeError, match="must be a CalibrationResult"):
        report.build_report({"n": 2}, {})
    with pytest.raises(TypeError, match=r"`profiles\['calibrated'\]` is a list"):
        report.build_report(rep.result, {"calibrated": [1]})
    prof = _acc(frame).profiles()["calibrated"]
    with pytest.raises(ValueError, match=r"`row_labels\['calibrated'\]` has 1 labels"):
        report.build_report(rep.result, {"calibrated": prof}, row_labels={"calibrated": ["x"]})
    with pytest.raises(ValueError, match="not an ISO 8601 date-time"):
        report.build_report(rep.result, {"calibrated": prof}, timestamp="yesterday")
    with pytest.raises(ValueError, match="`max_cards` must be a non-negative integer"):
        report.build_report(rep.result, {"calibrated": prof}, max_cards=-1)
    with pytest.raises(ValueError, match=r"`row_label` 'nope' is not a column"):
        _acc(small).report(ci=None, metrics=["accuracy"], row_label="nope")


def test_bad_row_label_and_template_dir_fail_before_any_number(small, tmp_path, monkeypatch):
    """Both are checked first: the error comes at once, not after the whole audit."""
    from calreport.accessor import GroupByCalibAccessor

    def no_numbers(*args, **kwargs):
        raise AssertionError("the report computed its numbers before checking arguments")

    monkeypatch.setattr(GroupByCalibAccessor, "evaluate", no_numbers)
    with pytest.raises(ValueError, match=r"`row_label` 'nope' is not a column"):
        _acc(small).report(ci=None, metrics=["accuracy"], row_label="nope")
    with pytest.raises(ValueError, match="is not a folder"):
        _acc(small).report(ci=None, metrics=["accuracy"], template_dir=tmp_path / "nope")


def test_templates_found_in_source_tree():
    folder = report.template_dir()
    assert (folder / "report.html.j2").is_file() and (folder / "report.css").is_file()


def test_summary_property_for_gates(rep):
    summary = rep.summary
    assert ("accuracy", "value") in summary.columns
    assert set(summary.index) == {"calibrated", "overconfident", HOSTILE}


def test_probability_scale_values_never_round_to_a_false_zero():
    # a p-value of 1e-30 printed as 0.0000 would claim an impossible certainty
    assert _fmt_metric(1e-30, "ecce_ks_p") == "< 0.0001"
    assert _fmt_metric(0.0, "ecce_ks_p") == "0.0000"
    assert _fmt_metric(0.00005, "ecce_ks_p") == "0.0001"
    assert _fmt_metric(0.25, "ece") == "0.2500"
    assert _fmt_metric(-1e-30, "signed_ece") == "0.0000"
    # an interval's bound keeps its decimals: "0.0000 to 0.0123", not "< 0.0001 to ..."
    assert _fmt_ci(1e-30, 0.0123, "ece", "percentile") == "0.0000 to 0.0123"


def test_a_report_pickles_with_its_figures_drawn(small):
    """Pickling draws the SVGs not drawn yet and keeps only the encodings (the
    matplotlib figures hold local functions); the copy renders the same outputs."""
    import pickle

    pytest.importorskip("weasyprint")
    rep = _build(small)
    copy = pickle.loads(pickle.dumps(rep))
    assert copy.to_html() == rep.to_html()
    assert copy._print_html() == rep._print_html()
