"""The derivatives of the `grad` ops: SPEC §5.3 (shares) and §5.6 (tangents),
one short function per op and mode, registered with `register_derivative`
(`gradopt.autodiff.registry`) as any dialect's ops would be.

A reverse rule gets the node's gradient `g` and returns, per operand, a thunk
that builds the share for that operand (or None: no share). The walk calls only
the thunks of operands on the path, in operand order, so only shares that are
sent are built. A tangent rule gets the operands' tangents (None off the path)
and builds the node's tangent. Where the two tables give one expression of the
incoming g or t (exp2, log2, sqrt, sin, recip, neg, casts, reverse), it is
written once as a `Derivative.chain`.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache, partial

from xdsl.dialects.builtin import f32
from xdsl.ir import Attribute, Operation, SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import (
    DEAD_END,
    STOPS_GRADIENT,
    Derivative,
    Tangent,
    register_derivative,
)
from gradopt.dialect.ops import (
    AddOp,
    AndOp,
    ArgsortOp,
    BitcastOp,
    BroadcastOp,
    CastOp,
    CmpEqOp,
    CmpLtOp,
    CmpNeOp,
    ConcatOp,
    ConstOp,
    DetachOp,
    DotOp,
    Exp2Op,
    GatherOp,
    IDivOp,
    IotaOp,
    Log2Op,
    MaxOp,
    ModOp,
    MulOp,
    NegOp,
    OrOp,
    PadOp,
    PermuteOp,
    RecipOp,
    ReduceKind,
    ReduceOp,
    ReshapeOp,
    ReverseOp,
    ScatterAddOp,
    ShlOp,
    ShrOp,
    SinOp,
    SliceOp,
    SqrtOp,
    WhereOp,
    XorOp,
    scalar_literal,
    swap_last,
)
from gradopt.dialect.types import tensor_type

LN2 = 0.6931472
HALF_PI = 1.5707964


def _kept_dims(op: ReduceOp) -> list[int]:
    """The input dims a reduction keeps: where its result's dims come from."""
    return [
        i
        for i in range(tensor_type(op.input).get_num_dims())
        if i not in op.ints("axes")
    ]


def _expanded_dims(op: BroadcastOp) -> list[int]:
    """Output dims that are new, or expanded from size 1 (sorted)."""
    source, target = (
        tensor_type(op.input).get_shape(),
        tensor_type(op.result).get_shape(),
    )
    placed = dict(zip(op.ints("dims"), source, strict=True))
    return [d for d, size in enumerate(target) if placed.get(d) != size]


def _inverse(perm: Sequence[int]) -> list[int]:
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    return inverse


# --- Both modes: one linear map of the incoming g or t -----------------------


