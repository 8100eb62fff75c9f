"""Command line: ``calreport summary | report | recalibrate | demo | compare``.

Exit codes: 0 success, 1 a ``--fail-on`` gate failed, 2 usage or input error
(one line on stderr, no traceback).
"""

from __future__ import annotations

import argparse
import json
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import calreport  # noqa: F401  (registers the accessors)
from calreport import __version__
from calreport._result_display import refit_note
from calreport._roles import resolve_roles
from calreport.datasets import load_breast_cancer
from calreport.registry import COUNT_COLUMNS, REGISTRY
from calreport.result import UndefinedGateError, _plain, check
from calreport.result import parse_gate as _parse_gate

EXIT_OK = 0
EXIT_GATE_FAILED = 1
EXIT_USAGE = 2


class UsageError(Exception):
    """A user error reported as one line with exit code 2."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # one line, exit 2
        raise UsageError(message)


def parse_gate(expr: str) -> Any:
    """Parse a gate such as ``"p_risk>0.99"``: it *fails* (exit 1) when true for any group."""
    try:
        return _parse_gate(expr)
    except ValueError as exc:
        raise UsageError(f"--fail-on: {exc}") from None


_SEED_HELP = ("seed of the bootstrap and of the Monte Carlo null of P_risk (a "
              "non-negative integer, default 0)")
_COLUMNS_HELP = (
    "Default: inferred from conventional names, as df.calib does: labels y_true, y, "
    "label, target; one probability column proba, prob, p, y_proba, y_prob, y_score, "
    "score, or proba_<class>/prob_<class>/p_<class> per class; y_pred, pred; "
    "confidence, conf; correct. Columns given in part are completed from these names.")


def _add_columns(p: argparse.ArgumentParser, metric_options: bool = True) -> None:
    g = p.add_argument_group("columns", _COLUMNS_HELP)
    g.add_argument("--y", help="true-label column")
    g.add_argument("--proba", action="append",
                   help="probability column (repeat for one column per class)")
    g.add_argument("--pred", help="predicted-label column")
    g.add_argument("--conf", help="confidence column")
    g.add_argument("--correct", help="0/1 correctness column")
    g.add_argument("--weight", help="sample-weight column")
    g.add_argument("--pos-label", help="positive class of a binary probability column "
                   "(required unless the labels are 0/1, False/True or -1/1)")
    g.add_argument("--classes", help="comma-separated class labels in --proba column order "
                   "(overrides the sorted-label rule for unnamed columns), e.g. "
                   "'cat,dog,emu'")
    g.add_argument("--weights", choices=("importance", "frequency"), default="importance",
                   help="meaning of --weight: relative importance (default) or integer "
                   "frequency counts")
    g.add_argument("--threshold", type=float, default=0.5,
                   help="decision threshold of a binary probability column: the "
                   "positive class is predicted where p >= threshold (default 0.5)")
    g.add_argument("--missing", choices=("raise", "drop"), default="raise",
                   help="rows with a missing value in a used column: 'raise' (default: "
                   "exit 2 naming the column) or 'drop' them (counted in n_dropped)")
    g.add_argument("--by", action="append", help="group column (repeatable)")
    if not metric_options:
        return
    o = p.add_argument_group("metric options")
    o.add_argument("--metrics", help="comma-separated metric names (default: all)")
    o.add_argument("--n-bins", type=int, default=15,
                   help="bins of the binned metrics (ECE, MCE...) (default 15)")
    o.add_argument("--strategy", choices=("uniform", "quantile"), default="uniform",
                   help="bin edges: 'uniform' widths (default) or 'quantile' (equal mass)")
    o.add_argument("--tau", type=float, default=0.5,
                   help="confidence threshold of CWSA and CWSA+ (default 0.5)")
    o.add_argument("--view", choices=("top_label", "positive"),
                   help="calibration view of the binned and local metrics: confidence in "
                   "the predicted class, or probability of the positive class (default: "
                   "positive for one binary probability column, else top_label)")
    o.add_argument("--ci", type=float, help="confidence level of bootstrap intervals, e.g. 0.95")
    o.add_argument("--n-boot", type=int, default=1000,
                   help="bootstrap replicates of the intervals (default 1000)")
    o.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    o.add_argument("--fail-on", action="append", default=[],
                   help="gate, e.g. 'p_risk>0.99', 'band>=evidence' or "
                   "'ece.ci_high>0.05': exit 1 when true for any group or, with --by and "
                   "subgroups, for the pooled rows (as the report's gates); p_risk and "
                   "band gates over groups read the adjusted verdicts (--adjust); a "
                   "gated metric is always computed, and undefined in some group is "
                   "exit 2")
    o.add_argument("--refit", action=argparse.BooleanOptionalAction, help="intervals of "
                   "the curve-refitting metrics (LCS, TCE_bpm...), 200 refits a group: off for "
                   "summary unless gated, on for a report of <= 10 groups, 20,000 rows")
    o.add_argument("--group-kind", choices=("subgroups", "alternatives"),
                   default="subgroups",
                   help="with --by: 'subgroups' of one population (default: the pooled "
                   "rows give the overall verdict) or 'alternatives' (alternative models "
                   "or calibrations of the same rows: no pooled verdict)")
    o.add_argument("--adjust", choices=("holm", "bh", "none"), default="holm",
                   help="with --by: adjust the groups' P_risk for their number (Holm, "
                   "default; Benjamini-Hochberg; none); the headline, p_risk and band "
                   "gates read the adjusted values")
    o.add_argument("--allow-undefined", action="store_true",
                   help="skip groups where a gated metric is undefined instead of exit 2")


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of the ``calreport`` command."""
    p = _Parser(prog="calreport", description="Calibration and overconfidence-risk audit of "
                "classifier predictions (CSV or Parquet, one row per prediction).")
    p.add_argument("--version", action="version", version=f"calreport {__version__}")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser,
                           metavar="COMMAND", help="calreport COMMAND --help shows its options")
    s = sub.add_parser("summary", help="print the summary metrics")
    s.add_argument("file", help="CSV or Parquet file of predictions")
    s.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output: an aligned 'table' (default), 'csv' or 'json'")
    _add_columns(s)
    r = sub.add_parser("report", help="render the model-card audit report")
    r.add_argument("file", help="CSV or Parquet file of predictions")
    r.add_argument("-o", "--output", action="append", required=True,
                   help="output file; format from the suffix (.html, .pdf, .json, .md); "
                   "repeatable")
    r.add_argument("--json", dest="json_out", help="also write the results as JSON")
    r.add_argument("--title", default="Calibration audit",
                   help="heading of the report (default 'Calibration audit')")
    r.add_argument("--subject", help="what is audited (model name, data set)")
    r.add_argument("--recalibrate", action="store_true",
                   help="add 'What recalibration would do' (every method cross-fitted per "
                   "group) and name the measured best method in the next steps")
    r.add_argument("--compare", metavar="BASELINE",
                   help="add a paired comparison of every --by group against this one "
                   "(needs --row-id)")
    r.add_argument("--row-id", help="column identifying a row across the groups compared")
    _add_columns(r)
    c = sub.add_parser("recalibrate", help="compare recalibration methods out of fold and "
                       "write the recommended calibrator")
    c.add_argument("file", help="CSV or Parquet file of predictions")
    c.add_argument("-o", "--output", required=True,
                   help="pickle file of the fitted calibrator (with --by: a dict group -> "
                   "calibrator)")
    c.add_argument("--table", help="also write the method x metric table as CSV")
    c.add_argument("--methods", help="comma-separated methods (default: all of "
                   "none, platt, temperature, beta, isotonic, venn_abers, "
                   "risk_aware_isotonic)")
    c.add_argument("--n-splits", type=int, default=5, help="cross-fitting folds (default 5)")
    c.add_argument("--multiclass", choices=("ovr", "top_label"), default="ovr",
                   help="multiclass reduction of the one-probability methods (default ovr)")
    c.add_argument("--n-boot", type=int, default=200,
                   help="paired bootstrap replicates of the differences (default 200)")
    c.add_argument("--seed", type=_seed, default=0, help="seed of the folds and the "
                   "bootstrap (a non-negative integer, default 0)")
    _add_columns(c, metric_options=False)
    d = sub.add_parser("demo", help="render the report of the embedded demo data")
    d.add_argument("-o", "--output", action="append", default=None,
                   help="output file (.html, .pdf, .json, .md); default calreport-demo.html")
    d.add_argument("--n-boot", type=int, default=1000,
                   help="bootstrap replicates of the intervals (default 1000)")
    d.add_argument("--seed", type=_seed, default=0, help=_SEED_HELP)
    d.add_argument("--fail-on", action="append", default=[],
                   help="gate, as for 'calreport report': exit 1 when it holds")
    d.add_argument("--allow-undefined", action="store_true",
                   help="skip groups where a gated metric is undefined instead of exit 2")
    c = sub.add_parser("compare", help="paired differences of models scored on the same rows")
    c.add_argument("file", help="CSV or Parquet file of predictions, one row per (model, row)")
    c.add_argument("--baseline", required=True, help="the --by value of the baseline model")
    c.add_argument("--row-id", required=True, help="column identifying a row across models")
    c.add_argument("--format", choices=("table", "csv", "json"), default="table",
                   help="output: an aligned 'table' (default), 'csv' or 'json' (the "
                   "report's comparison section: numbers, bands and methods)")
    _add_columns(c)
    return p


