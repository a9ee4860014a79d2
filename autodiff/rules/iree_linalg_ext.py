"""The derivatives of IREE's `iree_linalg_ext` ops (SPEC §10.5), built from
`linalg`, `tensor`, `arith` and `iree_linalg_ext` ops (no `grad` op), so
that IREE runs the differentiated program as it is:

- `scan` of an `arith.addf` body (inclusive; `jnp.cumsum`): the output's g
  summed from the end, a reversal (a generic reading g through `N-1-d`), a
  scan and a reversal back; the accumulator's g (the total) to every
  element. Tangent: the scan of the tangent.
- `sort`: g scattered back through the permutation. The permutation is an
  operand the sort already carries (an iota along the dimension, as
  `argsort` sorts one), else the result of sorting an iota alongside with
  the same comparator; g goes back by sorting (permutation, g) by the
  permutation. Tangent: the tangent sorted alongside the operands.
- `scatter` with an `addf` body: to the original g, to the updates g
  gathered where each landed. With a body yielding the update (`.set`): to
  the original g with the written elements zeroed, to
  each update the gathered g if it was the last write to its element (the
  one whose value the result holds, as in the interpreter and JAX), else
  0.0. The original's share is a select by those ids rather than a scatter
  of zeros into g, which IREE may write into g's buffer before the
  updates' gather reads it. Tangent: the scatter of the tangents (both
  bodies are linear).

Any other body on the path has no rule (SPEC §4 rule 5) and the reason says
why.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IndexType, IntegerAttr, TensorType, f32, i32, i64
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import GenericOp, IndexOp
from xdsl.ir import (
    Block,
    BlockArgument,
    Operation,
    OpResult,
    Region,
    SSAValue,
)
from xdsl.ir.affine import AffineConstantExpr, AffineDimExpr, AffineExpr, AffineMap

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import Derivative, Tangent, register_derivative
from gradopt.autodiff.rules.attention import ATTENTION, attention_reason
from gradopt.autodiff.upstream import is_f32_value
from gradopt.dialect.types import tensor_type
from gradopt.dialect.upstream.iree_attention import AttentionOp
from gradopt.dialect.upstream.iree_linalg_ext import (
    ScanOp,
    ScatterOp,
    SortOp,
    YieldOp,
)

INDEX = IndexType()


def _result_index(e: Emitter) -> int:
    assert isinstance(e.result, OpResult)
    return e.result.index


def _on_tangents(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    """The op applied to its operands' tangents (zeros for f32 operands off
    the path, others as they are): the tangent of an op linear in them."""
    operands = [
        ta if ta is not None else e.fzeros(a) if is_f32_value(a.type) else a
        for ta, a in zip(t, op.operands, strict=True)
    ]
    made = type(op).create(
        operands=operands,
        result_types=op.result_types,
        properties=dict(op.properties),
        regions=[op.regions[0].clone()],
    )
    e.insert(made)
    return made.results[_result_index(e)]


def _identity_generic(
    e: Emitter, value: SSAValue, map: AffineMap, type: TensorType
) -> SSAValue:
    """A parallel generic writing `type` from `value` read through `map`."""
    rank = type.get_num_dims()
    (result,) = e.generic(
        [value],
        [e.empty(type)],
        [map, AffineMap.identity(rank)],
        [IteratorType.PARALLEL] * rank,
        lambda b, args: [args[0]],
    )
    return result


def _reversed(e: Emitter, value: SSAValue, dim: int) -> SSAValue:
    type = tensor_type(value)
    rank, size = type.get_num_dims(), type.get_shape()[dim]
    results: list[AffineExpr] = [AffineDimExpr(d) for d in range(rank)]
    results[dim] = AffineConstantExpr(size - 1) - AffineDimExpr(dim)
    return _identity_generic(e, value, AffineMap(rank, 0, tuple(results)), type)


# --- scan ------------------------------------------------------------------------


def _is_sum(block: Block) -> bool:
    value = block.last_op.operands[0] if block.last_op is not None else None
    owner = value.owner if value is not None else None
    return isinstance(owner, arith.AddfOp) and set(owner.operands) == set(block.args)


def _cumsum(e: Emitter, value: SSAValue, dim: int) -> SSAValue:
    """An inclusive `iree_linalg_ext.scan` of `value` by `arith.addf`."""
    type = tensor_type(value)
    shape = type.get_shape()
    accumulator = TensorType(f32, shape[:dim] + shape[dim + 1 :])
    block = Block(arg_types=[f32, f32])
    total = arith.AddfOp(block.args[0], block.args[1])
    block.add_ops([total, YieldOp(total.result)])
    scan = ScanOp.create(
        operands=[value, e.empty(type), e.fconst(0.0, accumulator)],
        result_types=[type, accumulator],
        properties={
            "dimension": IntegerAttr(dim, i64),
            "inclusive": IntegerAttr.from_bool(True),
        },
        regions=[Region(block)],
    )
    e.insert(scan)
    return scan.results[0]


def _scan(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ScanOp)
    dim, type = op.dim, tensor_type(op.input)

    def from_output() -> SSAValue:
        return _reversed(e, _cumsum(e, _reversed(e, g, dim), dim), dim)

    def from_total() -> SSAValue:
        rank = type.get_num_dims()
        kept = tuple(AffineDimExpr(d) for d in range(rank) if d != dim)
        return _identity_generic(e, g, AffineMap(rank, 0, kept), type)

    return [from_output if _result_index(e) == 0 else from_total, None, None]


SCAN = Derivative(_scan, _on_tangents)


def _scan_reason(op: Operation) -> str | None:
    assert isinstance(op, ScanOp)
    if not op.is_inclusive:
        return "only an inclusive scan is differentiated"
    if not _is_sum(op.region.block):
        return (
            "only a scan whose body is 'arith.addf' of its two arguments is "
            "differentiated"
        )
    return None


# --- sort ------------------------------------------------------------------------


def _is_iota(value: SSAValue, dim: int) -> bool:
    """Whether `value` is `index_cast(linalg.index dim)` everywhere, as JAX's
    `argsort` writes the indices it sorts alongside."""
    op = value.owner
    if not isinstance(op, GenericOp) or op.inputs or len(op.outputs) != 1:
        return False
    rank = tensor_type(value).get_num_dims()
    if op.indexing_maps.data[0].data != AffineMap.identity(rank):
        return False
    yielded = op.body.block.last_op
    cast = yielded.operands[0].owner if yielded and yielded.operands else None
    index = cast.operands[0].owner if isinstance(cast, arith.IndexCastOp) else None
    return isinstance(index, IndexOp) and index.dim.value.data == dim


def _sorted_alongside(e: Emitter, op: SortOp, extra: SSAValue) -> SSAValue:
    """`extra` sorted alongside `op`'s operands by `op`'s comparator."""
    region = op.region.clone()
    block = region.block
    element = tensor_type(extra).get_element_type()
    block.insert_arg(element, len(block.args))
    block.insert_arg(element, len(block.args))
    sort = SortOp.build(
        operands=[[], [*op.outputs, extra]],
        result_types=[[*op.result_types, extra.type]],
        properties={"dimension": op.dimension},
        regions=[region],
    )
    e.insert(sort)
    return sort.results[-1]


def _permutation(e: Emitter, op: SortOp) -> SSAValue:
    """Where each sorted element came from along the dimension (i32)."""
    for k, value in enumerate(op.outputs):
        if _is_iota(value, op.dim):
            return op.results[k]
    type = tensor_type(op.outputs[0])
    rank, dim = type.get_num_dims(), op.dim

    def iota(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        index = b.insert(IndexOp(dim))
        return [b.insert(arith.IndexCastOp(index, i32))]

    (indices,) = e.generic(
        [],
        [e.empty(TensorType(i32, type.get_shape()))],
        [AffineMap.identity(rank)],
        [IteratorType.PARALLEL] * rank,
        iota,
    )
    return _sorted_alongside(e, op, indices)


def _sort(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, SortOp)
    k = _result_index(e)

    def share() -> SSAValue:
        permutation = _permutation(e, op)
        block = Block(arg_types=[i32, i32, f32, f32])
        before = arith.CmpiOp(block.args[0], block.args[1], "slt")
        block.add_ops([before, YieldOp(before.result)])
        back = SortOp.build(
            operands=[[], [permutation, g]],
            result_types=[[permutation.type, g.type]],
            properties={"dimension": op.dimension},
            regions=[Region(block)],
        )
        e.insert(back)
        return back.results[1]

    return [share if i == k else None for i in range(len(op.outputs))]


def _t_sort(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, SortOp)
    tk = t[_result_index(e)]
    if tk is None:
        return e.fzeros(e.result)  # pyright: ignore[reportArgumentType]
    return _sorted_alongside(e, op, tk)


SORT = Derivative(_sort, _t_sort)


# --- scatter ---------------------------------------------------------------------


def _sets(op: ScatterOp) -> bool | None:
    """Whether the body yields the update (True), adds it (False), or
    neither (None)."""
    block = op.region.block
    update, current = block.args
    value = block.last_op.operands[0] if block.last_op is not None else None
    if value is update:
        return True
    owner = value.owner if value is not None else None
    if isinstance(owner, arith.AddfOp) and set(owner.operands) == {update, current}:
        return False
    return None


def _gathered(
    e: Emitter, op: ScatterOp, g: SSAValue, winners: SSAValue | None
) -> SSAValue:
    """For each update, g at the element it lands on (a generic over the
    updates reading g and the indices by `tensor.extract`); with `winners`
    (the id of the last update to write each element), 0.0 for an update
    that is not its element's last write."""
    type = tensor_type(op.updates)
    shape, rank, batch = type.get_shape(), type.get_num_dims(), op.batch_rank
    original = tensor_type(op.original).get_num_dims()
    offset = original - (rank - batch)

    def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        ivs = [b.insert(IndexOp(d)) for d in range(rank)]
        coordinates: list[SSAValue | None] = [None] * original
        for j in range(rank - batch):
            coordinates[offset + j] = ivs[batch + j]
        for k, dim in enumerate(op.dims):
            read = b.extract(op.indices, [*ivs[:batch], b.index(k)])
            at = b.insert(arith.IndexCastOp(read, INDEX))
            known = coordinates[dim]
            coordinates[dim] = (
                at if known is None else b.insert(arith.AddiOp(at, known))
            )
        where = [c for c in coordinates if c is not None]
        value = b.extract(g, where)
        if winners is None:
            return [value]
        mine = _linear_id(b, ivs, shape)
        last = b.extract(winners, where)
        won = b.insert(arith.CmpiOp(last, mine, "eq"))
        return [b.select(won, value, b.fconst(0.0, f32))]

    (result,) = e.generic(
        [],
        [e.empty(type)],
        [AffineMap.identity(rank)],
        [IteratorType.PARALLEL] * rank,
        body,
    )
    return result


