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
    assert "gate failed: accuracy=" in capsys.readouterr().err
    assert main(["summary", str(csv_file), "--fail-on", "accuracy>1.5"]) == EXIT_OK


@pytest.mark.parametrize(
    ("argv", "msg"),
    [(["summary", "missing.csv"], "no such file"),
     (["summary", "{f}", "--y", "nope"], "Unknown column 'nope'"),
     (["summary", "{f}", "--fail-on", "p_risk >> 3"], "bad --fail-on expression"),
     (["summary", "{f}", "--fail-on", "foo>3"], "unknown metric 'foo'"),
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
    assert parse_gate("p_risk>0.99") == ("p_risk", ">", 0.99)
    assert parse_gate(" ece <= 0.05 ") == ("ece", "<=", 0.05)


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
