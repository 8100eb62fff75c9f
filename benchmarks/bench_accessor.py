"""The accessor path against its peers, side by side in one run.

Every case times what a user calls -- ``df.calib...`` and
``df.groupby("g").calib.summary(...)`` -- and the peer on the same data in the same
process, alternating the two, and reports wall-clock medians and their ratio.  Memory
is measured in a fresh Python process per case: the peak resident set size during one
call beyond the resident size just before it (Linux: the peak is reset through
``/proc/self/clear_refs`` before the call; elsewhere ``ru_maxrss``, which then also
counts the building of the data); the ``n_boot=1000`` case is timed in three fresh
processes too (median).  Unlike ``tracemalloc`` this costs nothing per
allocation, so it does not stall on the bootstrap of 1e7 rows, and it sees every
buffer (BLAS, thread arenas) that the process really holds.

Usage::

    python benchmarks/bench_accessor.py              # full sizes (several minutes)
    python benchmarks/bench_accessor.py --quick      # small smoke run
    python benchmarks/bench_accessor.py --out benchmarks/RESULTS.md   # also append

Sizes are options (``--n``, ``--groups``, ``--group-rows``, ``--mc-n``, ``--mc-k``,
``--boot-n``, ``--boot-mem-n``, ``--growth``); ``--skip`` leaves cases out.
"""

from __future__ import annotations

import argparse
import gc
import math
import re
import resource
import statistics
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
from sklearn.calibration import calibration_curve
from sklearn.metrics import roc_auc_score

# this checkout's calreport (not an installed copy) and the shared helpers
sys.path[:0] = [str(Path(__file__).resolve().parents[1]), str(Path(__file__).resolve().parent)]
from _common import machine, write_section  # noqa: E402

import calreport  # noqa: E402,F401  (registers the accessors)

CASES = ("auc", "ece", "summary", "grouped", "multiclass", "mc_boot", "boot_memory",
         "boot_time", "growth", "bpm_busy", "grouped_all", "profile_bytes")


# ------------------------------------------------------------------------- timing
def timed(fn: Callable[[], Any]) -> float:
    gc.collect()
    t0 = time.perf_counter()
    fn()
    return time.perf_counter() - t0


def side_by_side(ours: Callable[[], Any], peer: Callable[[], Any] | None,
                 repeat: int, warmup: bool = True) -> tuple[float, float]:
    """Medians of ``repeat`` alternating runs of ``ours`` and ``peer`` (after a warm-up)."""
    if warmup:
        ours()
        if peer is not None:
            peer()
    a, b = [], []
    for _ in range(repeat):
        a.append(timed(ours))
        if peer is not None:
            b.append(timed(peer))
    return statistics.median(a), (statistics.median(b) if b else math.nan)


def _resident() -> int:
    """Resident set size of this process now (bytes); 0 where it cannot be read."""
    try:
        with open("/proc/self/statm") as fh:
            return int(fh.read().split()[1]) * resource.getpagesize()
    except OSError:
        return 0


def _reset_peak() -> bool:
    """Reset the peak resident size (Linux); False where that is not possible."""
    try:
        with open("/proc/self/clear_refs", "w") as fh:
            fh.write("5")
        return True
    except OSError:
        return False


def _peak() -> int:
    """Peak resident set size of this process (bytes)."""
    try:
        with open("/proc/self/status") as fh:
            m = re.search(r"VmHWM:\s*(\d+)\s*kB", fh.read())
        if m:
            return int(m.group(1)) * 1024
    except OSError:
        pass
    scale = 1 if sys.platform == "darwin" else 1024  # ru_maxrss: bytes on macOS, KiB else
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale


