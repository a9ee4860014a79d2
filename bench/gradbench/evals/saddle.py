"""GradBench's `saddle`: min over x of max over y of
f(x, y) = (x_1^2 + x_2^2) - (y_1^2 + y_2^2) by gradient descent (`solver`),
the inner maximum inside the function the outer minimum walks down, then the
maximum at the x found; both walks start at the input's point.

The four functions pick the mode of each gradient: the first letter the
outer walk's (and the final maximum's), the second the inner walk's, `r`
reverse and `f` forward. The outer gradient differentiates through the
inner walk, a `while_loop` of run-time length, and through the inner
gradient inside it.
"""

from __future__ import annotations

from typing import Any

import gradopt.numpy as gnp
from evals import Json, floats
from evals.solver import TOLERANCE, Gradient, argmax, argmin, by_modes


def objective(x: Any, y: Any) -> Any:
    return gnp.sum(x * x) - gnp.sum(y * y)


def saddle(outer: Gradient, inner: Gradient, eta: float = TOLERANCE) -> Any:
    """The eval's function for these modes (`eta`: the walks' first step)."""

    def points(start: Any) -> Any:
        def worst(x: Any) -> Any:
            y = argmax(inner, lambda y: objective(x, y), start, eta)
            return objective(x, y)

        x = argmin(outer, worst, start, eta)
        y = argmax(outer, lambda y: objective(x, y), start, eta)
        return gnp.concatenate([x, y])

    return points


def _start(input: Json) -> tuple[Any, ...]:
    return (floats(input["start"]),)


FUNCTIONS = by_modes(saddle, _start)
