"""Fast version of the coverage study (``benchmarks/coverage.py``) and the coverage
figures every output quotes.

40 simulated data sets a setup at n = 300 (binary, calibrated and miscalibrated): a
coverage estimate has a standard error of about 3.4 %, so an interval that covers
95 % passes a lower bound of 80 % by four standard errors, and one that covers 0-40 %
(the percentile interval of ECE under calibration) fails it.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from calreport.interval_rules import COVERAGE, ONE_SIDED, STUDY, coverage, coverage_text
from calreport.registry import REGISTRY

_PATH = Path(__file__).resolve().parents[1] / "benchmarks" / "coverage.py"
#: the bootstrap metrics and the cheap refitted ones (LCS, TCE_bpm, ECI and smooth
#: ECE take seconds a run; the full study measures them)
FAST = (*(m for m, s in REGISTRY.items() if s.interval.kind == "bootstrap"),
        "classwise_ece", "debiased_ece", "corp_mcb", "corp_dsc", "corp_unc")
WITH_INTERVAL = [m for m, s in REGISTRY.items() if s.interval.kind != "none"]


@pytest.fixture(scope="module")
def study():
    spec = importlib.util.spec_from_file_location("coverage_study", _PATH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules["coverage_study"] = mod
    spec.loader.exec_module(mod)
    rows = mod.run(reps=40, sizes=[300], n_boot=150, truth_n=200_000, seed=1,
                   kinds=("binary",), workers=1, only=FAST)
    return {(r["metric"], r["calibration"], r["method"]): r["coverage"] for r in rows}


@pytest.mark.parametrize("metric", [m for m in FAST if REGISTRY[m].interval.kind != "none"])
def test_default_interval_covers_where_the_study_says_it_does(study, metric):
    method = REGISTRY[metric].interval.method
    if not coverage(metric, method).measured:
        pytest.skip(f"{metric}: not measured yet (the next test says how)")
    if not coverage(metric, method).meets_target:
        pytest.skip(f"{metric}: below nominal in the full study, and says so")
    for cal in ("calibrated", "miscalibrated"):
        assert study[(metric, cal, method)] >= 0.8, (metric, cal, method)


def test_why_calibration_errors_get_an_upper_bound(study):
    # under calibration (true ECE 0) the percentile interval around the upward-biased
    # estimate misses; the one-sided bound covers
    assert study[("ece", "calibrated", "percentile")] < 0.5
    assert study[("ece", "calibrated", "upper")] >= 0.9
    assert study[("corp_mcb", "calibrated", "percentile")] < 0.5
    # at a base rate of 0.5 the CORP uncertainty is at its maximum: estimates fall below
    assert study[("corp_unc", "calibrated", "upper")] < 0.5
    assert study[("corp_unc", "calibrated", "lower")] >= 0.9


@pytest.mark.parametrize("metric", WITH_INTERVAL)
def test_every_default_interval_was_measured_and_a_shortfall_is_said(metric):
    method = REGISTRY[metric].interval.method
    c = coverage(metric, method)
    assert c.measured, (f"{metric}: its interval's coverage was never measured; run "
                        f"`python benchmarks/coverage.py --metrics {metric} --add`")
    # LCS, TCE_bpm and ECI need unweighted rows: binary and 10-class cells
    assert len(c.cells) >= 8
    assert c.runs >= 200
    text = coverage_text(metric, method)
    assert text.startswith("measured") == c.meets_target
    if not c.meets_target:
        assert text.startswith("BELOW NOMINAL")
    if method in ONE_SIDED:
        assert c.low >= 0.92 or not c.meets_target


def test_the_data_file_is_the_study_output():
    assert STUDY["runs"] >= 200
    assert set(STUDY["sizes"]) == {300, 3000}
    missing = set(WITH_INTERVAL) - {"lcs", "tce_bpm", "eci"} - set(COVERAGE)
    assert not missing, (f"no measured coverage of {sorted(missing)}: run `python "
                         f"benchmarks/coverage.py --metrics {' '.join(sorted(missing))} --add`")
