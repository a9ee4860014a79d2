"""The lowering of SPEC §3.6's ops in `convert-grad-to-standard`, exact like
the interpreter's kernels:

- `gather` is a `linalg.generic` over the result that reads the index tensor
  through a projection and the operand with `tensor.extract` at the index;
- `scatter_add` is one `scf.for` per index dim, in row-major order, each step
  adding the update's slice onto the running tensor's slice at the index
  (`tensor.extract_slice`, `arith.addf`/`addi`, `tensor.insert_slice`), so the
  additions happen in the order SPEC §3.6 fixes;
- `iota` is a `linalg.generic` yielding `linalg.index` of its dim;
- `argsort` is two `linalg.generic` reductions over pairs of positions along
  the dim: each element's rank (how many elements sort before it: smaller
  ones, NaN last, and equal ones at an earlier position), then, at each
  rank, the position that holds it. O(n^2) per row and exact in i32.

An index outside the axis is a run-time error of the interpreter only; here
it is clamped into the axis, so that compiled code never reads or writes
outside a tensor (the value is unspecified, as for the other run-time errors
of `convert-grad-to-standard`).
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.builder import Builder, ImplicitBuilder
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    DenseArrayBase,
    IndexType,
    IntegerAttr,
    TensorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, Block, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect import ops as grad
from gradopt.dialect.types import tensor_type
from gradopt.passes.convert_grad_to_standard import elementwise, filled

_DYNAMIC = -(2**63)
"""MLIR's marker of a dynamic offset in `static_offsets`."""


def _index(value: int) -> SSAValue:
    """An `index` constant (made with the implicit builder)."""
    return arith.ConstantOp(IntegerAttr(value, IndexType())).result


def _clamped_index(value: SSAValue, size: int) -> SSAValue:
    """An i32 index as `index`, clamped into `0 .. size - 1`."""
    index = arith.IndexCastOp(value, IndexType()).result
    low = arith.MaxSIOp(index, _index(0)).result
    return arith.MinSIOp(low, _index(size - 1)).result


def _map(dims: int, results: Sequence[int]) -> AffineMapAttr:
    return AffineMapAttr(
        AffineMap(dims, 0, tuple(AffineExpr.dimension(d) for d in results))
    )


class LowerGather(RewritePattern):
    """`grad.gather %a, %i [axis]` -> `linalg.generic` over the result: the
    index element through the result dims it spans, `tensor.extract %a` at
    it."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.GatherOp, rewriter: PatternRewriter, /):
        type, axis = tensor_type(op.result), op.axis_value
        rank, spanned = type.get_num_dims(), tensor_type(op.index).get_num_dims()
        size = tensor_type(op.input).get_shape()[axis]
        element = type.get_element_type()
        empty = tensor.EmptyOp((), type)

        @Builder.implicit_region([i32, element])
        def region(args: tuple[BlockArgument, ...]) -> None:
            at: list[SSAValue] = [linalg.IndexOp(d).result for d in range(axis)]
            at.append(_clamped_index(args[0], size))
            at += [linalg.IndexOp(d).result for d in range(axis + spanned, rank)]
            linalg.YieldOp(tensor.ExtractOp(op.input, at, element))

        generic = linalg.GenericOp(
            [op.index],
            [empty.tensor],
            region,
            [_map(rank, range(axis, axis + spanned)), _map(rank, range(rank))],
            [IteratorTypeAttr.parallel()] * rank,
            [type],
        )
        rewriter.replace(op, [empty, generic])


def _slice_at(
    offsets: Sequence[SSAValue | int], shape: Sequence[int]
) -> tuple[list[SSAValue], dict[str, Attribute]]:
    """The dynamic offsets and the properties of a unit-stride slice at
    `offsets` (an SSA value where a dim is indexed, 0 where it is whole) with
    sizes `shape` (1 where indexed)."""
    static = [_DYNAMIC if isinstance(o, SSAValue) else o for o in offsets]
    properties: dict[str, Attribute] = {
        "static_offsets": DenseArrayBase.from_list(i64, static),
        "static_sizes": DenseArrayBase.from_list(i64, shape),
        "static_strides": DenseArrayBase.from_list(i64, [1] * len(shape)),
    }
    return [o for o in offsets if isinstance(o, SSAValue)], properties


def _extract(
    source: SSAValue,
    offsets: Sequence[SSAValue | int],
    shape: Sequence[int],
    type: TensorType,
) -> SSAValue:
    """`tensor.extract_slice` of `source` at `offsets`, rank-reduced to `type`."""
    dynamic, properties = _slice_at(offsets, shape)
    return tensor.ExtractSliceOp.build(
        operands=[source, dynamic, [], []],
        result_types=[type],
        properties=properties,
    ).result


def _insert(
    value: SSAValue,
    dest: SSAValue,
    offsets: Sequence[SSAValue | int],
    shape: Sequence[int],
) -> SSAValue:
    """`tensor.insert_slice` of `value` into `dest` at `offsets`."""
    dynamic, properties = _slice_at(offsets, shape)
    return tensor.InsertSliceOp.build(
        operands=[value, dest, dynamic, [], []],
        result_types=[dest.type],
        properties=properties,
    ).result


class LowerScatterAdd(RewritePattern):
    """`grad.scatter_add %d, %i, %u [axis]` -> nested `scf.for` over the
    positions of %i in row-major order, carrying the running tensor: at each
    position p, d's slice at `i[p]` gets u's slice at p added."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ScatterAddOp, rewriter: PatternRewriter, /):
        dest, axis = tensor_type(op.dest), op.axis_value
        shape, positions = dest.get_shape(), tensor_type(op.index).get_shape()
        element = dest.get_element_type()
        before, after = list(shape[:axis]), list(shape[axis + 1 :])
        piece = TensorType(element, [*before, *after])
        add = arith.AddfOp if element == f32 else arith.AddiOp

        def step(at: list[SSAValue], running: SSAValue) -> SSAValue:
            index = tensor.ExtractOp(op.index, at, i32).result
            target = [*[0] * axis, _clamped_index(index, shape[axis])]
            target += [0] * len(after)
            sizes = [*before, 1, *after]
            current = _extract(running, target, sizes, piece)
            source = [*[0] * axis, *at, *[0] * len(after)]
            update_sizes = [*before, *[1] * len(positions), *after]
            update = _extract(op.updates, source, update_sizes, piece)
            return _insert(add(current, update).result, running, target, sizes)

        def loops(level: int, at: list[SSAValue], running: SSAValue) -> SSAValue:
            if level == len(positions):
                return step(at, running)
            body = Block(arg_types=[IndexType(), dest])
            with ImplicitBuilder(body):
                inner = loops(level + 1, [*at, body.args[0]], body.args[1])
                scf.YieldOp(inner)
            bounds = _index(0), _index(positions[level]), _index(1)
            return scf.ForOp(*bounds, [running], body).results[0]

        with ImplicitBuilder(block := Block()):
            result = loops(0, [], op.dest)
        new_ops: list[Operation] = list(block.ops)
        for new in new_ops:
            new.detach()
        rewriter.replace(op, new_ops, [result])


