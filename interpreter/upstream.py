"""The kernels of the ops of other dialects that the interpreter runs (SPEC
§10.4): `arith`, `math`, `tensor`, `linalg` on tensors, and `scf.if`.

`grad` ops carry their kernels (`KernelOp`); these ops are xDSL's, so their
kernels are found here, by op type, when a function is planned (those of
`linalg` and `iree_linalg_ext` in `interpreter.upstream_linalg`, loaded with
the first such op). A kernel never writes into its operands, and may return
one of them or a read-only view of one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ShapedType
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.interpreter import tensor
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.scalar import (
    Value,
    constant,
    function_of,
    index_function,
)

Kernel = Callable[..., Value]


class Plan(Protocol):
    """A planned region (the executor's `Plan`): run on its inputs, it gives
    the values its terminator yields."""

    def run(self, frame: list[object]) -> list[object]: ...


STRUCTURED = frozenset({"linalg", "iree_linalg_ext"})
"""The dialects whose kernels `interpreter.upstream_linalg` has."""
DIALECTS = frozenset({"arith", "math", "tensor", *STRUCTURED})
"""The dialects whose ops write nothing but their results."""


def writes_nothing(op: Operation) -> bool:
    """Whether `op` is an op of `DIALECTS`: it reads its operands and makes its
    results, and touches no slot."""
    return op.dialect_name() in DIALECTS


def kernel_of(
    op: Operation, plan: Callable[[Operation, int], Plan]
) -> tuple[Kernel | Owned, Sequence[SSAValue]] | None:
    """The kernel of `op` and the values it takes, None if `op` is of none of
    the dialects this module runs; an `OpError` if it is but cannot run.
    `plan(op, i)` plans region `i` of `op` on the values it captures."""
    if isinstance(op, arith.ConstantOp):
        value = constant(op)
        return (lambda: value), ()
    if (function := index_function(op) or function_of(op)) is not None:
        return _elementwise(op, function), op.operands
    if (found := tensor.kernel_of(op)) is not None:
        return found
    if op.dialect_name() in STRUCTURED:
        # linalg's op definitions take longer to load than a small program
        # takes to plan: a program without them does not load them
        from gradopt.interpreter.upstream_linalg import structured_kernel_of

        if (found := structured_kernel_of(op)) is not None:
            return found
    if isinstance(op, scf.IfOp):
        return _if(op, plan)
    if isinstance(op, scf.ExecuteRegionOp):
        return _execute_region(op, plan)
    if writes_nothing(op):
        raise OpError(op, "cannot be run by gradopt's interpreter")
    return None


def _elementwise(op: Operation, function: Kernel) -> Kernel | Owned:
    """An `arith` or `math` op's function; on tensors of rank >= 1, a ufunc
    makes a new array, and may write it over an operand of the result's type
    (`out=`), as the kernels of `grad` ops do."""
    type = op.results[0].type
    if not isinstance(function, np.ufunc) or not (
        isinstance(type, ShapedType) and type.get_shape()
    ):
        return function
    return Owned(
        function, tuple(i for i, v in enumerate(op.operands) if v.type == type)
    )


def _if(
    op: scf.IfOp, plan: Callable[[Operation, int], Plan]
) -> tuple[Kernel, Sequence[SSAValue]]:
    """`scf.if`: the condition, then the outer values its regions read (the
    inputs of the plan of each region)."""
    branches = [plan(op, 0), plan(op, 1) if op.false_region.blocks else None]
    results = len(op.results)

    def kernel(condition: Value, *values: Value) -> Value:
        branch = branches[0 if condition else 1]
        if branch is None:
            return None
        out = branch.run(list(values))
        if results == 1:
            return out[0]
        return tuple(out) if results else None

    return kernel, [op.cond, *captured(op)]


def _execute_region(
    op: scf.ExecuteRegionOp, plan: Callable[[Operation, int], Plan]
) -> tuple[Kernel, Sequence[SSAValue]]:
    """`scf.execute_region`: its one block, on the outer values it reads."""
    body, results = plan(op, 0), len(op.results)

    def kernel(*values: Value) -> Value:
        out = body.run(list(values))
        if results == 1:
            return out[0]
        return tuple(out) if results else None

    return kernel, captured(op)
