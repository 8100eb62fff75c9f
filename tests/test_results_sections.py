"""benchmarks/RESULTS.md: each script's section is one begin/end pair, so rewriting one
section can never swallow the sections of the other scripts."""

import re
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[1] / "benchmarks" / "RESULTS.md"


def test_every_section_is_one_marker_pair_in_order():
    text = RESULTS.read_text(encoding="utf-8")
    markers = re.findall(r"<!-- (begin|end):(\w+) -->", text)
    names = [n for kind, n in markers if kind == "begin"]
    assert len(names) == len(set(names)), names
    assert markers == [m for n in names for m in (("begin", n), ("end", n))]
    for name in ("report", "accessor", "scale"):
        assert name in names, name
