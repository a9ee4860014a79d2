"""Binomial checkpointing of a loop's reverse (SPEC §11: `grad.checkpoint =
"binomial"`, `grad.snapshots = C`): Griewank and Walther's revolve, run as a
loop in the IR.

The reverse keeps a stack of at most C snapshots (the carried values of some
iterations that the reverse reads, and their positions, as `i64`: IREE
refuses a tensor of `index` between its dispatches), the first one the
loop's initial values.
Each step of an `scf.while` looks at the top snapshot, at position p, and at
the iteration to reverse next, target - 1: it recomputes from the snapshot up
to the position m that revolve's rule picks (`_split`) and either reverses
iteration target - 1 there, if m is it (popping the snapshot when m = p), or
pushes the state at m (the positions are an `i64` tensor: IREE takes no
`index` tensor across its dispatches). The schedule is thus worked out at run
time, one action at a time, once the trip count is known, in O(1) memory
beside the snapshots; its recomputation count is revolve's, which is the optimum
(Griewank and Walther, ACM TOMS 26(1), 2000): with C snapshots and N
iterations, r·N - binomial(C + r, r - 1) recomputed iterations, r the least
integer with binomial(C + r, C) >= N.

Every iteration is reversed by the same ops on the same carried values as
with the default cache, last first, so the bits are the cache's.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects import arith
from xdsl.dialects.builtin import IntegerAttr, i64
from xdsl.dialects.scf import ConditionOp, ForOp, IfOp, WhileOp, YieldOp
from xdsl.dialects.tensor import EmptyOp, ExtractOp, InsertOp
from xdsl.ir import SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.rules.scf import (
    INDEX,
    SNAPSHOTS,
    Loop,
    Start,
    _Body,
    _cache_type,
    _carries,
    _inits,
    _int,
    _iterate,
    _kept,
    _loaded,
    _on_path,
    _replay,
    _step_back,
    _store,
)


def binomial_reverse(
    e: Emitter,
    op: Loop,
    count: SSAValue,
    static: int | None,
    start: Start,
    outer: Sequence[SSAValue],
) -> Sequence[SSAValue]:
    """The reverse of `op`'s `count` iterations with C snapshots: the running
    values that `start` gives, as the default cache's reverse leaves them."""
    carries = _carries(op)
    snapshots, known = _snapshots(e, op, count, static)
    initial = start()
    zero = _int(e, 0, INDEX)
    sized = [] if known is not None else [snapshots]
    kept = _kept(op)
    inits = _inits(op)
    stacks = [
        _store(
            e,
            inits[j],
            e.insert(EmptyOp(sized, _cache_type(carries[j].type, known))),
            zero,
        )
        for j in kept
    ]
    where = e.insert(EmptyOp(sized, _cache_type(i64, known)))
    where = e.insert(InsertOp(_int(e, 0, i64), where, [zero]))
    state = [*initial, count, zero, *stacks, where]
    types = [v.type for v in state]
    first, second = _Body(e, types), _Body(e, types)
    loop = WhileOp(state, types, [first.block], [second.block])
    e.insert(loop)
    target = first.block.args[len(initial)]
    more = first.e.insert(arith.CmpiOp(target, _int(first.e, 0, INDEX), "sgt"))
    first.close(ConditionOp(more, *first.block.args))

    b = second.e
    args = second.block.args
    running, (target, top) = args[: len(initial)], args[len(initial) : len(initial) + 2]
    stacks, where = args[len(initial) + 2 : -1], args[-1]
    p = b.insert(arith.IndexCastOp(b.insert(ExtractOp(where, [top], i64)), INDEX))
    free = b.insert(arith.SubiOp(snapshots, top))
    m = _split(b, p, target, free)
    saved = _loaded(b, op, stacks, top)
    steps = b.insert(arith.SubiOp(m, p))
    advanced = _replay(b, op, p, steps, saved, None).results
    last = b.insert(arith.SubiOp(target, _int(b, 1, INDEX)))
    turn = b.insert(arith.CmpiOp(m, last, "eq"))
    popped = b.insert(arith.CmpiOp(m, p, "eq"))
    below = b.insert(arith.SubiOp(top, _int(b, 1, INDEX)))
    settled = b.insert(arith.SelectOp(popped, below, top))
    above = b.insert(arith.AddiOp(top, _int(b, 1, INDEX)))

    reverse, push = _Body(b, []), _Body(b, [])
    branch = IfOp(turn, types, [reverse.block], [push.block])
    b.insert(branch)
    values, yielded = _iterate(reverse, op, last, lambda: advanced, _on_path(outer))
    back = _step_back(reverse, values, yielded, running, outer, isinstance(op, ForOp))
    reverse.close(YieldOp(*back, last, settled, *stacks, where))
    pushed = [
        _store(push.e, advanced[j], s, above) for j, s in zip(kept, stacks, strict=True)
    ]
    position = push.e.insert(arith.IndexCastOp(m, i64))
    marked = push.e.insert(InsertOp(position, where, [above]))
    push.close(YieldOp(*running, target, above, *pushed, marked))
    second.close(YieldOp(*branch.results))
    return loop.results[: len(initial)]


