"""GradBench's `hello`: `square` is x^2, `double` its derivative by `grad`."""

from __future__ import annotations

from typing import Any

import numpy as np

import gradopt
from evals import Function, Json


def square(x: Any) -> Any:
    return x * x


def _scalar(input: Json) -> tuple[Any, ...]:
    return (np.float32(input),)


FUNCTIONS = {
    "square": Function(square, _scalar),
    "double": Function(gradopt.grad(square), _scalar),
}