def _seed(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise argparse.ArgumentTypeError(f"--seed must be a non-negative integer, got {text!r}")
    return value


def _read(path: str) -> Any:
    import pandas as pd

    f = Path(path)
    if not f.is_file():
        raise UsageError(f"no such file: {path}")
    try:
        if f.suffix.lower() in (".parquet", ".pq"):
            return pd.read_parquet(f)
        return pd.read_csv(f)
    except ImportError:
        raise UsageError(f"cannot read {path}: reading Parquet needs pyarrow; install it "
                         "with: pip install 'calreport[parquet]'") from None
    except Exception as exc:  # parser errors of many kinds
        raise UsageError(f"cannot read {path} as a table: {exc}".splitlines()[0]) from None


def _accessor(df: Any, args: argparse.Namespace) -> Any:
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
              pos_label=_pos_label(df, args, proba), weights=getattr(args, "weights",
                                                                  "importance"),
              classes=_classes(df, args, proba))
    if any(kw[k] is not None for k in ("y", "proba", "pred", "conf", "correct", "weight",
                                        "classes")) or (
        args.missing != "raise" or args.pos_label is not None or args.threshold != 0.5
        or kw["weights"] != "importance"
    ):
        return base(**kw)
    return base


def _classes(df: Any, args: argparse.Namespace, proba: Any) -> list[Any] | None:
    """--classes as the label column's own values (each as for --pos-label)."""
    text = getattr(args, "classes", None)
    if text is None:
        return None
    return _label_values(df, args, proba, [part.strip() for part in text.split(",")])


