"""The registry's out-of-core kind of every metric, checked against what the merged
statistics actually deliver."""

import math

import numpy as np
import pytest
from _profiles import labelled_frame
from sklearn.metrics import roc_auc_score

import calreport  # noqa: F401
from calreport.accumulator import Accumulator
from calreport.registry import REGISTRY, Metric
from calreport.stats import KINDS as FINISH_KINDS
from calreport.stats.sampled import full_table
from calreport.stats.scaling import INTERVALS, KINDS, Scaling, scaling_of

pytestmark = pytest.mark.filterwarnings("ignore::calreport.metrics.risk.ClippedConfidenceWarning")


def test_every_entry_has_a_kind_and_a_one_line_note():
    for name, spec in REGISTRY.items():
        kind, note, interval, interval_note = spec.scaling
        assert kind in KINDS, name
        assert interval in INTERVALS, name
        assert note and "\n" not in note, name
        assert interval_note and "\n" not in interval_note, name
        assert scaling_of(name) == Scaling(kind, note, interval, interval_note)


def test_default_is_not_available_and_bad_kinds_are_refused():
    assert Scaling().kind == "none"
    assert Metric.__dataclass_fields__["scaling"].default[0] == "none"
    with pytest.raises(ValueError, match="`kind` must be one of"):
        Scaling("approximate", "x")
    with pytest.raises(ValueError, match="one non-empty line"):
        Scaling("exact", "two\nlines")
    with pytest.raises(ValueError, match="`interval` must be one of"):
        Scaling("exact", "x", "jackknife", "y")
    with pytest.raises(ValueError, match="`interval_note` must be one non-empty line"):
        Scaling("exact", "x", "poisson", "")
    assert "scaling" in Metric.__dataclass_fields__


def test_registry_kinds_match_the_finishing_layer():
    # every metric the merged sums finish has the kind the registry records
    for name, kind in FINISH_KINDS.items():
        if name in REGISTRY:
            assert REGISTRY[name].scaling[0] == kind, (
                f"{name}: the out-of-core state finishes it {kind}; say so in its registry "
                f"entry, e.g. scaling=({kind!r}, _MERGED, *_CI_POISSON) for a sum form")
    # and every exact or bounded registry metric is finished from the sums (the
    # smooth ECE from its own node-grid sums, falling back to the sample)
    from calreport.stats.sampled import _GRID_OR_SAMPLE

    for name, spec in REGISTRY.items():
        if spec.scaling[0] in ("exact", "bounded") and name not in _GRID_OR_SAMPLE:
            assert FINISH_KINDS.get(name) == spec.scaling[0], name
    assert all(REGISTRY[m].scaling[0] == "exact" for m in _GRID_OR_SAMPLE)


@pytest.fixture(scope="module")
def frame():
    return labelled_frame(11, 3000, 1.2, ["a", "b"])


def test_each_kind_delivers_what_it_says(frame):
    """exact: the pandas value to 1e-12; bounded: within the reported bound;
    sampled: the pandas value when the group fits in the sample."""
    acc = Accumulator(y="y", proba="proba", by="g", sample_size=5000)
    for rows in np.array_split(np.arange(len(frame)), 5):
        acc.update(frame.iloc[rows])
    table = full_table(acc.state)
    ref = frame.groupby("g").calib.summary()
    assert table.keys == list(ref.index)
    for name, spec in REGISTRY.items():
        got, want = table.values[name], ref[name].to_numpy()
        kind = spec.scaling[0]
        assert table.kinds[name] == kind, name
        if kind == "exact":
            np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=name)
        elif kind == "bounded":
            assert (np.abs(got - want) <= table.bounds[name] + 1e-15).all(), name
        elif kind == "sampled":
            np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12, err_msg=name)
    # the bounded AUC against scikit-learn, group by group
    for gi, key in enumerate(table.keys):
        sub = frame[frame["g"] == key]
        auc = roc_auc_score(sub["y"], sub["proba"])
        assert abs(table.values["auc"][gi] - auc) <= table.bounds["auc"][gi]
        assert table.bounds["auc"][gi] < 1e-4


def test_sampled_metrics_without_a_sample_are_dropped_with_the_reason(frame):
    out = Accumulator(y="y", proba="proba", classes=[0, 1]).update(frame).summary()
    sampled = [m for m, s in REGISTRY.items() if s.scaling[0] == "sampled"]
    assert set(out.attrs["dropped"]) == set(sampled)
    assert all("sample_size" in why for why in out.attrs["dropped"].values())
    assert all(math.isnan(out[m]) for m in sampled)
    assert {out.attrs["kinds"][m] for m in sampled} == {"sampled"}
