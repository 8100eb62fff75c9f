"""Command line: ``calreport summary | report | demo``.

Exit codes: 0 success, 1 a ``--fail-on`` gate failed, 2 usage or input error
(one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import math
import operator
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2

_GATE = re.compile(r"^\s*([a-z_][a-z0-9_]*)\s*(<=|>=|==|!=|<|>)\s*([-+0-9.eE]+|nan|inf)\s*$")
_OPS = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge,
        "==": operator.eq, "!=": operator.ne}


class UsageError(Exception):
    """A user error reported as one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        raise UsageError(message)


def parse_gate(expr: str) -> tuple[str, str, float]:
    """Parse a gate such as ``"p_risk>0.99"`` into (metric, operator, threshold).

    The gate *fails* (exit code 1) when the comparison is true for any group.
    """
    from calreport.summary import METRICS

    m = _GATE.match(expr)
    if not m:
        raise UsageError(
            f"bad --fail-on expression {expr!r}: use METRIC OP NUMBER, e.g. 'p_risk>0.99' "
            "or 'ece>=0.05' (OP one of < <= > >= == !=)"
        )
    name, op, num = m.groups()
    if name not in METRICS and name not in ("n", "n_dropped", "n_clipped"):
        raise UsageError(f"unknown metric {name!r} in --fail-on; known: {', '.join(METRICS)}")
    return name, op, float(num)


