"""The derivatives of the `tensor` ops (SPEC §10.2): data movement, whose
shares are data movement of g back to where each element came from, built
from `tensor` ops (and zeros as `arith.constant` splats).

Every op here is linear in its f32 operands, so only its transpose (the
share) is written; the tangent is the op itself applied to the tangents
(`Derivative.linear`), with offsets and other index operands as they are. A
`tensor.pad`'s source gets the interior of g, and its tangent pads with 0.0;
its pad value, yielded by its region, gets nothing, so a pad value on the
path is refused by the path check (a value on the path read inside a region).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith, tensor
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IndexType,
    TensorType,
    i64,
)
from xdsl.ir import Block, Operation, Region, SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import (
    DEAD_END,
    Derivative,
    register_derivative,
)
from gradopt.autodiff.upstream import static_array
from gradopt.dialect.types import tensor_type
from gradopt.dialect.upstream.tensor import ExpandShapeOp


def _segments(op: Operation, count: int) -> list[None]:
    """No share for the index operands after the first `count` operands."""
    return [None] * (len(op.operands) - count)


def _slice_like(
    e: Emitter,
    type: type[tensor.ExtractSliceOp] | type[tensor.InsertSliceOp],
    tensors: Sequence[SSAValue],
    of: tensor.ExtractSliceOp | tensor.InsertSliceOp,
    result: TensorType,
) -> SSAValue:
    """An extract or insert slice over `tensors` at `of`'s offsets, sizes and
    strides (dynamic offsets as the same SSA values)."""
    return e.insert(
        type.build(
            operands=[*tensors, of.offsets, of.sizes, of.strides],
            result_types=[result],
            properties={
                "static_offsets": of.static_offsets,
                "static_sizes": of.static_sizes,
                "static_strides": of.static_strides,
            },
        )
    )


def _extract_slice(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.ExtractSliceOp)
    s = op.source

    def share() -> SSAValue:
        zeros = e.fzeros(s)
        return _slice_like(e, tensor.InsertSliceOp, [g, zeros], op, tensor_type(s))

    return [share, *_segments(op, 1)]


def _insert_slice(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.InsertSliceOp)
    s, d = op.source, op.dest
    return [
        lambda: _slice_like(e, tensor.ExtractSliceOp, [g], op, tensor_type(s)),
        lambda: _slice_like(
            e, tensor.InsertSliceOp, [e.fzeros(s), g], op, tensor_type(d)
        ),
        *_segments(op, 2),
    ]


def _pad(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.PadOp)
    s = op.source

    def share() -> SSAValue:
        shape = tensor_type(s).get_shape()
        return e.insert(
            tensor.ExtractSliceOp.build(
                operands=[g, op.low, [], []],
                result_types=[tensor_type(s)],
                properties={
                    "static_offsets": op.static_low,
                    "static_sizes": static_array(shape),
                    "static_strides": static_array([1] * len(shape)),
                },
            )
        )

    return [share, *_segments(op, 1)]


def _t_pad(e: Emitter, op: Operation, t: Sequence[SSAValue | None]) -> SSAValue:
    """The pad of the source's tangent with 0.0."""
    assert isinstance(op, tensor.PadOp)
    ts = t[0] if t[0] is not None else e.fzeros(op.source)
    rank = tensor_type(op.source).get_num_dims()
    zero = e.fconst(0.0, tensor_type(op.result).get_element_type())  # pyright: ignore[reportArgumentType]
    body = Block([tensor.YieldOp(zero)], arg_types=[IndexType()] * rank)
    return e.insert(
        tensor.PadOp.build(
            operands=[ts, op.low, op.high],
            result_types=[op.result.type],
            properties=dict(op.properties),
            regions=[Region(body)],
        )
    )


PAD = Derivative(_pad, _t_pad)


