"""Formatting filters, the Jinja2 environment, template lookup and JSON conversion.

Every number the templates print goes through one of the filters here (``num``,
``count``, ``pct``, ``metric``, ``ci``, ``confidence``); the JSON export never
formats: it carries numbers (NaN as ``null``).
"""

from __future__ import annotations

import datetime as _dt
import functools
import math
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from calreport._grouping import group_name
from calreport._numbers import format_number as _fmt_number
from calreport.registry import COUNT_COLUMNS, REGISTRY

__all__ = ["environment", "template_dir", "to_jsonable"]

# ------------------------------------------------------------------------- templates
def template_dir() -> Path:
    """Folder of the report templates.

    The wheel ships them as ``calreport/templates``; in a source checkout they are
    the repository's top-level ``templates/`` folder.
    """
    packaged = Path(str(resources.files("calreport"))) / "templates"
    if (packaged / "report.html.j2").is_file():
        return packaged
    source = Path(__file__).resolve().parents[2] / "templates"
    if (source / "report.html.j2").is_file():
        return source
    raise FileNotFoundError(
        f"calreport's report templates are missing (looked in {packaged} and {source}). "
        "Reinstall calreport."
    )


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
    return f"{x:.{digits}f} %".replace("-", "−")


def _fmt_confidence(value: Any) -> str:
    """A confidence with the digits that matter near 1 (``1 − 5.6e−06``)."""
    if value is None or math.isnan(float(value)):
        return "—"
    c = float(value)
    if 0.9999 <= c < 1.0:
        return f"1 − {1.0 - c:.1e}".replace("-", "−")
    return f"{c:.6f}"


def _fmt_metric(value: Any, name: str = "", *, bound: bool = False) -> str:
    """Format one metric value by its kind (counts, percentages, ratios); a value, not
    an interval ``bound``, of a probability-scale metric never rounds to a false 0."""
    if name in COUNT_COLUMNS or name in ("n_errors", "n_certain", "n_certain_wrong"):
        return _fmt_count(value)
    if name == "p_risk_adjusted" or (name in REGISTRY and REGISTRY[name].percent):
        return _fmt_percent(value)
    if name == "z_csr":
        return _fmt_number(value, 2)
    # a probability-scale metric reads in decimals, never as 3.1e-05
    fixed = name in REGISTRY and REGISTRY[name].unit_scale
    return _fmt_number(value, fixed=fixed, below=fixed and not bound)


def _fmt_ci(low: Any, high: Any, name: str = "", method: str = "") -> str:
    """``"low to high"``; a one-sided bound as ``"≤ high"`` or ``"≥ low"`` (``method``,
    default the metric's registry method); an empty string without an interval."""
    if low is None or high is None or math.isnan(float(low)) or math.isnan(float(high)):
        return ""
    if not method and name in REGISTRY:
        method = REGISTRY[name].interval.method
    if method == "upper":
        return f"≤ {_fmt_metric(high, name, bound=True)}"
    if method == "lower":
        return f"≥ {_fmt_metric(low, name, bound=True)}"
    return f"{_fmt_metric(low, name, bound=True)} to {_fmt_metric(high, name, bound=True)}"


_MD_SPECIAL = str.maketrans({c: "\\" + c for c in "\\`*_{}[]<>#|!~"} | {"&": "&amp;"})


def _md_escape(value: Any) -> Any:
    """Escape every printed value of the Markdown template (user strings included)."""
    if isinstance(value, str):
        return value.translate(_MD_SPECIAL).replace("\n", " ")
    return value


_FILTERS = {"num": _fmt_number, "count": _fmt_count, "pct": _fmt_percent,
            "metric": _fmt_metric, "ci": _fmt_ci, "confidence": _fmt_confidence}


def environment(markdown: bool = False, override: str | Path | None = None) -> Any:
    """The Jinja2 environment: ``override`` (a folder) is searched before the packaged
    templates, so a user can replace one template or extend a block of it."""
    folders = [str(template_dir())]
    if override is not None:
        path = Path(override)
        if not path.is_dir():
            raise ValueError(f"`template_dir` {str(path)!r} is not a folder. Pass the folder "
                             "holding your report.html.j2 (or other templates to override).")
        folders.insert(0, str(path.resolve()))
    return _environment(tuple(folders), markdown)


@functools.lru_cache(maxsize=8)
def _environment(folders: tuple[str, ...], markdown: bool) -> Any:
    import jinja2

    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(list(folders)),
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