def _snapshots(
    e: Emitter, op: Loop, count: SSAValue, static: int | None
) -> tuple[SSAValue, int | None]:
    """C: the loop's `grad.snapshots`, or ⌈log2 N⌉ (at least 1), at most
    max(N, 1) (more could not be used), and as an int when it is known."""
    given = op.attributes.get(SNAPSHOTS)
    wanted = given.value.data if isinstance(given, IntegerAttr) else None
    if static is not None:
        c = wanted if wanted is not None else max(1, (static - 1).bit_length())
        c = min(c, max(static, 1))
        return _int(e, c, INDEX), c
    one = _int(e, 1, INDEX)
    if wanted is not None:
        c = _int(e, wanted, INDEX)
    else:
        first, second = _Body(e, [INDEX]), _Body(e, [INDEX])
        search = WhileOp([one], [INDEX], [first.block], [second.block])
        e.insert(search)
        (c,) = first.block.args
        power = first.e.insert(arith.ShLIOp(_int(first.e, 1, INDEX), c))
        short = first.e.insert(arith.CmpiOp(power, count, "slt"))
        first.close(ConditionOp(short, c))
        (c,) = second.block.args
        second.close(
            YieldOp(second.e.insert(arith.AddiOp(c, _int(second.e, 1, INDEX))))
        )
        c = search.results[0]
    return e.insert(arith.MinSIOp(c, e.insert(arith.MaxSIOp(count, one)))), None


def _split(e: Emitter, p: SSAValue, target: SSAValue, free: SSAValue) -> SSAValue:
    """Where revolve advances to from the snapshot at p, with `free` snapshots
    counting p's, to reverse iterations p .. target - 1: p itself when only
    iteration p is left (four actions in ten: a branch, so that they skip
    the rule's integer ops); else its binomial rule (revolve.c's `advance`)."""
    length = e.insert(arith.SubiOp(target, p))
    alone = e.insert(arith.CmpiOp(length, _int(e, 1, INDEX), "eq"))
    stay, advance = _Body(e, []), _Body(e, [])
    branch = IfOp(alone, [INDEX], [stay.block], [advance.block])
    e.insert(branch)
    stay.close(YieldOp(p))
    advance.close(YieldOp(_advance(advance.e, p, target, free, length)))
    return branch.results[0]


def _advance(
    e: Emitter, p: SSAValue, target: SSAValue, free: SSAValue, length: SSAValue
) -> SSAValue:
    """Revolve's rule for `length` = target - p >= 2 iterations left and
    `free` >= 1 snapshots: after the search, reps >= 1, so that the divisors
    free, reps, free + reps and free + reps - 1 are positive."""

    def c(value: int) -> SSAValue:
        return _int(e, value, INDEX)

    def add(a: SSAValue, b: SSAValue) -> SSAValue:
        return e.insert(arith.AddiOp(a, b))

    def sub(a: SSAValue, b: SSAValue) -> SSAValue:
        return e.insert(arith.SubiOp(a, b))

    def mul(a: SSAValue, b: SSAValue) -> SSAValue:
        return e.insert(arith.MuliOp(a, b))

    def div(a: SSAValue, b: SSAValue) -> SSAValue:
        return e.insert(arith.DivSIOp(a, b))

    def cmp(a: SSAValue, b: SSAValue, predicate: str) -> SSAValue:
        return e.insert(arith.CmpiOp(a, b, predicate))

    def select(condition: SSAValue, a: SSAValue, b: SSAValue) -> SSAValue:
        return e.insert(arith.SelectOp(condition, a, b))

    first, second = _Body(e, [INDEX, INDEX]), _Body(e, [INDEX, INDEX])
    search = WhileOp([c(0), c(1)], [INDEX, INDEX], [first.block], [second.block])
    e.insert(search)
    reps, range_ = first.block.args
    short = first.e.insert(arith.CmpiOp(range_, length, "slt"))
    first.close(ConditionOp(short, reps, range_))
    reps, range_ = second.block.args
    s = second.e
    more = s.insert(arith.AddiOp(reps, _int(s, 1, INDEX)))
    grown = s.insert(arith.MuliOp(range_, s.insert(arith.AddiOp(more, free))))
    second.close(YieldOp(more, s.insert(arith.DivSIOp(grown, more))))
    reps, range_ = search.results

    both = add(free, reps)
    bino1 = div(mul(range_, reps), both)
    bino2 = select(cmp(free, c(1), "sgt"), div(mul(bino1, free), sub(both, c(1))), c(1))
    # free + reps - 2 is 0 for free = reps = 1, where bino3 is 0 without it
    lower = e.insert(arith.MaxSIOp(sub(both, c(2)), c(1)))
    bino3 = select(
        cmp(free, c(1), "eq"),
        c(0),
        select(cmp(free, c(2), "sgt"), div(mul(bino2, sub(free, c(1))), lower), c(1)),
    )
    bino4 = div(mul(bino2, sub(reps, c(1))), free)
    bino5 = select(
        cmp(free, c(3), "slt"),
        c(0),
        select(cmp(free, c(3), "sgt"), div(mul(bino3, sub(free, c(2))), reps), c(1)),
    )
    m = select(
        cmp(length, add(bino1, bino3), "sle"),
        add(p, bino4),
        select(
            cmp(length, sub(range_, bino5), "sge"),
            add(p, bino1),
            sub(sub(target, bino2), bino3),
        ),
    )
    return select(cmp(m, p, "eq"), add(p, c(1)), m)