def _linear_id(b: Emitter, ivs: Sequence[SSAValue], shape: Sequence[int]) -> SSAValue:
    """The row-major position of the iteration `ivs` in `shape`, as i32."""
    total = ivs[0]
    for iv, size in zip(ivs[1:], shape[1:], strict=True):
        scaled = b.insert(arith.MuliOp(total, b.index(size)))
        total = b.insert(arith.AddiOp(scaled, iv))
    return b.insert(arith.IndexCastOp(total, i32))


def _winners(e: Emitter, op: ScatterOp) -> SSAValue:
    """The id of the last update written to each element of the original
    (-1 where none is), by a scatter of the updates' ids."""
    type = tensor_type(op.updates)
    rank = type.get_num_dims()
    ids_type = TensorType(i32, type.get_shape())
    (ids,) = e.generic(
        [],
        [e.empty(ids_type)],
        [AffineMap.identity(rank)],
        [IteratorType.PARALLEL] * rank,
        lambda b, args: [
            _linear_id(b, [b.insert(IndexOp(d)) for d in range(rank)], type.get_shape())
        ],
    )
    none = e.insert(arith.ConstantOp.from_int_and_width(-1, 32))
    shape = tensor_type(op.original).get_shape()
    (filled,) = e.generic(
        [],
        [e.empty(TensorType(i32, shape))],
        [AffineMap.identity(len(shape))],
        [IteratorType.PARALLEL] * len(shape),
        lambda b, args: [none],
    )
    block = Block(arg_types=[i32, i32])
    block.add_op(YieldOp(block.args[0]))
    written = ScatterOp.create(
        operands=[ids, op.indices, filled],
        result_types=[filled.type],
        properties=dict(op.properties),
        regions=[Region(block)],
    )
    e.insert(written)
    return written.results[0]


