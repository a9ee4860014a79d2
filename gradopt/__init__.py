"""gradopt: reverse- and forward-mode automatic differentiation as an xDSL
dialect, with a NumPy interpreter (SPEC.md).

`gradopt.run(program, slots, args)` parses, verifies, expands gradients and runs
a program; `Program` does the preparation once for many runs. The Python front
end (`gradopt.jit`, `grad`, `value_and_grad`, `vjp`, `jvp`, `vmap`, `jacfwd`,
`jacrev`, `hessian`, `custom_vjp`, `custom_jvp`, `checkpoint`,
`stop_gradient`, `from_jax`, and the modules `gradopt.numpy`, `gradopt.nn`,
`gradopt.lax`, `gradopt.optim` and `gradopt.tree_util`) traces NumPy-like
code into such programs.

The names are loaded on first use (PEP 562), so that what plain `xdsl-opt`
loads, `gradopt.universe`, brings in neither the API nor the interpreter.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradopt.frontend import (
        checkpoint,
        custom_jvp,
        custom_vjp,
        from_jax,
        grad,
        hessian,
        jacfwd,
        jacrev,
        jit,
        jvp,
        stop_gradient,
        value_and_grad,
        vjp,
        vmap,
    )
    from gradopt.runtime.differentiate import differentiate_module
    from gradopt.runtime.program import GradoptError, Program, RunResult, Signature, run

_LAZY = {
    "GradoptError": "gradopt.runtime.program",
    "Program": "gradopt.runtime.program",
    "RunResult": "gradopt.runtime.program",
    "Signature": "gradopt.runtime.program",
    "run": "gradopt.runtime.program",
    "differentiate_module": "gradopt.runtime.differentiate",
    **dict.fromkeys(
        [
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
        ],
        "gradopt.frontend",
    ),
}

__all__ = ["GradoptError", "Program", "RunResult", "Signature", "run"]
__all__ += ["differentiate_module"]
__all__ += ["from_jax", "grad", "jit", "jvp", "stop_gradient", "value_and_grad", "vjp"]
__all__ += ["custom_jvp", "custom_vjp", "hessian", "jacfwd", "jacrev", "vmap"]
__all__ += ["checkpoint"]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from importlib.metadata import version

        return version("gradopt")
    if name in _LAZY:
        # kept, so that the next `gradopt.run` is a plain attribute (the
        # lookup through here took 1.3 us a call)
        value = globals()[name] = getattr(import_module(_LAZY[name]), name)
        return value
    raise AttributeError(f"module 'gradopt' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
