"""Batching (`vmap`) of structured control flow, and of the `tensor`, `arith`
and `math` ops on tensors that loops and their derivatives use, so that
`vmap`, `jacfwd`, `jacrev` and `hessian` of functions written with
`gradopt.lax` (and of their expanded derivatives) run each loop once on the
whole batch.

An `scf.for` some of whose carried values or captured values are batched
becomes one loop whose carried values are all batched (the unbatched ones
broadcast), its body replayed by the batching rules; an `scf.if` on an
unbatched condition becomes one `scf.if` whose branches are replayed and
whose results are batched. A trip count, a `while` condition or a branch
condition that differs between examples cannot be one loop or one branch:
those are refused with a message that says so.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import DenseArrayBase, TensorType, i64
from xdsl.dialects.scf import ConditionOp, ForOp, IfOp, WhileOp, YieldOp
from xdsl.dialects.tensor import ExtractOp, ExtractSliceOp, InsertSliceOp
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gradopt.frontend.batching import (
    BATCHING_RULES,
    STRUCTURED_RULES,
    Batched,
    Batcher,
    Lookup,
    batch,
)
from gradopt.frontend.trace import error

Finish = Callable[[list[Batched]], Operation]
"""Builds a replayed block's terminator from its results."""


def _replayed(
    b: Batcher,
    block: Block,
    inputs: Sequence[tuple[Attribute, bool]],
    get: Lookup,
    finish: Finish,
) -> tuple[Block, list[Batched]]:
    """A new block with `block`'s ops replayed for the batch, its arguments of
    the given types and batched as given, ended by `finish`."""
    new = Block(arg_types=[t for t, _ in inputs])
    args = [(a, batched) for a, (_, batched) in zip(new.args, inputs, strict=True)]
    terminator = block.last_op
    assert terminator is not None
    saved = b.trace.block, b.trace.constants
    b.trace.block, b.trace.constants = new, dict(b.trace.constants)
    try:
        results = batch(b, block, args, terminator.operands, get)
        b.trace.emit(finish(results))
    finally:
        b.trace.block, b.trace.constants = saved
    return new, results


def _flags(
    b: Batcher, block: Block, inputs: Sequence[tuple[Attribute, bool]], get: Lookup
) -> list[bool]:
    """Which of `block`'s results are batched for these inputs (by a replay
    that is then dropped)."""
    new, results = _replayed(b, block, inputs, get, lambda _: YieldOp())
    for op in new.walk():
        op.drop_all_references()
    return [batched for _, batched in results]


def _typed(b: Batcher, values: Sequence[SSAValue], flags: Sequence[bool]) -> list:
    return [
        (b.batched_type(v.type) if batched else v.type, batched)
        for v, batched in zip(values, flags, strict=True)
    ]


def _lifted(b: Batcher, values: Sequence[Batched], flags: Sequence[bool]) -> list:
    """`values`, those whose flag is set batched."""
    return [b.lift(v) if f else v[0] for v, f in zip(values, flags, strict=True)]


def _carried(
    flags: list[bool], found: Callable[[list[bool]], list[bool]]
) -> list[bool]:
    """The carried values that are batched: those that start so and those
    that an iteration makes so from them, to a fixed point."""
    while True:
        more = [a or b for a, b in zip(flags, found(flags), strict=True)]
        if more == flags:
            return flags
        flags = more


def _for(
    b: Batcher, op: Operation, operands: list[Batched], get: Lookup
) -> list[Batched]:
    assert isinstance(op, ForOp)
    if any(batched for _, batched in operands[:3]):
        raise error(
            "vmap: a loop whose bounds differ between examples cannot be batched "
            "(its trip count must be the same for the whole batch)"
        )
    body = op.body.block
    iv, carries = body.args[0], body.args[1:]

    def inputs(flags: list[bool]) -> list[tuple[Attribute, bool]]:
        return [(iv.type, False), *_typed(b, carries, flags)]

    flags = _carried(
        [x for _, x in operands[3:]], lambda f: _flags(b, body, inputs(f), get)
    )
    block, _ = _replayed(
        b, body, inputs(flags), get, lambda rs: YieldOp(*_lifted(b, rs, flags))
    )
    inits = _lifted(b, operands[3:], flags)
    bounds = [v for v, _ in operands[:3]]
    loop = ForOp(bounds[0], bounds[1], bounds[2], inits, block)
    loop.attributes.update(op.attributes)  # its checkpointing
    return list(zip(b.emit(loop), flags, strict=True))


def _condition(results: list[Batched]) -> None:
    if results[0][1]:
        raise error(
            "vmap: a while_loop whose condition differs between examples cannot "
            "be batched (its trip count must be the same for the whole batch)"
        )


