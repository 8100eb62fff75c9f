"""examples/tour.ipynb runs in a kernel and shows its figures and its result inline."""

from __future__ import annotations

from pathlib import Path

import nbclient  # the test extra: nbclient, nbformat, ipykernel
import nbformat
import pytest

TOUR = Path(__file__).resolve().parents[1] / "examples" / "tour.ipynb"


@pytest.fixture(scope="module")
def executed():
    nb = nbformat.read(TOUR, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=300, kernel_name="python3",
                                     resources={"metadata": {"path": str(TOUR.parent)}})
    with pytest.MonkeyPatch.context() as mp:
        # the kernel inherits the environment: a backend forced for the tests (e.g.
        # Agg) would hide what a notebook user sees
        mp.delenv("MPLBACKEND", raising=False)
        client.execute()
    return [c for c in nb.cells if c.cell_type == "code"]


def _kinds(cell) -> list[str]:
    return [mime for out in cell.outputs for mime in out.get("data", {})]


def test_no_cell_fails(executed):
    errors = [out for c in executed for out in c.outputs if out.output_type == "error"]
    assert errors == []


def test_every_plot_call_shows_one_png(executed):
    plots = [c for c in executed if ".plot." in c.source]
    assert len(plots) == 3
    for cell in plots:
        images = [out for out in cell.outputs if "image/png" in out.get("data", {})]
        assert len(images) == 1, (cell.source, _kinds(cell))
        assert images[0].output_type == "display_data"
        # a real figure, not an empty canvas
        assert len(images[0].data["image/png"]) > 10_000


def test_the_result_shows_as_an_html_table(executed):
    (cell,) = [c for c in executed if c.source.rstrip().endswith("\nresult")]
    (shown,) = [out for out in cell.outputs if out.output_type == "execute_result"]
    page = shown.data["text/html"]
    assert page.startswith('<table class="calreport-result">')
    for name in ("isotonic", "platt", "raw", "csr", "p_risk"):
        assert f">{name}<" in page
    # calibrations of the same patients are alternatives: no pooled column
    assert ">overall<" not in page
    # the plain-text form is the short repr, not the dataclass's fields
    text = shown.data["text/plain"]
    assert text.startswith("CalibrationResult: 3 groups by calibration")
    assert len(text.splitlines()) <= 6


def test_summaries_show_as_dataframes(executed):
    tables = [c for c in executed if ".summary(" in c.source]
    assert len(tables) == 2
    for cell in tables:
        (shown,) = [out for out in cell.outputs if out.output_type == "execute_result"]
        assert "<table" in shown.data["text/html"]


def test_warnings_point_at_the_cell(executed):
    streams = [out.text for c in executed for out in c.outputs
               if out.output_type == "stream" and out.name == "stderr"]
    warned = [line for text in streams for line in text.splitlines() if "Warning:" in line]
    # each warning is one per call, attributed to the cell's code, not to calreport's
    assert warned, "the breast-cancer data has confidences of exactly 1"
    assert all("calreport/" not in line.split("Warning:")[0] for line in warned)
