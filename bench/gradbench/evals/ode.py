"""GradBench's `ode` (cmpad's `an_ode`): s steps of classic Runge-Kutta from
y(0) = 0 to t = 2 for y_0' = x_0, y_i' = x_i y_{i-1} (the eval's C++
reference), and the gradient of the last y with respect to x by
`gradopt.grad`.

`s` is static: the steps are a Python loop, unrolled when traced (four
evaluations of the right-hand side per step, so the program grows linearly
with s; s = 100 gives about 400 of them). Loops that run in the program
itself wait for gradopt's control flow in the front end.
"""

from __future__ import annotations

from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats


def slope(x: Any, y: Any) -> Any:
    """z_0 = x_0, z_i = x_i y_{i-1}."""
    return x * gnp.concatenate([gnp.ones(1), y[:-1]])


def solve(x: Any, s: int) -> Any:
    h = 2.0 / s
    y = gnp.zeros_like(x)
    for _ in range(s):
        k1 = slope(x, y)
        k2 = slope(x, y + h * k1 / 2.0)
        k3 = slope(x, y + h * k2 / 2.0)
        k4 = slope(x, y + h * k3)
        y = y + h * (k1 + 2.0 * k2 + 2.0 * k3 + k4) / 6.0
    return y


def last(x: Any, s: int) -> Any:
    return solve(x, s)[-1]


def _arguments(input: Json) -> tuple[Any, ...]:
    return floats(input["x"]), int(input["s"])


FUNCTIONS = {
    "primal": Function(solve, _arguments, static_argnums=(1,)),
    "gradient": Function(gradopt.grad(last), _arguments, static_argnums=(1,)),
}
