"""gradopt: reverse- and forward-mode automatic differentiation as an xDSL
dialect, with a NumPy interpreter (SPEC.md).

`gradopt.run(program, slots, args)` parses, verifies, expands gradients and runs
a program; `Program` does the preparation once for many runs. The Python front
end (`gradopt.jit`, `grad`, `value_and_grad`, `vjp`, `jvp`, `stop_gradient`,
`from_jax`, and the modules `gradopt.numpy` and `gradopt.nn`) traces NumPy-like
code into such programs.
"""

from gradopt.api import GradoptError, Program, RunResult, Signature, run
from gradopt.frontend import (
    from_jax,
    grad,
    jit,
    jvp,
    stop_gradient,
    value_and_grad,
    vjp,
)

__all__ = ["GradoptError", "Program", "RunResult", "Signature", "run"]
__all__ += ["from_jax", "grad", "jit", "jvp", "stop_gradient", "value_and_grad", "vjp"]
