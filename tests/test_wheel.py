"""The built wheel ships the report templates and renders a report outside the source tree."""

from __future__ import annotations

import importlib.util
import json
import os
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
    out = {"module": calreport.__file__, "templates": str(report.template_dir()),
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
                   "calreport/datasets/breast_cancer.csv.gz"):
        assert needed in names
    assert not any(n.startswith("templates/") or n.startswith("tests/") for n in names)

    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--system-site-packages", "--without-pip",
                    str(venv)], check=True)
    python = venv / ("Scripts/python.exe" if os.name == "nt" else "bin/python")
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
