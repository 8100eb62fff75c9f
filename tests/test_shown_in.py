"""The tables beyond the summary list the metrics whose registry entry names them."""

from __future__ import annotations

import dataclasses

import pytest

from calreport.registry import REGISTRY, shown_in
from calreport.registry.entry import TABLES


@pytest.mark.parametrize("table", TABLES)
def test_positions_in_a_table_are_one_to_n(table):
    positions = sorted(m.shown_in[table] for m in REGISTRY.values() if table in m.shown_in)
    assert positions == list(range(1, len(positions) + 1))


def test_each_table_lists_metrics_in_their_order():
    # the report's layout as it is printed (the report JSON pins the same)
    assert shown_in("report_table") == ("accuracy", "csr", "z_csr", "p_risk", "ece",
                                        "brier", "auc")
    assert shown_in("card") == ("accuracy", "ece", "brier", "auc")
    assert shown_in("comparison") == ("csr", "p_risk", "log_loss", "brier", "ece",
                                      "accuracy", "auc")
    assert shown_in("recalibration") == ("log_loss", "brier", "ece", "csr", "p_risk",
                                         "cwa", "auc")


def test_the_report_prints_a_part_of_the_advisors_table_in_its_order():
    part, whole = shown_in("report_recalibration"), shown_in("recalibration")
    assert part == tuple(m for m in whole if m in part)


def test_unknown_table_is_refused():
    with pytest.raises(ValueError, match=r"Unknown table 'cards'\. Known: report_table"):
        shown_in("cards")


def test_an_entry_naming_an_unknown_table_is_refused():
    with pytest.raises(ValueError, match=r"'ece': shown_in names unknown tables \['cards'\]"):
        dataclasses.replace(REGISTRY["ece"], shown_in={"cards": 1})
