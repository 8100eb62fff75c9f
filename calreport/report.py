"""The model-card audit report: a plain data context rendered to HTML, PDF, JSON, Markdown.

:func:`build_report` turns confidence profiles and their summary table into a
*context*: nested dicts, lists, strings and numbers, nothing with logic.  The
:class:`Report` renders that context with the Jinja2 templates of the ``templates``
folder (autoescaped, CSS inlined, figures embedded as ``data:`` URIs, no external
reference) and serialises it to JSON (NaN as ``null``) and Markdown with the same
numbers.  The verdict comes first: a risk band per group from the overconfidence
z-score of 000_efda01fc1c8d5c44.txt, section 2.1; the contents follow the reporting
recommendations of 002_848142561181ac46.txt, section 6.5 (reliability diagram with bin
occupancy, ECE with its binning, MCE, a proper score, bootstrap intervals).
"""

from __future__ import annotations

import datetime as _dt
import functools
import hashlib
import json
import math
import os
import warnings
from collections.abc import Hashable, Mapping, Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from calreport import _validate as v
from calreport._version import __version__
from calreport.plotting import group_name
from calreport.profile import ConfidenceProfile

__all__ = [
    "BANDS",
    "PAPERS",
    "SCHEMA_VERSION",
    "Report",
    "build_report",
    "report_from_accessor",
    "template_dir",
    "to_jsonable",
]

#: Version of the JSON layout of :meth:`Report.to_json`.
SCHEMA_VERSION = "1.0"

#: Risk bands of the overconfidence z-score (000_efda01fc1c8d5c44.txt, section 2.1,
#: the 1-sigma / 3-sigma columns of its tables): key -> (label, rule).
BANDS = {
    "none": ("no evidence of overconfidence", "z ≤ 1"),
    "evidence": ("evidence of overconfidence", "1 < z ≤ 3"),
    "risky": ("risky", "z > 3"),
    "undetermined": ("undetermined", "z is not defined"),
}
_BAND_SHORT = {"none": "no evidence", "evidence": "evidence", "risky": "risky",
               "undetermined": "undetermined"}

#: Source documents of the definitions: key -> (title, authors, file).
PAPERS = {
    "000": ("Beyond ECE: Calibrated Size Ratio, Risk Assessment, and Confidence-Weighted "
            "Metrics", "Martin-Maroto, Abderrahaman-Elena, de Polavieja (2026)",
            "000_efda01fc1c8d5c44.txt"),
    "001": ("Trust, or Don't Predict: Introducing the CWSA Family for Confidence-Aware "
            "Model Evaluation", "Shahnazari, Ayyoubzadeh, Keshtparvar, Ghaffari",
            "001_d2625f96c7f90dfa.txt"),
    "002": ("Calibration Metrics (handbook chapter)", "", "002_848142561181ac46.txt"),
    "003": ("From Uncertainty to Precision: Enhancing Binary Classifier Performance "
            "through Calibration", "Fernandes Machado (2024)", "003_0bfdaf07cce6c3a5.txt"),
    "004": ("Combining Priors with Experience: Confidence Calibration Based on Binomial "
            "Process Modeling", "Dong, Jiang, Pan, Yu (AAAI 2025)",
            "004_590dfa3be64c29d9.txt"),
}

#: Definitions shown in the methods section: metric -> (formula, paper, where).
_METHODS: dict[str, tuple[str, str, str]] = {
    "accuracy": ("Acc = (1/N) Σ 1[ŷᵢ = yᵢ]", "000", "Definition 1"),
    "cwa": ("cwA = Σ cᵢ·1[ŷᵢ = yᵢ] / Σ cᵢ, c = confidence in the predicted class",
            "000", "section 2.2, Definition 4"),
    "gain": ("gain = (cwA − Acc) / (1 − min(cwA, Acc))", "000", "section 3.1"),
    "csr": ("CSR = (1/N) Σ_{i wrong} 1 / (1 − cᵢ), c clipped to [ε, 1 − ε]; "
            "1 under calibration", "000", "section 2.1, Definition 2"),
    "sigma_csr": ("σ_CSR = √(Σ cᵢ / (1 − cᵢ)) / N, the standard deviation of CSR under "
                  "calibration", "000", "appendix A.2"),
    "z_csr": ("z = (CSR − 1) / σ_CSR; bands z ≤ 1, 1 < z ≤ 3, z > 3", "000",
              "section 2.1"),
    "p_risk": ("P_risk = Φ(z) when CSR > 1, else 0 (normal approximation); or the "
               "probability under the null correctᵢ ~ Bernoulli(cᵢ) by Monte Carlo",
               "000", "section 2.1, Table 6; section 4 on small N"),
    "ece": ("ECE = Σ_b (|B_b| / N) · |acc(B_b) − conf(B_b)|", "002",
            "sections 3.2 and 6.2"),
    "mce": ("MCE = max_b |acc(B_b) − conf(B_b)| over bins with at least min_count rows",
            "002", "section 4"),
    "signed_ece": ("Σ_b (|B_b| / N) · (conf(B_b) − acc(B_b)); > 0 overconfident", "002",
                   "section 4"),
    "brier": ("mean Σ_k (p_k − 1[y = k])² (binary: mean (p − y)²), as scikit-learn",
              "002", "section 5.3"),
    "log_loss": ("−mean log p_y, as scikit-learn", "002", "section 5.3"),
    "auc": ("one-vs-rest AUC of each class on its probability, macro average", "000",
            "section 2.2"),
    "cwauc": ("pairs (i positive, j negative) weighted by cᵢ·cⱼ, ties count ½; macro "
              "average", "000", "appendix A.3, Proposition 15"),
    "delta_auc": ("cwAUC − AUC", "000", "appendix A.3, Proposition 16"),
    "cwsa": ("mean over S_τ = {c ≥ τ} of φ(c)·(2·correct − 1), φ(c) = (c − τ) / (1 − τ)",
             "001", "section 3.2"),
    "cwsa_plus": ("mean over S_τ of φ(c)·correct", "001", "section 3.3"),
    "aurc": ("area under the risk-coverage curve (selective risk against coverage)",
             "001", "section 2.4"),
    "lcs": ("LCS = Σⱼ wⱼ (ĝ(lⱼ) − lⱼ)² / Σⱼ wⱼ, ĝ a LOWESS curve on 100 grid points, "
            "wⱼ the score density", "003", "Local Calibration Score, Eq. (6)"),
    "tce_bpm": ("TCE = ∫ |g(x) − x| f(x) dx, g fitted by binomial-process maximum "
                "likelihood in the family logit g = c + a ln s − b ln(1 − s)", "004",
                "section 3"),
}

