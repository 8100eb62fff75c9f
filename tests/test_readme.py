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