def _unwritten(e: Emitter, g: SSAValue, winners: SSAValue) -> SSAValue:
    """g where no update was written (`winners` is -1), else 0.0."""
    rank = tensor_type(g).get_num_dims()

    def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        none = b.insert(arith.ConstantOp.from_int_and_width(-1, 32))
        kept = b.insert(arith.CmpiOp(args[1], none, "eq"))
        return [b.select(kept, args[0], b.fconst(0.0, f32))]

    (result,) = e.generic(
        [g, winners],
        [e.empty(tensor_type(g))],
        [AffineMap.identity(rank)] * 3,
        [IteratorType.PARALLEL] * rank,
        body,
    )
    return result


def _scatter(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ScatterOp)
    if not _sets(op):
        return [lambda: _gathered(e, op, g, None), None, lambda: g]
    found: list[SSAValue] = []

    def winners() -> SSAValue:
        if not found:
            found.append(_winners(e, op))
        return found[0]

    return [
        lambda: _gathered(e, op, g, winners()),
        None,
        lambda: _unwritten(e, g, winners()),
    ]


SCATTER = Derivative(_scatter, _on_tangents)


def _scatter_reason(op: Operation) -> str | None:
    assert isinstance(op, ScatterOp)
    if _sets(op) is None:
        return (
            "only a scatter whose body yields the update or adds it "
            "('arith.addf') is differentiated"
        )
    return None


register_derivative(ScanOp, lambda op: None if _scan_reason(op) else SCAN, _scan_reason)
register_derivative(SortOp, SORT)
register_derivative(
    ScatterOp, lambda op: None if _scatter_reason(op) else SCATTER, _scatter_reason
)
register_derivative(
    AttentionOp,
    lambda op: None if attention_reason(op) else ATTENTION,
    attention_reason,
)
