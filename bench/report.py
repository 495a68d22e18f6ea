"""How the benches print: medians, ratios to a named peer, and budgets marked met or OVER."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return math.nan
    return ordered[min(int(len(ordered) * fraction), len(ordered) - 1)]


def ratio(ours: float, theirs: float) -> float:
    return ours / theirs if theirs else math.nan


@dataclass
class Budget:
    """`figure() <comparison> limit`, e.g. a ratio to the peer `<=` 1.0."""

    what: str
    figure: Callable[[], float]
    comparison: str  # "<=", "<" or ">="
    limit: float
    unit: str = "x"

    def met(self, value: float) -> bool:
        if self.comparison == "<=":
            return value <= self.limit
        if self.comparison == "<":
            return value < self.limit
        return value >= self.limit


def print_budgets(budgets: list[Budget]) -> bool:
    """One line per budget; whether every one was met."""
    met_all = True
    for budget in budgets:
        value = budget.figure()
        met = budget.met(value)
        met_all &= met
        limit = f"{budget.limit:g}{budget.unit}"
        print(
            f"  {budget.what:60} {value:9.2f}{budget.unit:3} {budget.comparison:2} {limit:8} "
            f"{'met' if met else 'OVER'}"
        )
    return met_all