def _pos_label(df: Any, args: argparse.Namespace, proba: Any) -> Any:
    """--pos-label as the label column's own value (a command line gives text; labels
    1/2, 0/1 or True/False are not strings), matched by its printed form; unmatched
    text is passed on, and the library's error names the labels found."""
    if args.pos_label is None:
        return None
    return _label_values(df, args, proba, [args.pos_label])[0]


def _label_values(df: Any, args: argparse.Namespace, proba: Any, texts: list[str]
                  ) -> list[Any]:
    """The label of the label column printed as each text, else the text itself."""
    try:
        y = resolve_roles(df, y=args.y, proba=proba, pred=args.pred, conf=args.conf,
                          correct=args.correct, weight=args.weight).y
    except ValueError:
        return list(texts)
    if y is None or y not in df.columns:
        return list(texts)
    labels = df[y].dropna().unique()
    out = []
    for text in texts:
        found = [v for v in labels
                 if str(v) == text or (str(v) in ("True", "False")
                                       and str(v).lower() == text.lower())]
        value = found[0] if len(found) == 1 else text
        out.append(value.item() if hasattr(value, "item") else value)
    return out


def _summary_kwargs(args: argparse.Namespace, gates: Sequence[Any]) -> dict[str, Any]:
    """Metric options; the gated metrics are always computed, whatever --metrics says."""
    metrics = args.metrics.split(",") if args.metrics else None
    if metrics is not None:
        metrics = list(dict.fromkeys([*metrics, *(g.metric for g in gates
                                                  if g.metric not in (*COUNT_COLUMNS,
                                                                      "band"))]))
    # the gated metrics are always computed: an interval gate on a refitted metric refits
    gated = any(g.needs_interval and g.metric in REGISTRY
                and REGISTRY[g.metric].interval.kind == "refit" for g in gates)
    refit = True if args.refit is None and gated else args.refit
    return dict(metrics=metrics, n_bins=args.n_bins, strategy=args.strategy, tau=args.tau,
                view=args.view, group_kind=args.group_kind,
                adjust=None if args.adjust == "none" else args.adjust,
                **({} if refit is None else {"refit": refit}))


