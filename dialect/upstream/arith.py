"""`arith.remf`, which xDSL 0.74 lacks: the remainder of a float division,
with the sign of the dividend (C's `fmod`, NumPy's `fmod`).

It reads MLIR's custom form (`%r = arith.remf %a, %b : f32`, as IREE prints
it) but prints the generic form, as xdsl-opt prints an op it does not know
(`"arith.remf"(%a, %b) <{fastmath = #arith.fastmath<none>}> : (f32, f32) ->
f32`), so that grad-opt's output is xdsl-opt's on every program xdsl-opt
reads (xDSL's own `transforms/cse.mlir` checks that form); MLIR and IREE
read both."""

from __future__ import annotations

from xdsl.dialects.arith import FloatingPointLikeBinaryOperation
from xdsl.ir import Operation
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemfOp(FloatingPointLikeBinaryOperation):
    """`%r = arith.remf %a, %b : f32`."""

    name = "arith.remf"
    traits = traits_def(Pure())


RemfOp.print = Operation.print  # generic, as above (irdl sets it from the format)
