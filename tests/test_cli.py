"""The command line: subcommands, exit codes, one-line errors."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

from calreport.cli import EXIT_GATE_FAILED, EXIT_OK, EXIT_USAGE, main, parse_gate


@pytest.fixture
def csv_file(tmp_path):
    rng = np.random.default_rng(0)
    p = rng.uniform(size=300)
    df = pd.DataFrame({"y_true": (rng.random(300) < p).astype(int), "proba": p,
                       "model": rng.choice(["a", "b"], 300)})
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    return path


def test_summary_table(csv_file, capsys):
    assert main(["summary", str(csv_file)]) == EXIT_OK
    out = capsys.readouterr().out
    assert "csr" in out and "accuracy" in out


def test_grouped_summary_table_reads_a_metric_down_a_column(csv_file, capsys):
    # every metric a row, every group a column, "value [ci_low, ci_high]": CSR and
    # P_risk are on screen, not cut from a frame of 175 columns of statistics
    assert main(["summary", str(csv_file), "--by", "model", "--ci", "0.95",
                 "--n-boot", "50"]) == EXIT_OK
    out = capsys.readouterr().out
    lines = {ln.split()[0]: ln for ln in out.splitlines() if ln.strip()}
    assert lines["metric"].split() == ["metric"]
    assert out.splitlines()[0].split() == ["a", "b"]
    acc = lines["accuracy"]
    assert acc.count("[") == 2  # a value with its interval in each group
    for m in ("csr", "p_risk", "ece", "risk"):
        assert m in lines, m
    assert "[" not in lines["p_risk"]  # no interval: the value alone, not [NaN, NaN]
    assert "..." not in out


def test_summary_json_by_group(csv_file, capsys):
    code = main(["summary", str(csv_file), "--by", "model", "--format", "json",
                 "--metrics", "accuracy,csr"])
    assert code == EXIT_OK
    data = json.loads(capsys.readouterr().out)
    assert "NaN" not in json.dumps(data)


def test_summary_csv_with_ci(csv_file, capsys):
    assert main(["summary", str(csv_file), "--ci", "0.9", "--n-boot", "30", "--format",
                 "csv", "--metrics", "accuracy"]) == EXIT_OK
    out = capsys.readouterr().out
    assert "ci_low" in out


def test_gate_fails_with_its_exit_code(csv_file, capsys):
    assert main(["summary", str(csv_file), "--fail-on", "accuracy>0.1"]) == EXIT_GATE_FAILED
    assert "gate failed: accuracy>0.1 (value 0.77" in capsys.readouterr().err
    assert main(["summary", str(csv_file), "--fail-on", "accuracy>1.5"]) == EXIT_OK


@pytest.mark.parametrize(
    ("argv", "msg"),
    [(["summary", "missing.csv"], "no such file"),
     (["summary", "{f}", "--y", "nope"], "Unknown column 'nope'"),
     (["summary", "{f}", "--fail-on", "p_risk >> 3"], "Cannot read the gate"),
     (["summary", "{f}", "--fail-on", "foo>3"], "Unknown metric 'foo'"),
     (["summary", "{f}", "--by", "zzz"], "unknown --by column"),
     (["report", "{f}", "-o", "out.docx"], "unknown output format"),
     (["frobnicate"], "invalid choice")],
)
def test_usage_errors_exit_2_one_line(csv_file, capsys, argv, msg):
    argv = [a.format(f=csv_file) for a in argv]
    assert main(argv) == EXIT_USAGE
    err = capsys.readouterr().err
    assert msg in err
    assert err.count("\n") == 1 and "Traceback" not in err


def test_bad_file_content(tmp_path, capsys):
    f = tmp_path / "x.csv"
    f.write_text("a,b\n1,2\n")
    assert main(["summary", str(f)]) == EXIT_USAGE
    assert "Could not infer" in capsys.readouterr().err


def test_parse_gate():
    from calreport.result import Gate

    assert parse_gate("p_risk>0.99") == Gate("p_risk", "value", ">", 0.99)
    assert parse_gate(" ece <= 0.05 ") == Gate("ece", "value", "<=", 0.05)
    assert parse_gate("ece.ci_high>5e-2") == Gate("ece", "ci_high", ">", 0.05)


def test_subprocess_summary_and_gate(csv_file):
    ok = subprocess.run([sys.executable, "-m", "calreport.cli", "summary", str(csv_file),
                         "--metrics", "csr"], capture_output=True, text=True)
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run([sys.executable, "-m", "calreport.cli", "summary", "nope.csv"],
                         capture_output=True, text=True)
    assert bad.returncode == 2 and bad.stderr.startswith("calreport: error:")
    gate = subprocess.run([sys.executable, "-m", "calreport.cli", "summary", str(csv_file),
                           "--fail-on", "n>10"], capture_output=True, text=True)
    assert gate.returncode == 1


# ------------------------------------------------ gates that cannot pass by accident
def test_gated_metric_is_computed_whatever_metrics_says(csv_file, capsys):
    # auc is not in --metrics: it is computed anyway, and this gate fails on it
    code = main(["summary", str(csv_file), "--metrics", "ece", "--fail-on", "auc<0.99"])
    assert code == EXIT_GATE_FAILED
    assert "gate failed: auc<0.99" in capsys.readouterr().err


def test_p_risk_gate_with_other_metrics(csv_file, capsys):
    # p_risk is not in --metrics: it is computed for the gate, and the JSON has it
    code = main(["summary", str(csv_file), "--metrics", "ece", "--fail-on", "p_risk>-1",
                 "--format", "json"])
    assert code == EXIT_GATE_FAILED
    out = json.loads(capsys.readouterr().out)
    assert "p_risk" in out["groups"][0]["metrics"]


def test_gate_on_undefined_metric_is_usage_error(tmp_path, capsys):
    f = tmp_path / "cc.csv"
    pd.DataFrame({"confidence": [0.9, 0.8, 0.7, 0.6], "correct": [1, 0, 1, 1]}).to_csv(
        f, index=False)
    assert main(["summary", str(f), "--fail-on", "auc<0.8"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "cannot be decided in group 'all'" in err and "auc" in err
    # one error line (the warnings of the computation print one line each before it)
    assert [x.startswith("calreport: error:") for x in err.strip().splitlines()][-1:] == [True]
    assert sum(x.startswith("calreport: error:") for x in err.splitlines()) == 1
    # undefined in every group: --allow-undefined cannot make it pass unevaluated
    assert main(["summary", str(f), "--fail-on", "auc<0.8", "--allow-undefined"]) == EXIT_USAGE
    assert "undefined in every group" in capsys.readouterr().err


def test_allow_undefined_skips_groups_and_says_which(tmp_path, capsys):
    rng = np.random.default_rng(1)
    p = rng.random(200)
    y = (rng.random(200) < p).astype(int)
    g = np.r_[["a"] * 150, ["b"] * 50]
    y[150:] = 1  # group b has one class: its AUC is undefined
    f = tmp_path / "g.csv"
    pd.DataFrame({"y": y, "p": p, "g": g}).to_csv(f, index=False)
    assert main(["summary", str(f), "--y", "y", "--proba", "p", "--by", "g",
                 "--fail-on", "auc<0.01", "--allow-undefined"]) == EXIT_OK
    err = capsys.readouterr().err
    assert "gate not evaluated: auc<0.01 in group b" in err
    from calreport.result import check

    res = pd.DataFrame({"y": y, "p": p, "g": g}).groupby("g").calib(y="y", proba="p").evaluate(
        metrics=["auc"])
    out = check(res, ["auc<0.01"], allow_undefined=True)
    assert [(o.group, o.decided) for o in out] == [("a", True), ("b", False), ("overall", True)]
    assert "positives and negatives" in out[1].reason


def test_gate_on_interval_bound_computes_intervals(csv_file, capsys):
    code = main(["summary", str(csv_file), "--fail-on", "accuracy.ci_low>0.1",
                 "--n-boot", "50"])
    assert code == EXIT_GATE_FAILED
    assert "accuracy.ci_low>0.1" in capsys.readouterr().err


def test_missing_output_folder_is_usage_error(csv_file, tmp_path, capsys):
    code = main(["report", str(csv_file), "-o", str(tmp_path / "no" / "dir" / "r.html"),
                 "--n-boot", "20"])
    assert code == EXIT_USAGE
    err = capsys.readouterr().err
    assert "does not exist" in err and "Traceback" not in err
    code = main(["report", str(csv_file), "-o", str(tmp_path / "r.html"), "--json",
                 str(tmp_path / "missing" / "r.json"), "--n-boot", "20"])
    assert code == EXIT_USAGE


def test_negative_seed_names_the_option(csv_file, capsys):
    assert main(["summary", str(csv_file), "--seed", "-1"]) == EXIT_USAGE
    assert "--seed" in capsys.readouterr().err


def test_python_dash_m_runs_the_cli(csv_file):
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-m", "calreport", "summary", str(csv_file),
                          "--metrics", "accuracy"], capture_output=True, text=True,
                         check=False)
    assert out.returncode == EXIT_OK, out.stderr
    assert "accuracy" in out.stdout


@pytest.mark.parametrize("labels, given, positive", [
    ((1, 2), "2", 2), ((0, 1), "0", 0), ((False, True), "true", True),
])
def test_pos_label_takes_the_label_columns_own_type(tmp_path, capsys, labels, given, positive):
    """A command line gives text: --pos-label 2 must name the integer label 2 (labels
    {1, 2} could not be audited from the CLI at all), True the boolean."""
    import calreport  # noqa: F401

    rng = np.random.default_rng(3)
    p = rng.random(300)
    y = np.where(rng.random(300) < p, labels[1], labels[0])
    path = tmp_path / "lab.csv"
    pd.DataFrame({"y": y, "p": p}).to_csv(path, index=False)
    assert main(["summary", str(path), "--y", "y", "--proba", "p", "--pos-label", given,
                 "--metrics", "auc", "--format", "json"]) == EXIT_OK
    got = json.loads(capsys.readouterr().out)
    df = pd.read_csv(path)
    want = df.calib(y="y", proba="p", pos_label=positive).auc()
    assert got["data"]["positive_class"] == positive
    assert got["groups"][0]["metrics"]["auc"]["value"] == pytest.approx(want, rel=1e-12)
    assert main(["summary", str(path), "--y", "y", "--proba", "p", "--pos-label", "7"]) == \
        EXIT_USAGE


def test_ci_outside_zero_one_is_a_usage_error(csv_file):
    assert main(["summary", str(csv_file), "--ci", "0"]) == EXIT_USAGE


def test_summary_and_report_gate_the_same_rows(tmp_path):
    """A gate that only the pooled rows fail (pooling adds power: P_risk 0.706 pooled,
    0.669 and 0.630 in the groups) fails summary --by as it fails report."""
    rng = np.random.default_rng(0)
    n = 1200
    p = rng.uniform(0.55, 0.9, n)
    df = pd.DataFrame({"y": (rng.random(n) < p - 0.02).astype(int), "p": p,
                       "g": rng.choice(["a", "b"], n)})
    f = tmp_path / "pool.csv"
    df.to_csv(f, index=False)
    res = df.groupby("g").calib(y="y", proba="p").evaluate(metrics=["p_risk"])
    pooled = res.overall.get("p_risk", "value")
    worst = max(gr.get("p_risk", "value") for gr in res.groups)
    assert pooled > worst  # the data separate the pooled rows from the groups
    # (a few metrics and replicates: the gate reads P_risk, which has no interval)
    args = ["--y", "y", "--proba", "p", "--by", "g", "--metrics", "p_risk,ece", "--n-boot",
            "50", "--fail-on", f"p_risk>{(pooled + worst) / 2}"]
    # unadjusted P_risk: the pooled rows alone fail the gate
    raw = [*args, "--adjust", "none"]
    assert main(["summary", str(f), *raw]) == EXIT_GATE_FAILED
    assert main(["report", str(f), *raw, "-o", str(tmp_path / "r.html")]) == EXIT_GATE_FAILED
    # adjusted (the default): both commands read the same adjusted verdicts
    assert (main(["summary", str(f), *args])
            == main(["report", str(f), *args, "-o", str(tmp_path / "r2.html")]))


def test_classes_option_maps_unnamed_columns(tmp_path, capsys):
    """Unnamed probability columns follow the sorted labels unless --classes says their
    order (the library's mismatch error shows classes=[...], which the CLI could not
    pass); the labels take the column's own type."""
    import calreport  # noqa: F401

    rng = np.random.default_rng(4)
    probs = rng.dirichlet([2, 2, 2], 300)
    labels = np.array([2, 0, 1])  # the columns' classes, not in sorted order
    y = labels[[rng.choice(3, p=row) for row in probs]]
    df = pd.DataFrame({"y": y, "a": probs[:, 0], "b": probs[:, 1], "c": probs[:, 2]})
    path = tmp_path / "mc.csv"
    df.to_csv(path, index=False)
    args = ["summary", str(path), "--y", "y", "--proba", "a", "--proba", "b", "--proba", "c",
            "--metrics", "accuracy", "--format", "json"]
    assert main([*args, "--classes", "2,0,1"]) == EXIT_OK
    got = json.loads(capsys.readouterr().out)
    want = df.calib(y="y", proba=["a", "b", "c"], classes=[2, 0, 1]).accuracy()
    assert got["groups"][0]["metrics"]["accuracy"]["value"] == pytest.approx(want)
    assert got["data"]["classes"] == [2, 0, 1]
    assert main(args) == EXIT_OK  # the sorted-label rule, a different reading
    sorted_rule = json.loads(capsys.readouterr().out)
    assert sorted_rule["groups"][0]["metrics"]["accuracy"]["value"] != pytest.approx(want)


