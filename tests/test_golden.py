"""Today's outputs, pinned: a restructuring changes no number (``tests/golden``)."""

from __future__ import annotations

import gzip
import json
import math
import sys
import warnings
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent / "golden"))
import make_golden

with gzip.open(make_golden.GOLDEN, "rt", encoding="utf-8") as _fh:
    PINNED = json.load(_fh)


def differences(old: dict, new: dict, rtol: float = 1e-12) -> list[str]:
    """Entries of ``old`` that ``new`` lacks or changes (numbers to ``rtol``).  Entries
    ``new`` adds (a new metric, a new column) are not differences: every pinned
    number must stay, and new ones are pinned when the fixture is regenerated.

    A Monte Carlo standard error (``*_mcse``) of replicates that are equal in exact
    arithmetic is zero up to rounding: it may move within 1e-15 of zero (a 6-row
    group's cwAUC bound measured 5.6e-17 when its replicates were summed in a
    different order)."""
    out = [f"missing {k}" for k in old.keys() - new.keys()]
    for k in old.keys() & new.keys():
        a, b = old[k], new[k]
        if isinstance(a, float) and isinstance(b, (int, float)) and not isinstance(b, bool):
            floor = 1e-15 if k.endswith("_mcse") else 1e-300
            if not math.isclose(a, b, rel_tol=rtol, abs_tol=floor):
                out.append(f"{k}: {a!r} -> {b!r}")
        elif a != b:
            out.append(f"{k}: {a!r} -> {b!r}")
    return sorted(out)


def test_fixture_covers_every_case():
    assert set(PINNED) == set(make_golden.cases())


@pytest.mark.parametrize("name", sorted(PINNED))
def test_same_numbers(name):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        new = make_golden.compute([name])[name]
    diff = differences(PINNED[name], new)
    assert not diff, f"{len(diff)} of {len(PINNED[name])} entries changed:\n" + "\n".join(diff[:40])


def test_comparison_catches_a_change():
    old = {"a": 0.1, "b": "x", "c": None}
    assert differences(old, dict(old)) == []
    assert differences(old, {**old, "a": 0.1 * (1 + 1e-11)})[0].startswith("a: 0.1 -> ")
    assert differences(old, {**old, "a": 0.1 * (1 + 1e-14)}) == []
    assert differences(old, {**old, "c": 0.0}) == ["c: None -> 0.0"]
    assert differences(old, {"a": 0.1, "b": "x"}) == ["missing c"]
    assert differences(old, {**old, "d": 1.0}) == []
