"""The Python front end (SPEC §9): trace NumPy-like code into `grad` modules.

`gradopt.numpy` and `gradopt.nn` are its array functions; `jit`, `grad`,
`value_and_grad`, `vjp`, `jvp` and `stop_gradient` its transforms (re-exported
as `gradopt.jit` and so on), with `vmap`, `jacfwd`, `jacrev` and `hessian`;
`custom_vjp` and `custom_jvp` make functions with user-given derivatives,
`checkpoint` functions whose loops are differentiated with checkpointing;
`from_jax` imports a JAX function.
"""

# `numpy` provides the functions behind the operators and methods of `Array`
from gradopt.frontend import numpy  # noqa: F401
from gradopt.frontend.control_flow import checkpoint
from gradopt.frontend.custom import custom_jvp, custom_vjp
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
from gradopt.frontend.vectorize import hessian, jacfwd, jacrev, vmap

__all__ = [
    "Lowered",
    "Traced",
    "checkpoint",
    "custom_jvp",
    "custom_vjp",
    "from_jax",
    "grad",
    "hessian",
    "jacfwd",
    "jacrev",
    "jit",
    "jvp",
    "stop_gradient",
    "value_and_grad",
    "vjp",
    "vmap",
]
