"""A rewrite of lowered programs before IREE compiles them: every scalar that
structured control flow carries from one block to another (an `scf.for`'s
induction variable and iteration arguments, an `scf.while`'s arguments, the
results of an `scf.for`, `scf.while`, `scf.if` or `scf.execute_region`) that
is narrower than 64 bits is carried as an i64, narrowed again where it is
read. Same values, same bits.

IREE 3.13's VM keeps a scalar of up to 32 bits (an i1 too, an f32) in one
32-bit register and an i64 in two, `i16+17`. A branch moves its arguments
into the registers of the target block's arguments in an order that it
computes from the first register of each value only
(`RegisterAllocation::remapSuccessorRegisters`), so when an i64 goes to
`i16+17` and the i32 in `i16` goes on to `i8`, the i64 may be written first,
and the i32 that arrives is the i64's low half. Met by a periodic
checkpointing of a loop that carries an i1 flag (issue 22): its forward
sweep is a loop of segments around a loop of steps, whose exit branch moves
the flag and an i64 offset of a segment's stack together:

    %r:4 = scf.for %k = %c0 to %c3 step %c1
        iter_args(%h = %x, %f = %true, %st = %e, %sf = %ef) -> (...) {
      %st2 = tensor.insert %f into %st[%k] : tensor<3xi1>
      %sf2 = tensor.insert_slice ... into %sf[%k] ...
      %i:2 = scf.for %j = %c0 to %c2 step %c1
          iter_args(%hh = %h, %ff = %f) -> (tensor<3xf32>, i1) {
        %nf = arith.xori %ff, %true : i1   // flips twice a segment
        ...

stores the flags `1 0 0` instead of `1 1 1` (`vm.br ^bb1(..., %14, ...)`
with the moves `i12+13->i16+17` then `i16->i8`), and the gradient is wrong
by units, silently. Which registers meet depends on everything else that is
live, so the rewrite does not look for the pattern: with every moved scalar
an i64, two moved values' registers are disjoint or the same pair, and the
order is right. A widened scalar costs a host-side extension and truncation
per branch, nothing on the device.
"""

from __future__ import annotations

from collections.abc import Iterable

from xdsl.dialects import arith, scf
from xdsl.dialects.builtin import (
    AnyFloat,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    Signedness,
    i64,
)
from xdsl.ir import Attribute, Block, Operation, SSAValue
from xdsl.rewriter import Rewriter


def _narrow(type: Attribute) -> bool:
    """Whether a scalar of `type` lives in one 32-bit register of the VM."""
    if isinstance(type, IntegerType):
        signless = type.signedness.data == Signedness.SIGNLESS
        return signless and type.width.data < 64
    return isinstance(type, AnyFloat) and type.bitwidth <= 32


def _widened(value: SSAValue) -> tuple[list[Operation], SSAValue]:
    """The ops that make `value` an i64 (sign-extended, as a loop's bounds
    are compared; an f32's bits), and the i64; an integer constant is made
    again as an i64 constant, so that a loop's bounds stay literals for
    `iree_loops`."""
    type = value.type
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        constant = arith.ConstantOp(IntegerAttr(owner.value.value.data, i64))
        return [constant], constant.result
    ops: list[Operation] = []
    if isinstance(type, AnyFloat):
        bits = arith.BitcastOp(value, IntegerType(type.bitwidth))
        ops.append(bits)
        value = bits.result
    wide = arith.ExtSIOp(value, i64)
    return [*ops, wide], wide.result


def _narrowed(value: SSAValue, type: Attribute) -> list[Operation]:
    """The ops that make the i64 `value` a `type` again (the last op's
    result)."""
    if isinstance(type, AnyFloat):
        bits = arith.TruncIOp(value, IntegerType(type.bitwidth))
        return [bits, arith.BitcastOp(bits.result, type)]
    assert isinstance(type, IntegerType)
    return [arith.TruncIOp(value, type)]


def _widen_operand(op: Operation, index: int) -> None:
    """Make `op`'s operand `index` an i64 computed just before `op`."""
    block = op.parent_block()
    assert block is not None
    ops, wide = _widened(op.operands[index])
    block.insert_ops_before(ops, op)
    op.operands[index] = wide


def _retype(value: SSAValue) -> None:
    """Make the block argument or result `value` an i64, narrowed for its
    uses at the start of its block or just after its op."""
    type = value.type
    uses = [(use.operation, use.index) for use in value.uses]
    wide = Rewriter.replace_value_with_new_type(value, i64)
    ops = _narrowed(wide, type)
    if isinstance(wide.owner, Block):
        block = wide.owner
        if block.first_op is None:
            block.add_ops(ops)
        else:
            block.insert_ops_before(ops, block.first_op)
    else:
        block = wide.owner.parent_block()
        assert block is not None
        block.insert_ops_after(ops, wide.owner)
    narrowed = ops[-1].results[0]
    for user, index in uses:
        user.operands[index] = narrowed


def _terminators(op: Operation) -> Iterable[Operation]:
    for region in op.regions:
        for block in region.blocks:
            if (last := block.last_op) is not None and isinstance(
                last, scf.YieldOp | scf.ConditionOp
            ):
                yield last


def _widen_for(loop: scf.ForOp) -> None:
    body = loop.body.block
    if _narrow(loop.lb.type):
        for index in range(3):  # the bounds and the step
            _widen_operand(loop, index)
        _retype(body.args[0])
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    for position, result in enumerate(loop.results):
        if _narrow(result.type):
            _widen_operand(loop, 3 + position)
            _widen_operand(yielded, position)
            _retype(body.args[1 + position])
            _retype(result)


def _widen_while(loop: scf.WhileOp) -> None:
    before = loop.before_region.block
    after = loop.after_region.block
    condition = before.last_op
    yielded = after.last_op
    assert isinstance(condition, scf.ConditionOp)
    assert isinstance(yielded, scf.YieldOp)
    for position, argument in enumerate(before.args):
        if _narrow(argument.type):
            _widen_operand(loop, position)
            _widen_operand(yielded, position)
            _retype(argument)
    for position, result in enumerate(loop.results):
        if _narrow(result.type):
            _widen_operand(condition, 1 + position)  # after the condition
            _retype(after.args[position])
            _retype(result)


def _widen_results(op: Operation) -> None:
    """An `scf.if`'s or `scf.execute_region`'s narrow results, from i64s
    that every branch yields."""
    for position, result in enumerate(op.results):
        if _narrow(result.type):
            for yielded in _terminators(op):
                _widen_operand(yielded, position)
            _retype(result)


def widen_carried_scalars(module: ModuleOp) -> None:
    """Rewrite, in place, every scalar narrower than 64 bits that `scf` ops
    of `module` carry between blocks to an i64 (see above)."""
    for op in list(module.walk()):
        if isinstance(op, scf.ForOp):
            _widen_for(op)
        elif isinstance(op, scf.WhileOp):
            _widen_while(op)
        elif isinstance(op, scf.IfOp | scf.ExecuteRegionOp):
            _widen_results(op)
