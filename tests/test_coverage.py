"""Fast version of the coverage study (benchmarks/coverage.py), with loose bounds.

40 simulated data sets per setup at n = 500: a coverage estimate has a standard
error of about 3.4 %, so a default interval that covers 95 % passes a lower bound of
80 % by four standard errors; the measured shortfalls recorded in the registry are
checked to stay shortfalls (ECE under calibration).
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from calreport.registry import REGISTRY

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "coverage.py"


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("coverage_study", _PATH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["coverage_study"] = mod
    spec.loader.exec_module(mod)
    rows = mod.run(reps=40, sizes=[500], n_boot=150, truth_n=200_000, seed=1)
    return {(r["metric"], r["setup"], r["method"]): r["coverage"] for r in rows}


@pytest.mark.parametrize("metric", ["accuracy", "cwa", "brier", "log_loss", "auc", "cwauc",
                                    "cwsa", "aurc", "z_csr", "signed_ece"])
def test_default_interval_covers(study, metric):
    method = REGISTRY[metric].interval.method
    for setup in ("miscalibrated", "calibrated", "heavy_tailed"):
        assert study[(metric, setup, method)] >= 0.8, (metric, setup, method)


def test_ece_default_is_the_better_method_and_its_shortfall_is_printed(study):
    assert REGISTRY["ece"].interval.method == "basic"
    for setup in ("miscalibrated", "heavy_tailed"):
        assert study[("ece", setup, "basic")] >= study[("ece", setup, "percentile")]
    # under perfect calibration (true ECE 0) no bootstrap interval covers: said so
    assert study[("ece", "calibrated", "basic")] < 0.8
    assert "calibrated" in REGISTRY["ece"].interval.coverage


def test_every_metric_below_nominal_carries_its_measured_coverage(study):
    for metric in ("ece", "mce", "csr", "sigma_csr", "p_risk"):
        assert REGISTRY[metric].interval.coverage.startswith("approximate:")