class LowerIota(RewritePattern):
    """`grad.iota [dim]` -> `linalg.generic` yielding `linalg.index dim`, cast
    to i32 (and to f32 by `sitofp`)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.IotaOp, rewriter: PatternRewriter, /):
        type = tensor_type(op.result)

        def index(args: Sequence[BlockArgument]) -> SSAValue:
            value = arith.IndexCastOp(linalg.IndexOp(op.dim_value), i32).result
            if type.get_element_type() == f32:
                value = arith.SIToFPOp(value, f32).result
            return value

        rewriter.replace(op, elementwise([], type, index))


def _sorts_before(x: SSAValue, y: SSAValue) -> SSAValue:
    """Whether x sorts strictly before y: `x < y` for i32; for f32 also
    NumPy's NaN last (a number before NaN, NaN before nothing)."""
    if x.type == i32:
        return arith.CmpiOp(x, y, "slt").result
    y_is_nan = arith.CmpfOp(y, y, "uno")
    x_is_number = arith.CmpfOp(x, x, "ord")
    return arith.SelectOp(y_is_nan, x_is_number, arith.CmpfOp(x, y, "olt")).result


class LowerArgsort(RewritePattern):
    """`grad.argsort %a [dim]` -> the rank of each element (a reduction over
    the other positions k of its row: k sorts before it, or ties with it at
    an earlier position), then the position of each rank (a reduction over
    k adding k where k's rank is the result's position)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ArgsortOp, rewriter: PatternRewriter, /):
        type = tensor_type(op.result)
        dim, rank = op.axis_value, type.get_num_dims()
        element = tensor_type(op.input).get_element_type()
        own = _map(rank + 1, range(rank))
        other = _map(rank + 1, [rank if d == dim else d for d in range(rank)])
        iterators = [IteratorTypeAttr.parallel()] * rank
        iterators.append(IteratorTypeAttr.reduction())

        def count(here: SSAValue, there: SSAValue, total: SSAValue) -> SSAValue:
            earlier = arith.CmpiOp(linalg.IndexOp(rank), linalg.IndexOp(dim), "ult")
            tie = arith.SelectOp(_sorts_before(here, there), _false(), earlier)
            before = arith.SelectOp(_sorts_before(there, here), _true(), tie)
            return arith.AddiOp(total, arith.ExtUIOp(before, i32)).result

        @Builder.implicit_region([element, element, i32])
        def ranking(args: tuple[BlockArgument, ...]) -> None:
            linalg.YieldOp(count(args[0], args[1], args[2]))

        first = filled(0, type)
        ranks = linalg.GenericOp(
            [op.input, op.input],
            [first[-1].results[0]],
            ranking,
            [own, other, own],
            iterators,
            [type],
        )

        @Builder.implicit_region([i32, i32])
        def placing(args: tuple[BlockArgument, ...]) -> None:
            here = arith.IndexCastOp(linalg.IndexOp(dim), i32)
            there = arith.IndexCastOp(linalg.IndexOp(rank), i32)
            hit = arith.CmpiOp(args[0], here, "eq")
            zero = arith.ConstantOp(IntegerAttr(0, i32))
            linalg.YieldOp(arith.AddiOp(args[1], arith.SelectOp(hit, there, zero)))

        second = filled(0, type)
        order = linalg.GenericOp(
            [ranks.results[0]],
            [second[-1].results[0]],
            placing,
            [other, own],
            iterators,
            [type],
        )
        rewriter.replace(op, [*first, ranks, *second, order])


def _true() -> SSAValue:
    return arith.ConstantOp(IntegerAttr(-1, i1)).result


def _false() -> SSAValue:
    return arith.ConstantOp(IntegerAttr(0, i1)).result


INDEXING_PATTERNS: tuple[RewritePattern, ...] = (
    LowerGather(),
    LowerScatterAdd(),
    LowerIota(),
    LowerArgsort(),
)
