"""How a :class:`~calreport.result.CalibrationResult` shows itself in a console or notebook.

``repr()`` is a few lines (groups, metrics, interval settings, risk bands) instead of
the dataclass's every field; ``_repr_html_`` is a table of metrics by group, each
NaN carrying its reason as a tooltip.  Both read the result only.
"""

from __future__ import annotations

import html
import math
from collections import Counter
from typing import Any

from calreport._numbers import format_number
from calreport.registry import REGISTRY

__all__ = ["MAX_HTML_GROUPS", "result_html", "result_repr", "result_text", "sampled_parts",
           "sampling_error"]

#: Groups shown as columns of the HTML table; ``summary()`` holds all of them.
MAX_HTML_GROUPS = 10
#: Metrics named in the text repr before "...".
_MAX_NAMED_METRICS = 8
#: Groups whose band the text repr names one by one; above, counts per band.
_MAX_NAMED_BANDS = 5


def _groups_line(result: Any) -> str:
    n = len(result.groups)
    rows = result.data.get("n_rows")
    rows_text = "" if rows is None else f", {rows:,} rows"
    if not result.grouped:
        return f"ungrouped{rows_text}"
    label = result.data.get("group_label")
    by = f" by {label}" if label else ""
    pooled = " + overall" if result.overall is not None else ""
    return f"{n} group{'s' if n != 1 else ''}{by}{pooled}{rows_text}"


def _metrics_line(result: Any) -> str:
    names = list(result.metrics)
    shown = ", ".join(names[:_MAX_NAMED_METRICS])
    more = f", ... ({len(names)} metrics)" if len(names) > _MAX_NAMED_METRICS else ""
    return shown + more


def _interval_line(result: Any) -> str:
    ci = result.ci
    if ci is None:
        return "none (ci=None)"
    method = ci.get("method") or "each metric's default"
    line = (f"level {ci['level']:g}, method {method}, {ci['n_boot']} {ci['resampling']} "
            f"replicates, seed {ci.get('seed')!r}")
    return line


def refit_note(result: Any, flag: str = "refit=True") -> str:
    """What a result without the refitting bootstrap says of it ("" when it has one).

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    >>> refit_note(df.calib(y="y", proba="p").evaluate(["ece", "lcs"], ci=0.9, n_boot=20))
    'no interval for lcs: refit=True refits them'
    """
    skipped = (result.ci or {}).get("not_refitted", [])
    if not skipped:
        return ""
    more = f" and {len(skipped) - 3} more" if len(skipped) > 3 else ""
    return f"no interval for {', '.join(skipped[:3])}{more}: {flag} refits them"


def _bands_line(result: Any) -> str:
    groups = list(result.groups)
    if result.overall is not None:
        groups.append(result.overall)
    if not groups or all(g.risk is None for g in groups):
        return "not assessed (evaluate() assesses them)"
    if len(groups) <= _MAX_NAMED_BANDS + (result.overall is not None):
        return ", ".join(f"{g.name}: {g.band}" for g in groups)
    counts = Counter(g.band for g in result.groups)
    text = ", ".join(f"{band} {k}" for band, k in counts.most_common())
    if result.overall is not None:
        text += f"; overall: {result.overall.band}"
    return text


def sampling_error(result: Any, g: Any, metric: str) -> float | None:
    """Half-width of the 95 % sampling error of a sampled metric in group ``g`` (None:
    the metric was not computed on a sample, or has no sampling error)."""
    errors = result.data.get("sampling_error")
    if not errors:
        return None
    return errors["by_group"].get(g.name, {}).get(metric)


def sampled_parts(result: Any) -> tuple[list[str], list[str]]:
    """``"<metric> ±<largest h over the groups>"`` of every metric with a sampling
    error (with its measured coverage where below the stated rate), and the sampled
    tests that have none."""
    errors = result.data.get("sampling_error") or {"by_group": {}, "notes": {}}
    parts, tests = [], []
    for m, note in errors["notes"].items():
        if not any(m in by for by in errors["by_group"].values()):
            tests.append(m)
            continue
        hs = [by[m] for by in errors["by_group"].values() if not math.isnan(by.get(m, math.nan))]
        short = note.split(" (", 1)[1].rstrip(")") if "below" in note else ""
        parts.append(f"{m} ±{_number(max(hs)) if hs else 'NaN'}"
                     + (f" ({short})" if short else ""))
    return parts, tests


def _sampled_line(result: Any) -> str:
    """The repr's line on sampled metrics: each one's largest sampling error."""
    errors = result.data.get("sampling_error")
    if not errors:
        return ""
    parts, tests = sampled_parts(result)
    line = (f"{', '.join(parts)} (largest {errors['level']:.0%} sampling error on "
            f"{result.data.get('sample_size', 0):,}-row samples)")
    if tests:
        line += f"; {', '.join(tests)}: tests on the sample, no sampling error"
    return line


def result_repr(result: Any) -> str:
    """The few lines ``repr(result)`` shows.

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    >>> print(result_repr(df.calib(y="y", proba="p").evaluate(["accuracy", "csr"])))
    CalibrationResult: ungrouped, 120 rows
      metrics:   accuracy, csr
      intervals: none (ci=None)
      bands:     all: no_evidence
      .summary() for the table, .to_dict() for JSON, .check(gates) for release gates
    """
    return "\n".join([
        f"CalibrationResult: {_groups_line(result)}",
        f"  metrics:   {_metrics_line(result)}",
        f"  intervals: {_interval_line(result)}",
        *([f"             {note}"] if (note := refit_note(result)) else []),
        *([f"  sampled:   {line}"] if (line := _sampled_line(result)) else []),
        f"  bands:     {_bands_line(result)}",
        "  .summary() for the table, .to_dict() for JSON, .check(gates) for release gates",
    ])


