"""The derivatives of the `math` ops (SPEC §10.2), on f32 scalars and
elementwise on f32 tensors alike, built from `arith` and `math` ops.

One operand's shares are linear maps of g written once as a
`Derivative.chain` (the tangent is the same expression of t); the others are
summed over operands (`Derivative.of_shares`). Rounding ops are dead ends.
"""

from __future__ import annotations

from functools import cache
from typing import cast

from xdsl.dialects import arith, math
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
)
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import DEAD_END, Chain, Derivative, register_derivative

LN2 = 0.6931472
LN10 = 2.3025851
TWO_OVER_SQRT_PI = 1.1283792


def _result(op: Operation) -> SSAValue:
    return op.results[0]


def _input(op: Operation) -> SSAValue:
    return op.operands[0]


def _exp(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.mulf(g, _result(op))


def _exp2(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.mulf(e.mulf(g, _result(op)), LN2)


def _expm1(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.mulf(g, e.addf(_result(op), 1.0))


def _log(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.divf(g, _input(op))


def _log2(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.divf(g, e.mulf(_input(op), LN2))


def _log10(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.divf(g, e.mulf(_input(op), LN10))


def _log1p(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.divf(g, e.addf(_input(op), 1.0))


def _sqrt(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.divf(g, e.mulf(_result(op), 2.0))


def _rsqrt(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    u = _result(op)
    return e.mulf(g, e.mulf(e.mulf(u, e.mulf(u, u)), -0.5))


def _tanh(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    u = _result(op)
    return e.mulf(g, e.subf(1.0, e.mulf(u, u)))


def _sin(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.mulf(g, e.cos(_input(op)))


def _cos(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    return e.negf(e.mulf(g, e.sin_(_input(op))))


def _tan(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    u = _result(op)
    return e.mulf(g, e.addf(1.0, e.mulf(u, u)))


def _atan(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    a = _input(op)
    return e.divf(g, e.addf(1.0, e.mulf(a, a)))


def _erf(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    a = _input(op)
    return e.mulf(g, e.mulf(e.exp(e.negf(e.mulf(a, a))), TWO_OVER_SQRT_PI))


def _absf(e: Emitter, op: Operation, g: SSAValue) -> SSAValue:
    a = _input(op)
    return e.select(
        e.cmpf("ogt", a, 0.0), g, e.select(e.cmpf("olt", a, 0.0), e.negf(g), 0.0)
    )


def _atan2(e: Emitter, op: Operation, g: SSAValue):
    y, x = op.operands
    d = cache(lambda: e.addf(e.mulf(x, x), e.mulf(y, y)))
    return (
        lambda: e.divf(e.mulf(g, x), d()),
        lambda: e.negf(e.divf(e.mulf(g, y), d())),
    )


def _powf(e: Emitter, op: Operation, g: SSAValue):
    a, b = op.operands
    u = _result(op)
    return (
        lambda: e.mulf(g, e.mulf(b, e.powf(a, e.subf(b, 1.0)))),
        lambda: e.mulf(g, e.mulf(u, e.log(e.select(e.cmpf("oeq", a, 0.0), 1.0, a)))),
    )


def _fpowi(e: Emitter, op: Operation, g: SSAValue):
    """`a ** n` for an integer n (torch's `x ** 2`): `g * n * a ** (n - 1)`;
    the exponent is a dead end."""
    a, n = op.operands

    def share() -> SSAValue:
        one = (
            DenseIntOrFPElementsAttr.from_list(n.type, [1])
            if isinstance(n.type, TensorType)
            else IntegerAttr(1, cast(IntegerType, n.type))
        )
        less = e.insert(arith.SubiOp(n, e.insert(arith.ConstantOp(one))))
        lower = e.insert(math.FPowIOp(a, less))
        scale = arith.SIToFPOp.create(operands=[n], result_types=[a.type])
        return e.mulf(g, e.mulf(e.insert(scale), lower))

    return (share, None)


def _copysign(e: Emitter, op: Operation, g: SSAValue):
    """|a| with b's sign: g, negated where the signs of a and b differ (the
    signs of zeros count, as JAX's rule); b receives nothing."""
    a, b = op.operands
    return (lambda: e.mulf(g, e.mulf(e.copysign(1.0, a), e.copysign(1.0, b))), None)


def _fma(e: Emitter, op: Operation, g: SSAValue):
    a, b, _ = op.operands
    return (lambda: e.mulf(g, b), lambda: e.mulf(g, a), lambda: g)


CHAINS: dict[type[Operation], Chain] = {
    math.ExpOp: _exp,
    math.Exp2Op: _exp2,
    math.ExpM1Op: _expm1,
    math.LogOp: _log,
    math.Log2Op: _log2,
    math.Log10Op: _log10,
    math.Log1pOp: _log1p,
    math.SqrtOp: _sqrt,
    math.RsqrtOp: _rsqrt,
    math.TanhOp: _tanh,
    math.SinOp: _sin,
    math.CosOp: _cos,
    math.TanOp: _tan,
    math.AtanOp: _atan,
    math.ErfOp: _erf,
    math.AbsFOp: _absf,
}

for _op_type, _chain in CHAINS.items():
    register_derivative(_op_type, Derivative.chain(_chain))
register_derivative(math.Atan2Op, Derivative.of_shares(_atan2))
register_derivative(math.PowFOp, Derivative.of_shares(_powf))
register_derivative(math.FPowIOp, Derivative.of_shares(_fpowi))
register_derivative(math.FmaOp, Derivative.of_shares(_fma))
register_derivative(math.CopySignOp, Derivative.of_shares(_copysign))
for _op_type in (
    math.FloorOp,
    math.CeilOp,
    math.RoundOp,
    math.RoundEvenOp,
    math.TruncOp,
):
    register_derivative(_op_type, DEAD_END)
