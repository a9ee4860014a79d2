"""GradBench's `lse`: log-sum-exp of a vector by the max trick, written from its
parts (a maximum, a sum), and its gradient by `gradopt.grad`."""

from __future__ import annotations

from typing import Any

import gradopt
import gradopt.numpy as gnp
from evals import Function, Json, floats


def logsumexp(x: Any) -> Any:
    top = gnp.max(x)
    return top + gnp.log(gnp.sum(gnp.exp(x - top)))


def _x(input: Json) -> tuple[Any, ...]:
    return (floats(input["x"]),)


FUNCTIONS = {
    "primal": Function(logsumexp, _x),
    "gradient": Function(gradopt.grad(logsumexp), _x),
}
