"""`arith.remf`, which xDSL 0.74 lacks: the remainder of a float division,
with the sign of the dividend (C's `fmod`, NumPy's `fmod`)."""

from __future__ import annotations

from xdsl.dialects.arith import FloatingPointLikeBinaryOperation
from xdsl.irdl import irdl_op_definition, traits_def
from xdsl.traits import Pure


@irdl_op_definition
class RemfOp(FloatingPointLikeBinaryOperation):
    """`%r = arith.remf %a, %b : f32`."""

    name = "arith.remf"
    traits = traits_def(Pure())
