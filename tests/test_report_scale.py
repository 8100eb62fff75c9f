"""The report at scale: 200 groups stay within 30 pages and page 1 tells the story."""

from __future__ import annotations

import io
import math

import numpy as np
import pandas as pd
import pytest

import calreport  # noqa: F401  (registers the accessors)

TS = "2026-03-01T09:30:00Z"
N_GROUPS, N_ROWS = 200, 300


@pytest.fixture(scope="module")
def big_report():
    rng = np.random.default_rng(7)
    n = N_GROUPS * N_ROWS
    p = rng.beta(2, 2, n)
    # a third of the groups overconfident: the true probability is pulled towards 1/2
    # (0.5 + 0.6 (p - 0.5)), so the scores claim too much on both sides
    bad = (np.arange(N_GROUPS) % 3 == 0).repeat(N_ROWS)
    truth = np.where(bad, 0.5 + 0.6 * (p - 0.5), p)
    y = (rng.random(n) < truth).astype(int)
    df = pd.DataFrame({"site": np.repeat([f"site_{i:03d}" for i in range(N_GROUPS)], N_ROWS),
                       "y": y, "p": p, "patient_id": [f"P{i:06d}" for i in range(n)]})
    acc = df.groupby("site").calib(y="y", proba="p")
    return acc.report(metrics=["accuracy", "csr", "sigma_csr", "z_csr", "p_risk", "ece",
                               "brier"], ci=None, timestamp=TS, row_label="patient_id",
                      model="triage model", model_version="4.1",
                      data_description="synthetic sites")


def test_200_groups_fit_in_30_pages_with_the_story_first(big_report):
    pypdf = pytest.importorskip("pypdf")
    pytest.importorskip("weasyprint")
    reader = pypdf.PdfReader(io.BytesIO(big_report.to_pdf()))
    assert len(reader.pages) <= 30
    first = reader.pages[0].extract_text()
    assert "Verdict" in first and "triage model" in first
    counts = {c["band"]: c["count"] for c in big_report.context["overall"]["counts"]}
    assert sum(counts.values()) == N_GROUPS
    for c in big_report.context["overall"]["counts"]:
        assert c["label"] in first
    assert "Worst groups by P_risk" in first and "What would change it" in first
    worst = big_report.context["overall"]["worst"][0]["name"]
    assert worst in first
    assert f"All {N_GROUPS} groups pooled" in first


def test_200_groups_cards_tables_and_appendix_are_bounded(big_report):
    ctx = big_report.context
    assert len(ctx["cards"]) <= 24
    assert all(c["band"] != "no_evidence" for c in ctx["cards"][:-3]) or len(ctx["cards"]) <= 3
    assert len(ctx["group_table"]["rows"]) == N_GROUPS
    # within the first band, riskiest (highest P_risk) first
    ps = [next(c["value"] for c in r["cells"] if c["name"] == "p_risk")
          for r in ctx["group_table"]["rows"]
          if r["band"] == ctx["group_table"]["rows"][0]["band"]]
    assert ps == sorted(ps, reverse=True)
    assert 0 < len(ctx["drivers"]) <= 10
    assert all(d["rows"][0]["row"].startswith("P") for d in ctx["drivers"] if d["rows"])
    assert {d["group"] for d in ctx["drivers"]} <= {g["name"] for g in ctx["groups"]
                                                   if g["band"] in ("risky", "evidence")
                                                   or g["n_certain_wrong"]}
    # figures: risk plot sized to its rows, overlays keep 5 colours + a grey pool
    risk = next(f for f in ctx["figures"] if f["id"] == "risk")
    assert "other 175 share the last row" in risk["caption"]
    rel = next(f for f in ctx["figures"] if f["id"] == "reliability")
    assert "the other 195 groups pooled" in rel["caption"]


def _overflowing_boxes(html: str) -> list[str]:
    """Text boxes whose right edge lies beyond the page's content area or their cell."""
    weasyprint = pytest.importorskip("weasyprint")
    doc = weasyprint.HTML(string=html).render()
    out = []
    for number, page in enumerate(doc.pages, 1):
        root = page._page_box
        right = root.position_x + root.margin_width() - root.margin_right
        stack = [(root, math.inf)]
        while stack:
            box, cell_right = stack.pop()
            if type(box).__name__ == "TableCellBox":
                cell_right = box.border_box_x() + box.border_width()
            stack.extend((child, cell_right) for child in getattr(box, "children", ()))
            text = getattr(box, "text", None)
            if not (text and text.strip()):
                continue
            end = box.position_x + box.width
            if end > right + 0.5:
                out.append(f"page {number}: {text!r} ends {end - right:.1f}px past the margin")
            elif end > cell_right + 0.5:
                out.append(f"page {number}: {text!r} ends {end - cell_right:.1f}px past its "
                           "table cell")
    return out


@pytest.mark.parametrize("ci", [None, 0.95])
def test_groups_table_with_every_default_column_fits_the_page(ci):
    # the default metrics fill every column of the groups table; its last column
    # ("Wrong certainty claims") was once cut off at the right margin
    rng = np.random.default_rng(3)
    n = 3 * 400
    p = rng.beta(2, 2, n)
    df = pd.DataFrame({"g": np.repeat(["alpha", "beta", "gamma"], 400),
                       "y": (rng.random(n) < p).astype(int), "p": p})
    rep = df.groupby("g").calib(y="y", proba="p").report(ci=ci, n_boot=20, refit=False,
                                                           timestamp=TS)
    html = rep.to_html()
    assert "Wrong certainty claims" in html
    assert _overflowing_boxes(html) == []


def test_groups_table_widths_come_from_the_text_and_fall_back_when_too_wide():
    from calreport.report.layout import fixed_widths, text_em

    # DejaVu Sans: digits are 1303/2048 em wide, the full stop 651/2048
    assert text_em("0.25") == pytest.approx((3 * 1303 + 651) / 2048)
    assert text_em("Accuracy", bold=True) > text_em("Accuracy")
    cols = [("Group", []), ("Verdict", ["risky", "no evidence"]), ("Value", ["0.25", "12.5"])]
    widths = fixed_widths(cols, badge_column=1, badge_scale=0.8, available_em=60)
    # the widest text (or heading word) of each column plus 0.5 em padding and 0.3 slack
    assert widths == [round(0.8 * (text_em("no evidence", bold=True) + 0.6) + 0.8, 1),
                      round(text_em("Value", bold=True) + 0.8, 1)]
    assert fixed_widths(cols, badge_column=1, badge_scale=0.8, available_em=12) is None


def test_big_groups_table_uses_fixed_widths(big_report):
    html = big_report.to_html()
    assert '<table class="metrics groups fixed">' in html
    assert big_report.context["group_table"]["widths_pt"]
