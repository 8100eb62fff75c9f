"""Packaging: the built wheel ships the report templates and renders a report outside
the source tree, and ``python -m calreport`` runs the command-line interface."""

from __future__ import annotations

import importlib.util
import json
import os
import site
import subprocess
import sys
import textwrap
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]

_SCRIPT = textwrap.dedent("""
    import json, sys
    import calreport
    from calreport import report
    from calreport.datasets import load_breast_cancer

    df = load_breast_cancer()
    rep = df.groupby("calibration", sort=False).calib(
        y="y_true", proba="proba_benign", pos_label="benign"
    ).report(n_boot=30, seed=0, timestamp="2026-01-01T00:00:00Z")
    html = rep.to_html()
    out = {"module": calreport.__file__, "version": calreport.__version__,
           "templates": str(report.template_dir()),
           "html_ok": "Verdict" in html and "data:image/svg+xml" in html,
           "groups": [g["name"] for g in rep.context["groups"]]}
    try:
        import weasyprint  # noqa: F401
    except ImportError:
        out["pdf"] = None
    else:
        out["pdf"] = rep.to_pdf()[:5].decode()
    print(json.dumps(out))
""")


def _site_dirs() -> list[str]:
    """The running interpreter's site-packages folders (a venv's own, or the system's)."""
    dirs = list(site.getsitepackages())
    if site.ENABLE_USER_SITE:
        dirs.append(site.getusersitepackages())
    return [d for d in dirs if Path(d).is_dir()]


def _venv_seeing_this_environment(venv: Path) -> Path:
    """A new venv that sees the running environment's packages after its own.

    ``venv --system-site-packages`` would expose the *base* interpreter's packages,
    which are not this environment's when the tests run inside a virtual environment
    (the README's ``python -m pip install ".[test,pdf]"`` into a fresh venv).  A
    ``.pth`` file instead adds this environment's site folders (processing their own
    ``.pth`` files) after the new venv's site-packages, so the wheel installed there is
    the ``calreport`` that gets imported while its dependencies come from here.
    """
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True, capture_output=True, text=True,
    ).stdout.strip()
    lines = [f"import site; site.addsitedir({d!r})" for d in _site_dirs()]
    (Path(purelib) / "_calreport_test_parent_env.pth").write_text("\n".join(lines) + "\n")
    return python


def _build_wheel(outdir: Path) -> Path:
    no_isolation = importlib.util.find_spec("hatchling") is not None
    if importlib.util.find_spec("build") is not None:
        cmd = [sys.executable, "-m", "build", "--wheel", "--outdir", str(outdir), str(ROOT)]
        if no_isolation:
            cmd.insert(4, "--no-isolation")
    else:
        cmd = [sys.executable, "-m", "pip", "wheel", "--no-deps", "-w", str(outdir), str(ROOT)]
        if no_isolation:
            cmd.insert(5, "--no-build-isolation")
    subprocess.run(cmd, check=True, capture_output=True, text=True, cwd=outdir)
    (wheel,) = outdir.glob("calreport-*.whl")
    return wheel


@pytest.mark.slow
def test_wheel_ships_templates_and_renders_a_report(tmp_path):
    wheel = _build_wheel(tmp_path)
    names = zipfile.ZipFile(wheel).namelist()
    for needed in ("calreport/templates/report.html.j2", "calreport/templates/base.html.j2",
                   "calreport/templates/macros.html.j2", "calreport/templates/report.md.j2",
                   "calreport/templates/report.css", "calreport/py.typed",
                   "calreport/datasets/breast_cancer.csv.gz", "calreport/coverage.json"):
        assert needed in names
    assert not any(n.startswith("templates/") or n.startswith("tests/") for n in names)

    venv = tmp_path / "venv"
    python = _venv_seeing_this_environment(venv)
    subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install",
                    "--no-deps", "--no-index", "--ignore-installed", "--quiet", str(wheel)],
                   check=True)
    run_dir = tmp_path / "elsewhere"
    run_dir.mkdir()
    env = {k: val for k, val in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    res = subprocess.run([str(python), "-c", _SCRIPT], cwd=run_dir, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout.strip().splitlines()[-1])
    venv_root = venv.resolve()
    assert Path(out["module"]).resolve().is_relative_to(venv_root)
    assert Path(out["templates"]).resolve().is_relative_to(venv_root)
    assert out["html_ok"]
    assert set(out["groups"]) == {"raw", "isotonic", "platt"}
    assert out["pdf"] in (None, "%PDF-")

    # the installed package also runs as ``python -m calreport``
    res = subprocess.run([str(python), "-m", "calreport", "--version"], cwd=run_dir, env=env,
                         capture_output=True, text=True)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip().endswith(out["version"])


def _run_module(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    env = {k: val for k, val in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONPATH"] = str(ROOT)  # this checkout's calreport, wherever the test runs from
    return subprocess.run([sys.executable, "-m", "calreport", *args], cwd=cwd, env=env,
                          capture_output=True, text=True)


def test_python_dash_m_runs_the_cli(tmp_path):
    from calreport import __version__

    res = _run_module("--version", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == f"calreport {__version__}"

    res = _run_module("--help", cwd=tmp_path)
    assert res.returncode == 0
    assert res.stdout.startswith("usage: calreport ")
    for command in ("summary", "report", "demo"):
        assert command in res.stdout


def test_python_dash_m_passes_exit_codes_through(tmp_path):
    # a usage error is exit 2, as from the ``calreport`` script
    res = _run_module("summary", str(tmp_path / "missing.csv"), cwd=tmp_path)
    assert res.returncode == 2
    assert "missing.csv" in res.stderr

    # a failed gate is exit 1: 10 predictions at confidence 0.9, 5 of them right
    csv = tmp_path / "preds.csv"
    csv.write_text("confidence,correct\n" + "0.9,1\n" * 5 + "0.9,0\n" * 5)
    res = _run_module("summary", str(csv), "--fail-on", "accuracy<0.8", cwd=tmp_path)
    assert res.returncode == 1, res.stderr
    res = _run_module("summary", str(csv), "--fail-on", "accuracy<0.4", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
