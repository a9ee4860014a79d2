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


def _number(result: Any, input: Json) -> Json:
    return float(result)


FUNCTIONS = {
    "square": Function(square, _scalar, _number),
    "double": Function(gradopt.grad(square), _scalar, _number),
}
