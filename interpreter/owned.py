"""Kernels of upstream ops that make their results in memory of their own.

The executor writes a step's result over an operand that dies there (`out=`,
see `interpreter.executor`) when the operand's memory is the step's own to
reuse: a new array that no other value refers to. `grad` ops say so of
their kernels (`KernelOp.fresh_result`); the kernels of `arith`, `math` and
`linalg` ops are plain functions, and one wrapped in `Owned` says the same:
its result is a new array that nothing else refers to, and it may write it
(or a temporary of its body) into the buffer of an operand at a `reusable`
position passed as `out=`, which then dies. Any kernel not wrapped may
return its operands or views of them, and its operands are never written
over.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Kernel = Callable[..., Any]

ENABLED = True
"""Whether plans take upstream kernels at their word (the tests compare runs
with and without: without, no upstream result is written over, and none is
written over an operand)."""


@dataclass(frozen=True)
class Owned:
    """A kernel whose result is a new array (of rank >= 1) that nothing else
    refers to, and the positions of the operands whose buffers it may write
    into when given one of them as `out=`."""

    kernel: Kernel
    reusable: tuple[int, ...]