def test_gate_on_a_count_column_with_chosen_metrics(tmp_path, capsys):
    # n_eff is a count column (COUNT_COLUMNS), not a metric to add to --metrics
    rng = np.random.default_rng(0)
    path = tmp_path / "w.csv"
    pd.DataFrame({"y": rng.integers(0, 2, 200), "p": rng.uniform(0.05, 0.95, 200),
                  "w": rng.uniform(0.2, 3.0, 200)}).to_csv(path, index=False)
    assert main(["summary", str(path), "--weight", "w", "--metrics", "ece",
                 "--fail-on", "n_eff<10"]) == EXIT_OK
    assert main(["summary", str(path), "--weight", "w", "--metrics", "ece",
                 "--fail-on", "n_eff>10"]) == EXIT_GATE_FAILED
    assert "n_eff>10" in capsys.readouterr().err


def test_ci_method_flag_is_the_librarys_option(csv_file, capsys):
    from calreport._cli_parser import CI_METHODS
    from calreport.interval_rules import INTERVAL_METHODS

    assert CI_METHODS == INTERVAL_METHODS
    assert main(["summary", str(csv_file), "--ci", "0.9", "--n-boot", "40", "--metrics",
                 "ece", "--ci-method", "percentile", "--format", "json"]) == EXIT_OK
    entry = json.loads(capsys.readouterr().out)["groups"][0]["metrics"]["ece"]
    assert entry["ci_method"].startswith("percentile")
    # the advice of a refused gate names the flag the command has
    assert main(["summary", str(csv_file), "--fail-on", "ece.ci_low>0.01"]) == EXIT_USAGE
    assert "--ci-method percentile" in capsys.readouterr().err
    assert main(["compare", str(csv_file), "--by", "model", "--baseline", "a",
                 "--row-id", "y_true", "--ci-method", "basic"]) == EXIT_USAGE
    assert "--ci-method are not used by compare" in capsys.readouterr().err


def test_library_messages_speak_the_command_line():
    from calreport.cli import _cli_wording

    assert _cli_wording("pass missing='drop' to the accessor to drop them") == (
        "pass --missing drop to drop them")
    assert _cli_wording("judged as certainty claims, see risk().") == (
        "judged as certainty claims, see the risk verdict (calreport report).")


def test_every_file_written_is_named(csv_file, tmp_path, capsys):
    out, js = tmp_path / "r.md", tmp_path / "r"
    assert main(["report", str(csv_file), "-o", str(out), "--json", str(js), "--n-boot",
                 "20", "--metrics", "accuracy,csr"]) == EXIT_OK
    err = capsys.readouterr().err
    assert f"wrote {out}" in err and f"wrote {js}.json" in err
    assert (tmp_path / "r.json").exists()
