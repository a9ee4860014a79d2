"""A rewrite of lowered programs before IREE compiles them: a `tensor.extract`
or `tensor.insert` of one element of a tensor of rank 2 or more, outside any
`linalg` body, reads or writes the tensor collapsed to rank 1 at the
row-major linear index (the same element, the same values).

IREE 3.13 runs such an element access on the host as a transfer whose length
it gets wrong for rank >= 2: in a loop that adds into the elements of a 5x3
f32 tensor, the last row's element is read as 16 bytes at offset 48 of the
60-byte buffer, and the call fails with "OUT_OF_RANGE; attempted to access an
address outside of the valid buffer range". Accesses of rank 1 are right. A
gradient makes these loops: the scatter-add of the shares of a tensor that a
`linalg` body reads at computed indices (`jnp.flip`, `x[i]` as IREE writes
them; `autodiff.rules.linalg`)."""

from __future__ import annotations

from math import prod

from xdsl.dialects import arith, linalg, tensor
from xdsl.dialects.builtin import IndexType, IntegerAttr, ModuleOp, TensorType
from xdsl.ir import Operation, SSAValue

from gradopt.passes.convert_grad_to_standard import collapse, expand


def in_linalg_body(op: Operation) -> bool:
    """Whether `op` is in the body of a `linalg` op (compiled by LLVM, not
    run by IREE's host)."""
    parent = op.parent_op()
    while parent is not None:
        if parent.name.startswith(f"{linalg.Linalg.name}."):
            return True
        parent = parent.parent_op()
    return False


def _linear_index(
    indices: tuple[SSAValue, ...], shape: tuple[int, ...]
) -> tuple[list[Operation], SSAValue]:
    """`((i0 * n1 + i1) * n2 + i2) ...`: the row-major position of
    `indices` in `shape`, and the ops that compute it."""
    ops: list[Operation] = []
    linear = indices[0]
    for index, size in zip(indices[1:], shape[1:], strict=True):
        stride = arith.ConstantOp(IntegerAttr(size, IndexType()))
        scaled = arith.MuliOp(linear, stride.result)
        total = arith.AddiOp(scaled.result, index)
        ops += [stride, scaled, total]
        linear = total.result
    return ops, linear


def _flat(type: TensorType) -> TensorType:
    return TensorType(type.get_element_type(), [prod(type.get_shape())])


def _linearized(op: tensor.ExtractOp | tensor.InsertOp) -> list[Operation]:
    """The ops that stand for `op` on its tensor collapsed to rank 1."""
    source = op.tensor if isinstance(op, tensor.ExtractOp) else op.dest
    type = source.type
    assert isinstance(type, TensorType)
    ops, linear = _linear_index(tuple(op.indices), type.get_shape())
    flat = collapse(source, _flat(type))
    ops.append(flat)
    if isinstance(op, tensor.ExtractOp):
        return [*ops, tensor.ExtractOp(flat.results[0], [linear], op.result.type)]
    written = tensor.InsertOp(op.scalar, flat.results[0], [linear])
    return [*ops, written, expand(written.result, type)]


def linearize_element_accesses(module: ModuleOp) -> None:
    """Rewrite, in place, every element access of rank >= 2 outside `linalg`
    bodies in `module` to one of rank 1."""
    for op in [
        op
        for op in module.walk()
        if isinstance(op, tensor.ExtractOp | tensor.InsertOp)
        and len(op.indices) >= 2
        and not in_linalg_body(op)
    ]:
        ops = _linearized(op)
        block = op.parent_block()
        assert block is not None
        block.insert_ops_before(ops, op)
        op.results[0].replace_all_uses_with(ops[-1].results[0])
        block.erase_op(op)
