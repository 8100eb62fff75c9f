"""The command line infers the columns exactly as the library, and says so in flags."""

from __future__ import annotations

import io
import json
import re
import shlex
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import calreport
from calreport import cli

ROOT = Path(__file__).resolve().parents[1]


def _predictions(n: int = 300, seed: int = 0, **names: str) -> pd.DataFrame:
    """Calibrated binary predictions of two models: columns y, p, model (renamed by names)."""
    rng = np.random.default_rng(seed)
    p = rng.uniform(0.02, 0.98, n)
    df = pd.DataFrame({"y": (rng.random(n) < p).astype(int), "p": p,
                       "model": np.repeat(["a", "b"], n // 2)})
    return df.rename(columns=names)


def _run(argv, capsys):
    code = cli.main([str(a) for a in argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def _library(df: pd.DataFrame, **roles) -> pd.Series | None:
    """The library's summary of the same frame, or None when it cannot resolve the roles."""
    try:
        acc = df.calib(**roles) if roles else df.calib
        acc.roles()
    except ValueError:
        return None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return acc.summary(["accuracy", "csr", "ece"])


# (columns, CLI flags, the same roles as library keywords)
CASES = [
    ({}, [], {}),                                            # y, p: the issue's frame
    ({}, ["--proba", "p"], {"proba": "p"}),                  # y completed from its name
    ({}, ["--y", "y"], {"y": "y"}),                          # p completed from its name
    ({"p": "score"}, [], {}),
    ({"p": "prob"}, [], {}),
    ({"p": "P"}, [], {}),                                    # names are case-insensitive
    ({"y": "label", "p": "y_score"}, [], {}),
    ({"y": "outcome"}, [], {}),                              # no label column: both refuse
    ({"y": "outcome"}, ["--proba", "p"], {"proba": "p"}),
    ({"y": "outcome"}, ["--y", "outcome"], {"y": "outcome"}),
    ({"p": "risk"}, ["--y", "y"], {"y": "y"}),               # no probability column
]


@pytest.mark.parametrize(("names", "flags", "roles"), CASES)
def test_cli_resolves_the_columns_as_the_library(tmp_path, capsys, names, flags, roles):
    df = _predictions(**names)
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    expected = _library(df.drop(columns="model"), **roles)
    code, out, err = _run(["summary", path, "--metrics", "accuracy,csr,ece",
                           "--format", "csv", *flags], capsys)
    if expected is None:
        assert code == cli.EXIT_USAGE
        assert "df.calib(" not in err and "--" in err
        return
    assert code == 0, err
    got = pd.read_csv(io.StringIO(out), index_col=0).iloc[:, 0]
    np.testing.assert_allclose(got[expected.index].to_numpy(), expected.to_numpy(),
                               rtol=1e-12)


def test_the_issues_frame_y_p_model(tmp_path, capsys):
    # the new-user review: `calreport summary data.csv` with columns y, p, model
    path = tmp_path / "data.csv"
    _predictions().to_csv(path, index=False)
    code, out, err = _run(["summary", path, "--by", "model", "--metrics", "csr",
                           "--format", "json"], capsys)
    assert code == 0, err
    doc = json.loads(out)
    assert doc["data"]["columns"]["y"] == "y" and doc["data"]["columns"]["proba"] == "p"
    assert [g["name"] for g in doc["groups"]] == ["a", "b"]


def test_p_beside_another_probability_name_is_ambiguous_in_both(tmp_path, capsys):
    df = _predictions().assign(score=0.5)
    with pytest.raises(ValueError, match=r"Ambiguous `proba` column: found \['p', 'score'\]"):
        df.calib.roles()
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    code, _, err = _run(["summary", path], capsys)
    assert code == cli.EXIT_USAGE
    assert "Ambiguous `proba` column" in err and "--proba p" in err
    assert "df.calib" not in err


def test_p_beside_per_class_p_columns_is_ambiguous():
    df = pd.DataFrame({"y": [0, 1], "p": [0.2, 0.8], "p_1": [0.2, 0.8]})
    with pytest.raises(calreport._roles.ColumnRoleError,
                       match="Ambiguous probability columns: found 'p' and"):
        df.calib.roles()


def test_missing_label_column_names_the_flags(tmp_path, capsys):
    path = tmp_path / "preds.csv"
    _predictions(y="outcome").to_csv(path, index=False)
    code, _, err = _run(["summary", path, "--proba", "p"], capsys)
    assert code == cli.EXIT_USAGE
    assert err.count("\n") == 1  # one line
    assert "(--proba p)" in err and "--y label --proba p" in err
    assert "df.calib(" not in err and "y_true" not in err.split("Name the columns")[1]
    # the library says the same with the Python call
    with pytest.raises(ValueError, match=re.escape("df.calib(y='label', proba='p')")):
        _predictions(y="outcome").calib(proba="p")


def test_pos_label_advice_is_a_flag(tmp_path, capsys):
    df = _predictions()
    df["y"] = df["y"].map({0: "benign", 1: "malignant"})
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    code, _, err = _run(["summary", path], capsys)
    assert code == cli.EXIT_USAGE
    assert "--pos-label benign" in err
    assert "pos_label=" not in err and "df.calib" not in err and "from_arrays" not in err
    code, _, err = _run(["summary", path, "--pos-label", "malignant", "--metrics", "csr"],
                        capsys)
    assert code == 0, err


@pytest.mark.parametrize(("message", "expected"), [
    ("e.g. pos_label='b' (df.calib(..., pos_label='b'), or "
     "ConfidenceProfile.from_arrays(..., pos_label=...)).", "e.g. --pos-label b."),
    ("Pass the classes in column order, classes=['a', 'b'], or a mapping "
     "proba={class: column}.", "Pass the classes in column order, --classes a,b, or a "
     "mapping proba={class: column}."),
    ("`pos_label`=3 is not among the labels", "`pos_label`=3 is not among the labels"),
    ("The columns given (y='lab', proba='p') are", "The columns given (--y lab, --proba p) are"),
])
def test_cli_wording_of_library_messages(message, expected):
    assert cli._cli_wording(message) == expected


def _subcommands():
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if a.dest == "command")
    return {"calreport": parser, **sub.choices}


@pytest.mark.parametrize("name", ["calreport", "summary", "report", "demo"])
def test_every_option_has_help(name):
    parser = _subcommands()[name]
    silent = [a.option_strings or [a.dest] for a in parser._actions
              if not (a.help or "").strip()]
    assert silent == []


def test_help_names_the_conventional_columns():
    text = _subcommands()["summary"].format_help()
    flat = " ".join(text.split())
    for name in ("y_true, y, label, target", "proba, prob, p, y_proba", "score",
                 "p_<class>"):
        assert name in flat
    assert "--threshold THRESHOLD decision threshold" in flat
    assert "--missing {raise,drop} rows with a missing value" in flat


# ---------------------------------------------------------------- speed of --help
# ``--help`` and usage errors answer before pandas, NumPy and the metrics are imported
# (their time: benchmarks/bench_cli.py, in RESULTS.md)
@pytest.mark.parametrize("argv", [["--help"], ["summary"], ["summary", "--help"]],
                         ids=["help", "usage-error", "summary-help"])
def test_help_and_usage_errors_import_neither_pandas_nor_the_metrics(argv):
    code = ("import sys\n"
            "from calreport.cli import main\n"
            f"try:\n    main({argv!r})\nexcept SystemExit:\n    pass\n"
            "print(sorted(sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    loaded = eval(out.stdout.strip().splitlines()[-1])  # a printed list of module names
    heavy = [m for m in loaded if m.split(".")[0] in ("pandas", "numpy", "scipy")
             or m.startswith(("calreport.metrics", "calreport.report", "calreport.accessor"))]
    assert heavy == []
    assert "calreport._cli_parser" in loaded  # the modules were inspected


def test_usage_error_after_parsing_still_reads_the_file(tmp_path):
    # the commands are imported after parsing: a missing file is a usage error as before
    assert cli.main(["summary", str(tmp_path / "absent.csv")]) == cli.EXIT_USAGE


# ------------------------------------------------------------- README's commands
def _readme_shell_commands() -> list[list[str]]:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    section = text[text.index("From the shell"):]
    block = section[section.index("```bash\n") + 8:section.index("```", section.index(
        "```bash\n") + 8)]
    lines = block.replace("\\\n", " ").splitlines()
    return [shlex.split(line) for line in lines if line.strip().startswith("calreport ")]


def test_readme_names_the_columns_its_commands_use():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "`preds.csv` has the columns `y`, `p`\nand `model`" in text


@pytest.mark.slow
def test_readme_cli_examples_run_as_written(tmp_path, capsys, monkeypatch):
    commands = _readme_shell_commands()
    assert len(commands) == 4 and all("preds.csv" in c for c in commands)
    _predictions(n=200).to_csv(tmp_path / "preds.csv", index=False)
    monkeypatch.chdir(tmp_path)
    for argv in commands:
        assert argv[0] == "calreport"
        code = cli.main(argv[1:])
        err = capsys.readouterr().err
        assert code == cli.EXIT_OK, (argv, err)  # calibrated data: the gate holds
    for name in ("audit.pdf", "audit.html", "results.json", "calibrators.pkl", "advice.csv"):
        assert (tmp_path / name).stat().st_size > 0
    assert (tmp_path / "audit.pdf").read_bytes()[:5] == b"%PDF-"


def test_warnings_are_one_line_each_like_the_errors(tmp_path, capsys):
    df = _predictions()
    df.loc[:4, "p"] = 1.0  # five certainty claims, all in model "a"
    df.loc[df.model == "b", "y"] = 1  # model "b": one class, AUC undefined
    path = tmp_path / "preds.csv"
    df.to_csv(path, index=False)
    code, _, err = _run(["summary", path, "--by", "model", "--metrics", "csr,auc"], capsys)
    assert code == 0
    lines = err.splitlines()
    assert len(lines) == 2 and all(x.startswith("calreport: warning: ") for x in lines)
    assert lines[0].startswith("calreport: warning: 5 confidence(s) of exactly 1")
    assert "auc is NaN in group 'b'" in lines[1]
    assert ".py:" not in err and "sys.exit" not in err


# ------------------------------------------------------------- a cheap import
def _printed(code: str) -> list[str]:
    """The words ``python -c code`` prints, in a fresh interpreter."""
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, cwd=ROOT)
    return out.stdout.split()


def test_import_before_pandas_registers_the_accessors_on_first_use():
    # ``import calreport`` first, pandas after: df.calib and gb.calib still work, and
    # the package's names load on first access
    code = ("import sys, calreport\n"
            "assert 'pandas' not in sys.modules\n"
            "import pandas as pd\n"
            "df = pd.DataFrame({'y': [0, 1, 1, 0], 'p': [0.2, 0.7, 0.6, 0.4], "
            "'g': list('aabb')})\n"
            "assert df.calib is df.calib\n"
            "assert pd.DataFrame.calib is calreport.CalibAccessor\n"
            "print(df.calib.accuracy(), df.groupby('g').calib.accuracy().tolist(), "
            "calreport.metrics.binned.__name__, 'summary' in dir(calreport))\n")
    assert _printed(code) == ["1.0", "[1.0,", "1.0]", "calreport.metrics.binned", "True"]


def test_polars_imported_before_calreport_still_gives_pandas_accessors():
    # registering the Polars namespace imports pandas: pandas must register too
    pytest.importorskip("polars")
    code = ("import polars, calreport, pandas as pd\n"
            "df = pd.DataFrame({'y': [0, 1, 1, 0], 'p': [0.2, 0.7, 0.6, 0.4], "
            "'g': list('aabb')})\n"
            "print(df.calib.accuracy(), df.groupby('g').calib.accuracy().tolist(), "
            "hasattr(polars.DataFrame({'a': [1]}), 'calib'))\n")
    assert _printed(code) == ["1.0", "[1.0,", "1.0]", "True"]


def test_the_package_exports_what_its_all_lists():
    names = set(calreport.__all__)
    assert names == {*calreport._EXPORTS, *calreport._SUBPACKAGES, "__version__"}
    for name in sorted(names):
        assert getattr(calreport, name) is not None


def test_summary_names_the_function_whatever_was_imported_first():
    # the submodule calreport.summary, imported first, must not take the name of the
    # function calreport.summary (its import binds the package attribute)
    code = ("import calreport.summary, calreport, numpy as np\n"
            "from calreport import summary\n"
            "assert callable(summary), summary\n"
            "from calreport.summary import summarize\n"
            "import calreport.summary as again\n"
            "print(summary([0, 1, 1], [0.2, 0.7, 0.6])['n'], callable(calreport.summary))\n")
    assert _printed(code) == ["3.0", "True"]
