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


def test_probabilities_read_in_decimals_in_the_table_and_the_cli(tmp_path, capsys):
    # a far-off model: its ECCE p-value is about 1e-70 and its T-Cal p-value 1/1001
    rng = np.random.default_rng(0)
    p = rng.beta(2, 2, 5000)
    df = pd.DataFrame({"y": (rng.random(5000) < p ** 1.5).astype(int), "p": p})
    metrics = ["ecce_ks_p", "tcal_p", "p_risk", "csr", "ece"]
    res = df.calib(y="y", proba="p").evaluate(metrics, ci=0.9, n_boot=30, seed=0)
    assert res.overall is None and res.groups[0].get("ecce_ks_p") < 1e-30
    text = _result_display.result_text(res)
    cells = {m: text.loc[m].iloc[0] for m in metrics}
    assert cells["ecce_ks_p"] == "< 0.0001"
    assert cells["tcal_p"] == f"{1 / 1001:.4f}"
    assert cells["p_risk"] == f"{res.groups[0].get('p_risk'):.4f}"
    assert cells["csr"].startswith(f"{res.groups[0].get('csr'):.4g} [")  # not a probability
    table = _Table()
    table.feed(res._repr_html_())
    assert "< 0.0001" in next(r for r in table.rows if r[0] == "ecce_ks_p")
    # the CLI prints the same table for an ungrouped file, and each method once below
    from calreport.cli import main

    path = tmp_path / "scores.csv"
    df.to_csv(path, index=False)
    assert main(["summary", str(path), "--metrics", ",".join(metrics), "--ci", "0.9",
                 "--n-boot", "30"]) == 0
    out = capsys.readouterr().out
    assert "e-" not in out.split("Intervals:")[0] and "< 0.0001" in out
    assert "  ece: upper, measured" in out and "30 replicates" in out
