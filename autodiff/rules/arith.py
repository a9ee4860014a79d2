"""The derivatives of the `arith` ops (SPEC §10.2), on f32 scalars and
elementwise on f32 tensors alike, built from `arith` and `math` ops.

Each share is the table's expression, innermost op first, left to right,
shares in operand order. Every share is linear in g, so the tangent is their
sum with each operand's tangent in place of g (`Derivative.of_shares`); one
operand's rules are a `Derivative.chain`. Comparisons, integer ops, literals
and casts to or from other types are dead ends.
"""

from __future__ import annotations

from functools import cache

from xdsl.dialects import arith
from xdsl.dialects.builtin import Float32Type
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import (
    DEAD_END,
    Derivative,
    register_derivative,
)
from gradopt.dialect.upstream.arith import RemfOp


def _addf(e: Emitter, op: Operation, g: SSAValue):
    return (lambda: g, lambda: g)


def _subf(e: Emitter, op: Operation, g: SSAValue):
    return (lambda: g, lambda: e.negf(g))


def _mulf(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    return (lambda: e.mulf(g, b), lambda: e.mulf(g, a))


def _divf(e: Emitter, op: Operation, g: SSAValue):
    b, u = op.operands[1], op.results[0]
    return (lambda: e.divf(g, b), lambda: e.negf(e.mulf(e.divf(g, b), u)))


def _remf(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    return (lambda: g, lambda: e.negf(e.mulf(g, e.trunc(e.divf(a, b)))))


def _extremum(predicate: str):
    """`maximumf` (`ogt`) or `minimumf` (`olt`): g to the operand that wins,
    `mulf g 0.5` to each on a tie, as `grad.max` (SPEC §5.3)."""

    def rule(e: Emitter, op: Operation, g: SSAValue):
        a, b = op.operands
        tie = cache(lambda: e.select(e.cmpf("oeq", a, b), e.mulf(g, 0.5), 0.0))

        def share(x: SSAValue, other: SSAValue) -> SSAValue:
            h = tie()
            return e.select(e.cmpf(predicate, x, other), g, h)

        return (lambda: share(a, b), lambda: share(b, a))

    return rule


def _select(e: Emitter, op: Operation, g: SSAValue):
    c = op.operands[0]
    return (None, lambda: e.select(c, g, 0.0), lambda: e.select(c, 0.0, g))


def _identity(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    return x


def _bitcast(op: Operation) -> Derivative:
    """`g` from f32 to f32; a dead end otherwise."""
    f32_to_f32 = isinstance(op.operands[0].type, Float32Type) and isinstance(
        op.results[0].type, Float32Type
    )
    return Derivative.chain(_identity) if f32_to_f32 else DEAD_END


DERIVATIVES: dict[type[Operation], Derivative] = {
    arith.AddfOp: Derivative.of_shares(_addf),
    arith.SubfOp: Derivative.of_shares(_subf),
    arith.MulfOp: Derivative.of_shares(_mulf),
    arith.DivfOp: Derivative.of_shares(_divf),
    RemfOp: Derivative.of_shares(_remf),
    arith.NegfOp: Derivative.chain(lambda e, op, x: e.negf(x)),
    arith.MaximumfOp: Derivative.of_shares(_extremum("ogt")),
    arith.MaxnumfOp: Derivative.of_shares(_extremum("ogt")),
    arith.MinimumfOp: Derivative.of_shares(_extremum("olt")),
    arith.MinnumfOp: Derivative.of_shares(_extremum("olt")),
    arith.SelectOp: Derivative.of_shares(_select),
    **dict.fromkeys(
        [
            arith.ConstantOp,
            arith.CmpfOp,
            arith.CmpiOp,
            arith.ExtFOp,
            arith.TruncFOp,
            arith.SIToFPOp,
            arith.UIToFPOp,
            arith.FPToSIOp,
            arith.FPToUIOp,
            arith.IndexCastOp,
        ],
        DEAD_END,
    ),
}

for _op_type, _derivative in DERIVATIVES.items():
    register_derivative(_op_type, _derivative)
register_derivative(arith.BitcastOp, _bitcast)
