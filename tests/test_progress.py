"""Progress bars: where someone watches, for work of seconds, silenced by progress=False."""

from __future__ import annotations

import sys
import types

import numpy as np
import pandas as pd

import calreport  # noqa: F401  (registers the accessors)
from calreport import _progress


def _frame(n: int = 400) -> pd.DataFrame:
    rng = np.random.default_rng(0)
    p = rng.uniform(0.05, 0.95, n)
    return pd.DataFrame({"y": (rng.random(n) < p).astype(int), "p": p})


def test_bars_follow_the_progress_argument(capsys):
    df = _frame()
    df.calib(y="y", proba="p").summary(["ece", "brier"], ci=0.9, n_boot=64, seed=0,
                                        progress=True)
    assert "bootstrap" in capsys.readouterr().err
    df.calib(y="y", proba="p").summary(["ece", "brier"], ci=0.9, n_boot=64, seed=0,
                                        progress=False)
    assert capsys.readouterr().err == ""
    # not a terminal, no notebook kernel (pytest captures stderr): no bar by default
    df.calib(y="y", proba="p").summary(["ece", "brier"], ci=0.9, n_boot=64, seed=0)
    assert capsys.readouterr().err == ""


def test_refits_and_report_have_bars(capsys):
    df = _frame(300)
    df.calib(y="y", proba="p").summary(["smece"], ci=0.9, n_boot=30, seed=0,
                                        progress=True, refit=True)
    assert "refits" in capsys.readouterr().err
    df.calib(y="y", proba="p").report(metrics=["ece", "csr"], ci=None, progress=True,
                                      timestamp="2026-01-01T00:00:00Z")
    assert "report figures" in capsys.readouterr().err


def test_default_needs_a_watcher_and_seconds_of_work(monkeypatch):
    monkeypatch.setattr(_progress, "interactive", lambda: True)
    assert _progress.progress_bar(5, "x", "step", None, expected_seconds=0.1) is None
    bar = _progress.progress_bar(5, "x", "step", None, expected_seconds=30.0)
    assert bar is not None
    bar.close()
    monkeypatch.setattr(_progress, "interactive", lambda: False)
    assert _progress.progress_bar(5, "x", "step", None, expected_seconds=30.0) is None


def test_a_notebook_kernel_is_a_watcher(monkeypatch):
    shell = types.SimpleNamespace(config={"IPKernelApp": {"connection_file": "k.json"}})

    monkeypatch.setattr(sys, "stderr", types.SimpleNamespace(isatty=lambda: False,
                                                             write=lambda s: None))
    monkeypatch.delitem(sys.modules, "ipykernel", raising=False)
    assert not _progress.interactive()
    monkeypatch.setitem(sys.modules, "ipykernel", types.ModuleType("ipykernel"))
    fake = types.ModuleType("IPython")
    fake.get_ipython = lambda: shell
    monkeypatch.setitem(sys.modules, "IPython", fake)
    assert _progress.interactive()
    fake.get_ipython = lambda: None  # IPython imported, no kernel running
    assert not _progress.interactive()


def test_recalibration_advisor_has_a_bar(capsys):
    df = _frame(300)
    df.calib(y="y", proba="p").recalibrate(["platt"], n_boot=20, progress=True)
    assert "recalibration" in capsys.readouterr().err
    df.calib(y="y", proba="p").recalibrate(["platt"], n_boot=20, progress=False)
    assert capsys.readouterr().err == ""


def test_paired_comparison_has_bars_for_replicates_and_refits(capsys):
    rng = np.random.default_rng(2)
    n = 150
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p).astype(int)
    df = pd.concat([pd.DataFrame({"model": m, "row": np.arange(n), "y": y, "p": q})
                    for m, q in (("a", p), ("b", np.clip(p * 1.1, 0, 1)))])
    cal = df.groupby("model").calib(y="y", proba="p")
    first = cal.compare("a", row_id="row", metrics=["ece", "lcs"], n_boot=20, seed=0,
                        progress=True, refit=True)
    err = capsys.readouterr().err
    assert "compare" in err and "compare refits" in err
    again = cal.compare("a", row_id="row", metrics=["ece", "lcs"], n_boot=20, seed=0,
                        progress=False, refit=True)
    assert capsys.readouterr().err == ""
    pd.testing.assert_frame_equal(first.table, again.table)