def _number(x: float, metric: str = "", *, bound: bool = False) -> str:
    """A number as a cell shows it: a probability-scale metric (registry bounds within
    [-1, 1]) in four decimals, never in scientific notation (a value, not an interval
    ``bound``, below 0.00005 reads ``< 0.0001``), as the report prints it; any other
    number in four significant digits."""
    if math.isnan(x):
        return "NaN"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    if metric in REGISTRY and REGISTRY[metric].unit_scale:
        return format_number(x, fixed=True, below=not bound).replace("\u2212", "-")
    return f"{x:.4g}"


def _cell_text(result: Any, g: Any, metric: str) -> tuple[str, str]:
    """A cell's text, ``value [ci_low, ci_high]`` or ``value ± h``, and why it is NaN
    or how it reads (empty when plain)."""
    value = g.get(metric)
    text = _number(value, metric)
    if result.ci is not None and metric in g.intervals:
        lo, hi = g.get(metric, "ci_low"), g.get(metric, "ci_high")
        if not (math.isnan(lo) and math.isnan(hi)):  # no interval: the value alone
            text += (f" [{_number(lo, metric, bound=True)}, "
                     f"{_number(hi, metric, bound=True)}]")
    why = g.reasons.get(metric)
    h = sampling_error(result, g, metric)
    if h is not None and not math.isnan(h):
        text += f" ± {_number(h, metric, bound=True)}"
        note = result.data["sampling_error"]["notes"].get(metric, "")
        why = f"{why}; {note}" if why else note
    return text, why or ""


def _cell(result: Any, g: Any, metric: str) -> str:
    text, why = _cell_text(result, g, metric)
    title = f' title="{html.escape(why)}"' if why else ""
    return f"<td{title}>{html.escape(text)}</td>"


def result_text(result: Any) -> Any:
    """The table a terminal shows for a grouped result: metrics by group, as text.

    The rows of :func:`result_html` (the risk band, the counts, every metric) and its
    cells, ``value [ci_low, ci_high]``, for every group: a metric reads down a column
    instead of across five columns of statistics (``summary()`` keeps those).

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30,
    ...                    "g": ["a", "b"] * 60})
    >>> t = result_text(df.groupby("g").calib(y="y", proba="p").evaluate(["accuracy"]))
    >>> list(t.columns), t.loc["accuracy"].tolist()
    (['a', 'b', 'overall'], ['1.0000', '1.0000', '1.0000'])
    """
    import pandas as pd  # lazy: pandas

    shown = [*result.groups, *([result.overall] if result.overall is not None else [])]
    rows = {"risk band": [g.band for g in shown]}
    for metric in result.columns:
        rows[metric] = [_cell_text(result, g, metric)[0] for g in shown]
    return pd.DataFrame(rows, index=[str(g.name) for g in shown]).T.rename_axis("metric")


def result_html(result: Any) -> str:
    """The HTML table a notebook shows for a result: metrics by group.

    Rows are the counts, the risk band and the metrics; columns the groups (at most
    :data:`MAX_HTML_GROUPS`, then the pooled rows).  With intervals a cell reads
    ``value [ci_low, ci_high]``; a metric computed on a sample out of core reads
    ``value ± h`` (its 95 % sampling error, the tooltip saying how it reads); a NaN
    cell's tooltip says why.

    Examples
    --------
    >>> import pandas as pd, calreport
    >>> df = pd.DataFrame({"y": [0, 1, 1, 0] * 30, "p": [0.2, 0.7, 0.9, 0.4] * 30})
    >>> result_html(df.calib(y="y", proba="p").evaluate(["csr"])).startswith("<table")
    True
    """
    shown = list(result.groups[:MAX_HTML_GROUPS])
    if result.overall is not None:
        shown.append(result.overall)
    esc = html.escape
    caption = (f"CalibrationResult: {esc(_groups_line(result))}; intervals: "
               f"{esc(_interval_line(result))}")
    if note := refit_note(result):
        caption += f"; {esc(note)}"
    if errors := result.data.get("sampling_error"):
        caption += (f"; ± = {errors['level']:.0%} sampling error of a metric computed on "
                    f"a sample ({esc(errors['method'])})")
    if len(result.groups) > MAX_HTML_GROUPS:
        caption += (f"; the first {MAX_HTML_GROUPS} of {len(result.groups)} groups shown "
                    "(.summary() holds all)")
    head = "".join(f"<th>{esc(str(g.name))}</th>" for g in shown)
    rows = ["<tr><th>risk band</th>" + "".join(f"<td>{esc(g.band)}</td>" for g in shown)
            + "</tr>"]
    for metric in result.columns:
        rows.append(f"<tr><th>{esc(metric)}</th>"
                    + "".join(_cell(result, g, metric) for g in shown) + "</tr>")
    return (f'<table class="calreport-result"><caption>{caption}</caption>'
            f"<thead><tr><th>metric</th>{head}</tr></thead>"
            f"<tbody>{''.join(rows)}</tbody></table>")