#: Metrics of the groups table, in order (when present in the summary), short labels.
_GROUP_COLUMNS = {"accuracy": "Accuracy", "csr": "CSR", "z_csr": "z", "p_risk": "P_risk",
                  "ece": "ECE", "brier": "Brier", "auc": "AUC"}
_COUNTS = ("n", "n_dropped", "n_clipped")
_PERCENT = frozenset({"p_risk"})
_STATS = ("value", "ci_low", "ci_high")


# ------------------------------------------------------------------------- templates
def template_dir() -> Path:
    """Folder of the report templates.

    The wheel ships them as ``calreport/templates``; in a source checkout they are
    the repository's top-level ``templates/`` folder.
    """
    packaged = Path(str(resources.files("calreport"))) / "templates"
    if (packaged / "report.html.j2").is_file():
        return packaged
    source = Path(__file__).resolve().parent.parent / "templates"
    if (source / "report.html.j2").is_file():
        return source
    raise FileNotFoundError(
        f"calreport's report templates are missing (looked in {packaged} and {source}). "
        "Reinstall calreport."
    )


def _fmt_number(value: Any, digits: int = 4) -> str:
    """Format a float for display: NaN/None as an em dash, else ``digits`` significant."""
    if value is None:
        return "—"
    x = float(value)
    if math.isnan(x):
        return "—"
    if math.isinf(x):
        return "∞" if x > 0 else "−∞"
    if x != 0 and (abs(x) >= 1e6 or abs(x) < 1e-4):
        text = f"{x:.{max(digits - 1, 1)}e}"
    else:
        text = f"{x:.{digits}f}" if abs(x) < 10 else f"{x:.{max(digits - 2, 1)}f}"
        if text.lstrip("-").strip("0.") == "":
            text = text.lstrip("-")  # no "-0.00"
    return text.replace("-", "−")


def _fmt_count(value: Any) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "—"
    x = float(value)
    return f"{x:,.0f}" if x.is_integer() else f"{x:,.2f}"


def _fmt_percent(value: Any, digits: int = 2) -> str:
    """A share as a percentage; values that would round to 0 or 100 say so."""
    if value is None or math.isnan(float(value)):
        return "—"
    x = 100.0 * float(value)
    step = 10.0 ** -digits
    if 0.0 < x < step / 2:
        return f"< {step:.{digits}f} %"
    if 100.0 - step / 2 <= x < 100.0:
        return f"> {100.0 - step:.{digits}f} %"
    return f"{x:.{digits}f} %"


def _fmt_confidence(value: Any) -> str:
    """A confidence with the digits that matter near 1 (``1 − 5.6e−06``)."""
    if value is None or math.isnan(float(value)):
        return "—"
    c = float(value)
    if 0.9999 <= c < 1.0:
        return f"1 − {1.0 - c:.1e}".replace("-", "−")
    return f"{c:.6f}"


def _fmt_metric(value: Any, name: str = "") -> str:
    """Format one metric value by its kind (counts, percentages, ratios)."""
    if name in _COUNTS:
        return _fmt_count(value)
    if name in _PERCENT:
        return _fmt_percent(value)
    if name == "z_csr":
        return _fmt_number(value, 2)
    return _fmt_number(value)


def _fmt_ci(low: Any, high: Any, name: str = "") -> str:
    """``"low to high"``, or an empty string when there is no interval."""
    if low is None or high is None or math.isnan(float(low)) or math.isnan(float(high)):
        return ""
    return f"{_fmt_metric(low, name)} to {_fmt_metric(high, name)}"


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>#|!~"} | {"&": "&amp;"})


def _md_escape(value: Any) -> Any:
    """Escape every printed value of the Markdown template (user strings included)."""
    if isinstance(value, str):
        return value.translate(_MD_SPECIAL).replace("\n", " ")
    return value


_FILTERS = {"num": _fmt_number, "count": _fmt_count, "pct": _fmt_percent,
            "metric": _fmt_metric, "ci": _fmt_ci, "confidence": _fmt_confidence}


@functools.lru_cache(maxsize=4)
def _environment(folder: str, markdown: bool) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(folder),
        autoescape=not markdown,
        finalize=_md_escape if markdown else None,
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update(_FILTERS)
    return env


# ---------------------------------------------------------------------------- JSON
def to_jsonable(obj: Any) -> Any:
    """Convert results (pandas, NumPy, dataclasses, NaN) to JSON-ready Python values.

    NaN and infinities become ``None``; a Series becomes a dict, a DataFrame a dict of
    rows (``{index: {column: value}}``, MultiIndex columns nested as
    ``{metric: {stat: value}}``), tuple keys are joined with ``" / "``.

    Examples
    --------
    >>> to_jsonable({"a": float("nan"), "b": np.float32(0.5), "c": (1, 2)})
    {'a': None, 'b': 0.5, 'c': [1, 2]}
    """
    if obj is None or isinstance(obj, (bool, str)):
        return obj
    if isinstance(obj, (int, np.integer)) and not isinstance(obj, np.bool_):
        return int(obj)
    if isinstance(obj, np.bool_):
        return bool(obj)
    if isinstance(obj, (float, np.floating)):
        x = float(obj)
        return x if math.isfinite(x) else None
    if isinstance(obj, (_dt.datetime, _dt.date)):
        return obj.isoformat()
    if isinstance(obj, pd.DataFrame):
        return {_key_text(idx): _row_json(row, obj.columns) for idx, row in
                zip(obj.index, obj.itertuples(index=False, name=None), strict=True)}
    if isinstance(obj, pd.Series):
        return {_key_text(k): to_jsonable(val) for k, val in obj.items()}
    if isinstance(obj, np.ndarray):
        return [to_jsonable(x) for x in obj.tolist()]
    if isinstance(obj, Mapping):
        return {_key_text(k): to_jsonable(val) for k, val in obj.items()}
    if isinstance(obj, (list, tuple, set, frozenset)):
        return [to_jsonable(x) for x in obj]
    if hasattr(obj, "to_dict"):
        return to_jsonable(obj.to_dict())
    if hasattr(obj, "__dataclass_fields__"):
        return {k: to_jsonable(getattr(obj, k)) for k in obj.__dataclass_fields__}
    if isinstance(obj, np.generic):
        return to_jsonable(obj.item())
    return str(obj)


def _row_json(row: tuple, columns: pd.Index) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col, val in zip(columns, row, strict=True):
        if isinstance(col, tuple):
            node = out
            for part in col[:-1]:
                node = node.setdefault(_key_text(part), {})
            node[_key_text(col[-1])] = to_jsonable(val)
        else:
            out[_key_text(col)] = to_jsonable(val)
    return out


