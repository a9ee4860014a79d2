"""The kernels of `linalg` ops on tensors and of `iree_linalg_ext` ops
(SPEC §10.4), found by `interpreter.upstream` for the ops of those dialects.

A module of its own so that a program without them never loads them: the
definitions of linalg's named ops take longer to load (about 45 ms) than a
small program takes to plan.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import ShapedType
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.ops import BroadcastOp, ReduceOp
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.linalg import MapOp
from gradopt.interpreter import linalg as structured
from gradopt.interpreter.folds import fold_kernel, folds
from gradopt.interpreter.fusion import kernel_of as chain_kernel
from gradopt.interpreter.linalg_ext import Env, arguments_read, block_program
from gradopt.interpreter.linalg_ext import kernel_of as ext_kernel
from gradopt.interpreter.owned import Owned
from gradopt.interpreter.scalar import REDUCTIONS, Value, dtype_of, function_of

Kernel = Callable[..., Value]


def structured_kernel_of(
    op: Operation,
) -> tuple[Kernel | Owned, Sequence[SSAValue]] | None:
    """The kernel of the `linalg` or `iree_linalg_ext` op `op` and the values
    it takes, None if this module has none."""
    if isinstance(op, LinalgStructuredOperation):
        return fold_kernel(op) if folds(op) else chain_kernel(op)
    if isinstance(op, BroadcastOp):
        return _broadcast(op), [op.input, op.init]
    if isinstance(op, ReduceOp):
        return _reduce(op), [op.input, op.init, *captured(op)]
    if isinstance(op, MapOp):
        return structured.map_kernel(op)
    if op.dialect_name() == "iree_linalg_ext":
        return ext_kernel(op)
    return None


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
