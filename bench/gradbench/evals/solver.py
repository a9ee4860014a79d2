"""The gradient-descent solver of GradBench's `particle` and `saddle` (from
Pearlmutter and Siskind's benchmarks): `argmin` walks down the gradient with a
step size that halves after a step that does not lower the function and
doubles after ten that do, until the gradient or the step is below 1e-5.

The walk is one `gradopt.lax.while_loop` whose body picks its case with
`gradopt.lax.cond`, so the function and its gradient at a candidate point are
computed only when the walk takes a step; its length is known only when it
runs. The gradient is a parameter: `reverse` (`gradopt.grad`) or `forward`
(one `gradopt.jvp` per coordinate), the two modes the evals pair up. A
function handed to `argmin` may itself call `argmin` (`saddle`'s inner
maximum), and the outer gradient then differentiates through the inner walk:
nested derivatives, each from gradopt's AD.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json
from gradopt import lax

Gradient = Callable[[Callable[[Any], Any]], Callable[[Any], Any]]
"""Takes a scalar function of a vector, gives the function of its gradient."""

TOLERANCE = 1e-5
"""How small the gradient or a step gets before the walk stops, and the
evals' first step size."""


def reverse(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The gradient of `f` by reverse mode."""
    return gradopt.grad(f)


def forward(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The gradient of `f` by forward mode: one tangent per coordinate."""

    def gradient(x: Any) -> Any:
        basis = gnp.eye(x.shape[0])
        return gnp.stack(
            [gradopt.jvp(f, (x,), (basis[i],))[1] for i in range(x.shape[0])]
        )

    return gradient


def magnitude(v: Any) -> Any:
    return gnp.sqrt(gnp.sum(v * v))


def argmin(
    gradient: Gradient, f: Callable[[Any], Any], x: Any, eta: float = TOLERANCE
) -> Any:
    """The point where the walk down `f` from `x`, with a first step size of
    `eta`, stops."""
    g = gradient(f)

    def step(state: tuple[Any, ...]) -> tuple[Any, ...]:
        x, fx, gx, eta, i, _ = state

        def descend(state: tuple[Any, ...]) -> tuple[Any, ...]:
            moved = x - eta * gx

            def compare(state: tuple[Any, ...]) -> tuple[Any, ...]:
                f_moved = f(moved)
                return lax.cond(
                    f_moved < fx,
                    lambda s: (moved, f_moved, g(moved), eta, i + 1, True),
                    lambda s: (x, fx, gx, eta / 2, 0, True),
                    state,
                )

            return lax.cond(
                magnitude(x - moved) <= TOLERANCE,
                lambda s: (x, fx, gx, eta, i, False),
                compare,
                state,
            )

        return lax.cond(
            magnitude(gx) <= TOLERANCE,
            lambda s: (x, fx, gx, eta, i, False),
            lambda s: lax.cond(
                i == 10, lambda s: (x, fx, gx, 2 * eta, 0, True), descend, s
            ),
            state,
        )

    start = (x, f(x), g(x), gnp.float32(eta), 0, True)
    return lax.while_loop(lambda state: state[5], step, start)[0]


def argmax(
    gradient: Gradient, f: Callable[[Any], Any], x: Any, eta: float = TOLERANCE
) -> Any:
    """The point where the walk up `f` from `x` stops."""
    return argmin(gradient, lambda y: -f(y), x, eta)


MODES: dict[str, Gradient] = {"f": forward, "r": reverse}
"""The evals' letters for the two modes."""


def by_modes(
    make: Callable[[Gradient, Gradient], Callable[..., Any]],
    arguments: Callable[[Json], tuple[Any, ...]],
) -> dict[str, Function]:
    """The four functions of an eval of nested gradients: `make(outer,
    inner)` for each pair of modes, named by their letters (`rf`: the outer
    gradient in reverse mode, the inner one in forward mode)."""
    return {
        a + b: Function(make(MODES[a], MODES[b]), arguments)
        for a in MODES
        for b in MODES
    }