def _key_text(key: Any) -> str:
    if isinstance(key, str):
        return key
    if isinstance(key, tuple):
        return group_name(key)
    if isinstance(key, np.generic):
        key = key.item()
    return str(key)


# -------------------------------------------------------------------- the summary
def _summary_cells(summary: pd.Series | pd.DataFrame) -> dict[str, dict[str, dict[str, float]]]:
    """``{group: {metric: {"value", "ci_low", "ci_high"}}}`` from any summary layout."""
    if isinstance(summary, pd.Series):
        return {"all": {str(m): {"value": _float(x)} for m, x in summary.items()}}
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"`summary` must be a pandas DataFrame or Series, got "
                        f"{type(summary).__name__}.")
    cols = summary.columns
    if not isinstance(cols, pd.MultiIndex) and set(map(str, cols)) <= set(_STATS) and (
            "value" in set(map(str, cols))):
        # ungrouped with intervals: metric x [value, ci_low, ci_high]
        return {"all": {str(m): {str(s): _float(x) for s, x in row.items()}
                        for m, row in summary.iterrows()}}
    out: dict[str, dict[str, dict[str, float]]] = {}
    for key, row in summary.iterrows():
        cells: dict[str, dict[str, float]] = {}
        for col, x in row.items():
            if isinstance(col, tuple):
                metric, stat = str(col[0]), str(col[-1])
            else:
                metric, stat = str(col), "value"
            if stat in _STATS:
                cells.setdefault(metric, {})[stat] = _float(x)
        out[group_name(key)] = cells
    return out


def _float(x: Any) -> float:
    try:
        return float(x)
    except (TypeError, ValueError):
        return math.nan


def _value(cells: Mapping[str, Mapping[str, float]], metric: str) -> float:
    return cells.get(metric, {}).get("value", math.nan)


def _band(z: float) -> str:
    if z is None or math.isnan(z):
        return "undetermined"
    if z <= 1.0:
        return "none"
    return "evidence" if z <= 3.0 else "risky"


def _metric_info(name: str) -> tuple[str, bool | None]:
    from calreport.summary import METRICS

    if name in METRICS:
        return METRICS[name].label, METRICS[name].higher_is_better
    labels = {"n": "Rows", "n_dropped": "Rows dropped (missing values)",
              "n_clipped": "Confidences clipped for CSR", "p_risk_method": "P_risk method"}
    return labels.get(name, name), None


# ---------------------------------------------------------------------- the report
class Report:
    """A rendered-on-demand model-card audit report.

    Build one with :func:`build_report` or ``df.calib.report()`` /
    ``df.groupby(key).calib.report()``.

    Attributes
    ----------
    context : dict
        The plain data the templates render (strings, numbers, lists, dicts).
    summary : pandas.DataFrame
        The summary table the report was built from.
    """

    def __init__(self, context: dict[str, Any], summary: pd.DataFrame | pd.Series,
                 timestamp: _dt.datetime | None = None) -> None:
        self.context = context
        self.summary = summary
        self._timestamp = timestamp or _timestamp(context["meta"]["timestamp_iso"])[0]

    def __repr__(self) -> str:
        groups = ", ".join(g["name"] for g in self.context["groups"][:5])
        return f"<Report {self.context['title']!r}: {len(self.context['groups'])} group(s) " \
               f"[{groups}]>"

    # ------------------------------------------------------------------ renderers
    def _render(self, name: str, *, markdown: bool = False, **extra: Any) -> str:
        env = _environment(str(template_dir()), markdown)
        return env.get_template(name).render(**self.context, **extra)

    def to_html(self) -> str:
        """Self-contained HTML document: inline CSS, embedded figures, no external link."""
        return self._render("report.html.j2", standalone=True)

    def _repr_html_(self) -> str:
        """Notebook display: the report body with its CSS scoped to the report."""
        return self._render("report.html.j2", standalone=False)

    def to_markdown(self) -> str:
        """Markdown version (same numbers; figures are in the HTML and PDF versions)."""
        return self._render("report.md.j2", markdown=True)

    def to_json(self, *, indent: int | None = 2) -> str:
        """JSON of the report's numbers (NaN as ``null``), with ``schema_version``."""
        data = {k: val for k, val in self.context.items() if k != "figures"}
        data["figures"] = [{k: f[k] for k in ("id", "title", "caption", "format")}
                           for f in self.context["figures"]]
        return json.dumps(to_jsonable(data), allow_nan=False, indent=indent,
                          ensure_ascii=False)

    def to_pdf(self, path: str | Path | None = None) -> bytes:
        """Render to PDF with WeasyPrint (``pip install calreport[pdf]``).

        Nothing is fetched: the renderer may read only ``data:`` URIs and the DejaVu Sans
        fonts bundled with matplotlib, so the PDF looks the same on machines without
        system fonts.  Pages are numbered, headings are PDF bookmarks, and the JSON of
        the report is attached to the file.  Output is byte-identical for a fixed
        ``timestamp``.

        Parameters
        ----------
        path : str or Path, optional
            Also write the PDF there.

        Returns
        -------
        bytes

        Raises
        ------
        ImportError
            When WeasyPrint is not installed.
        """
        html = self.to_html()
        data = _render_pdf(html, self.to_json().encode("utf-8"), self._timestamp)
        if path is not None:
            Path(path).write_bytes(data)
        return data

    def save(self, path: str | Path) -> Path:
        """Write the report; the format follows the suffix (.html, .pdf, .json, .md)."""
        p = Path(path)
        suffix = p.suffix.lower()
        if suffix == ".pdf":
            self.to_pdf(p)
        elif suffix in (".html", ".htm"):
            p.write_text(self.to_html(), encoding="utf-8")
        elif suffix == ".json":
            p.write_text(self.to_json(), encoding="utf-8")
        elif suffix in (".md", ".markdown"):
            p.write_text(self.to_markdown(), encoding="utf-8")
        else:
            raise ValueError(
                f"Cannot save a report as {suffix or 'a file without suffix'!r} ({p.name}): "
                "use .html, .pdf, .json or .md."
            )
        return p


