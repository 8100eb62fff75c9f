"""How an evaluate() result shows itself: a short repr and an HTML table."""

from __future__ import annotations

import re
import warnings
from html.parser import HTMLParser

import numpy as np
import pandas as pd
import pytest

import calreport
from calreport import _result_display


@pytest.fixture(scope="module")
def grouped():
    df = calreport.datasets.load_breast_cancer()
    acc = df.groupby("calibration").calib(y="y_true", proba="proba_benign",
                                          pos_label="benign")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return acc.evaluate(ci=0.9, n_boot=20, seed=3)


class _Table(HTMLParser):
    """Rows of an HTML table as lists of cell texts, and the cells' titles."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self.titles: list[str] = []
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        if tag == "tr":
            self.rows.append([])
        elif tag in ("td", "th"):
            self._cell = []
            self.titles.extend(v for k, v in attrs if k == "title")

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self._cell is not None:
            self.rows[-1].append("".join(self._cell))
            self._cell = None

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def test_repr_is_a_few_short_lines(grouped):
    text = repr(grouped)
    lines = text.splitlines()
    assert 4 <= len(lines) <= 6
    assert max(map(len, lines)) <= 100
    assert lines[0] == "CalibrationResult: 3 groups by calibration + overall, 684 rows"
    assert "level 0.9" in text and "20 multinomial replicates" in text and "seed 3" in text
    assert "(27 metrics)" in text or f"({len(grouped.metrics)} metrics)" in text
    bands = {g.name: g.band for g in [*grouped.groups, grouped.overall]}
    line = next(x for x in lines if x.strip().startswith("bands:"))
    for name, band in bands.items():
        assert f"{name}: {band}" in line


def test_repr_without_intervals_says_so():
    df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    text = repr(df.calib(y="y", proba="p").evaluate(["accuracy", "ece"]))
    assert "ungrouped, 120 rows" in text
    assert "metrics:   accuracy, ece\n" in text
    assert "intervals: none" in text


def test_repr_of_many_groups_counts_bands():
    rng = np.random.default_rng(0)
    df = pd.DataFrame({"y": rng.integers(0, 2, 400), "p": rng.random(400),
                       "g": np.repeat(np.arange(20), 20)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = df.groupby("g").calib(y="y", proba="p").evaluate(["csr"])
    line = next(x for x in repr(res).splitlines() if "bands:" in x)
    counts = re.findall(r"([a-z_]+) (\d+)", line.split(";")[0])
    assert sum(int(k) for _, k in counts) == 20
    assert len(line) <= 100


def test_html_table_holds_every_value_and_interval(grouped):
    table = _Table()
    table.feed(grouped._repr_html_())
    header, band_row, *metric_rows = table.rows
    assert header == ["metric", "isotonic", "platt", "raw", "overall"]
    assert band_row[1:] == [g.band for g in [*grouped.groups, grouped.overall]]
    assert [r[0] for r in metric_rows] == grouped.columns
    csr_row = next(r for r in metric_rows if r[0] == "csr")
    raw = grouped.groups[2]
    assert csr_row[3] == (f"{raw.get('csr'):.4g} [{raw.get('csr', 'ci_low'):.4g}, "
                          f"{raw.get('csr', 'ci_high'):.4g}]")


def test_html_nan_cells_carry_their_reason():
    df = pd.DataFrame({"y": [1] * 40 + [0, 1] * 20, "p": np.linspace(0.05, 0.95, 80),
                       "g": ["one class"] * 40 + ["both"] * 40})
    with pytest.warns(calreport.UndefinedMetricWarning):
        res = df.groupby("g").calib(y="y", proba="p").evaluate(["auc", "ece"])
    table = _Table()
    table.feed(res._repr_html_())
    auc_row = next(r for r in table.rows if r[0] == "auc")
    assert auc_row[table.rows[0].index("one class")] == "NaN"
    assert any("positives and negatives" in t for t in table.titles)


def test_html_escapes_group_names_and_caps_the_columns():
    rng = np.random.default_rng(1)
    n_groups = _result_display.MAX_HTML_GROUPS + 3
    df = pd.DataFrame({"y": rng.integers(0, 2, 30 * n_groups), "p": rng.random(30 * n_groups),
                       "g": np.repeat([f"<b>{k}</b>" for k in range(n_groups)], 30)})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        res = df.groupby("g").calib(y="y", proba="p").evaluate(["ece"])
    out = res._repr_html_()
    assert "<b>" not in out and "&lt;b&gt;0&lt;/b&gt;" in out
    table = _Table()
    table.feed(out)
    assert len(table.rows[0]) == 1 + _result_display.MAX_HTML_GROUPS + 1  # + overall
    assert f"{_result_display.MAX_HTML_GROUPS} of {n_groups} groups" in out
