"""Confidence intervals, pure arithmetic: Wilson's for a rate, Student's t for a mean. Advice
(the spread of a lead's values over sampled deals) and studies (batch and match statistics)
both report them, so they live below both.
"""

from __future__ import annotations

import math
from functools import cache

Z95 = 1.959963984540054


def wilson(successes: int, n: int) -> tuple[float, float]:
    """The 95% Wilson score interval of a rate.

    >>> tuple(round(x, 3) for x in wilson(50, 100))
    (0.404, 0.596)
    """
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + Z95 ** 2 / (2 * n)) / (1 + Z95 ** 2 / n)
    half = Z95 * math.sqrt(p * (1 - p) / n + Z95 ** 2 / (4 * n * n)) / (1 + Z95 ** 2 / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _t_within(t: float, df: int) -> float:
    """P(|T| < t) for Student's t with ``df`` degrees of freedom (Abramowitz and Stegun
    26.7.3-4: a finite sum for a whole ``df``)."""
    theta = math.atan(t / math.sqrt(df))
    c2 = math.cos(theta) ** 2
    if df % 2 == 0:
        term = total = 1.0
        for k in range(2, df - 1, 2):
            term *= c2 * (k - 1) / k
            total += term
        return math.sin(theta) * total
    if df == 1:
        return 2 * theta / math.pi
    term = total = 1.0
    for k in range(3, df - 1, 2):
        term *= c2 * (k - 1) / k
        total += term
    return 2 / math.pi * (theta + math.sin(theta) * math.cos(theta) * total)


@cache
def t95(df: int) -> float:
    """The two-sided 95% quantile of Student's t (12.706 for 1 degree of freedom, 2.571 for
    5, toward 1.960): exact by bisection up to 1,000, the Cornish-Fisher series beyond."""
    if df > 1000:
        z = Z95
        return (z + (z ** 3 + z) / (4 * df) + (5 * z ** 5 + 16 * z ** 3 + 3 * z) / (96 * df ** 2)
                + (3 * z ** 7 + 19 * z ** 5 + 17 * z ** 3 - 15 * z) / (384 * df ** 3))
    low, high = Z95, 13.0
    for _ in range(80):
        middle = (low + high) / 2
        low, high = (middle, high) if _t_within(middle, df) < 0.95 else (low, middle)
    return (low + high) / 2


def mean_ci(values: list[float]) -> tuple[float, float, float]:
    """Mean and its 95% interval (Student's t: a sample of a few, such as a match of a few
    units, gets the width it needs, not the normal one's). One value gives no interval: its
    bounds are NaN (JSON null), never the zero-width ``[mean, mean]`` of certainty."""
    n = len(values)
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return (mean, math.nan, math.nan)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = t95(n - 1) * sd / math.sqrt(n)
    return (mean, mean - half, mean + half)


def mean_ci_from_sums(n: int, total: float, squares: float) -> tuple[float, float, float]:
    """:func:`mean_ci` from the count, sum and sum of squares (exact for whole numbers), so a
    large batch file is summarised without holding its values."""
    if n == 0:
        return (math.nan, math.nan, math.nan)
    mean = total / n
    if n == 1:
        return (mean, math.nan, math.nan)
    spread = max(0.0, float(n * squares - total * total)) / (n * (n - 1))
    half = t95(n - 1) * math.sqrt(spread) / math.sqrt(n)
    return (mean, mean - half, mean + half)