# ------------------------------------------------------------------ the context
def build_report(
    profiles: Mapping[Hashable, ConfidenceProfile],
    summary: pd.DataFrame | pd.Series,
    *,
    title: str = "Calibration audit",
    subject: str | None = None,
    group_label: str | None = None,
    row_labels: Mapping[Hashable, Sequence[Any]] | None = None,
    settings: Mapping[str, Any] | None = None,
    seed: int | None = None,
    data_notes: Mapping[str, Any] | None = None,
    timestamp: _dt.datetime | str | None = None,
    top_errors: int = 10,
    row_label_name: str = "Row",
) -> Report:
    """Build the model-card audit report of some confidence profiles.

    Parameters
    ----------
    profiles : mapping of group -> ConfidenceProfile
        The predictions, one profile per group (``{"all": profile}`` when ungrouped).
    summary : DataFrame or Series
        The summary metrics: indexed by group, columns ``(metric, stat)`` with stat in
        value / ci_low / ci_high (or flat metric columns without intervals), as
        ``df.groupby(key).calib.summary(ci=0.95)`` returns; an ungrouped
        ``df.calib.summary()`` Series or DataFrame is accepted too.  Unknown metrics are
        shown by name, missing ones are left out.
    title, subject : str
        Heading and what is audited (model, data set).
    group_label : str, optional
        What the groups are (e.g. the group column name).
    row_labels : mapping of group -> sequence, optional
        A label per row of each profile (e.g. the DataFrame index) to name the most
        overconfident errors; default: the row position within the group.
    settings : mapping, optional
        Metric and bootstrap settings (n_bins, strategy, tau, view, p_risk_method,
        eps, min_count, ci, ci_method, n_boot); defaults from ``summary.attrs``.
    seed : int, optional
        Seed of the bootstrap, reported in the methods section.
    data_notes : mapping, optional
        Extra lines for the data description (name -> text).
    timestamp : datetime or str, optional
        Time stamp printed in the report (default: now, UTC).  Fix it for
        byte-identical output.
    top_errors : int, default 10
        Number of most overconfident errors listed per group.
    row_label_name : str, default "Row"
        Column heading of the row labels in that list (e.g. "patient").

    Returns
    -------
    Report

    Raises
    ------
    TypeError, ValueError
        When ``profiles`` is not a non-empty mapping of ConfidenceProfile.

    Notes
    -----
    Verdict per group from ``z = (CSR - 1) / sigma_CSR`` (000_efda01fc1c8d5c44.txt,
    section 2.1): z <= 1 "no evidence of overconfidence", 1 < z <= 3 "evidence of
    overconfidence", z > 3 "risky".  Contents follow 002_848142561181ac46.txt,
    section 6.5.

    Examples
    --------
    >>> from calreport import ConfidenceProfile
    >>> p = ConfidenceProfile.from_arrays(conf=[0.6, 0.9, 0.95, 0.7], correct=[1, 1, 0, 1])
    >>> s = pd.Series({"n": 4.0, "accuracy": 0.75, "csr": 5.0, "z_csr": 1.2})
    >>> rep = build_report({"all": p}, s, timestamp="2026-01-01T00:00:00Z")
    >>> rep.context["groups"][0]["band_label"]
    'evidence of overconfidence'
    """
    groups = _check_profiles(profiles)
    if not isinstance(top_errors, (int, np.integer)) or top_errors < 0:
        raise ValueError(f"`top_errors` must be a non-negative integer, got {top_errors!r}.")
    cells = _summary_cells(summary)
    attrs = dict(getattr(summary, "attrs", {}) or {})
    conf = _settings(attrs, settings, seed)
    labels = {group_name(k): val for k, val in (row_labels or {}).items()}
    for name, lab in labels.items():
        if name in groups and len(lab) != groups[name].n:
            raise ValueError(
                f"`row_labels[{name!r}]` has {len(lab)} labels but the group has "
                f"{groups[name].n} rows. Pass one label per row of the profile."
            )
    names = list(dict.fromkeys([*cells, *groups]))
    risks = {g: _risk(groups[g], conf) for g in groups}
    methods_used = _p_risk_methods(attrs, names, conf, risks)

    group_ctx = [_group_context(g, cells.get(g, {}), groups.get(g), risks.get(g),
                                methods_used.get(g, conf["p_risk_method"]))
                 for g in names]
    order = sorted(range(len(group_ctx)), key=lambda i: _risk_order(group_ctx[i]))
    group_ctx = [group_ctx[i] for i in order]
    metrics = _metric_rows(cells, [g["name"] for g in group_ctx])
    ts, ts_text = _timestamp(timestamp)
    context: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "title": str(title),
        "subject": None if subject is None else str(subject),
        "meta": {"version": __version__, "timestamp": ts_text,
                 "timestamp_iso": ts.isoformat().replace("+00:00", "Z"),
                 "generator": f"calreport {__version__}"},
        "overall": _overall(group_ctx),
        "data": _data_context(groups, group_ctx, group_label, data_notes, conf),
        "groups": group_ctx,
        "metric_tables": _chunk_metric_tables(metrics, [g["name"] for g in group_ctx]),
        "metrics": metrics,
        "group_table": _group_table(group_ctx, cells),
        "drivers": [_drivers(g["name"], groups[g["name"]], labels.get(g["name"]),
                             top_errors, conf["eps"])
                    for g in group_ctx if g["name"] in groups],
        "row_label_name": str(row_label_name),
        "methods": _methods(cells),
        "settings": _settings_rows(conf),
        "bootstrap": _bootstrap_rows(conf),
        "reasons": _reasons(attrs, cells),
        "figures": [],
    }
    context["figures"] = _figures(groups, [g["name"] for g in group_ctx], conf)
    return Report(context, summary, ts)


def _check_profiles(profiles: Any) -> dict[str, ConfidenceProfile]:
    if isinstance(profiles, ConfidenceProfile):
        return {"all": profiles}
    if not isinstance(profiles, Mapping) or not profiles:
        raise TypeError("`profiles` must be a non-empty mapping of group -> "
                        "ConfidenceProfile (use {'all': profile} when ungrouped).")
    out = {}
    for key, prof in profiles.items():
        if not isinstance(prof, ConfidenceProfile):
            raise TypeError(f"`profiles[{key!r}]` is a {type(prof).__name__}, not a "
                            "ConfidenceProfile.")
        out[group_name(key)] = prof
    return out


def _settings(attrs: Mapping[str, Any], settings: Mapping[str, Any] | None,
              seed: Any) -> dict[str, Any]:
    conf: dict[str, Any] = {"n_bins": 15, "strategy": "uniform", "tau": 0.5, "view": None,
                            "p_risk_method": "normal", "eps": 1e-8, "min_count": 1,
                            "ci": None, "ci_method": None, "n_boot": None, "seed": None}
    conf.update({k: val for k, val in dict(attrs.get("settings") or {}).items()
                 if val is not None})
    ci = attrs.get("ci") or {}
    conf.update({"ci": ci.get("level"), "ci_method": ci.get("method"),
                 "n_boot": ci.get("n_boot"), "seed": ci.get("seed", conf["seed"])})
    conf.update(dict(settings or {}))
    if seed is not None:
        conf["seed"] = seed
    v.check_n_bins(conf["n_bins"])
    v.check_option(conf["strategy"], "strategy", ("uniform", "quantile"))
    return conf