def _add_columns(p: argparse.ArgumentParser) -> None:
    g = p.add_argument_group("columns (default: inferred from conventional names)")
    g.add_argument("--y", help="true-label column")
    g.add_argument("--proba", action="append",
                   help="probability column (repeat for one column per class)")
    g.add_argument("--pred", help="predicted-label column")
    g.add_argument("--conf", help="confidence column")
    g.add_argument("--correct", help="0/1 correctness column")
    g.add_argument("--weight", help="sample-weight column")
    g.add_argument("--pos-label", help="positive class of a binary probability column")
    g.add_argument("--threshold", type=float, default=0.5)
    g.add_argument("--missing", choices=("raise", "drop"), default="raise")
    g.add_argument("--by", action="append", help="group column (repeatable)")
    o = p.add_argument_group("metric options")
    o.add_argument("--metrics", help="comma-separated metric names (default: all)")
    o.add_argument("--n-bins", type=int, default=15)
    o.add_argument("--strategy", choices=("uniform", "quantile"), default="uniform")
    o.add_argument("--tau", type=float, default=0.5)
    o.add_argument("--view", choices=("top_label", "positive"))
    o.add_argument("--ci", type=float, help="confidence level of bootstrap intervals, e.g. 0.95")
    o.add_argument("--n-boot", type=int, default=1000)
    o.add_argument("--seed", type=int, default=0)
    o.add_argument("--fail-on", action="append", default=[],
                   help="gate, e.g. 'p_risk>0.99': exit 1 when true for any group")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``calreport`` command."""
    from calreport import __version__

    p = _Parser(prog="calreport", description="Calibration and overconfidence-risk audit of "
                "classifier predictions (CSV or Parquet, one row per prediction).")
    p.add_argument("--version", action="version", version=f"calreport {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    s = sub.add_parser("summary", help="print the summary metrics")
    s.add_argument("file", help="CSV or Parquet file of predictions")
    s.add_argument("--format", choices=("table", "csv", "json"), default="table")
    _add_columns(s)
    r = sub.add_parser("report", help="render the model-card audit report")
    r.add_argument("file", help="CSV or Parquet file of predictions")
    r.add_argument("-o", "--output", action="append", required=True,
                   help="output file; format from the suffix (.html, .pdf, .json, .md); "
                   "repeatable")
    r.add_argument("--json", dest="json_out", help="also write the results as JSON")
    r.add_argument("--title", default="Calibration audit")
    r.add_argument("--subject", help="what is audited (model name, data set)")
    _add_columns(r)
    d = sub.add_parser("demo", help="render the report of the embedded demo data")
    d.add_argument("-o", "--output", action="append", default=None,
                   help="output file (.html, .pdf, .json, .md); default calreport-demo.html")
    d.add_argument("--n-boot", type=int, default=1000)
    d.add_argument("--seed", type=int, default=0)
    d.add_argument("--fail-on", action="append", default=[])
    return p


def _read(path: str) -> Any:
    import pandas as pd

    f = Path(path)
    if not f.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        if f.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(f)
        return pd.read_csv(f)
    except ImportError as exc:
        raise UsageError(f"cannot read {path}: {exc}") from None
    except Exception as exc:  # parser errors of many kinds
        raise UsageError(f"cannot read {path} as a table: {exc}".splitlines()[0]) from None


def _accessor(df: Any, args: argparse.Namespace) -> Any:
    import calreport  # noqa: F401  (registers the accessors)

    proba: Any = args.proba
    if proba is not None and len(proba) == 1:
        proba = proba[0]
    if args.by:
        missing = [c for c in args.by if c not in df.columns]
        if missing:
            raise UsageError(f"unknown --by column(s) {missing}; columns: {list(df.columns)}")
        base = df.groupby(args.by if len(args.by) > 1 else args.by[0], observed=True).calib
    else:
        base = df.calib
    kw = dict(y=args.y, proba=proba, pred=args.pred, conf=args.conf, correct=args.correct,
              weight=args.weight, missing=args.missing, threshold=args.threshold,
              pos_label=args.pos_label)
    if any(kw[k] is not None for k in ("y", "proba", "pred", "conf", "correct", "weight")) or (
        args.missing != "raise" or args.pos_label is not None or args.threshold != 0.5
    ):
        return base(**kw)
    return base


def _summary_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    metrics = args.metrics.split(",") if args.metrics else None
    return dict(metrics=metrics, n_bins=args.n_bins, strategy=args.strategy, tau=args.tau,
                view=args.view)


def _check_gates(frame: Any, gates: list[tuple[str, str, float]]) -> list[str]:
    """Return a description of every failed gate."""
    import pandas as pd

    failed = []
    if isinstance(frame, pd.Series):
        frame = frame.to_frame().T
    if isinstance(frame.columns, pd.MultiIndex):
        frame = frame.xs("value", axis=1, level="stat")
    for name, op, thr in gates:
        if name not in frame.columns:
            continue
        for key, val in frame[name].items():
            if not math.isnan(val) and _OPS[op](val, thr):
                failed.append(f"{name}={val:.6g} {op} {thr:g} (group {key})")
    return failed


def _run_summary(args: argparse.Namespace) -> int:
    gates = [parse_gate(g) for g in args.fail_on]
    df = _read(args.file)
    acc = _accessor(df, args)
    kw = _summary_kwargs(args)
    if args.ci:
        res = acc.summary(ci=args.ci, n_boot=args.n_boot, seed=args.seed, **kw)
    else:
        res = acc.summary(**kw)
    if args.format == "csv":
        sys.stdout.write(res.to_csv())
    elif args.format == "json":
        import json

        from calreport.report import to_jsonable

        sys.stdout.write(json.dumps(to_jsonable(res), allow_nan=False, indent=2) + "\n")
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", 200, "display.max_columns", 60,
                               "display.width", 200):
            print(res)
    return _gate_exit(res, gates)


def _gate_exit(frame: Any, gates: list[tuple[str, str, float]]) -> int:
    failed = _check_gates(frame, gates)
    for f in failed:
        print(f"calreport: gate failed: {f}", file=sys.stderr)
    return EXIT_GATE_FAILED if failed else EXIT_OK


def _write_outputs(report: Any, outputs: Sequence[str], json_out: str | None) -> None:
    for out in outputs:
        suffix = Path(out).suffix.lower()
        if suffix not in (".html", ".htm", ".pdf", ".json", ".md"):
            raise UsageError(f"unknown output format {suffix!r} for {out}: use .html, .pdf, "
                             ".json or .md")
    for out in outputs:
        report.save(out)
        print(f"wrote {out}", file=sys.stderr)
    if json_out:
        report.save(json_out if json_out.endswith(".json") else json_out + ".json")


def _run_report(args: argparse.Namespace) -> int:
    gates = [parse_gate(g) for g in args.fail_on]
    df = _read(args.file)
    acc = _accessor(df, args)
    rep = acc.report(title=args.title, subject=args.subject or Path(args.file).name,
                     ci=args.ci or 0.95, n_boot=args.n_boot, seed=args.seed,
                     **_summary_kwargs(args))
    _write_outputs(rep, args.output, args.json_out)
    return _gate_exit(rep.summary, gates)


def _run_demo(args: argparse.Namespace) -> int:
    from calreport.datasets import load_breast_cancer

    gates = [parse_gate(g) for g in args.fail_on]
    df = load_breast_cancer()
    rep = df.groupby("calibration", sort=False).calib(
        y="y_true", proba="proba_benign", pos_label="benign"
    ).report(
        title="Calibration audit: breast-cancer classifier",
        subject="Gradient boosting on the Wisconsin breast-cancer data (held-out split), "
        "raw scores vs isotonic and Platt recalibration",
        ci=0.95, n_boot=args.n_boot, seed=args.seed,
    )
    _write_outputs(rep, args.output or ["calreport-demo.html"], None)
    return _gate_exit(rep.summary, gates)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command == "summary":
            return _run_summary(args)
        if args.command == "report":
            return _run_report(args)
        return _run_demo(args)
    except UsageError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, KeyError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        print(f"calreport: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
