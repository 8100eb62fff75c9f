"""The numbers printed in the README come from the code shown there."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

README = Path(__file__).resolve().parents[1] / "README.md"


def test_why_section_numbers():
    text = README.read_text()
    section = text[text.index("## Why calreport"):text.index("## A tour")]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    printed = re.search(r"```\n(accuracy.*?)```", section, re.S).group(1)
    scope: dict = {}
    exec(code.replace("df.calib.summary(", "result = df.calib.summary("), scope)
    result = scope["result"]
    for line in printed.strip().splitlines():
        name, value = line.split()[:2]
        assert result[name] == pytest.approx(float(value), abs=5e-5), name


def test_tour_runs_unchanged(tmp_path, monkeypatch):
    """Every line of the README's tour runs (no FutureWarning: nothing deprecated)."""
    import warnings

    text = README.read_text()
    section = text[text.index("## A tour"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    code = code.replace("n_boot=1000", "n_boot=50")  # the same calls, fewer replicates
    # (and fewer refits and re-simulation draws in the reports)
    from calreport.bootstrap import intervals
    from calreport.metrics import multiplicity

    monkeypatch.setattr(intervals, "REFIT_REPLICATES", 20)
    monkeypatch.setattr(multiplicity, "RESIM_DRAWS", 20_000)
    monkeypatch.chdir(tmp_path)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        warnings.simplefilter("ignore", UserWarning)
        exec(code, {})
    assert (tmp_path / "audit.html").stat().st_size > 10_000


def test_scaling_out_snippet_runs(tmp_path, monkeypatch):
    """The Dask / Accumulator / Polars snippet, on a small frame written to Parquet."""
    import numpy as np
    import pandas as pd

    pytest.importorskip("dask.dataframe")
    pytest.importorskip("polars")
    text = README.read_text()
    section = text[text.index("## Scaling out"):]
    code = re.search(r"```python\n(.*?)```", section, re.S).group(1)
    rng = np.random.default_rng(0)
    p = rng.uniform(size=400)
    frame = pd.DataFrame({"y": (rng.random(400) < p).astype(int), "p": p,
                          "model": rng.choice(["a", "b"], 400)})
    (tmp_path / "predictions").mkdir()
    frame.to_parquet(tmp_path / "predictions" / "part0.parquet")
    frame.to_parquet(tmp_path / "day.parquet")
    monkeypatch.chdir(tmp_path)
    import calreport

    yesterday = calreport.Accumulator(y="y", proba="p", by="model", classes=[0, 1],
                                      n_boot=200, sample_size=20_000, top_errors=10,
                                      stream=1).update(frame.iloc[:100])
    exec(code, {"todays_batches": [frame.iloc[100:250], frame.iloc[250:]], "day": 2,
                "stored": {1: yesterday.to_bytes()}})
