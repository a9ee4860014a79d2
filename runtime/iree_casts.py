"""A rewrite of lowered programs before IREE compiles them: a float scalar
converted to an integer (`arith.fptosi`, `arith.fptoui`) outside a `linalg`
body is corrected towards zero, as `arith` rounds it.

IREE 3.13's VM converts a float to an integer by rounding it to the nearest
one (`vm.cast.f32.si32` is `lroundf`): a trip count computed on the host as
`fptosi(2.7)` was 3, and the loop ran once more than the interpreter's,
silently. The rewrite converts the result back and steps it one towards
zero where it passed the float (`2.7 -> 3 -> 2`, `-1.7 -> -2 -> -1`);
where the conversion truncates (on the device) it changes nothing, and a
NaN or a float out of the integer's range is left as the conversion made
it. A scalar in a `linalg` body is compiled by LLVM, which truncates.
"""

from __future__ import annotations

from xdsl.dialects import arith
from xdsl.dialects.builtin import AnyFloat, FloatAttr, IntegerAttr, ModuleOp
from xdsl.ir import Operation, SSAValue

from gradopt.runtime.iree_elements import in_linalg_body


def _towards_zero(
    op: arith.FPToSIOp | arith.FPToUIOp,
) -> tuple[list[Operation], SSAValue]:
    """The ops that correct `op`'s result, and the corrected result."""
    value, converted = op.input, op.result
    float_type, int_type = value.type, converted.type
    assert isinstance(float_type, AnyFloat)
    signed = isinstance(op, arith.FPToSIOp)
    back = (arith.SIToFPOp if signed else arith.UIToFPOp)(converted, float_type)
    one = arith.ConstantOp(IntegerAttr(1, int_type))
    above = arith.CmpfOp(back, value, "ogt")
    down = arith.SubiOp(converted, one)
    positive = arith.SelectOp(above, down, converted)
    ops: list[Operation] = [back, one, above, down, positive]
    if not signed:
        return ops, positive.result
    zero = arith.ConstantOp(FloatAttr(0.0, float_type))
    negative = arith.CmpfOp(value, zero, "olt")
    below = arith.CmpfOp(back, value, "olt")
    up = arith.AddiOp(converted, one)
    raised = arith.SelectOp(below, up, converted)
    fixed = arith.SelectOp(negative, raised, positive)
    return [*ops, zero, negative, below, up, raised, fixed], fixed.result


def truncate_conversions(module: ModuleOp) -> int:
    """Correct, in place, every scalar float-to-integer conversion of
    `module` outside `linalg` bodies (see above); returns how many."""
    done = 0
    for op in list(module.walk()):
        if not isinstance(op, arith.FPToSIOp | arith.FPToUIOp) or in_linalg_body(op):
            continue
        if not isinstance(op.input.type, AnyFloat):
            continue  # a tensor's conversion runs in a dispatch
        uses = list(op.result.uses)
        ops, fixed = _towards_zero(op)
        block = op.parent_block()
        assert block is not None
        block.insert_ops_after(ops, op)
        for use in uses:
            use.operation.operands[use.index] = fixed
        done += 1
    return done