def _neg(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return e.neg(x)


def _recip(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    u = op.results[0]
    return e.mul(x, e.neg(e.mul(u, u)))


def _exp2(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return e.mul(e.mul(x, op.results[0]), LN2)


def _log2(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return e.mul(x, e.recip(e.mul(op.operands[0], LN2)))


def _sqrt(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return e.mul(x, e.recip(e.mul(op.results[0], 2.0)))


def _sin(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return e.mul(x, e.sin(e.add(op.operands[0], HALF_PI)))


def _identity(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return x


# --- Reverse mode: the shares of SPEC §5.3 -----------------------------------


def _add(e: Emitter, op: Operation, g: SSAValue):
    return (lambda: g, lambda: g)


def _mul(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    return (lambda: e.mul(g, b), lambda: e.mul(g, a))


def _max(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    tie = cache(lambda: e.where(e.cmpeq(a, b), e.mul(g, 0.5), 0.0))

    def share(x: SSAValue, other: SSAValue) -> SSAValue:
        h = tie()
        return e.where(e.cmplt(other, x), g, h)

    return (lambda: share(a, b), lambda: share(b, a))


def _where(e: Emitter, op: Operation, g: SSAValue):
    c = op.operands[0]
    return (None, lambda: e.where(c, g, 0.0), lambda: e.where(c, 0.0, g))


def _reduce_add(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ReduceOp)
    return (lambda: e.broadcast(g, _kept_dims(op), tensor_type(op.input)),)


def _reduce_max(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ReduceOp)
    a, u, kept, type = op.input, op.result, _kept_dims(op), tensor_type(op.input)

    def share() -> SSAValue:
        eq = e.cmpeq(a, e.broadcast(u, kept, type))
        spread = e.where(eq, e.broadcast(g, kept, type), 0.0)
        count = e.reduce_add(e.where(eq, 1.0, 0.0), op.ints("axes"))
        return e.mul(spread, e.broadcast(e.recip(count), kept, type))

    return (share,)


def _broadcast(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, BroadcastOp)
    axes, type = _expanded_dims(op), tensor_type(op.input)

    def share() -> SSAValue:
        if not axes:
            return g
        summed = e.reduce_add(g, axes)
        return summed if summed.type == type else e.reshape(summed, type)

    return (share,)


def _reshape(e: Emitter, op: Operation, g: SSAValue):
    return (lambda: e.reshape(g, tensor_type(op.operands[0])),)


def _reverse(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ReverseOp)
    return (lambda: e.reverse(g, op.ints("dims")),)


def _permute(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, PermuteOp)
    return (lambda: e.permute(g, _inverse(op.ints("perm"))),)


def _dot(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    swap = swap_last(tensor_type(a).get_num_dims())
    return (
        lambda: e.dot(g, e.permute(b, swap)),
        lambda: e.dot(e.permute(a, swap), g),
    )


def _slice(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, SliceOp)
    a, sizes = op.input, tensor_type(op.input).get_shape()

    def share() -> SSAValue:
        if not tensor_type(op.result).element_count():
            return e.zeros_like(a)
        kept = zip(sizes, tensor_type(op.result).get_shape(), op.dims(), strict=True)
        high = [n - s - (m - 1) * k - 1 for n, m, (s, _, k) in kept]
        return e.pad(g, op.ints("start"), high, [k - 1 for *_, k in op.dims()])

    return (share,)


def _pad(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, PadOp)
    a, sizes = op.input, tensor_type(op.input).get_shape()

    def share() -> SSAValue:
        if not tensor_type(a).element_count():
            return e.zeros_like(a)
        low, strides = op.ints("low"), [i + 1 for *_, i in op.dims()]
        limits = [
            lo + (n - 1) * k + 1 for lo, n, k in zip(low, sizes, strides, strict=True)
        ]
        return e.slice(g, low, limits, strides)

    return (share,)


def _concat(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, ConcatOp)
    d, shape = op.axis, tensor_type(op.result).get_shape()

    def share(offset: int, size: int) -> SSAValue:
        start, limit = [0] * len(shape), list(shape)
        start[d], limit[d] = offset, offset + size
        return e.slice(g, start, limit, [1] * len(shape))

    sizes = [tensor_type(v).get_shape()[d] for v in op.inputs]
    offsets = [sum(sizes[:j]) for j in range(len(sizes))]
    return [partial(share, o, n) for o, n in zip(offsets, sizes, strict=True)]


def _gather(e: Emitter, op: Operation, g: SSAValue):
    """`scatter_add (const 0.0 of a's type), i, g` to a, nothing to i."""
    assert isinstance(op, GatherOp)
    a, i = op.input, op.index
    return (
        lambda: e.insert(ScatterAddOp(e.zeros_like(a), i, g, op.axis_value)),
        None,
    )


def _scatter_add(e: Emitter, op: Operation, g: SSAValue):
    """`g` to d, `gather g, i` to u, nothing to i."""
    assert isinstance(op, ScatterAddOp)
    return (
        lambda: g,
        None,
        lambda: e.insert(GatherOp(g, op.index, op.axis_value)),
    )


def _zero_padded(op: Operation) -> dict[str, Attribute]:
    """A pad's properties with the pad value 0.0: the linear part of the pad,
    which is its tangent map (SPEC §5.6)."""
    return {**op.properties, "value": scalar_literal(0.0, f32)}


# --- Forward mode: the tangents of SPEC §5.6 ---------------------------------
# `t` holds the operands' tangents, None for an operand off the path.


def _or_zero(e: Emitter, t: Tangent, like: SSAValue) -> SSAValue:
    """A missing tangent is 0.0."""
    return t if t is not None else e.zeros_like(like)


def _sum(e: Emitter, a: Tangent, b: Tangent) -> SSAValue:
    """`add a b`, where a missing side leaves the other unchanged."""
    if a is None or b is None:
        present = a if a is not None else b
        assert present is not None
        return present
    return e.add(a, b)


def _t_add(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    return _sum(e, t[0], t[1])


def _t_mul(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    a, b = op.operands
    left = e.mul(t[0], b) if t[0] is not None else None
    right = e.mul(a, t[1]) if t[1] is not None else None
    return _sum(e, left, right)


def _t_max(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    a, b = op.operands
    a_wins, ta = e.cmplt(b, a), _or_zero(e, t[0], a)
    b_wins, tb = e.cmplt(a, b), _or_zero(e, t[1], b)
    tie = e.mul(_sum(e, t[0], t[1]), 0.5)
    return e.where(a_wins, ta, e.where(b_wins, tb, tie))


def _t_where(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    c, a, b = op.operands
    return e.where(c, _or_zero(e, t[1], a), _or_zero(e, t[2], b))


def _t_reduce_add(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, ReduceOp)
    return e.reduce_add(_or_zero(e, t[0], op.input), op.ints("axes"))


def _t_reduce_max(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, ReduceOp)
    a, axes = op.input, op.ints("axes")
    eq = e.cmpeq(a, e.broadcast(op.result, _kept_dims(op), tensor_type(a)))
    total = e.reduce_add(e.where(eq, _or_zero(e, t[0], a), 0.0), axes)
    return e.mul(total, e.recip(e.reduce_add(e.where(eq, 1.0, 0.0), axes)))


def _t_dot(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    a, b = op.operands
    left = e.dot(t[0], b) if t[0] is not None else None
    right = e.dot(a, t[1]) if t[1] is not None else None
    return _sum(e, left, right)


# --- The derivative of each op ------------------------------------------------

DERIVATIVES: dict[type[Operation], Derivative] = {
    AddOp: Derivative(_add, _t_add),
    MulOp: Derivative(_mul, _t_mul),
    NegOp: Derivative.chain(_neg),
    RecipOp: Derivative.chain(_recip),
    MaxOp: Derivative(_max, _t_max),
    WhereOp: Derivative(_where, _t_where),
    Exp2Op: Derivative.chain(_exp2),
    Log2Op: Derivative.chain(_log2),
    SqrtOp: Derivative.chain(_sqrt),
    SinOp: Derivative.chain(_sin),
    CastOp: Derivative.chain(_identity),  # f32 to f32; other casts are dead ends
    BitcastOp: Derivative.chain(_identity),
    DetachOp: STOPS_GRADIENT,
    BroadcastOp: Derivative.linear(_broadcast),
    ReshapeOp: Derivative.linear(_reshape),
    PermuteOp: Derivative.linear(_permute),
    DotOp: Derivative(_dot, _t_dot),
    SliceOp: Derivative.linear(_slice),
    PadOp: Derivative.linear(_pad, _zero_padded),
    ReverseOp: Derivative.linear(_reverse),
    ConcatOp: Derivative.linear(_concat),
    GatherOp: Derivative.linear(_gather),
    ScatterAddOp: Derivative.linear(_scatter_add),
    **dict.fromkeys([IotaOp, ArgsortOp], DEAD_END),
    **dict.fromkeys([ConstOp, CmpLtOp, CmpEqOp, CmpNeOp], DEAD_END),
    **dict.fromkeys([IDivOp, ModOp, AndOp, OrOp, XorOp, ShlOp, ShrOp], DEAD_END),
}
"""The `grad` ops with one derivative whatever their properties; `reduce` has
one per kind, and `load` and `store` none (a path through memory is invalid)."""

REDUCE_DERIVATIVES: dict[ReduceKind, Derivative] = {
    ReduceKind.ADD: Derivative(_reduce_add, _t_reduce_add),
    ReduceKind.MAX: Derivative(_reduce_max, _t_reduce_max),
}
"""`reduce mul` has no rule (SPEC §5.3): invalid on a path."""


def _reduce_derivative(op: Operation) -> Derivative | None:
    assert isinstance(op, ReduceOp)
    kind = ReduceKind.named(op.kind.data)
    return None if kind is None else REDUCE_DERIVATIVES.get(kind)


for _op_type, _derivative in DERIVATIVES.items():
    register_derivative(_op_type, _derivative)
register_derivative(ReduceOp, _reduce_derivative)
import gradopt.autodiff.rules.custom  # noqa: E402, F401  (grad.custom)
