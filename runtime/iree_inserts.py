"""A rewrite of lowered programs before IREE compiles them: a `tensor.insert`
of one element inside a loop becomes a `tensor.insert_slice` of a
one-element `tensor.from_elements` at the same place (the same element
written, the same values).

IREE 3.13 gives two tensors that a loop carries one buffer when both start
as a `tensor.empty()` of the same type (which it merges into one value) and
the loop writes elements into them with `tensor.insert`, so that one's
writes land in the other:

    %e = tensor.empty() : tensor<3xf32>
    %e2 = tensor.empty() : tensor<3xf32>
    %a, %b = scf.for %k = %c0 to %c3 step %c1
        iter_args(%s = %e, %t = %e2) -> (tensor<3xf32>, tensor<3xf32>) {
      %s2 = tensor.insert %one into %s[%k] : tensor<3xf32>
      %t2 = tensor.insert %two into %t[%k] : tensor<3xf32>
      scf.yield %s2, %t2 : tensor<3xf32>, tensor<3xf32>
    }

returns `2 2 2` twice (starts of different types, or equal starts that are
not `tensor.empty()`, or slices of tensors computed on the device, are
right). A gradient stacks every scalar that a loop carries this way (SPEC
§11): a loop with two i1 flags, checkpointed periodically, stacked both
flags in one buffer and its gradient was wrong by hundreds, silently. The
rewritten loop returns `1 1 1` and `2 2 2`: IREE makes the one-element
tensor on the host and copies it in, one small copy per element written.
"""

from __future__ import annotations

from xdsl.dialects import arith, linalg, scf, tensor
from xdsl.dialects.builtin import ModuleOp, TensorType, i1, i8
from xdsl.ir import Operation, SSAValue

from gradopt.passes.convert_grad_to_standard import elementwise


def _in_loop(op: Operation) -> bool:
    """Whether `op` is inside a loop, and not in the body of a `linalg` op."""
    inside = False
    parent = op.parent_op()
    while parent is not None:
        if parent.name.startswith(f"{linalg.Linalg.name}."):
            return False
        inside = inside or isinstance(parent, scf.ForOp | scf.WhileOp)
        parent = parent.parent_op()
    return inside


def _one_element(scalar: SSAValue, rank: int) -> list[Operation]:
    """A tensor of rank `rank` that holds `scalar` (the last op's result).
    An i1 is made an i8 first and the tensor truncated: IREE rewrote a
    `tensor.from_elements` of an i1 to one that makes an i8 tensor, which
    does not verify."""
    shape = [1] * rank
    if scalar.type != i1:
        type = TensorType(scalar.type, shape)
        return [tensor.FromElementsOp(scalar, result_type=type)]
    byte = arith.ExtUIOp(scalar, i8)
    element = tensor.FromElementsOp(byte.result, result_type=TensorType(i8, shape))
    truncated = elementwise(
        [element.result],
        TensorType(i1, shape),
        lambda args: arith.TruncIOp(args[0], i1).result,
    )
    return [byte, element, *truncated]


def insert_elements_as_slices(module: ModuleOp) -> None:
    """Rewrite, in place, every `tensor.insert` into a tensor of rank >= 1
    inside a loop of `module` as a slice of one element (see above)."""
    for op in [
        op
        for op in module.walk()
        if isinstance(op, tensor.InsertOp) and op.indices and _in_loop(op)
    ]:
        ops = _one_element(op.scalar, len(op.indices))
        written = tensor.InsertSliceOp.get(
            ops[-1].results[0], op.dest, [1] * len(op.indices), offsets=list(op.indices)
        )
        block = op.parent_block()
        assert block is not None
        block.insert_ops_before([*ops, written], op)
        op.result.replace_all_uses_with(written.result)
        block.erase_op(op)