def _risk(prof: ConfidenceProfile, conf: Mapping[str, Any]) -> Any:
    from calreport.metrics import risk

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return risk.risk_summary(prof.conf, prof.correct, sample_weight=prof.sample_weight,
                                 eps=conf["eps"])


def _p_risk_methods(attrs: Mapping[str, Any], names: list[str], conf: Mapping[str, Any],
                    risks: Mapping[str, Any]) -> dict[str, str]:
    used = attrs.get("p_risk_method")
    if isinstance(used, Mapping):
        return {group_name(k): str(m) for k, m in used.items()}
    if isinstance(used, str):
        return dict.fromkeys(names, used)
    return {g: str(conf["p_risk_method"]) for g in names}


_METHOD_TEXT = {
    "normal": "normal approximation Φ(z)",
    "monte_carlo": "Monte Carlo under the calibrated null",
    "saddlepoint": "saddlepoint approximation",
    "exact": "exact null distribution",
}


def _group_context(name: str, cells: Mapping[str, Mapping[str, float]],
                   prof: ConfidenceProfile | None, rr: Any, method: str) -> dict[str, Any]:
    def pick(metric: str, fallback: float) -> float:
        val = _value(cells, metric)
        return fallback if math.isnan(val) and metric not in cells else val

    z = pick("z_csr", float(rr.z) if rr is not None else math.nan)
    band = _band(z)
    n_errors = None
    if prof is not None:
        w = prof.sample_weight
        n_errors = float(np.sum(~prof.correct) if w is None else np.sum(w[~prof.correct]))
    key_metrics = []
    for metric in ("accuracy", "csr", "sigma_csr", "ece", "brier"):
        if metric in cells:
            c = cells[metric]
            key_metrics.append({"name": metric, "label": _metric_info(metric)[0],
                                "value": c.get("value", math.nan),
                                "ci_low": c.get("ci_low", math.nan),
                                "ci_high": c.get("ci_high", math.nan)})
    return {
        "name": name,
        "n": pick("n", float(prof.n) if prof is not None else math.nan),
        "n_errors": n_errors,
        "n_dropped": pick("n_dropped", 0.0),
        "n_clipped": pick("n_clipped", math.nan),
        "band": band,
        "band_label": BANDS[band][0],
        "band_rule": BANDS[band][1],
        "csr": pick("csr", float(rr.csr) if rr is not None else math.nan),
        "csr_ci": [cells.get("csr", {}).get("ci_low", math.nan),
                   cells.get("csr", {}).get("ci_high", math.nan)],
        "sigma_csr": pick("sigma_csr", float(rr.sigma_csr) if rr is not None else math.nan),
        "z": z,
        "p_risk": pick("p_risk", float(rr.p_risk) if rr is not None else math.nan),
        "p_risk_method": method,
        "p_risk_method_text": _METHOD_TEXT.get(method, method.replace("_", " ")),
        "key_metrics": key_metrics,
        "has_profile": prof is not None,
    }


def _risk_order(g: Mapping[str, Any]) -> tuple[int, float, str]:
    z = g["z"]
    return (1 if math.isnan(z) else 0, -z if not math.isnan(z) else 0.0, g["name"])


def _overall(groups: list[dict[str, Any]]) -> dict[str, Any]:
    counts = {b: sum(g["band"] == b for g in groups) for b in BANDS}
    worst = groups[0] if groups and groups[0]["band"] != "undetermined" else None
    n = len(groups)
    if counts["risky"]:
        band = "risky"
    elif counts["evidence"]:
        band = "evidence"
    elif counts["none"]:
        band = "none"
    else:
        band = "undetermined"
    if n == 1:
        sentence = f"The predictions show {BANDS[band][0]}."
        if band == "risky":
            sentence = "The predictions are risky: their confidence is not to be trusted."
    else:
        flagged = counts["risky"] + counts["evidence"]
        sentence = (f"{flagged} of {n} groups show evidence of overconfidence "
                    f"({counts['risky']} risky)." if flagged else
                    f"None of the {n} groups shows evidence of overconfidence.")
    return {"band": band, "band_label": BANDS[band][0], "sentence": sentence,
            "counts": counts, "worst": None if worst is None else worst["name"],
            "worst_z": None if worst is None else worst["z"], "n_groups": n}


def _data_context(groups: Mapping[str, ConfidenceProfile], group_ctx: list[dict[str, Any]],
                  group_label: str | None, notes: Mapping[str, Any] | None,
                  conf: Mapping[str, Any]) -> dict[str, Any]:
    first = next(iter(groups.values()))
    classes = None
    for prof in groups.values():
        if prof.classes is not None:
            classes = [str(c) for c in prof.classes.tolist()]
            break
    views = sorted({conf["view"] or p.default_view for p in groups.values()})
    def total(key: str) -> float:
        vals = [g[key] for g in group_ctx if not math.isnan(g[key])]
        return float(sum(vals)) if vals else math.nan

    return {
        "n_rows": total("n"),
        "n_dropped": total("n_dropped"),
        "n_clipped": total("n_clipped"),
        "n_groups": len(group_ctx),
        "group_label": None if group_label is None else str(group_label),
        "grouped": len(group_ctx) > 1 or (group_ctx and group_ctx[0]["name"] != "all"),
        "classes": classes,
        "n_classes": None if classes is None else len(classes),
        "problem": ("binary" if first.is_binary else
                    "multiclass" if classes is not None else "confidence and correctness only"),
        "view": ", ".join(v_.replace("_", "-") for v_ in views),
        "weighted": any(p.sample_weight is not None for p in groups.values()),
        "notes": [{"name": str(k), "text": str(val)} for k, val in (notes or {}).items()],
    }


def _metric_rows(cells: Mapping[str, Mapping[str, Mapping[str, float]]],
                 order: list[str]) -> list[dict[str, Any]]:
    seen: list[str] = []
    for group_cells in cells.values():
        for m in group_cells:
            if m not in seen and m not in ("n_dropped", "n_clipped"):
                seen.append(m)
    rows = []
    for m in seen:
        label, better = _metric_info(m)
        values = []
        for g in order:
            c = cells.get(g, {}).get(m, {})
            values.append({"group": g, "value": c.get("value", math.nan),
                           "ci_low": c.get("ci_low", math.nan),
                           "ci_high": c.get("ci_high", math.nan)})
        rows.append({"name": m, "label": label, "higher_is_better": better,
                     "cells": values})
    return rows


def _chunk_metric_tables(rows: list[dict[str, Any]], order: list[str],
                         width: int = 4) -> list[dict[str, Any]]:
    tables = []
    for start in range(0, len(order), width):
        tables.append({"groups": order[start:start + width],
                       "rows": [{"name": r["name"], "label": r["label"],
                                 "higher_is_better": r["higher_is_better"],
                                 "cells": r["cells"][start:start + width]} for r in rows]})
    return tables


