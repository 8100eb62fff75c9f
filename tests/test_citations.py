"""Citations a reader can look up.

Papers are cited by authors, year, title, venue and arXiv id or DOI (numpydoc
``References`` sections, :mod:`calreport.references`), never by a working-copy file
name, a notes file or a path that exists only on the machine that wrote the code.
These tests scan every text file of the package, the templates, the tests, the
examples, the benchmarks and the README, and name each offending ``file:line``.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from calreport.references import REFERENCES

ROOT = Path(__file__).resolve().parents[1]

#: What is scanned: folders (recursively) and single files, relative to the root.
SCANNED = ("calreport", "templates", "tests", "examples", "benchmarks", "README.md")

#: Forbidden strings, each with why.  The patterns are written so that this file does
#: not match itself (``[/]`` instead of a bare slash, ``\.`` for the dot).
FORBIDDEN = {
    "working-copy file name of a paper": re.compile(r"\b[0-9]{3}_[0-9a-f]{16}\.txt"),
    "pointer to a folder outside the repository": re.compile(r"\bshared[/]"),
    "pointer to the reference notes": re.compile(r"\bformulas\.md\b"),
    "pointer to the design notes": re.compile(r"\bDESIGN\.md\b"),
    "absolute path outside the repository": re.compile(
        r"(?<![\w.])[/](?:work|home|root|Users|mnt|tmp)[/]"),
}

#: Files whose citations have been cleaned; they must stay clean whatever the state of
#: the rest of the tree.
CLEANED = (
    "calreport/__main__.py",
    "calreport/metrics/clinical.py",
    "calreport/metrics/scoring.py",
    "calreport/metrics/selective.py",
    "calreport/synthetic.py",
    "examples",
    "tests/properties/test_selective_props.py",
    "tests/test_bpm.py",
    "tests/test_citations.py",
    "tests/test_clinical.py",
    "tests/test_examples.py",
    "tests/test_peers.py",
    "tests/test_scoring.py",
    "tests/test_selective.py",
    "tests/test_synthetic.py",
    "tests/test_wheel.py",
    "benchmarks/bench_bpm.py",
    "benchmarks/RESULTS.md",
)

#: Calls that take a reference key as their first argument.
_KEY_CALL = re.compile(r"\b(?:cite|short)\(\s*(?:key\s*=\s*)?([\"'])(?P<key>[^\"']*)\1")
_KEY_INDEX = re.compile(r"\bREFERENCES\[\s*([\"'])(?P<key>[^\"']*)\1\s*\]")


def _text_files(paths: tuple[str, ...]) -> list[Path]:
    """Every decodable text file under ``paths`` (binary data and caches skipped)."""
    files: list[Path] = []
    for rel in paths:
        path = ROOT / rel
        candidates = [path] if path.is_file() else sorted(p for p in path.rglob("*")
                                                        if p.is_file())
        for p in candidates:
            if "__pycache__" in p.parts or ".hypothesis" in p.parts:
                continue
            try:
                p.read_bytes().decode("utf-8")
            except UnicodeDecodeError:
                continue  # compressed data sets and other binaries
            files.append(p)
    return files


def _rel(path: Path) -> Path:
    return path.relative_to(ROOT) if path.is_relative_to(ROOT) else path


def find_forbidden(files: list[Path]) -> list[str]:
    """``file:line: why: match`` for every forbidden string in ``files``."""
    found = []
    for path in files:
        text = path.read_text(encoding="utf-8")
        for lineno, line in enumerate(text.splitlines(), start=1):
            for why, pattern in FORBIDDEN.items():
                for m in pattern.finditer(line):
                    found.append(f"{_rel(path)}:{lineno}: {why}: {m.group(0)!r}")
    return found


def used_reference_keys(files: list[Path]) -> list[tuple[str, str]]:
    """``(file:line, key)`` for every literal key passed to ``cite``/``short`` or
    looked up in ``REFERENCES``."""
    used = []
    for path in files:
        for lineno, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            for pattern in (_KEY_CALL, _KEY_INDEX):
                for m in pattern.finditer(line):
                    used.append((f"{_rel(path)}:{lineno}", m.group("key")))
    return used


def _report(found: list[str]) -> str:
    return f"{len(found)} forbidden citation(s):\n" + "\n".join(found)


# --------------------------------------------------------------------- the scans
def test_no_internal_file_names_or_outside_paths_anywhere():
    found = find_forbidden(_text_files(SCANNED))
    assert not found, _report(found)


def test_cleaned_files_stay_clean():
    files = _text_files(CLEANED)
    assert len(files) >= len(CLEANED)  # every listed path exists and was read
    found = find_forbidden(files)
    assert not found, _report(found)


def test_every_reference_key_used_in_the_package_exists():
    used = used_reference_keys([p for p in _text_files(("calreport",))
                                if p.suffix in (".py", ".j2", ".md", ".html")])
    unknown = [f"{where}: {key!r}" for where, key in used if key not in REFERENCES]
    assert not unknown, ("unknown reference keys (see calreport/references.py):\n"
                         + "\n".join(unknown))


def test_reference_table_is_complete():
    for key, ref in REFERENCES.items():
        assert ref.key == key
        assert ref.authors and ref.title and ref.venue and 1900 < ref.year < 2100, key
        # a reader can look every paper up by an identifier, except a book, a
        # technical report, a proceedings paper and a book chapter that have none
        assert ref.arxiv or ref.doi or key in {"Kish1965", "Chamandy2012", "Kull2017",
                                               "Platt1999", "Cochran1977"}, key


# ------------------------------------------------------ the scanners can fail
@pytest.mark.parametrize(
    ("line", "why"),
    [("see 123_" + "0123456789abcdef.txt, section 2", "working-copy file name of a paper"),
     ("(shared" + "/reference/notes)", "pointer to a folder outside the repository"),
     ("formulas" + ".md, section 5", "pointer to the reference notes"),
     ("as in DESIGN" + ".md", "pointer to the design notes"),
     ('open("/' + 'mnt/data/x.csv")', "absolute path outside the repository"),
     ("cd /" + "home/user && run", "absolute path outside the repository")],
)
def test_scanner_names_file_line_and_reason(tmp_path, line, why):
    path = tmp_path / "module.py"
    path.write_text(f'"""Docstring."""\n\nx = 1  # {line}\n', encoding="utf-8")
    (found,) = find_forbidden([path])
    assert found.startswith(f"{path}:3: {why}: ")


@pytest.mark.parametrize(
    "line",
    ["Martin-Maroto et al. (2026, arXiv:2605.01796), section 2.1",
     "x = a / b / c",                            # division, not a path
     "see calreport/metrics/risk.py",            # a path inside the repository
     "docs/tmp/ and work/ relative folders",     # relative, not absolute
     "doi:10.1175/1520-0493(1950)078<0001:VOFEIT>2.0.CO;2"],
)
def test_scanner_accepts_real_citations_and_relative_paths(tmp_path, line):
    path = tmp_path / "module.py"
    path.write_text(f"# {line}\n", encoding="utf-8")
    assert find_forbidden([path]) == []


def test_key_scanner_finds_literal_keys(tmp_path):
    src = ('from calreport.references import cite, short, REFERENCES\n'
           'a = cite("Guo2017", "section 2")\n'
           "b = short( key='Nobody1999')\n"
           'c = REFERENCES["Brier1950"].doi\n')
    ast.parse(src)  # the probe is valid Python
    path = tmp_path / "probe.py"
    path.write_text(src, encoding="utf-8")
    used = used_reference_keys([path])
    assert [where for where, _ in used] == [f"{path}:2", f"{path}:3", f"{path}:4"]
    keys = [key for _, key in used]
    assert keys == ["Guo2017", "Nobody1999", "Brier1950"]
    assert [k for k in keys if k not in REFERENCES] == ["Nobody1999"]
