"""The README's out-of-core table is the registry's, and its examples name real API.

After a registry change, ``python tests/test_scale_readme.py`` writes the table.
"""

import re
from pathlib import Path

from calreport.stats.scaling import markdown_table

README = Path(__file__).resolve().parents[1] / "README.md"
_TABLE = re.compile(r"(<!-- scaling-table: begin -->\n)(.*?)(\n<!-- scaling-table: end -->)", re.S)


def _section() -> str:
    text = README.read_text()
    return text[text.index("## Scaling out"):text.index("## Compared with the peers")]


def test_scaling_table_is_generated_from_the_registry():
    section = _section()
    table = _TABLE.search(section).group(2)
    assert table == markdown_table(), "run `python tests/test_scale_readme.py` to write it"


def test_examples_use_existing_api():
    import dask.dataframe  # noqa: F401

    from calreport import dask as cdask
    from calreport.accumulator import Accumulator

    code = re.search(r"```python\n(.*?)```", _section(), re.S).group(1)
    for method in re.findall(r"by_model\.(\w+)\(", code):
        assert hasattr(cdask.DaskGroupByCalibAccessor, method), method
    for method in re.findall(r"(?:acc|merged)\.(\w+)\(", code):
        assert hasattr(Accumulator, method), method
    from calreport.polars import PolarsCalibNamespace

    polars_methods = re.findall(r"day\.(\w+)\(", code)
    assert polars_methods
    for method in polars_methods:
        assert hasattr(PolarsCalibNamespace, method), method
    assert "strategy" in Accumulator.summary.__code__.co_varnames
    for kw in ("exact_auc", "sample_size", "n_boot"):
        assert kw in cdask.DaskGroupByCalibAccessor.summary.__code__.co_varnames
    for kw in ("sample_size", "top_errors"):
        assert kw in Accumulator.__init__.__code__.co_varnames


if __name__ == "__main__":
    README.write_text(_TABLE.sub(lambda m: m.group(1) + markdown_table() + m.group(3),
                                 README.read_text(), count=1))