def _group_table(groups: list[dict[str, Any]],
                 cells: Mapping[str, Mapping[str, Mapping[str, float]]]) -> dict[str, Any]:
    present = [m for m in _GROUP_COLUMNS
               if any(m in cells.get(g["name"], {}) for g in groups)]
    columns = [{"name": m, "label": _GROUP_COLUMNS[m]} for m in present]
    rows = []
    for g in groups:
        c = cells.get(g["name"], {})
        rows.append({"group": g["name"], "band": g["band"], "band_label": _BAND_SHORT[g["band"]],
                     "cells": [{"name": m, "value": _value(c, m)} for m in present]})
    gaps = []
    for m in present:
        vals = [(g["name"], _value(cells.get(g["name"], {}), m)) for g in groups]
        vals = [(n, x) for n, x in vals if not math.isnan(x)]
        _, better = _metric_info(m)
        if m in _COUNTS or (better is None and m != "csr") or len(vals) < 2:
            gaps.append({"name": m, "gap": None, "worst": None})
            continue
        if m == "csr":  # distance from 1 is what matters for CSR
            worst = max(vals, key=lambda t: abs(t[1] - 1.0))
            best = min(vals, key=lambda t: abs(t[1] - 1.0))
        else:
            worst = (min if better else max)(vals, key=lambda t: t[1])
            best = (max if better else min)(vals, key=lambda t: t[1])
        gaps.append({"name": m, "gap": abs(worst[1] - best[1]), "worst": worst[0]})
    return {"columns": columns, "rows": rows, "gaps": gaps,
            "show_gaps": len(groups) > 1}


def _drivers(name: str, prof: ConfidenceProfile, labels: Sequence[Any] | None,
             k: int, eps: float) -> dict[str, Any]:
    from calreport.metrics import risk

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        contrib = np.asarray(risk.csr_contributions(prof.conf, prof.correct,
                                                    sample_weight=prof.sample_weight,
                                                    eps=eps), float)
    total = float(contrib.sum())
    wrong = np.flatnonzero(contrib > 0)
    order = wrong[np.argsort(-contrib[wrong], kind="stable")][:k]
    rows = []
    for i in order.tolist():
        rows.append({
            "row": str(labels[i]) if labels is not None else str(i),
            "confidence": float(prof.conf[i]),
            "y_true": _label(prof, prof.y_true, i),
            "y_pred": _label(prof, prof.y_pred, i),
            "contribution": float(contrib[i]),
            "share": float(contrib[i] / total) if total > 0 else math.nan,
        })
    share_top = float(contrib[order].sum() / total) if total > 0 else math.nan
    return {"group": name, "rows": rows, "n_errors": int(wrong.size), "csr": total,
            "share_top": share_top, "k": len(rows),
            "has_labels": prof.has_labels, "labelled": labels is not None}


def _label(prof: ConfidenceProfile, codes: np.ndarray | None, i: int) -> str | None:
    if codes is None or prof.classes is None:
        return None
    return str(prof.classes[int(codes[i])])