def _memory_child(case: str, n: int, k: int) -> None:
    """Run one memory case in this (fresh) process and print ``extra input_bytes``."""
    if case in ("multiclass", "multiclass_peer"):
        df, y, p = multiclass_frame(n, k)
        size = p.nbytes
    else:
        df = binary_frame(n)
        y, p = df["y_true"].to_numpy(), df["proba"].to_numpy()
        size = y.nbytes + p.nbytes
    calls: dict[str, Callable[[pd.DataFrame, np.ndarray, np.ndarray], Any]] = {
        "multiclass": lambda d, y, p: d.calib.summary(),
        "multiclass_peer": lambda d, y, p: roc_auc_score(y, p, multi_class="ovr",
                                                         average="macro"),
        "boot": lambda d, y, p: d.calib.summary(ci=0.95, n_boot=200, seed=0,
                                                progress=False),
        # the phases of "boot": validation alone, the point estimates alone
        "boot_profile": lambda d, y, p: d.calib.profile(),
        "boot_point": lambda d, y, p: d.calib.summary(),
        "boot_peer": lambda d, y, p: roc_auc_score(y, p),
    }
    if case not in calls:
        raise SystemExit(f"unknown memory case {case!r}")
    # warm-up on 2,000 rows: modules imported on first use are not counted
    calls[case](df.iloc[:2000], y[:2000], p[:2000])

    def call() -> Any:
        return calls[case](df, y, p)

    gc.collect()
    before = _resident()
    if not _reset_peak():
        before = _peak()
    call()
    print(max(0, _peak() - before), size)


def extra_memory(case: str, n: int, k: int = 0) -> tuple[int, int]:
    """Peak extra resident memory of one call of ``case`` and the input's size (bytes),
    measured in a fresh Python process (see the module notes)."""
    out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--memory-child",
                          case, str(n), str(k)], capture_output=True, text=True, check=False)
    if out.returncode:
        raise RuntimeError(f"memory case {case} failed:\n{out.stderr[-2000:]}")
    extra, size = out.stdout.split()[-2:]
    return int(extra), int(size)


def growth_exponent(sizes: list[int], times: list[float]) -> float:
    """Least-squares slope of log(time) on log(N)."""
    return float(np.polyfit(np.log(sizes), np.log(times), 1)[0])


def fmt_s(x: float) -> str:
    return "-" if not math.isfinite(x) else (f"{x * 1e3:.1f} ms" if x < 1 else f"{x:.2f} s")


def fmt_ratio(a: float, b: float) -> str:
    return "-" if not (math.isfinite(a) and math.isfinite(b) and b > 0) else f"{a / b:.2f}x"


def gib(x: float) -> str:
    return f"{x / 2**30:.2f} GiB" if x >= 2**30 else f"{x / 2**20:.0f} MiB"


