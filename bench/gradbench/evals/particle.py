"""GradBench's `particle`: the control parameter w for which a charged particle,
pushed by two fixed charges at (10, 10 - w) and (10, 0), crosses the x axis at
the origin, by gradient descent (`solver`) on the square of where it crosses.

The path is Euler's method with a step of 0.1, run while the particle is
above the axis (a `gradopt.lax.while_loop` of run-time length), each step's
acceleration the gradient of the charges' potential at the particle; the
crossing is the linear interpolation from the last point above the axis.
The four functions pick the mode of each gradient: the first letter the
walk's over w, the second the acceleration's, `r` reverse and `f` forward;
the walk's gradient differentiates through the integration and through the
acceleration's gradient inside it.
"""

from __future__ import annotations

from typing import Any

import gradopt.numpy as gnp
from evals import Json, floats
from evals.solver import Gradient, argmin, by_modes
from gradopt import lax

STEP = 0.1
"""Euler's time step."""


def crossing(acceleration: Gradient, w: Any) -> Any:
    """x_0(t_f)^2, where the particle's path from (0, 8) at velocity (0.75, 0)
    meets the x axis."""
    charges = gnp.stack([gnp.stack([10.0, 10.0 - w]), gnp.array([10.0, 0.0])])

    def potential(x: Any) -> Any:
        return gnp.sum(1.0 / gnp.sqrt(gnp.sum((x - charges) ** 2, axis=1)))

    force = acceleration(potential)

    def euler(state: tuple[Any, Any, Any]) -> tuple[Any, Any, Any]:
        x, velocity, _ = state
        moved = x + STEP * velocity
        return lax.cond(
            moved[1] > 0,
            lambda: (moved, velocity - STEP * force(x), True),
            lambda: (x, velocity, False),
        )

    start = (gnp.array([0.0, 8.0]), gnp.array([0.75, 0.0]), True)
    x, velocity, _ = lax.while_loop(lambda state: state[2], euler, start)
    crossed = x[0] - x[1] / velocity[1] * velocity[0]
    return crossed * crossed


def particle(outer: Gradient, inner: Gradient) -> Any:
    """The eval's function for these modes."""

    def best(w: Any) -> Any:
        walk = argmin(outer, lambda v: crossing(inner, v[0]), gnp.reshape(w, (1,)))
        return walk[0]

    return best


def _w(input: Json) -> tuple[Any, ...]:
    return (floats(input["w"]),)


FUNCTIONS = by_modes(particle, _w)
