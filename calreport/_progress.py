"""Progress bars for long work: the bootstrap, the refits, the report's stages.

``tqdm.auto`` draws a text bar in a terminal and a widget in a Jupyter notebook.  A
bar is shown by default only where someone watches (a terminal on standard error, or
a notebook kernel) and only for work expected to take a few seconds; ``progress=True``
forces it, ``progress=False`` silences it.
"""

from __future__ import annotations

import sys
from typing import Any

__all__ = ["MIN_SECONDS", "Steps", "interactive", "progress_bar"]

#: Work expected to take less than this (seconds) gets no bar by default.
MIN_SECONDS = 2.0


def interactive() -> bool:
    """Whether someone watches: standard error is a terminal, or a notebook kernel runs.

    Examples
    --------
    >>> isinstance(interactive(), bool)
    True
    """
    stream = getattr(sys, "stderr", None)
    if stream is not None and getattr(stream, "isatty", lambda: False)():
        return True
    if "ipykernel" not in sys.modules:
        return False
    shell = getattr(sys.modules.get("IPython"), "get_ipython", lambda: None)()
    return shell is not None and "IPKernelApp" in getattr(shell, "config", {})


def progress_bar(total: int, desc: str, unit: str, enabled: bool | None,
                 expected_seconds: float | None = None) -> Any:
    """A ``tqdm.auto`` bar, or None when none is wanted.

    Parameters
    ----------
    total : int
        Steps of the work.
    desc, unit : str
        What the bar counts (e.g. ``"bootstrap"``, ``"rep"``).
    enabled : bool or None
        True: always; False: never; None: when :func:`interactive` and the work is
        expected to take at least :data:`MIN_SECONDS` (unknown: yes).
    expected_seconds : float, optional
        A rough estimate of the work's duration.

    Returns
    -------
    tqdm or None
        Call ``update(k)`` and ``close()`` on it.

    Examples
    --------
    >>> progress_bar(10, "work", "step", enabled=False) is None
    True
    """
    if enabled is None:
        enabled = interactive() and (expected_seconds is None
                                     or expected_seconds >= MIN_SECONDS)
    if not enabled:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:  # pragma: no cover - tqdm is a dependency
        return None
    return tqdm(total=total, desc=desc, unit=unit, leave=False)


class Steps:
    """Count the steps of a loop; after the first one, show a bar if the rest is
    predicted (from its time) to take at least :data:`MIN_SECONDS`.

    Parameters
    ----------
    total : int
        Steps of the work.
    desc, unit : str
        What the bar counts.
    enabled : bool or None
        As in :func:`progress_bar`.

    Examples
    --------
    >>> with Steps(3, "work", "step", enabled=False) as steps:
    ...     for _ in range(3):
    ...         steps.done()
    >>> steps.count
    3
    """

    def __init__(self, total: int, desc: str, unit: str, enabled: bool | None) -> None:
        import time

        self._clock = time.perf_counter
        self.total, self.desc, self.unit, self.enabled = total, desc, unit, enabled
        self.count = 0
        self._bar: Any = None
        self._start = self._clock()

    def done(self, k: int = 1) -> None:
        """Record ``k`` finished steps."""
        first = self.count == 0
        self.count += k
        if first and self.enabled is not False:
            per_step = (self._clock() - self._start) / max(k, 1)
            self._bar = progress_bar(self.total, self.desc, self.unit, self.enabled,
                                     per_step * self.total)
            if self._bar is not None:
                self._bar.update(self.count)
            return
        if self._bar is not None:
            self._bar.update(k)

    def close(self) -> None:
        """Close the bar, if one was shown."""
        if self._bar is not None:
            self._bar.close()
            self._bar = None

    def __enter__(self) -> Steps:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