def _level(args: argparse.Namespace, gates: Sequence[Any], default: float | None) -> Any:
    """The interval level: --ci, else 0.95 when a gate reads an interval bound."""
    if args.ci is not None:
        if not 0.0 < args.ci < 1.0:
            raise UsageError(f"--ci must be a level in (0, 1), e.g. 0.95; got {args.ci}")
        return args.ci
    if any(g.needs_interval for g in gates):
        return 0.95
    return default


def _gate_exit(result: Any, gates: Sequence[Any], allow_undefined: bool) -> int:
    if not gates:
        return EXIT_OK
    try:
        outcomes = check(result, gates, allow_undefined=allow_undefined)
    except UndefinedGateError as exc:
        raise UsageError(str(exc)) from None
    for o in outcomes:
        if not o.decided:
            print(f"calreport: gate not evaluated: {o.gate} in group {o.group} "
                  f"({o.reason}; --allow-undefined)", file=sys.stderr)
    failed = [o for o in outcomes if o.failed]
    for o in failed:
        what = f"; {o.note}" if o.note else ""
        print(f"calreport: gate failed: {o.gate} (value {o.value:.6g}, group {o.group}"
              f"{what})", file=sys.stderr)
    return EXIT_GATE_FAILED if failed else EXIT_OK


def _run_summary(args: argparse.Namespace) -> int:
    gates = [parse_gate(g) for g in args.fail_on]
    df = _read(args.file)
    acc = _accessor(df, args)
    kw = _summary_kwargs(args, gates)
    ci = _level(args, gates, None)
    # gates read the pooled rows too, as the report's do (the same exit code for the
    # same gate); without gates, --by prints the groups only
    result = acc.evaluate(ci=ci, n_boot=args.n_boot, seed=args.seed,
                          overall=bool(gates and args.by)
                          and args.group_kind == "subgroups", **kw)
    res = result.summary()
    if args.format == "csv":
        sys.stdout.write(res.to_csv())
    elif args.format == "json":
        sys.stdout.write(json.dumps(_plain(result.to_dict()), allow_nan=False, indent=2)
                         + "\n")
    else:
        import pandas as pd

        with pd.option_context("display.max_rows", 200, "display.max_columns", 60,
                               "display.width", 200):
            print(res)
        if note := refit_note(result, "--refit"):
            print(f"\n{note[0].upper()}{note[1:]}.")
        if result.grouped and result.ci is not None:
            # the ungrouped table has these as columns; a grouped one says them once
            print("\nIntervals:")
            for m, note in result.interval_notes().items():
                print(f"  {m}: {note['method']}, {note['coverage']}, "
                      f"{note['replicates']} replicates")
    return _gate_exit(result, gates, args.allow_undefined)


def _run_compare(args: argparse.Namespace) -> int:
    if not args.by:
        raise UsageError("compare needs --by, the column naming the models")
    if args.fail_on or args.group_kind != "subgroups" or args.adjust != "holm":
        raise UsageError("--fail-on, --group-kind and --adjust are not used by compare")
    df = _read(args.file)
    kw = {k: val for k, val in _summary_kwargs(args, []).items()
          if k not in ("group_kind", "adjust")}
    out = _accessor(df, args).compare(_baseline(df, args, args.baseline),
                                      row_id=args.row_id, ci=args.ci or 0.95,
                                      n_boot=args.n_boot, seed=args.seed, **kw)
    if args.format == "csv":
        sys.stdout.write(out.table.to_csv())
        return EXIT_OK
    if args.format == "json":
        # lazy: matplotlib (calreport.report draws the report's figures)
        from calreport.report.actions import comparison_section
        from calreport.report.formatting import to_jsonable  # lazy: matplotlib

        data = comparison_section(out, {}, args.row_id, metrics=None)
        print(json.dumps(to_jsonable(data), indent=2, allow_nan=False, ensure_ascii=False))
        return EXIT_OK
    import pandas as pd

    with pd.option_context("display.max_rows", 500, "display.max_columns", 20,
                           "display.width", 200, "display.float_format", "{:.4g}".format):
        print(out.table, out.bands, out.methods["interval"],
              "p-values: " + out.methods["test"], sep="\n\n")
    return EXIT_OK


