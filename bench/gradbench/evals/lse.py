"""GradBench's `lse`: log-sum-exp of a vector by the max trick, written from its
parts (a maximum, a sum), and its gradient by `gradopt.grad`.

The shift by the maximum is held constant (`stop_gradient`), as in
`jax.nn.logsumexp`: the value does not depend on the shift, so its
derivative is exactly zero, but computed it is 1 - sum(softmax), which in
float32 over a million terms is off by about 1e-4 (IREE's summation order
made GradBench refuse the gradient at n = 1,280,000 without this). The
shift is added negated (`x + -top`): `x - top` would broadcast the maximum
and negate the n copies, a pass over the vector that this saves (10-14% of
both functions, the same bits)."""

from __future__ import annotations

from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats


def logsumexp(x: Any) -> Any:
    top = gradopt.stop_gradient(gnp.max(x))
    return top + gnp.log(gnp.sum(gnp.exp(x + -top)))


def _x(input: Json) -> tuple[Any, ...]:
    return (floats(input["x"]),)


FUNCTIONS = {
    "primal": Function(logsumexp, _x),
    "gradient": Function(gradopt.grad(logsumexp), _x),
}
