"""The Python front end (SPEC §9): trace NumPy-like code into `grad` modules.

`gradopt.numpy` and `gradopt.nn` are its array functions; `jit`, `grad`,
`value_and_grad`, `vjp`, `jvp` and `stop_gradient` its transforms (re-exported
as `gradopt.jit` and so on); `from_jax` imports a JAX function.
"""

# `numpy` provides the functions behind the operators and methods of `Array`
from gradopt.frontend import numpy  # noqa: F401
from gradopt.frontend.from_jax import from_jax
from gradopt.frontend.transforms import (
    Lowered,
    Traced,
    grad,
    jit,
    jvp,
    stop_gradient,
    value_and_grad,
    vjp,
)

__all__ = [
    "Lowered",
    "Traced",
    "from_jax",
    "grad",
    "jit",
    "jvp",
    "stop_gradient",
    "value_and_grad",
    "vjp",
]
