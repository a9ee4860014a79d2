"""gradopt: reverse- and forward-mode automatic differentiation as an xDSL
dialect, with a NumPy interpreter (SPEC.md).

`gradopt.run(program, slots, args)` parses, verifies, expands gradients and runs
a program; `Program` does the preparation once for many runs.
"""

from gradopt.api import GradoptError, Program, RunResult, Signature, run

__all__ = ["GradoptError", "Program", "RunResult", "Signature", "run"]
