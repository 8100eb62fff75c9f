"""Shared helpers of the benchmark scripts: timing, machine description, RESULTS.md."""

from __future__ import annotations

import os
import platform
import re
import statistics
import time
from collections.abc import Callable, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any

RESULTS = Path(__file__).resolve().parent / "RESULTS.md"


def median_time(fn: Callable[[], Any], repeat: int = 3, warmup: int = 0) -> tuple[float, Any]:
    """Median wall time of ``repeat`` calls (seconds) and the last result."""
    out = None
    for _ in range(warmup):
        out = fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        out = fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times), out


def version(pkg: str) -> str:
    try:
        return metadata.version(pkg)
    except metadata.PackageNotFoundError:
        return "not installed"


def machine(packages: Sequence[str] = ("calreport", "numpy", "pandas", "scipy",
                                       "scikit-learn", "statsmodels")) -> str:
    """One line describing the machine and the package versions."""
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as fh:
            m = re.search(r"model name\s*:\s*(.+)", fh.read())
            cpu = m.group(1).strip() if m else cpu
    except OSError:
        pass
    mem = ""
    try:
        with open("/proc/meminfo") as fh:
            kb = int(re.search(r"MemTotal:\s*(\d+)", fh.read()).group(1))
            mem = f", {kb / 2**20:.0f} GiB RAM"
    except (OSError, AttributeError):
        pass
    vers = ", ".join(f"{p} {version(p)}" for p in packages)
    return (f"{cpu}, {os.cpu_count()} cores{mem}; Python {platform.python_version()}; "
            f"{vers}")


def table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> str:
    """A Markdown table."""
    def fmt(x: Any) -> str:
        if isinstance(x, float):
            return f"{x:.4g}"
        return str(x)

    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(fmt(x) for x in r) + " |" for r in rows]
    return "\n".join(lines)


def write_section(name: str, body: str) -> None:
    """Replace (or append) the section ``name`` of RESULTS.md."""
    begin, end = f"<!-- begin:{name} -->", f"<!-- end:{name} -->"
    text = RESULTS.read_text() if RESULTS.exists() else (
        "# Benchmark results\n\nWritten by the scripts in this folder "
        "(`python benchmarks/run.py` reruns all of them). Times are wall-clock medians.\n"
    )
    block = f"{begin}\n{body.strip()}\n{end}"
    if text.count(begin) > 1 or text.count(end) > 1 or (begin in text) != (end in text):
        # a stray marker would make the replacement swallow the sections between them
        raise ValueError(f"{RESULTS.name}: the markers of section {name!r} are not one "
                         f"{begin} ... {end} pair; fix the file first.")
    if begin in text and end in text:
        text = re.sub(re.escape(begin) + r".*?" + re.escape(end), lambda _: block, text,
                      flags=re.S)
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    RESULTS.write_text(text)
    print(body)