# --------------------------------------------------------------------------- data
def binary_frame(n: int, seed: int = 0, groups: int | None = None) -> pd.DataFrame:
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    y = (rng.random(n) < p**1.2).astype(np.int64)
    df = pd.DataFrame({"y_true": y, "proba": p})
    if groups is not None:
        df["g"] = np.repeat(np.arange(groups), n // groups)[:n]
    return df


def multiclass_frame(n: int, k: int, seed: int = 0) -> tuple[pd.DataFrame, np.ndarray,
                                                              np.ndarray]:
    rng = np.random.default_rng(seed)
    logits = rng.normal(size=(n, k)).astype(np.float64)
    logits *= 2.0
    logits -= logits.max(axis=1, keepdims=True)
    np.exp(logits, out=logits)
    logits /= logits.sum(axis=1, keepdims=True)
    u = rng.random(n)
    y = np.minimum((np.cumsum(logits, axis=1) < u[:, None]).sum(axis=1), k - 1)
    df = pd.DataFrame(logits, columns=[f"proba_{j}" for j in range(k)], copy=False)
    df.insert(0, "y_true", y)
    return df, y, logits


# -------------------------------------------------------------------------- cases
def case_auc(a: argparse.Namespace, rows: list) -> None:
    df = binary_frame(a.n)
    y, p = df["y_true"].to_numpy(), df["proba"].to_numpy()
    t, peer = side_by_side(lambda: (df.calib.auc(), df.calib.cwauc()),
                           lambda: roc_auc_score(y, p), a.repeat)
    rows.append((f"`df.calib.auc()` + `df.calib.cwauc()`, {a.n:.0e} rows", fmt_s(t),
                 f"scikit-learn `roc_auc_score` {fmt_s(peer)}", fmt_ratio(t, peer), "<= 1.0x"))


def case_ece(a: argparse.Namespace, rows: list) -> None:
    df = binary_frame(a.n)
    y, p = df["y_true"].to_numpy(), df["proba"].to_numpy()
    t, peer = side_by_side(lambda: df.calib.ece(),
                           lambda: calibration_curve(y, p, n_bins=15), a.repeat)
    rows.append((f"`df.calib.ece()`, {a.n:.0e} rows", fmt_s(t),
                 f"`calibration_curve` {fmt_s(peer)}", fmt_ratio(t, peer), "<= 1.0x"))


def case_summary(a: argparse.Namespace, rows: list) -> None:
    df = binary_frame(a.n)
    y, p = df["y_true"].to_numpy(), df["proba"].to_numpy()
    t, peer = side_by_side(lambda: df.calib.summary(), lambda: roc_auc_score(y, p),
                           a.repeat)
    rows.append((f"`df.calib.summary()`, {a.n:.0e} rows", fmt_s(t),
                 f"`roc_auc_score` {fmt_s(peer)}", fmt_ratio(t, peer), "<= 3x"))


def case_grouped(a: argparse.Namespace, rows: list) -> None:
    n = a.groups * a.group_rows
    df = binary_frame(n, groups=a.groups)
    few = ["accuracy", "brier", "auc", "ece"]
    one = df.assign(g=0)
    rep = max(1, min(a.repeat, 3))
    t, whole = side_by_side(lambda: df.groupby("g").calib.summary(metrics=few),
                            lambda: one.groupby("g").calib.summary(metrics=few), rep)
    rows.append((f"grouped summary {few}, {a.groups} groups x {a.group_rows} rows",
                 f"{fmt_s(t)} ({t / a.groups * 1e6:.0f} µs/group)",
                 f"same rows as one group {fmt_s(whole)}", fmt_ratio(t, whole), "<= 3x"))


def case_grouped_all(a: argparse.Namespace, rows: list) -> None:
    n = a.groups * a.group_rows
    df = binary_frame(n, groups=a.groups)
    one = df.assign(g=0)
    # the first call of each in the process is reported beside the medians of the
    # calls after it, as for every other row
    first, first_whole = timed(lambda: df.groupby("g").calib.summary()), \
        timed(lambda: one.groupby("g").calib.summary())
    t_all, whole_all = side_by_side(lambda: df.groupby("g").calib.summary(),
                                    lambda: one.groupby("g").calib.summary(),
                                    max(1, min(a.repeat, 3)), warmup=False)
    rows.append((f"grouped summary, all metrics, {a.groups} x {a.group_rows}",
                 f"{fmt_s(t_all)} (first call {fmt_s(first)})",
                 f"same rows as one group {fmt_s(whole_all)} (first call "
                 f"{fmt_s(first_whole)})",
                 f"{fmt_ratio(t_all, whole_all)} (first calls "
                 f"{fmt_ratio(first, first_whole)})", "<= 5x"))


def case_multiclass(a: argparse.Namespace, rows: list) -> None:
    mem, size = extra_memory("multiclass", a.mc_n, a.mc_k)
    peer_mem, _ = extra_memory("multiclass_peer", a.mc_n, a.mc_k)
    df, y, p = multiclass_frame(a.mc_n, a.mc_k)
    t_summary, _ = side_by_side(lambda: df.calib.summary(), None, 1)
    rows.append((f"multiclass {a.mc_n:.0e} x {a.mc_k}: `summary()`",
                 f"{fmt_s(t_summary)}, +{gib(mem)} ({mem / size:.1f}x the {gib(size)} input)",
                 f"`roc_auc_score(ovr, macro)` +{gib(peer_mem)}", "-", "extra <= 3x input"))
    rep = max(1, min(a.repeat, 2))
    t, peer = side_by_side(
        lambda: (df.calib.auc(), df.calib.cwauc()),
        lambda: roc_auc_score(y, p, multi_class="ovr", average="macro"), rep)
    rows.append((f"multiclass {a.mc_n:.0e} x {a.mc_k}: macro `auc()` + `cwauc()`", fmt_s(t),
                 f"`roc_auc_score(ovr, macro)` {fmt_s(peer)}", fmt_ratio(t, peer), "<= 1.0x"))


def case_mc_boot(a: argparse.Namespace, rows: list) -> None:
    """Multiclass ``summary(ci=0.95, n_boot=200)`` at ``--mc-boot-n`` x ``--mc-boot-k``."""
    import warnings

    df, _, _ = multiclass_frame(a.mc_boot_n, a.mc_boot_k)
    acc = df.calib(y="y_true", proba=list(df.columns[1:]))
    acc.summary(["accuracy"])  # validation cached, as for every other case

    def call() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            acc.summary(ci=0.95, n_boot=200, seed=0)

    t, _ = side_by_side(call, None, max(1, min(a.repeat, 3)))
    rows.append((f"multiclass {a.mc_boot_n:.0e} x {a.mc_boot_k}: "
                 "`summary(ci=0.95, n_boot=200)`", fmt_s(t), "-", "-", "<= 10 s"))


def case_boot_memory(a: argparse.Namespace, rows: list) -> None:
    mem, size = extra_memory("boot", a.boot_mem_n)
    peer, _ = extra_memory("boot_peer", a.boot_mem_n)
    # where the peak is: the same frame, validation alone and the point estimates alone
    phases = {name: extra_memory(f"boot_{name}", a.boot_mem_n)[0]
              for name in ("profile", "point")}
    rows.append((f"`summary(ci=0.95, n_boot=200)`, {a.boot_mem_n:.0e} rows: extra memory",
                 f"+{gib(mem)} ({mem / size:.1f}x the {gib(size)} input; `profile()` alone "
                 f"{phases['profile'] / size:.1f}x, `summary()` without intervals "
                 f"{phases['point'] / size:.1f}x)",
                 f"`roc_auc_score` +{gib(peer)}", "-", "<= 4x input"))


def _boot_time_child(n: int) -> None:
    """Time one ``summary(ci=0.95, n_boot=1000)`` in this (fresh) process; print it."""
    df = binary_frame(n)
    df.iloc[:2000].calib.summary(ci=0.95, n_boot=50, seed=0, progress=False)  # imports
    print(timed(lambda: df.calib.summary(ci=0.95, n_boot=1000, seed=0, progress=False)))


def case_boot_time(a: argparse.Namespace, rows: list) -> None:
    # each call in a fresh process, as an audit job runs it: in this process the
    # earlier cases' frames (1e6 x 100 floats) leave a heap that slows it by 10-50 %
    times = []
    for _ in range(3):
        out = subprocess.run([sys.executable, str(Path(__file__).resolve()), "--time-child",
                              str(a.boot_n)], capture_output=True, text=True, check=False)
        if out.returncode:
            raise RuntimeError(f"boot_time failed:\n{out.stderr[-2000:]}")
        times.append(float(out.stdout.split()[-1]))
    t = statistics.median(times)
    rows.append((f"`summary(ci=0.95, n_boot=1000)`, {a.boot_n:.0e} rows (median of 3 fresh "
                 f"processes: {', '.join(f'{x:.2f}' for x in times)} s)", fmt_s(t), "-", "-",
                 "<= 8 s"))


def case_growth(a: argparse.Namespace, rows: list) -> None:
    sizes = [int(float(s)) for s in a.growth.split(",")]
    paths: dict[str, Callable[[pd.DataFrame], Any]] = {
        "auc + cwauc": lambda d: (d.calib.auc(), d.calib.cwauc()),
        "ece": lambda d: d.calib.ece(),
        "summary": lambda d: d.calib.summary(),
    }
    times: dict[str, list[float]] = {k: [] for k in paths}
    for n in sizes:
        df = binary_frame(n)
        for name, fn in paths.items():
            # after side_by_side's warm-up call; the median of 3 even at 1e7 (a single
            # call there swung 4x between runs: page faults of fresh N-row temporaries)
            times[name].append(side_by_side(lambda fn=fn, df=df: fn(df), None,
                                            3 if n >= 10**7 else a.repeat)[0])
    for name in paths:
        exp = growth_exponent(sizes, times[name])
        pairs = ", ".join(f"{n:.0e}: {fmt_s(t)}" for n, t in zip(sizes, times[name],
                                                                   strict=True))
        last = (math.log(times[name][-1] / times[name][-2])
                / math.log(sizes[-1] / sizes[-2])) if len(sizes) > 1 else math.nan
        rows.append((f"growth of `{name}`, N = {sizes[0]:.0e}..{sizes[-1]:.0e}",
                     f"exponent {exp:.2f} (last step {last:.2f})", pairs, "-", "<= 1.15"))


def _busy_loop(stop: Any) -> None:
    x = 0
    while not stop.is_set():
        x += 1


def _control_task(reps: int) -> Callable[[], float]:
    """A single-threaded CPU task (NumPy ``sin`` over 4096 values, ``reps`` times):
    no BLAS and no threads, so its slowdown on a busy machine is the scheduler's."""
    x = np.linspace(0.0, 1.0, 4096)

    def run() -> float:
        s = 0.0
        for _ in range(reps):
            s += float(np.sin(x).sum())
        return s

    return run


def case_bpm_busy(a: argparse.Namespace, rows: list) -> None:
    """``df.calib.tce_bpm()`` at 1e4 rows, quiet and beside busy-loop processes.

    Two settings: one busy loop (with this process, both cores are busy: the
    target's case) and one busy loop per core (three runnable processes on two
    cores: the scheduler leaves one of them alone on a core and makes two share
    the other, so this process runs at full speed or at half speed, by luck of
    placement).  Each is timed alternately with a control task of the same quiet
    length that uses no BLAS and no threads: its ratio is the scheduler's share,
    about 1x when the process had a core to itself and about 2x when it shared one.
    """
    import multiprocessing as mp
    import os

    df = binary_frame(10_000, seed=1)
    bpm = lambda: df.calib.tce_bpm()  # noqa: E731
    bpm()
    t_bpm = min(timed(bpm) for _ in range(5))
    probe = _control_task(20)
    t_probe = min(timed(probe) for _ in range(5))
    control = _control_task(max(1, round(20 * t_bpm / t_probe)))
    repeat = a.repeat * 8
    quiet, quiet_ctl = side_by_side(bpm, control, repeat)
    ctx = mp.get_context("spawn")
    for n_loops in (1, os.cpu_count() or 2):
        stop = ctx.Event()
        procs = [ctx.Process(target=_busy_loop, args=(stop,)) for _ in range(n_loops)]
        for pr in procs:
            pr.start()
        try:
            time.sleep(0.5)
            busy, busy_ctl = side_by_side(bpm, control, repeat)
        finally:
            stop.set()
            for pr in procs:
                pr.join()
        rows.append((f"`df.calib.tce_bpm()`, 1e4 rows, {n_loops} busy-loop process"
                     f"{'es' if n_loops > 1 else ''} beside it (medians of {repeat})",
                     fmt_s(busy), f"same call, no busy loop {fmt_s(quiet)}; a control task "
                     f"without BLAS or threads: {fmt_ratio(busy_ctl, quiet_ctl)}",
                     fmt_ratio(busy, quiet), "<= 2x" if n_loops == 1 else "-"))


def case_profile_bytes(a: argparse.Namespace, rows: list) -> None:
    """Bytes per row held by the validated profile of a binary frame: the arrays it
    holds, each buffer counted once (a field derived from the score, such as the
    binary ``[1 - p, p]``, is built when read and not held)."""
    from calreport._roles import build_profile, resolve_roles

    df = binary_frame(a.n)
    prof, _, _ = build_profile(df, resolve_roles(df))
    prof.view()  # the calibration view's outcome column, cached on first use
    arrays = [x for x in vars(prof).values() if isinstance(x, np.ndarray)]
    arrays += [x for pair in prof._views.values() for x in pair]
    bases: dict[int, int] = {}
    for x in arrays:
        if x is not None:
            base = x
            while isinstance(base.base, np.ndarray):
                base = base.base
            bases[id(base)] = base.nbytes
    per_row = sum(bases.values()) / a.n
    rows.append((f"validated profile of {a.n:.0e} binary rows", f"{per_row:.0f} B/row",
                 "input (int64 labels, float64 scores) 16 B/row", "-", "-"))


RUNNERS = {"auc": case_auc, "ece": case_ece, "summary": case_summary,
           "grouped": case_grouped, "multiclass": case_multiclass, "mc_boot": case_mc_boot,
           "boot_memory": case_boot_memory, "boot_time": case_boot_time,
           "growth": case_growth, "bpm_busy": case_bpm_busy,
           "grouped_all": case_grouped_all, "profile_bytes": case_profile_bytes}


# --------------------------------------------------------------------------- main
def parse(argv: list[str] | None = None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="small sizes (a smoke run)")
    ap.add_argument("--n", type=float, default=1e6, help="binary rows (auc, ece, summary)")
    ap.add_argument("--groups", type=int, default=10_000)
    ap.add_argument("--group-rows", type=int, default=50)
    ap.add_argument("--mc-n", type=float, default=1e6, help="multiclass rows")
    ap.add_argument("--mc-k", type=int, default=100, help="multiclass classes")
    ap.add_argument("--mc-boot-n", type=float, default=5e4, help="rows of the multiclass "
                    "bootstrap case")
    ap.add_argument("--mc-boot-k", type=int, default=1000, help="its classes")
    ap.add_argument("--boot-n", type=float, default=1e6, help="rows of the n_boot=1000 case")
    ap.add_argument("--boot-mem-n", type=float, default=1e7,
                    help="rows of the n_boot=200 memory case")
    ap.add_argument("--growth", default="1e4,1e5,1e6,1e7", help="sizes of the growth run")
    ap.add_argument("--repeat", type=int, default=5, help="timed repetitions (median)")
    ap.add_argument("--skip", default="", help=f"comma-separated cases of {CASES}")
    ap.add_argument("--out", type=Path, help="also append the table to this file")
    ap.add_argument("--write", action="store_true",
                    help="replace the 'accessor' section of benchmarks/RESULTS.md")
    a = ap.parse_args(argv)
    if a.quick:
        a.n, a.groups, a.group_rows = 2e4, 200, 50
        a.mc_n, a.mc_k, a.boot_n, a.boot_mem_n = 5e3, 20, 2e4, 5e4
        a.mc_boot_n, a.mc_boot_k = 2e3, 20
        a.growth, a.repeat = "1e3,1e4,1e5", 3
    for name in ("n", "mc_n", "mc_boot_n", "boot_n", "boot_mem_n"):
        setattr(a, name, int(getattr(a, name)))
    a.skip = {s.strip() for s in a.skip.split(",") if s.strip()}
    unknown = a.skip - set(CASES)
    if unknown:
        ap.error(f"--skip: unknown case(s) {sorted(unknown)}; choose from {CASES}")
    return a


def main(argv: list[str] | None = None) -> str:
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == ["--memory-child"]:
        _memory_child(argv[1], int(argv[2]), int(argv[3]))
        return ""
    if argv[:1] == ["--time-child"]:
        _boot_time_child(int(argv[1]))
        return ""
    a = parse(argv)
    rows: list[tuple] = []
    for name, run in RUNNERS.items():
        if name in a.skip:
            continue
        print(f"[bench_accessor] {name} ...", file=sys.stderr, flush=True)
        run(a, rows)
        print("  ", " | ".join(str(x) for x in rows[-1]), file=sys.stderr, flush=True)
    header = ("case", "calreport (accessor)", "peer, same run", "ratio", "target")
    cmd = "PYTHONPATH=. python benchmarks/bench_accessor.py " + " ".join(sys.argv[1:])
    lines = [f"## Accessor path vs peers ({'quick' if a.quick else 'full'} sizes, "
             f"medians of {a.repeat})", "", f"Machine: {machine()}.", "",
             f"Command: `{cmd.strip()}`", "",
             "| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(x) for x in r) + " |" for r in rows]
    text = "\n".join(lines) + "\n"
    print(text)
    if a.write:
        write_section("accessor", text)
    if a.out is not None:
        with a.out.open("a") as fh:
            fh.write("\n" + text)
    return text


if __name__ == "__main__":
    main()
