"""The ``calreport`` commands (``summary``, ``report``, ``recalibrate``, ``compare``,
``demo``) run on parsed arguments; :mod:`calreport.cli` imports this module only once
the arguments parse."""

from __future__ import annotations

import argparse
import json
import pickle
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd

from calreport._cli_parser import EXIT_GATE_FAILED, EXIT_OK, UsageError, parse_gate
from calreport._result_display import refit_note, result_text
from calreport._roles import resolve_roles
from calreport.datasets import load_breast_cancer
from calreport.interval_rules import NO_SPREAD, size_caveat, spread_caveat
from calreport.registry import COUNT_COLUMNS, REGISTRY
from calreport.result import UndefinedGateError, _plain, check

__all__ = ["COMMANDS"]


def _read(path: str) -> Any:
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
                view=args.view, group_kind=args.group_kind, ci_method=args.ci_method,
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


def run_summary(args: argparse.Namespace) -> int:
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
        # metrics down, groups across (value [ci_low, ci_high]), each number as the
        # report prints it; --format csv keeps every statistic
        with pd.option_context("display.max_rows", 500, "display.max_columns", 60,
                               "display.width", 200, "display.max_colwidth", 60):
            print(result_text(result))
        if note := refit_note(result, "--refit"):
            print(f"\n{note[0].upper()}{note[1:]}.")
        if result.ci is not None:  # each metric's method and coverage, said once
            print("\nIntervals:")
            for m, note in result.interval_notes().items():
                print(f"  {m}: {note['method']}, {note['coverage']}, "
                      f"{note['replicates']} replicates")
            for g in result.groups:  # one line a group and caveat, naming its metrics
                where = f"group {g.key}: " if result.grouped else ""
                with_ci = [m for m in result.metrics if m in g.intervals]
                flat = [m for m in with_ci if spread_caveat(*g.intervals[m])]
                if flat:
                    print(f"  {where}{NO_SPREAD} ({', '.join(flat)})")
                if with_ci and (small := size_caveat(g.get("n"))):
                    print(f"  {where}{small} ({', '.join(with_ci)})")
    return _gate_exit(result, gates, args.allow_undefined)


def run_compare(args: argparse.Namespace) -> int:
    if not args.by:
        raise UsageError("compare needs --by, the column naming the models")
    if (args.fail_on or args.group_kind != "subgroups" or args.adjust != "holm"
            or args.ci_method is not None):
        raise UsageError("--fail-on, --group-kind, --adjust and --ci-method are not used by "
                         "compare (its intervals: the Wald interval of the paired z-test for "
                         "CSR and the log losses, the paired percentile bootstrap else)")
    df = _read(args.file)
    kw = {k: val for k, val in _summary_kwargs(args, []).items()
          if k not in ("group_kind", "adjust", "ci_method")}
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
    print(out.to_text(full=True, refit_flag="--refit"))
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
        print(f"wrote {target}", file=sys.stderr)


def _report_result(acc: Any, rep: Any, **kw: Any) -> Any:
    """The result the report was built from (computed again only if it does not say)."""
    result = getattr(rep, "result", None)
    if result is None:
        result = acc.evaluate(**kw)
    return result


def run_report(args: argparse.Namespace) -> int:
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


def run_recalibrate(args: argparse.Namespace) -> int:

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


def run_demo(args: argparse.Namespace) -> int:
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


#: Command name -> its function (exit code).
COMMANDS = {"summary": run_summary, "report": run_report, "recalibrate": run_recalibrate,
            "compare": run_compare, "demo": run_demo}
