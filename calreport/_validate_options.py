"""Checks of scalar options: thresholds, counts, choices, numbers, Beta densities.

Each check validates one option passed by the user (``tau``, ``n_bins``, a choice
among allowed values, a positive integer or number, a fraction, an equal-mass bin
size range, Beta shape parameters, a distribution on [0, 1], an option that has no
effect) and returns it as a Python value, or raises a ``ValueError`` / ``TypeError``
naming the option and saying how to fix it.  Re-exported by
:mod:`calreport._validate`, through which the rest of calreport calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = [
    "check_beta_shape",
    "check_bin_size_range",
    "check_fraction",
    "check_n_bins",
    "check_option",
    "check_positive_int",
    "check_positive_number",
    "check_tau",
    "check_unit_distribution",
    "check_unused",
]


def check_tau(tau: float) -> float:
    """Validate a selective-prediction threshold tau in [0, 1)."""
    try:
        t = float(tau)
    except (TypeError, ValueError):
        raise TypeError(f"`tau` must be a number in [0, 1), got {tau!r}.") from None
    if not (0.0 <= t < 1.0):
        raise ValueError(
            f"`tau` must be in [0, 1), got {tau!r}: phi(c) = (c - tau) / (1 - tau) is "
            "undefined at tau = 1 (Shahnazari et al. 2025, arXiv:2505.18622, section 3)."
        )
    return t


def check_n_bins(n_bins: int) -> int:
    """Validate a number of bins (a positive integer)."""
    if isinstance(n_bins, bool) or not isinstance(n_bins, (int, np.integer)) or n_bins < 1:
        raise ValueError(f"`n_bins` must be a positive integer, got {n_bins!r}.")
    return int(n_bins)


def check_option(value: Any, name: str, allowed: Sequence[Any]) -> Any:
    """Raise when ``value`` is not one of ``allowed``."""
    if value not in allowed:
        choices = ", ".join(repr(a) for a in allowed)
        raise ValueError(f"`{name}` must be one of {choices}; got {value!r}.")
    return value


def check_positive_int(value: Any, name: str, *, minimum: int = 1) -> int:
    """Validate an integer ``>= minimum`` (booleans are refused)."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < minimum:
        raise ValueError(f"`{name}` must be an integer >= {minimum}, got {value!r}.")
    return int(value)


def check_positive_number(value: Any, name: str, *, minimum: float = 0.0,
                          inclusive: bool = False) -> float:
    """Validate a finite real number ``> minimum`` (or ``>=`` when ``inclusive``)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number, got {value!r}.") from None
    ok = bool(np.isfinite(x)) and (x >= minimum if inclusive else x > minimum)
    if not ok:
        sign = ">=" if inclusive else ">"
        raise ValueError(f"`{name}` must be a finite number {sign} {minimum:g}, got {value!r}.")
    return x


def check_bin_size_range(min_bin: Any, max_bin: Any) -> tuple[int, int]:
    """Validate the row range ``[min_bin, max_bin]`` of equal-mass bins.

    ``max_bin >= 2 * min_bin`` guarantees that every sample size has a bin count
    whose equal-mass bins all hold between ``min_bin`` and ``max_bin`` rows.
    """
    lo = check_positive_int(min_bin, "min_bin")
    hi = check_positive_int(max_bin, "max_bin")
    if hi < 2 * lo:
        raise ValueError(
            f"`max_bin` must be at least twice `min_bin` (got min_bin={lo}, max_bin={hi}): "
            "otherwise some sample sizes admit no equal-mass binning within the range. "
            "Widen the range, e.g. min_bin=20, max_bin=100."
        )
    return lo, hi


def check_beta_shape(alpha: Any, beta: Any, name: str, *, hint: str = "") -> tuple[float, float]:
    """Validate the shape parameters of a Beta density (finite and > 0)."""
    try:
        a, b = float(alpha), float(beta)
    except (TypeError, ValueError):
        raise TypeError(
            f"{name}: Beta shape parameters must be numbers, got ({alpha!r}, {beta!r})."
        ) from None
    if not (bool(np.isfinite(a) and np.isfinite(b)) and a > 0 and b > 0):
        raise ValueError(
            f"{name} is not a valid Beta density: both shape parameters must be finite and "
            f"> 0, got alpha={a!r}, beta={b!r}. {hint}".rstrip()
        )
    return a, b


def check_unit_distribution(dist: Any, name: str) -> Any:
    """Validate a distribution on [0, 1]: an object with ``ppf`` and ``cdf`` methods
    (e.g. a frozen ``scipy.stats`` distribution) whose support lies in [0, 1]."""
    if not (callable(getattr(dist, "ppf", None)) and callable(getattr(dist, "cdf", None))):
        raise TypeError(
            f"`{name}` must be None, a pair (alpha, beta) of Beta shape parameters, or a "
            f"distribution with ppf and cdf methods such as scipy.stats.beta(2, 5); got "
            f"{type(dist).__name__}."
        )
    support = getattr(dist, "support", None)
    if callable(support):
        lo, hi = (float(s) for s in support())
        if lo < 0.0 or hi > 1.0:
            raise ValueError(
                f"`{name}` must be a distribution of confidences on [0, 1]; its support is "
                f"[{lo:g}, {hi:g}]. Use e.g. scipy.stats.beta or scipy.stats.truncnorm."
            )
    return dist


def check_fraction(value: Any, name: str, *, include_one: bool = True,
                   high: float = 1.0) -> float:
    """Validate a number in ``(0, high]`` (``(0, high)`` when ``include_one`` is False)."""
    try:
        x = float(value)
    except (TypeError, ValueError):
        raise TypeError(f"`{name}` must be a number, got {value!r}.") from None
    ok = bool(np.isfinite(x)) and 0.0 < x and (x <= high if include_one else x < high)
    if not ok:
        interval = f"(0, {high:g}]" if include_one else f"(0, {high:g})"
        raise ValueError(f"`{name}` must be a number in {interval}, got {value!r}.")
    return x


def check_unused(value: Any, name: str, *, when: str) -> None:
    """Raise when an option that has no effect in this configuration is set (not None)."""
    if value is not None:
        raise ValueError(
            f"`{name}`={value!r} has no effect {when}; leave `{name}` at None."
        )