def _methods(cells: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """Definitions of the metrics shown, citing numbered references."""
    present = {m for group_cells in cells.values() for m in group_cells}
    used = [m for m in _METHODS if m in present]
    papers = sorted({_METHODS[m][1] for m in used} | {"000", "002"})
    number = {key: i + 1 for i, key in enumerate(papers)}
    rows = []
    for m in used:
        formula, paper, where = _METHODS[m]
        rows.append({"name": m, "label": _metric_info(m)[0], "formula": formula,
                     "ref": number[paper], "where": where,
                     "source": f"{PAPERS[paper][2]}, {where}"})
    refs = [{"number": number[k], "title": PAPERS[k][0], "authors": PAPERS[k][1],
             "file": PAPERS[k][2]} for k in papers]
    return {"rows": rows, "references": refs, "risk_ref": number["000"],
            "reporting_ref": number["002"]}


def _settings_rows(conf: Mapping[str, Any]) -> list[dict[str, str]]:
    view = conf["view"] or "default (positive class for binary input, else top-label)"
    rows = [
        ("Calibration view", str(view).replace("_", "-")),
        ("Bins (ECE, MCE, reliability diagram)",
         f"{conf['n_bins']} {conf['strategy']} bins"
         + (" ((m−1)/M, m/M], 0 in the first bin" if conf["strategy"] == "uniform"
            else ", equal mass, ties kept together")),
        ("Minimum rows per bin for MCE", str(conf["min_count"])),
        ("Per-bin intervals", "Wilson score interval, 95 %"),
        ("Smoothing (calibration curve, LCS)",
         f"LOWESS, local linear, tricube weights, span {_lowess_frac():g} of the rows, no "
         "robustness iterations (outcomes are 0/1); 100 grid points within the observed "
         "score range"),
        ("Selective threshold τ (CWSA, CWSA+)", f"{conf['tau']:g}"),
        ("Confidence clipping for CSR", f"[ε, 1 − ε], ε = {conf['eps']:g}"),
        ("P_risk", _METHOD_TEXT.get(str(conf["p_risk_method"]),
                                    str(conf["p_risk_method"]))),
    ]
    return [{"name": a, "value": b} for a, b in rows]


def _lowess_frac() -> float:
    from calreport.metrics import local

    return float(local.DEFAULT_FRAC)


def _bootstrap_rows(conf: Mapping[str, Any]) -> dict[str, Any]:
    if conf.get("ci") is None:
        return {"used": False, "rows": []}
    level = float(conf["ci"])
    rows = [
        ("Confidence level", f"{100 * level:g} %"),
        ("Interval method", str(conf.get("ci_method") or "percentile")),
        ("Replicates", _fmt_count(conf.get("n_boot"))),
        ("Resampling", "rows with replacement, within each group"),
        ("Seed", "not fixed" if conf.get("seed") is None else str(conf["seed"])),
    ]
    return {"used": True, "level": level, "rows": [{"name": a, "value": b} for a, b in rows]}


def _reasons(attrs: Mapping[str, Any],
             cells: Mapping[str, Any]) -> list[dict[str, str]]:
    raw = attrs.get("reasons") or {}
    out = []
    for key, why in raw.items():
        if isinstance(key, tuple) and len(key) == 2:
            group, metric = group_name(key[0]), str(key[1])
        else:
            group, metric = "all", str(key)
        out.append({"group": group, "metric": metric, "reason": str(why)})
    return out


def _timestamp(ts: _dt.datetime | str | None) -> tuple[_dt.datetime, str]:
    if ts is None:
        ts = _dt.datetime.now(_dt.timezone.utc).replace(microsecond=0)
    elif isinstance(ts, str):
        try:
            ts = _dt.datetime.fromisoformat(ts.replace("Z", "+00:00"))
        except ValueError:
            raise ValueError(f"`timestamp` {ts!r} is not an ISO 8601 date-time, e.g. "
                             "'2026-01-31T12:00:00Z'.") from None
    elif not isinstance(ts, _dt.datetime):
        raise TypeError(f"`timestamp` must be a datetime or an ISO string, got "
                        f"{type(ts).__name__}.")
    if ts.tzinfo is None:
        ts = ts.replace(tzinfo=_dt.timezone.utc)
    ts = ts.astimezone(_dt.timezone.utc)
    return ts, ts.strftime("%Y-%m-%d %H:%M:%S UTC")


# ----------------------------------------------------------------------- figures
_MAX_HISTOGRAMS = 6


def _figures(groups: Mapping[str, ConfidenceProfile], order: list[str],
             conf: Mapping[str, Any]) -> list[dict[str, Any]]:
    from matplotlib.figure import Figure

    from calreport import plotting

    present = {g: groups[g] for g in order if g in groups}
    # one ungrouped profile is drawn without a legend entry per group
    overlay: Any = present["all"] if list(present) == ["all"] else present
    view = conf["view"]
    out: list[dict[str, Any]] = []

    def add(fig_id: str, title: str, caption: str, draw: Any) -> None:
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                ax = draw()
        except (ValueError, np.linalg.LinAlgError) as exc:
            out.append({"id": fig_id, "title": title, "caption": caption, "uri": None,
                        "format": None, "error": str(exc)})
            return
        fig = ax.figure
        if len(fig.axes) == 1:
            ax.set_title("")  # the report's heading names the figure
        uri = plotting.figure_to_data_uri(fig)
        out.append({"id": fig_id, "title": title, "caption": caption, "uri": uri,
                    "format": uri[5:uri.index(";")], "error": None})

    if len(present) > 1:
        add("risk", "Overconfidence risk by group",
            "z = (CSR − 1) / σ_CSR per group against the 1σ and 3σ bands; the worst group "
            "is on top.", lambda: plotting.risk_plot(present))
    add("reliability", "Reliability diagram",
        f"Observed frequency against mean score in {conf['n_bins']} {conf['strategy']} "
        "bins with 95 % Wilson intervals; the bars underneath count the rows per bin. "
        "Points below the diagonal are overconfident.",
        lambda: plotting.reliability_diagram(overlay, view=view, n_bins=conf["n_bins"],
                                             strategy=conf["strategy"]))
    add("calibration_curve", "Calibration curve",
        "LOWESS estimate of the observed frequency given the score, with the Local "
        "Calibration Score of each group in the legend.",
        lambda: plotting.calibration_curve_plot(overlay, view=view))
    shown = list(present)[:_MAX_HISTOGRAMS]
    if shown:
        def histograms() -> Any:
            ncols = 1 if len(shown) == 1 else 2
            nrows = math.ceil(len(shown) / ncols)
            fig = Figure(figsize=(6.4 if ncols == 1 else 7.6, 3.4 * nrows if ncols == 1
                                  else 2.8 * nrows), layout="constrained")
            axes = fig.subplots(nrows, ncols, squeeze=False).ravel()
            for ax, g in zip(axes, shown, strict=False):
                plotting.confidence_histogram(present[g] if g == "all" else {g: present[g]},
                                              ax=ax)
                if len(shown) > 1:
                    ax.legend(fontsize="x-small", frameon=False, loc="upper left")
            for ax in axes[len(shown):]:
                ax.set_visible(False)
            return axes[0]
        more = "" if len(present) <= _MAX_HISTOGRAMS else (
            f" The {_MAX_HISTOGRAMS} riskiest of {len(present)} groups are shown.")
        add("confidence_histogram", "Confidence histograms",
            "Top-label confidence of correct predictions and errors; solid line: accuracy, "
            "dotted line: mean confidence (right of the accuracy = overconfident on "
            "average)." + more, histograms)
    first = next(iter(present.values()))
    if first.is_binary and all(p.y_true is not None for p in present.values()):
        add("roc", "ROC and confidence-weighted ROC",
            "Solid: ROC; dashed: cwROC, where every row counts with its confidence, so its "
            "area is cwAUC. cwAUC above AUC: confidence helps ranking.",
            lambda: plotting.roc_plot(overlay))
    add("selective", "Selective prediction",
        "Coverage, selective accuracy, CWSA and CWSA+ when predictions with confidence "
        "below τ are withheld.", lambda: plotting.selective_plot(overlay))
    add("risk_drivers", "Share of CSR from the top errors",
        "Cumulative share of CSR carried by the errors, most overconfident first "
        "(log scale): a steep rise means a few confident errors make the risk.",
        lambda: plotting.risk_drivers_plot(overlay))
    return out


# ------------------------------------------------------------------ accessor entry
def report_from_accessor(
    accessor: Any,
    *,
    title: str = "Calibration audit",
    subject: str | None = None,
    metrics: Sequence[str] | None = None,
    ci: float | None = 0.95,
    n_boot: int = 1000,
    ci_method: str = "percentile",
    seed: Any = None,
    n_bins: int = 15,
    strategy: str = "uniform",
    tau: float = 0.5,
    view: str | None = None,
    p_risk_method: str = "normal",
    row_label: Hashable | None = None,
    data_notes: Mapping[str, Any] | None = None,
    timestamp: _dt.datetime | str | None = None,
    top_errors: int = 10,
    progress: bool | None = None,
) -> Report:
    """The report of ``df.calib`` or ``df.groupby(key).calib`` (their ``report()``).

    Computes the summary with bootstrap intervals (``ci=None`` for point estimates)
    and passes it with the profiles to :func:`build_report`.

    Parameters
    ----------
    accessor : CalibAccessor or GroupByCalibAccessor
    title, subject, data_notes, timestamp, top_errors
        See :func:`build_report`.
    metrics, ci, n_boot, ci_method, seed, n_bins, strategy, tau, view, p_risk_method, \
progress
        See ``df.calib.summary``.
    row_label : column name, optional
        Column naming the rows in the list of most overconfident errors (default: the
        DataFrame index).

    Returns
    -------
    Report
    """
    summary = accessor.summary(metrics, ci=ci, n_boot=n_boot, ci_method=ci_method,
                               seed=seed, n_bins=n_bins, strategy=strategy, tau=tau,
                               view=view, p_risk_method=p_risk_method, progress=progress)
    obj, items, group_label = _accessor_parts(accessor)
    if row_label is not None and row_label not in obj.columns:
        raise ValueError(f"`row_label` {row_label!r} is not a column; columns: "
                         f"{list(obj.columns)[:20]}.")
    labels = {}
    for key, _, index in items:
        # label lookup by index needs a unique index; otherwise keep the index labels
        use_column = row_label is not None and obj.index.is_unique
        labels[key] = list(obj.loc[index, row_label]) if use_column else list(index)
    if not isinstance(summary, pd.DataFrame) or summary.index.name == "metric":
        summary = _one_row(summary)
    name = row_label if row_label is not None else obj.index.name
    return build_report({key: prof for key, prof, _ in items}, summary, title=title,
                        subject=subject, group_label=group_label, row_labels=labels,
                        seed=seed, data_notes=data_notes, timestamp=timestamp,
                        top_errors=top_errors,
                        row_label_name="Row" if name is None else str(name))


def _accessor_parts(acc: Any) -> tuple[pd.DataFrame, list[tuple[Any, Any, Any]], str | None]:
    """The frame, ``(group key, profile, index of its rows)`` items and the group label."""
    if hasattr(acc, "_gb"):
        _, raw = acc._profiles()
        items = [(key, prof, index) for key, prof, _, _, index in raw if prof is not None]
        keys = acc._gb.keys if isinstance(acc._gb.keys, list) else [acc._gb.keys]
        names = [k if isinstance(k, str) else getattr(k, "name", None) for k in keys]
        label = " / ".join(str(n) for n in names if n is not None)
        return acc._gb.obj, items, label or None
    prof, _, keep = acc._profile()
    return acc._obj, [("all", prof, acc._obj.index[keep])], None


def _one_row(summary: pd.Series | pd.DataFrame) -> pd.DataFrame:
    """An ungrouped summary (Series, or metric x stat) as a one-row frame ``"all"``.

    Reports then hold the same layout as grouped ones (``report.summary``).
    """
    attrs = dict(summary.attrs)
    if isinstance(summary, pd.Series):
        out = pd.DataFrame([summary.to_numpy()], index=["all"], columns=list(summary.index))
    else:
        cols = pd.MultiIndex.from_product([list(summary.index), list(summary.columns)],
                                          names=["metric", "stat"])
        out = pd.DataFrame([summary.to_numpy().ravel()], index=["all"], columns=cols)
    out.attrs = attrs
    if isinstance(attrs.get("p_risk_method"), str):
        out.attrs["p_risk_method"] = {"all": attrs["p_risk_method"]}
    if isinstance(attrs.get("reasons"), Mapping):
        out.attrs["reasons"] = {("all", k): why for k, why in attrs["reasons"].items()}
    return out


# ---------------------------------------------------------------------------- PDF
_FONT_FILES = {("normal", "normal"): "DejaVuSans.ttf", ("bold", "normal"): "DejaVuSans-Bold.ttf",
               ("normal", "italic"): "DejaVuSans-Oblique.ttf",
               ("bold", "italic"): "DejaVuSans-BoldOblique.ttf"}
_MONO_FILES = {("normal", "normal"): "DejaVuSansMono.ttf",
               ("bold", "normal"): "DejaVuSansMono-Bold.ttf"}


def _font_faces() -> tuple[str, set[str]]:
    """@font-face rules for matplotlib's bundled DejaVu fonts, and their file URLs."""
    import matplotlib

    folder = Path(matplotlib.get_data_path()) / "fonts" / "ttf"
    rules, urls = [], set()
    for family, files in (("DejaVu Sans", _FONT_FILES), ("DejaVu Sans Mono", _MONO_FILES)):
        for (weight, style), name in files.items():
            path = folder / name
            if path.is_file():
                url = path.resolve().as_uri()
                urls.add(url)
                rules.append(f'@font-face {{ font-family: "{family}"; src: url("{url}"); '
                             f"font-weight: {weight}; font-style: {style}; }}")
    return "\n".join(rules), urls


def _url_fetcher(weasyprint: Any, allowed: set[str]) -> Any:
    """A fetcher that refuses everything but ``data:`` URIs and the font files."""

    def refuse(url: str) -> None:
        if not (url.startswith("data:") or url in allowed):
            raise ValueError(f"calreport reports fetch no external resource (refused {url!r})")

    base = getattr(weasyprint, "URLFetcher", None)
    if base is not None:  # WeasyPrint >= 68: fetchers are URLFetcher subclasses

        class _Fetcher(base):  # type: ignore[misc, valid-type]
            def fetch(self, url: str, headers: Any = None) -> Any:
                refuse(url)
                return super().fetch(url, headers)

        return _Fetcher()

    def fetch(url: str) -> Any:
        refuse(url)
        return weasyprint.default_url_fetcher(url)

    return fetch


def _render_pdf(html: str, attachment: bytes, timestamp: _dt.datetime) -> bytes:
    try:
        import weasyprint
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "PDF reports need WeasyPrint: pip install calreport[pdf] (or pip install "
            f"weasyprint). The HTML report needs nothing more: report.to_html(). ({exc})"
        ) from None
    import inspect
    import logging

    from weasyprint.text.fonts import FontConfiguration

    faces, allowed = _font_faces()
    fetcher = _url_fetcher(weasyprint, allowed)
    fonts = FontConfiguration()
    css = weasyprint.CSS(string=faces, font_config=fonts, url_fetcher=fetcher)
    naive = timestamp.astimezone(_dt.timezone.utc).replace(tzinfo=None)
    att_kw = {"string": attachment, "name": "calreport-report.json",
              "description": "Numbers of this report (calreport JSON)",
              "created": naive, "modified": naive, "url_fetcher": fetcher}
    accepted = inspect.signature(weasyprint.Attachment).parameters
    att = weasyprint.Attachment(**{k: val for k, val in att_kw.items() if k in accepted})
    logger = logging.getLogger("weasyprint")
    level = logger.level
    logger.setLevel(max(level, logging.ERROR))  # refused fetches are expected, not news
    # the font subsetter stamps each embedded font with the current time unless
    # SOURCE_DATE_EPOCH is set (reproducible-builds convention): use the report's time
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    os.environ["SOURCE_DATE_EPOCH"] = str(int(timestamp.timestamp()))
    try:
        doc = weasyprint.HTML(string=html, url_fetcher=fetcher).render(
            stylesheets=[css], font_config=fonts)
        return doc.write_pdf(attachments=[att], pdf_identifier=_digest(html))
    finally:
        logger.setLevel(level)
        if epoch is None:
            os.environ.pop("SOURCE_DATE_EPOCH", None)
        else:
            os.environ["SOURCE_DATE_EPOCH"] = epoch


def _digest(text: str) -> bytes:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:32].encode("ascii")
