"""The ``calreport`` command's arguments: parsing needs neither pandas nor the metrics,
so ``calreport --help`` and usage errors answer at once."""

from __future__ import annotations

import argparse
from typing import Any

from calreport._version import __version__

__all__ = ["EXIT_GATE_FAILED", "EXIT_OK", "EXIT_USAGE", "UsageError", "build_parser",
           "parse_gate"]

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
    from calreport.result import parse_gate as parse  # lazy: pandas (a gate names metrics)

    try:
        return parse(expr)
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
    o.add_argument("--ci-method", choices=CI_METHODS,
                   help="interval method of every metric (default: each metric's own: the "
                   "percentile bootstrap, a one-sided upper bound for calibration errors); "
                   "each method's measured coverage is printed beside its intervals")
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


#: ``--ci-method`` choices: :data:`calreport.interval_rules.INTERVAL_METHODS`, written
#: here so that ``--help`` imports nothing heavy (a test keeps the two equal).
CI_METHODS = ("percentile", "basic", "upper", "lower", "analytic")


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
                   "group) and name the recommended method in the next steps")
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
