"""A rewrite of lowered programs before IREE compiles them: every tensor an
`scf.if` branch yields is a copy made in the branch (same bits).

IREE 3.13 treats an `scf.if` result as a buffer of its own, which it
deallocates after its last use; when a branch yields a buffer that lives on
(a loop's carried value, which the next iteration reads again, or a constant
that IREE materialized once as a loop's initial value), the next iteration
reads a deallocated buffer and the `local-task` driver fails with "transient
buffer has not been committed". A gradient through a branch in a loop yields
both: the branch that sends no share yields zero, the one that passes a
gradient on unchanged yields the loop's carried gradient. Which values end up
made outside the branch is IREE's choice (it merges a computation in a branch
with an equal one before it, hoists constants), so every yield is copied. IREE
folds a plain copy away (an identity `linalg.generic`, an
`util.optimization_barrier` of the tensor); a `linalg.generic` that selects
each element by a condition IREE cannot see through (`true` behind an
optimization barrier of the branch's own) is a new buffer each time the
branch runs.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AnyFloat,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    i1,
)
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.irdl import IRDLOperation, irdl_op_definition, operand_def, result_def

from gradopt.passes.convert_grad_to_standard import elementwise


@irdl_op_definition
class OptimizationBarrierOp(IRDLOperation):
    """IREE's `util.optimization_barrier` of one value: the value, which
    IREE's folds cannot see through. Only printed for IREE (in the generic
    form), never parsed or run by gradopt."""

    name = "util.optimization_barrier"
    input = operand_def()
    result = result_def()

    def __init__(self, value: SSAValue):
        super().__init__(operands=[value], result_types=[value.type])


def _zero(element: Attribute) -> arith.ConstantOp | None:
    """A zero of scalar type `element` (the other side of the copy's select),
    None for an element type without one here."""
    if isinstance(element, AnyFloat):
        return arith.ConstantOp(FloatAttr(0.0, element))
    if isinstance(element, IntegerType | IndexType):
        return arith.ConstantOp(IntegerAttr(0, element))
    return None


def _copy(value: SSAValue, type: TensorType) -> list[Operation]:
    """A copy of `value` that IREE cannot fold away (the last op's result),
    or no ops for an element type `_zero` does not know. A dim of run-time
    size (binomial checkpointing's snapshot stack) is read off `value`."""
    if (zero := _zero(type.get_element_type())) is None:
        return []
    true = arith.ConstantOp(IntegerAttr(1, i1))
    barrier = OptimizationBarrierOp(true.result)

    def select(args: Sequence[BlockArgument]) -> SSAValue:
        return arith.SelectOp(barrier.result, args[0], zero.result).result

    empty, generic = elementwise([value], type, select)
    dims: list[Operation] = []
    for axis, size in enumerate(type.get_shape()):
        if size == DYNAMIC_INDEX:
            at = arith.ConstantOp(IntegerAttr(axis, IndexType()))
            dims += [at, tensor.DimOp(value, at)]
    if dims:
        sized = tensor.EmptyOp([op.results[0] for op in dims[1::2]], type)
        empty.results[0].replace_all_uses_with(sized.results[0])
        empty = sized
    return [zero, true, barrier, *dims, empty, generic]


def copy_branch_results(module: ModuleOp) -> None:
    """Rewrite, in place, every `scf.if` branch of `module` to yield copies
    of the tensors it yields."""
    for op in [op for op in module.walk() if isinstance(op, scf.IfOp)]:
        for region in op.regions:
            terminator = region.block.last_op if region.blocks else None
            if terminator is None:
                continue
            yielded = list(terminator.operands)
            for position, value in enumerate(yielded):
                type = value.type
                if isinstance(type, TensorType) and (ops := _copy(value, type)):
                    region.block.insert_ops_before(ops, terminator)
                    yielded[position] = ops[-1].results[0]
            terminator.operands = yielded
