"""Test data shared by several test modules."""

from __future__ import annotations

import numpy as np
import pandas as pd

from calreport import ConfidenceProfile


def beta_profile(seed: int, n: int, ties: bool) -> tuple[np.random.Generator,
                                                          ConfidenceProfile]:
    """A binary profile with Beta(2, 2) scores (rounded to 0.01 with ``ties``) and
    calibrated labels, and the generator that drew it (for further draws)."""
    rng = np.random.default_rng(seed)
    p = rng.beta(2, 2, n)
    if ties:
        p = np.round(p, 2)
    y = (rng.random(n) < p).astype(int)
    return rng, ConfidenceProfile.from_arrays(y, p)


def labelled_frame(seed: int, n: int, power: float, groups: list[str],
                   column: str = "g") -> pd.DataFrame:
    """Uniform scores ``proba``, labels ``y`` drawn with probability ``proba**power``
    (over-confident below 1, under-confident above) and a random group column."""
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    y = (rng.random(n) < p**power).astype(int)
    return pd.DataFrame({"y": y, "proba": p, column: rng.choice(groups, n)})
