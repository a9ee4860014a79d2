"""The kernels of the ops of other dialects that the interpreter runs (SPEC
§10.4): `arith`, `math`, `tensor`, `linalg` on tensors, and `scf.if`.

`grad` ops carry their kernels (`KernelOp`); these ops are xDSL's, so their
kernels are found here, by op type, when a function is planned. A kernel
never writes into its operands, and may return one of them or a read-only
view of one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Protocol

import numpy as np
from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import ShapedType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, ReduceOp
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.linalg import MapOp
from gradopt.interpreter import linalg as structured
from gradopt.interpreter import tensor
from gradopt.interpreter.folds import fold_kernel, folds
from gradopt.interpreter.fusion import kernel_of as chain_kernel
from gradopt.interpreter.linalg_ext import Env, arguments_read, block_program
from gradopt.interpreter.linalg_ext import kernel_of as ext_kernel
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.scalar import (
    REDUCTIONS,
    Value,
    constant,
    dtype_of,
    function_of,
    index_function,
)

Kernel = Callable[..., Value]


class Plan(Protocol):
    """A planned region (the executor's `Plan`): run on its inputs, it gives
    the values its terminator yields."""

    def run(self, frame: list[object]) -> list[object]: ...


DIALECTS = frozenset({"arith", "math", "tensor", "linalg", "iree_linalg_ext"})
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
    if isinstance(op, LinalgStructuredOperation):
        return fold_kernel(op) if folds(op) else chain_kernel(op)
    if isinstance(op, BroadcastOp):
        return _broadcast(op), [op.input, op.init]
    if isinstance(op, ReduceOp):
        return _reduce(op), [op.input, op.init, *captured(op)]
    if isinstance(op, MapOp):
        return structured.map_kernel(op)
    if isinstance(op, scf.IfOp):
        return _if(op, plan)
    if isinstance(op, scf.ExecuteRegionOp):
        return _execute_region(op, plan)
    if op.dialect_name() == "iree_linalg_ext" and (found := ext_kernel(op)):
        return found
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


def _broadcast(op: BroadcastOp) -> Kernel:
    if not op.result:
        raise OpError(op, "cannot be run: only linalg on tensors runs")
    added = tuple(int(d) for d in op.dimensions.get_values())
    type = op.init.type
    assert isinstance(type, ShapedType)
    shape = tuple(type.get_shape())
    return lambda input, _: np.broadcast_to(np.expand_dims(input, added), shape)


def _reduce(op: ReduceOp) -> Kernel:
    """`linalg.reduce`: its body's combining op over `dimensions`, of the
    accumulator and an element that the body may compute from the input's
    element and outer values (computed on the whole input first, as a
    `linalg.generic`'s body is, then reduced at once)."""
    if not op.result:
        raise OpError(op, "cannot be run: only linalg on tensors runs")
    block = op.region.block
    value = block.last_op.operands[0] if block.last_op is not None else None
    combiner = value.owner if value is not None else None
    element, accumulator = block.args
    if (
        not isinstance(combiner, Operation)
        or type(combiner) not in REDUCTIONS
        or accumulator not in combiner.operands
        or accumulator in arguments_read(term := _other(combiner, accumulator), block)
    ):
        raise OpError(
            op,
            "cannot be run: its body must be a combining op of the accumulator "
            "and an element computed without it (arith.addf, maximumf, ...)",
        )
    reduce, combine = REDUCTIONS[type(combiner)], function_of(combiner)
    assert combine is not None
    axes = tuple(int(d) for d in op.dimensions.get_values())
    dtype = dtype_of(op.init.type, op)
    outer = captured(op)
    program = None if term is element else block_program(op, block)

    def kernel(input: Value, init: Value, *values: Value) -> Value:
        if program is not None:
            env: Env = dict(zip(outer, values, strict=True))
            env[element] = input
            env[accumulator] = np.zeros((), dtype)  # read only by the combiner
            program(env)
            input = np.broadcast_to(env[term], np.shape(input))
        reduced = reduce(np.ascontiguousarray(input), axes)
        return np.asarray(combine(init, reduced)).astype(dtype, copy=False)

    return kernel


def _other(combiner: Operation, accumulator: SSAValue) -> SSAValue:
    """The operand of the two-operand `combiner` that is not `accumulator`
    (the accumulator when both are)."""
    lhs, rhs = combiner.operands
    return rhs if lhs is accumulator else lhs


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