def _baseline(df: Any, args: argparse.Namespace, text: str) -> Any:
    """The baseline group key: the text, or the number it spells in a numeric --by."""
    column = df[args.by[0]] if len(args.by) == 1 and args.by[0] in df else None
    if column is not None and text not in set(column) and column.dtype.kind in "iuf":
        try:
            return float(text) if column.dtype.kind == "f" else int(text)
        except ValueError:
            raise UsageError(f"--compare/--baseline {text!r} is not a value of the "
                             f"numeric column {args.by[0]!r}") from None
    return text


def _check_outputs(outputs: Sequence[str], json_out: str | None) -> None:
    """Refuse unknown formats and missing folders before any work (exit 2)."""
    for out in [*outputs, *([json_out] if json_out else [])]:
        f = Path(out)
        suffix = f.suffix.lower()
        if out != json_out and suffix not in (".html", ".htm", ".pdf", ".json", ".md"):
            raise UsageError(f"unknown output format {suffix!r} for {out}: use .html, .pdf, "
                             ".json or .md")
        folder = f.parent if str(f.parent) else Path(".")
        if not folder.is_dir():
            raise UsageError(f"cannot write {out}: the folder {folder} does not exist")


def _write_outputs(report: Any, outputs: Sequence[str], json_out: str | None) -> None:
    for out in outputs:
        try:
            report.save(out)
        except OSError as exc:
            raise UsageError(f"cannot write {out}: {exc.strerror or exc}") from None
        print(f"wrote {out}", file=sys.stderr)
    if json_out:
        target = json_out if json_out.endswith(".json") else json_out + ".json"
        try:
            report.save(target)
        except OSError as exc:
            raise UsageError(f"cannot write {target}: {exc.strerror or exc}") from None


def _report_result(acc: Any, rep: Any, **kw: Any) -> Any:
    """The result the report was built from (computed again only if it does not say)."""
    result = getattr(rep, "result", None)
    if result is None:
        result = acc.evaluate(**kw)
    return result


def _run_report(args: argparse.Namespace) -> int:
    gates = [parse_gate(g) for g in args.fail_on]
    _check_outputs(args.output, args.json_out)
    df = _read(args.file)
    acc = _accessor(df, args)
    kw = dict(ci=_level(args, gates, 0.95), n_boot=args.n_boot, seed=args.seed,
              **_summary_kwargs(args, gates))
    if args.compare is not None and (not args.by or args.row_id is None):
        raise UsageError("--compare needs --by (the column naming the groups compared) "
                         "and --row-id (the column naming a row across them)")
    if args.row_id is not None and args.compare is None:
        raise UsageError("--row-id is used only with --compare BASELINE")
    actions = dict(recalibrate=args.recalibrate, row_id=args.row_id,
                   compare=None if args.compare is None
                   else _baseline(df, args, args.compare))
    rep = acc.report(title=args.title, subject=args.subject or Path(args.file).name,
                     **actions, **kw)
    result = _report_result(acc, rep, **kw)
    code = _gate_exit(result, gates, args.allow_undefined)
    _write_outputs(rep, args.output, args.json_out)
    return code


def _run_recalibrate(args: argparse.Namespace) -> int:
    import pickle

    import pandas as pd

    for out in (args.output, args.table):
        if out and not (Path(out).parent if str(Path(out).parent) else Path(".")).is_dir():
            raise UsageError(f"cannot write {out}: its folder does not exist")
    acc = _accessor(_read(args.file), args)
    methods = args.methods.split(",") if args.methods else None
    res = acc.recalibrate(methods, n_splits=args.n_splits, seed=args.seed,
                          multiclass=args.multiclass, n_boot=args.n_boot)
    with open(args.output, "wb") as fh:
        pickle.dump(res.fit(), fh)
    print(f"wrote {args.output}", file=sys.stderr)
    if args.table:
        res.table.to_csv(args.table)
        print(f"wrote {args.table}", file=sys.stderr)
    with pd.option_context("display.max_rows", 500, "display.width", 200):
        print(res)
    return EXIT_OK