def _while(
    b: Batcher, op: Operation, operands: list[Batched], get: Lookup
) -> list[Batched]:
    assert isinstance(op, WhileOp)
    before, after = op.before_region.block, op.after_region.block

    def forwarded(flags: list[bool]) -> list[bool]:
        found = _flags(b, before, _typed(b, before.args, flags), get)
        return found[1:]

    def found(flags: list[bool]) -> list[bool]:
        return _flags(b, after, _typed(b, after.args, forwarded(flags)), get)

    flags = _carried([x for _, x in operands], found)
    passed = forwarded(flags)

    def condition(results: list[Batched]) -> Operation:
        _condition(results)
        return ConditionOp(results[0][0], *_lifted(b, results[1:], passed))

    first, _ = _replayed(b, before, _typed(b, before.args, flags), get, condition)
    second, _ = _replayed(
        b,
        after,
        _typed(b, after.args, passed),
        get,
        lambda rs: YieldOp(*_lifted(b, rs, flags)),
    )
    types = [t for t, _ in _typed(b, op.results, passed)]
    loop = WhileOp(_lifted(b, operands, flags), types, [first], [second])
    loop.attributes.update(op.attributes)
    return list(zip(b.emit(loop), passed, strict=True))


def _if(
    b: Batcher, op: Operation, operands: list[Batched], get: Lookup
) -> list[Batched]:
    assert isinstance(op, IfOp)
    if operands[0][1]:
        raise error(
            "vmap: a cond whose predicate differs between examples cannot be "
            "batched (use gnp.where)"
        )
    regions = [op.true_region.block, op.false_region.block]
    found = [_flags(b, r, [], get) for r in regions]
    flags = [t or f for t, f in zip(*found, strict=True)]
    true, false = (
        _replayed(b, r, [], get, lambda rs: YieldOp(*_lifted(b, rs, flags)))[0]
        for r in regions
    )
    types = [t for t, _ in _typed(b, op.results, flags)]
    results = b.emit(IfOp(operands[0][0], types, [true], [false]))
    return list(zip(results, flags, strict=True))


def _elementwise_rule(
    b: Batcher, op: Operation, operands: list[Batched]
) -> list[SSAValue]:
    """`arith` and `math` ops on tensors, elementwise: the same op on
    operands batched alike."""
    return b.same_op(op, [b.lift(o) for o in operands])


def _indices(op: ExtractSliceOp | InsertSliceOp, operands: list[Batched]) -> list:
    """The offsets, sizes and strides operands (unbatched), as mapped."""
    start = len(operands) - len(op.offsets) - len(op.sizes) - len(op.strides)
    values = [v for v, _ in operands[start:]]
    a, b = len(op.offsets), len(op.offsets) + len(op.sizes)
    return [values[:a], values[a:b], values[b:]]


def _slice_properties(op: ExtractSliceOp | InsertSliceOp, size: int) -> dict:
    """A slice's static lists with the batch in front: all of it, from 0."""
    lists = {
        "static_offsets": (0, op.static_offsets),
        "static_sizes": (size, op.static_sizes),
        "static_strides": (1, op.static_strides),
    }
    return {
        name: DenseArrayBase.from_list(i64, [head, *values.get_values()])
        for name, (head, values) in lists.items()
    }


def _extract_slice(
    b: Batcher, op: Operation, operands: list[Batched]
) -> list[SSAValue]:
    assert isinstance(op, ExtractSliceOp)
    return b.emit(
        ExtractSliceOp.build(
            operands=[b.lift(operands[0]), *_indices(op, operands)],
            result_types=[b.batched_type(op.result.type)],
            properties=_slice_properties(op, b.size),
        )
    )


def _insert_slice(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    assert isinstance(op, InsertSliceOp)
    dest = b.lift(operands[1])
    assert isinstance(dest.type, TensorType)
    return b.emit(
        InsertSliceOp.build(
            operands=[b.lift(operands[0]), dest, *_indices(op, operands)],
            result_types=[dest.type],
            properties=_slice_properties(op, b.size),
        )
    )


def _extract(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """A scalar of a batched value would differ between examples: only a loop
    bound or a condition is made so."""
    raise error(
        "vmap: a loop bound, while_loop condition or cond predicate that differs "
        "between examples cannot be batched (its trip count or branch must be "
        "the same for the whole batch; for a branch, use gnp.where)"
    )


STRUCTURED_RULES[ForOp] = _for
STRUCTURED_RULES[WhileOp] = _while
STRUCTURED_RULES[IfOp] = _if
BATCHING_RULES[ExtractOp] = _extract
BATCHING_RULES[ExtractSliceOp] = _extract_slice
BATCHING_RULES[InsertSliceOp] = _insert_slice
for _elementwise in (
    arith.FloatingPointLikeBinaryOperation,
    arith.NegfOp,
    arith.CmpfOp,
    math.FloatingPointLikeUnaryMathOperation,
    math.FloatingPointLikeBinaryMathOperation,
):
    BATCHING_RULES[_elementwise] = _elementwise_rule
