"""`arctan`, `arctan2`, `arcsin` and `arccos` in float32: Cephes' `atanf`
(a degree-9 odd polynomial after reduction to |x| ≤ tan(π/8), about 1 ulp),
and the quadrants, signed zeros and infinities of C's `atan2`. The arc sine
and cosine are `atan2` of the sides, as XLA computes them. Each formula is
written so that a branch a `where` discards has finite slopes (the "double
where" rule of `gradopt.numpy`)."""

from __future__ import annotations

import math

from gradopt.frontend.array import FLOAT32, Array, ArrayLike
from gradopt.frontend.floats import signbit
from gradopt.frontend.lax_numpy import floating, operands
from gradopt.frontend.ufuncs import (
    add,
    bitwise_and,
    bitwise_or,
    equal,
    greater,
    multiply,
    negative,
    reciprocal,
    sqrt,
    subtract,
    where,
)

_TAN_3PI_8, _TAN_PI_8 = 2.414213562373095, 0.4142135623730950
_ATAN = (8.05374449538e-2, -1.38776856032e-1, 1.99777106478e-1, -3.33329491539e-1)


def _magnitude(x: Array) -> tuple[Array, Array]:
    """The sign bit of x and |x| as a `where` on it: the derivative of |x| is
    then ±1 at ±0, and the sign put back by the same `where` cancels it."""
    negative_side = signbit(x)
    return negative_side, where(negative_side, negative(x), x)


def _atan_nonnegative(t: Array) -> Array:
    """atan(t) for t ≥ 0 (or NaN): Cephes' reduction by π/2 or π/4."""
    big, mid = greater(t, _TAN_3PI_8), greater(t, _TAN_PI_8)
    safe_big, safe_mid = where(big, t, 1.0), where(big, 1.0, t)
    reduced = multiply(subtract(safe_mid, 1.0), reciprocal(add(safe_mid, 1.0)))
    z = where(big, negative(reciprocal(safe_big)), where(mid, reduced, t))
    zz = multiply(z, z)
    p = multiply(zz, _ATAN[0])
    for c in _ATAN[1:]:
        p = multiply(add(p, c), zz)
    base = where(big, math.pi / 2, where(mid, math.pi / 4, 0.0))
    return add(base, add(multiply(p, z), z))


def arctan(x: ArrayLike) -> Array:
    negative_side, t = _magnitude(floating(x))
    r = _atan_nonnegative(t)
    return where(negative_side, negative(r), r)


def arctan2(y: ArrayLike, x: ArrayLike) -> Array:
    """C's `atan2`: the angle of (x, y) in [-π, π], with `atan2(±0, -0) = ±π`,
    `atan2(±inf, ±inf)` at the odd multiples of π/4, NaN for a NaN."""
    y, x = operands(y, x, dtype=FLOAT32)
    y_negative, ay = _magnitude(y)
    x_negative, ax = _magnitude(x)
    steep = greater(ay, ax)
    num, den = where(steep, ax, ay), where(steep, ay, ax)
    zero = bitwise_and(equal(den, 0.0), equal(num, 0.0))  # not for a NaN
    infinite = bitwise_and(equal(num, math.inf), equal(den, math.inf))
    plain = bitwise_or(zero, infinite)
    ratio = multiply(num, reciprocal(where(plain, 1.0, den)))
    ratio = where(zero, 0.0, where(infinite, 1.0, ratio))
    a = _atan_nonnegative(ratio)
    a = where(steep, subtract(math.pi / 2, a), a)
    a = where(x_negative, subtract(math.pi, a), a)
    return where(y_negative, negative(a), a)


def _cosine_side(x: Array) -> Array:
    """sqrt(1 - x²) as `sqrt(1 - x) · sqrt(1 + x)`, exact in the differences,
    and with the slope ∓inf at ±1 (not 0 · inf, as a product under one root)."""
    return multiply(sqrt(subtract(1.0, x)), sqrt(add(1.0, x)))


def arcsin(x: ArrayLike) -> Array:
    x = floating(x)
    return arctan2(x, _cosine_side(x))


def arccos(x: ArrayLike) -> Array:
    x = floating(x)
    return arctan2(_cosine_side(x), x)
