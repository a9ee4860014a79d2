"""gradopt: reverse- and forward-mode automatic differentiation as an xDSL
dialect, with a NumPy interpreter (SPEC.md).

`gradopt.run(program, slots, args)` parses, verifies, expands gradients and runs
a program; `Program` does the preparation once for many runs.

The names are loaded on first use (PEP 562), so that what plain `xdsl-opt`
loads, `gradopt.universe`, brings in neither the API nor the interpreter.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from gradopt.api import GradoptError, Program, RunResult, Signature, run

_LAZY = {
    "GradoptError": "gradopt.api",
    "Program": "gradopt.api",
    "RunResult": "gradopt.api",
    "Signature": "gradopt.api",
    "run": "gradopt.api",
}

__all__ = ["GradoptError", "Program", "RunResult", "Signature", "run"]


def __getattr__(name: str) -> object:
    if name == "__version__":
        from importlib.metadata import version

        return version("gradopt")
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'gradopt' has no attribute '{name}'")


def __dir__() -> list[str]:
    return sorted([*__all__, "__version__"])
