"""The derivative of `iree_linalg_ext.attention` (SPEC §10.5): the op is
rebuilt as the `linalg.generic`s of its definition, `softmax(scale * Q Kᵀ)
V` (a contraction over the product dims, the scale, the row maximum, the
exponential, the row sum, the quotient, a contraction over the key dims),
and the walks of SPEC §5 run over those: the shares to the query, key,
value and scale are the generics' own rules, the tangent their tangents.
So the derivative needs no rule of its own beyond the generics', and IREE
compiles it as any other linalg. The original op still computes the value.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import TensorType, f32
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.ir import Operation, SSAValue
from xdsl.ir.affine import AffineDimExpr, AffineMap

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import Derivative, Tangent
from gradopt.autodiff.upstream import is_f32_value
from gradopt.autodiff.walks import backward_walk, forward_walk_from
from gradopt.dialect.upstream.iree_attention import AttentionOp, dims_of

PARALLEL, REDUCTION = IteratorType.PARALLEL, IteratorType.REDUCTION


def _contraction(
    e: Emitter,
    operands: Sequence[SSAValue],
    dims: Sequence[list[int]],
    out: list[int],
    type: TensorType,
) -> SSAValue:
    """`sum a * b` of two operands read along `dims`, over the dims they
    read, written along `out` (the others are reduced)."""
    space = sorted({d for ds in dims for d in ds})

    def map(ds: Sequence[int]) -> AffineMap:
        return AffineMap(
            len(space), 0, tuple(AffineDimExpr(space.index(d)) for d in ds)
        )

    (result,) = e.generic(
        operands,
        [e.fconst(0.0, type)],
        [*(map(ds) for ds in dims), map(out)],
        [PARALLEL if d in out else REDUCTION for d in space],
        lambda b, a: [b.addf(a[2], b.mulf(a[0], a[1]))],
    )
    return result


def _sizes(op: AttentionOp) -> dict[int, int]:
    sizes: dict[int, int] = {}
    for map, value in zip(op.maps, [*op.inputs, op.output], strict=True):
        if isinstance(value.type, TensorType):
            sizes.update(zip(dims_of(map), value.type.get_shape(), strict=True))
    return sizes


def decomposed(e: Emitter, op: AttentionOp) -> SSAValue:
    """`op`'s value computed by `linalg.generic`s of its definition."""
    query, key, value, scale = op.inputs
    q, k, v, _, o = (dims_of(m) for m in op.maps)
    keys = [d for d in k if d in v and d not in q]
    rows = [d for d in o if d in q]
    scores, sizes = rows + keys, _sizes(op)
    score_type = TensorType(f32, [sizes[d] for d in scores])
    row_type = TensorType(f32, [sizes[d] for d in rows])
    rank = len(scores)
    same = AffineMap.identity(rank)
    row = AffineMap(rank, 0, tuple(AffineDimExpr(i) for i in range(len(rows))))
    parallel = [PARALLEL] * rank
    over_keys = [PARALLEL] * len(rows) + [REDUCTION] * len(keys)

    def elementwise(
        operands: Sequence[SSAValue], maps: Sequence[AffineMap], body
    ) -> SSAValue:
        (result,) = e.generic(
            operands, [e.empty(score_type)], [*maps, same], parallel, body
        )
        return result

    def reduced(s: SSAValue, start: float, combine) -> SSAValue:
        (result,) = e.generic(
            [s], [e.fconst(start, row_type)], [same, row], over_keys, combine
        )
        return result

    product = _contraction(e, [query, key], [q, k], scores, score_type)
    s = elementwise(
        [product, scale],
        [same, AffineMap(rank, 0, ())],
        lambda b, a: [b.mulf(a[0], a[1])],
    )
    top = reduced(
        s, float("-inf"), lambda b, a: [b.insert(arith.MaximumfOp(a[1], a[0]))]
    )
    exp = elementwise([s, top], [same, row], lambda b, a: [b.exp(b.subf(a[0], a[1]))])
    total = reduced(exp, 0.0, lambda b, a: [b.addf(a[1], a[0])])
    weights = elementwise([exp, total], [same, row], lambda b, a: [b.divf(a[0], a[1])])
    output = op.output.type
    assert isinstance(output, TensorType)
    return _contraction(e, [weights, value], [scores, v], o, output)


def _targets(e: Emitter, op: AttentionOp) -> list[SSAValue]:
    """The distinct f32 inputs on the walk's path (the query may be the key):
    the inner walk builds no share that the outer one would drop."""
    return list(
        dict.fromkeys(
            x
            for x in op.inputs
            if is_f32_value(x.type) and (e.path is None or x in e.path)
        )
    )


def _reverse(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(op, AttentionOp)
    inner = e.at(e.anchor)
    targets = _targets(e, op)
    walk = cache(
        lambda: backward_walk(inner, decomposed(inner, op), lambda: g, targets)
    )
    shares: list = []
    for k, x in enumerate(op.operands):
        first = k < len(op.inputs) and x in targets and op.operands.index(x) == k
        shares.append((lambda x=x: walk().get(x) or inner.fzeros(x)) if first else None)
    return shares


def _tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, AttentionOp)
    inner = e.at(e.anchor)
    sources = {x: tx for x, tx in zip(op.inputs, t, strict=False) if tx is not None}
    (found,) = forward_walk_from(inner, [decomposed(inner, op)], sources)
    return found if found is not None else inner.zeros_like(op.results[0])


ATTENTION = Derivative(_reverse, _tangent)


def attention_reason(op: Operation) -> str | None:
    """Why an attention has no rule (a mask, a score body, ...), or None."""
    assert isinstance(op, AttentionOp)
    return op.unsupported()
