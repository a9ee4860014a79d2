"""Rewrites of lowered programs before IREE compiles them, for loops that
run many small iterations (the expanded gradient of a recurrence: SPEC §11,
bench/RESULTS.md). It keeps every result's bits.

IREE runs an `scf.for` on the host: each iteration records and submits a
command buffer of the body's dispatches, and each loop-carried tensor is a
fresh allocation, copied whole when the body updates part of it. For a step
of a 16-wide RNN that host work, not the arithmetic, is the time:

- `unroll_loops`: an innermost loop (no region in its body but the payloads
  of `linalg` ops) runs `factor` iterations per trip, then the remaining
  ones one at a time, so IREE records and submits one command buffer for
  `factor` iterations, fuses across them and updates carried tensors in
  place within a trip. The ops, their operands and their order are the
  original loop's.
"""

from __future__ import annotations

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
)
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gradopt.runtime.iree_dispatch import dispatched

UNROLL_BUDGET = 2400
"""How many ops a loop's unrolled body may hold: the factor is the budget
divided by the body's size, at most `MAX_UNROLL` (compile time grows with
the unrolled host code; bench/RESULTS.md measures the trade)."""

MAX_UNROLL = 10
"""The most iterations one trip of an unrolled loop runs."""


def _innermost(loop: scf.ForOp) -> bool:
    """Whether the body holds no region but `linalg` payloads."""
    return all(
        op.dialect_name() == "linalg" for op in loop.body.block.ops for _ in op.regions
    )


def _size(loop: scf.ForOp) -> int:
    return sum(1 for _ in loop.body.walk())


def _constant(value: int, type: Attribute) -> arith.ConstantOp:
    """`value` as a constant of a loop's bound type (index or an integer)."""
    assert isinstance(type, IntegerType | IndexType)
    return arith.ConstantOp(IntegerAttr(value, type))


def _literal(value: SSAValue) -> int | None:
    op = value.owner
    if isinstance(op, arith.ConstantOp) and isinstance(op.value, IntegerAttr):
        return op.value.value.data
    return None


def _unrolled_body(loop: scf.ForOp, factor: int) -> tuple[list[Operation], Block]:
    """The ops that make the step of the unrolled loop (before it), and its
    body: `factor` copies of the original body in order, the k-th at the
    induction variable plus k steps."""
    body, step = loop.body.block, loop.step
    block = Block(arg_types=[arg.type for arg in body.args])
    before: list[Operation] = []
    if (known := _literal(step)) is not None:
        wide = _constant(known * factor, step.type)
        before.append(wide)
    else:
        count = _constant(factor, step.type)
        wide = arith.MuliOp(step, count)
        before += [count, wide]
    carried: list[SSAValue] = list(block.args[1:])
    index: SSAValue = block.args[0]
    for k in range(factor):
        if k:
            next_index = arith.AddiOp(index, step)
            block.add_op(next_index)
            index = next_index.result
        mapping: dict[SSAValue, SSAValue] = {body.args[0]: index}
        mapping.update(zip(body.args[1:], carried, strict=True))
        for op in body.ops:
            if isinstance(op, scf.YieldOp):
                carried = [mapping.get(value, value) for value in op.operands]
            else:
                block.add_op(op.clone(mapping))
    block.add_op(scf.YieldOp(*carried))
    return before, block


def _trips(loop: scf.ForOp) -> int | None:
    """How many iterations `loop` runs, if its bounds and step are literals."""
    known = [_literal(v) for v in (loop.lb, loop.ub, loop.step)]
    if None in known:
        return None
    low, high, stride = (k for k in known if k is not None)
    return max(0, -(-(high - low) // stride))


def _split(loop: scf.ForOp, factor: int) -> tuple[list[Operation], SSAValue]:
    """The ops that compute where the unrolled trips end (before the loop):
    the lower bound plus the whole trips' iterations, each `step` long."""
    lb, ub, step = loop.lb, loop.ub, loop.step
    if (trips := _trips(loop)) is not None:
        low, stride = _literal(lb), _literal(step)
        assert low is not None and stride is not None
        end = _constant(low + trips // factor * factor * stride, lb.type)
        return [end], end.result
    one = _constant(1, lb.type)
    zero = _constant(0, lb.type)
    span = arith.SubiOp(ub, lb)
    last = arith.SubiOp(step, one)
    rounded = arith.AddiOp(span, last)
    iterations = arith.DivSIOp(rounded, step)
    counted = arith.MaxSIOp(iterations, zero)
    count = _constant(factor, lb.type)
    whole = arith.DivSIOp(counted, count)
    covered = arith.MuliOp(whole, count)
    length = arith.MuliOp(covered, step)
    end = arith.AddiOp(lb, length)
    ops = [one, zero, span, last, rounded, iterations, counted, count, whole]
    return [*ops, covered, length, end], end.result


def _unroll(loop: scf.ForOp, factor: int) -> None:
    before, block = _unrolled_body(loop, factor)
    split_ops, end = _split(loop, factor)
    wide = before[-1].results[0]
    unrolled = scf.ForOp(loop.lb, end, wide, list(loop.iter_args), Region(block))
    parent = loop.parent_block()
    assert parent is not None
    parent.insert_ops_before([*before, *split_ops, unrolled], loop)
    if _literal(end) is not None and _literal(end) == _literal(loop.ub):
        for old, new in zip(loop.results, unrolled.results, strict=True):
            old.replace_all_uses_with(new)
        loop.detach()
        loop.erase()
    else:  # the original loop runs the iterations left
        loop.operands = [end, loop.ub, loop.step, *unrolled.results]


def unroll_loops(module: ModuleOp) -> int:
    """Unroll, in place, every innermost `scf.for` of `module` whose body fits
    the budget at least twice (see above), but for the loops that run inside
    a dispatch (`iree_dispatch`); returns how many."""
    done = 0
    for loop in [op for op in module.walk() if isinstance(op, scf.ForOp)]:
        if not _innermost(loop) or dispatched(loop):
            continue
        factor = min(MAX_UNROLL, UNROLL_BUDGET // max(1, _size(loop)))
        if (trips := _trips(loop)) is not None:
            factor = min(factor, trips)
        if factor >= 2:
            _unroll(loop, factor)
            done += 1
    return done