def _run_demo(args: argparse.Namespace) -> int:
    gates = [parse_gate(g) for g in args.fail_on]
    outputs = args.output or ["calreport-demo.html"]
    _check_outputs(outputs, None)
    df = load_breast_cancer()
    acc = df.groupby("calibration", sort=False).calib(
        y="y_true", proba="proba_benign", pos_label="benign")
    # raw scores and two recalibrations of the same rows: alternatives, no pooled verdict,
    # each recalibration set against the raw scores on the same patients
    kw = dict(ci=0.95, n_boot=args.n_boot, seed=args.seed, group_kind="alternatives")
    rep = acc.report(
        title="Calibration audit: breast-cancer classifier",
        subject="Gradient boosting on the Wisconsin breast-cancer data (held-out split), "
        "raw scores vs isotonic and Platt recalibration",
        compare="raw", row_id="patient", **kw)
    result = _report_result(acc, rep, **kw)
    code = _gate_exit(result, gates, args.allow_undefined)
    _write_outputs(rep, outputs, None)
    return code


#: The library's keywords that have a flag of the same meaning.
_FLAGS = {"y": "--y", "proba": "--proba", "pred": "--pred", "conf": "--conf",
          "correct": "--correct", "weight": "--weight", "pos_label": "--pos-label",
          "classes": "--classes", "threshold": "--threshold", "missing": "--missing",
          "weights": "--weights"}
# a mapping (proba={class: column}) has no flag and is left as it is
_KEYWORD = re.compile(r"\b(" + "|".join(_FLAGS) + r")=(?!\{)(\[[^\]]*\]|'[^']*'|"
                      r"\"[^\"]*\"|[^\s,;)]+?)(?=[\s,;)]|\.(?:\s|$)|$)")


def _cli_wording(message: str) -> str:
    """A library message as the command line says it: keyword arguments as flags
    (``pos_label='b'`` -> ``--pos-label b``, ``classes=['a', 'b']`` -> ``--classes a,b``)
    and the Python calls that carry them left out.

    Examples
    --------
    >>> _cli_wording("Name the positive class, e.g. pos_label='b' (df.calib(..., "
    ...              "pos_label='b'), or ConfidenceProfile.from_arrays(..., pos_label=...)).")
    'Name the positive class, e.g. --pos-label b.'
    >>> _cli_wording("Pass the classes in column order, classes=['a', 'b'].")
    'Pass the classes in column order, --classes a,b.'
    """
    message = _drop_python_calls(message)

    def flag(m: re.Match[str]) -> str:
        value = m.group(2)
        if value.startswith("["):
            items = [x.strip().strip("'\"") for x in value[1:-1].split(",")]
            value = ",".join(x for x in items if x)
        else:
            value = value.strip("'\"")
        return f"{_FLAGS[m.group(1)]} {value}"

    return _KEYWORD.sub(flag, message)


def _drop_python_calls(message: str) -> str:
    """Remove parentheticals that show a Python call, e.g. `` (df.calib(..., x=1))``."""
    for marker in (" (df.calib(", " (ConfidenceProfile."):
        while marker in message:
            start = message.index(marker)
            depth, end = 0, len(message)
            for i in range(start + 1, len(message)):
                depth += {"(": 1, ")": -1}.get(message[i], 0)
                if depth == 0:
                    end = i + 1
                    break
            message = message[:start] + message[end:]
    return message


def _show_warning(message: Warning | str, category: type[Warning], filename: str,
                  lineno: int, file: Any = None, line: str | None = None) -> None:
    """A warning as one line, like the errors (no file and line of the program)."""
    print(f"calreport: warning: {_cli_wording(str(message))}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point; returns the exit code."""
    import warnings

    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        with warnings.catch_warnings():
            warnings.showwarning = _show_warning
            if args.command == "summary":
                return _run_summary(args)
            if args.command == "report":
                return _run_report(args)
            if args.command == "recalibrate":
                return _run_recalibrate(args)
            if args.command == "compare":
                return _run_compare(args)
            return _run_demo(args)
    except UsageError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    except (ValueError, TypeError, KeyError) as exc:
        msg = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        cli_message = getattr(exc, "cli_message", None)  # column roles: as flags
        msg = _cli_wording(cli_message() if callable(cli_message) else msg)
        print(f"calreport: error: {msg}", file=sys.stderr)
        return EXIT_USAGE
    except ImportError as exc:
        print(f"calreport: error: {exc}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