def _concat(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.ConcatOp)
    d, shape = op.dim.value.data, tensor_type(op.result).get_shape()
    sizes = [tensor_type(v).get_shape()[d] for v in op.inputs]

    def share(j: int) -> SSAValue:
        offsets = [0] * len(shape)
        offsets[d] = sum(sizes[:j])
        part = tensor_type(op.inputs[j])
        return e.insert(
            tensor.ExtractSliceOp.build(
                operands=[g, [], [], []],
                result_types=[part],
                properties={
                    "static_offsets": static_array(offsets),
                    "static_sizes": static_array(part.get_shape()),
                    "static_strides": static_array([1] * len(shape)),
                },
            )
        )

    return [lambda j=j: share(j) for j in range(len(sizes))]


def _expand_shape(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.ExpandShapeOp)
    return [
        lambda: e.insert(
            tensor.CollapseShapeOp.build(
                operands=[g],
                result_types=[op.src.type],
                properties={"reassociation": op.reassociation},
            )
        ),
        *_segments(op, 1),
    ]


def _collapse_shape(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.CollapseShapeOp)
    shape = tensor_type(op.src).get_shape()
    return [
        lambda: e.insert(
            ExpandShapeOp.build(
                operands=[g, []],
                result_types=[op.src.type],
                properties={
                    "reassociation": op.reassociation,
                    "static_output_shape": static_array(shape),
                },
            )
        )
    ]


def _reshape(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.ReshapeOp)
    source = tensor_type(op.source)

    def share() -> SSAValue:
        rank = source.get_num_dims()
        shape_type = TensorType(i64, [rank])
        shape = e.insert(
            arith.ConstantOp(
                DenseIntOrFPElementsAttr.from_list(shape_type, source.get_shape())  # pyright: ignore[reportArgumentType, reportCallIssue]
            )
        )
        return e.insert(tensor.ReshapeOp(g, shape, source))

    return [share, None]


def _cast(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.CastOp)
    return [lambda: e.insert(tensor.CastOp(g, tensor_type(op.source)))]


def _extract(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.ExtractOp)
    t = op.tensor
    return [
        lambda: e.insert_element(g, e.fzeros(t), op.indices),
        *_segments(op, 1),
    ]


def _insert(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, tensor.InsertOp)
    s = op.scalar
    return [
        lambda: e.extract(g, op.indices),
        lambda: e.insert_element(e.fzeros(s), g, op.indices),
        *_segments(op, 2),
    ]


def _splat(e: Emitter, op: Operation, g: SSAValue):
    return [lambda: e.sum_elements(g), *_segments(op, 1)]


def _from_elements(e: Emitter, op: Operation, g: SSAValue):
    shape = tensor_type(op.results[0]).get_shape()

    def share(k: int) -> SSAValue:
        index = []
        for size in reversed(shape):
            index.append(k % size)
            k //= size
        return e.extract(g, [e.index(i) for i in reversed(index)])

    return [lambda k=k: share(k) for k in range(len(op.operands))]


DERIVATIVES: dict[type[Operation], Derivative] = {
    tensor.ExtractSliceOp: Derivative.linear(_extract_slice),
    tensor.InsertSliceOp: Derivative.linear(_insert_slice),
    tensor.ConcatOp: Derivative.linear(_concat),
    tensor.ExpandShapeOp: Derivative.linear(_expand_shape),
    tensor.CollapseShapeOp: Derivative.linear(_collapse_shape),
    tensor.ReshapeOp: Derivative.linear(_reshape),
    tensor.CastOp: Derivative.linear(_cast),
    tensor.ExtractOp: Derivative.linear(_extract),
    tensor.InsertOp: Derivative.linear(_insert),
    tensor.SplatOp: Derivative.linear(_splat),
    tensor.FromElementsOp: Derivative.linear(_from_elements),
    tensor.EmptyOp: DEAD_END,
}

for _op_type, _derivative in DERIVATIVES.items():
    register_derivative(_op_type, _derivative)
register_derivative(tensor.PadOp, PAD)
