"""Reference values of the cumulative-difference tests from MAPIE, for the test suite.

Run in an environment with MAPIE installed (``pip install mapie``; values in the
tests come from MAPIE 1.6.0)::

    python benchmarks/mapie_ecce_reference.py

It prints the statistics and tail probabilities that
``tests/test_calibration_tests_new.py`` compares with calreport's
:mod:`calreport.metrics.cumulative` to 1e-12.

Conventions aligned before comparing:

* MAPIE sorts by scores jittered with seeded relative noise of 1e-8 and then
  accumulates the *jittered* scores; the data sets here have distinct scores, and
  the jitter is switched off (``add_jitter`` replaced by the identity) so both
  libraries accumulate the same numbers.
* MAPIE's Kuiper range omits the starting point ``C_0 = 0``. The third data set's
  cumulative differences are all negative: there MAPIE's range is smaller than
  calreport's (which equals the KS statistic), and the test checks that difference;
  the other data sets cross zero, where the two ranges agree.
"""

from __future__ import annotations

import argparse

import numpy as np


def datasets() -> list[tuple[np.ndarray, np.ndarray]]:
    """Seeded data sets with distinct scores (shared with the test suite)."""
    out = []
    for seed, n, power in ((0, 50, 1.0), (1, 200, 1.0), (2, 500, 1.3), (3, 1000, 0.8)):
        rng = np.random.default_rng(seed)
        s = rng.uniform(0.02, 0.98, n)
        y = (rng.uniform(size=n) < s ** power).astype(np.float64)
        out.append((s, y))
    return out


#: Points at which the two Brownian tails are compared.
POINTS = (0.25, 0.5, 0.8, 0.999, 1.0, 1.2, 1.7, 2.2414, 3.0, 4.5)


def main() -> None:
    argparse.ArgumentParser(description=__doc__.splitlines()[0]).parse_args()
    import mapie
    from mapie.metrics import calibration as mc

    mc.add_jitter = lambda x, **kwargs: np.asarray(x, dtype=np.float64)
    print(f"# MAPIE {mapie.__version__}")
    rows = []
    for s, y in datasets():
        rows.append((float(mc.kolmogorov_smirnov_statistic(y, s)),
                     float(mc.kolmogorov_smirnov_p_value(y, s)),
                     float(mc.kuiper_statistic(y, s)), float(mc.kuiper_p_value(y, s))))
    print("MAPIE_STATISTICS = [")
    for r in rows:
        print(f"    ({r[0]!r}, {r[1]!r}, {r[2]!r}, {r[3]!r}),")
    print("]")
    print("MAPIE_TAILS = [  # (x, 1 - kolmogorov_smirnov_cdf(x), 1 - kuiper_cdf(x))")
    for x in POINTS:
        print(f"    ({x!r}, {1.0 - float(mc.kolmogorov_smirnov_cdf(x))!r}, "
              f"{1.0 - float(mc.kuiper_cdf(x))!r}),")
    print("]")


if __name__ == "__main__":
    main()
