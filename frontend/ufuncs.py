"""NumPy's elementwise functions on traced arrays: arithmetic, comparisons and
logic, with NumPy's promotion and broadcasting, built on `lax`."""

from __future__ import annotations

import builtins

import numpy as np

from gradopt.frontend import lax
from gradopt.frontend.array import (
    BOOL,
    FLOAT32,
    INT32,
    Array,
    ArrayLike,
    broadcast_shapes,
    is_scalar,
    python_number,
)
from gradopt.frontend.lax_numpy import (
    asarray,
    astype,
    broadcast_to,
    floating,
    full,
    operands,
)
from gradopt.frontend.trace import error


def _no_float(what: str, *xs: Array) -> None:
    if builtins.any(x.dtype == FLOAT32 for x in xs):
        raise error(f"{what} needs int32 or bool operands, got float32")


def add(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    return (lax.bitwise_or if a.dtype == BOOL else lax.add)(a, b)


def multiply(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    return (lax.bitwise_and if a.dtype == BOOL else lax.mul)(a, b)


def negative(x: ArrayLike) -> Array:
    x = asarray(x)
    if x.dtype == BOOL:
        raise error("negative of a bool array: use ~ or gnp.logical_not")
    return lax.neg(x)


def subtract(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    if a.dtype == BOOL:
        raise error("subtraction of bool arrays: use ^ or gnp.logical_xor")
    return lax.add(a, lax.neg(b))


def reciprocal(x: ArrayLike) -> Array:
    return lax.recip(floating(x))


def true_divide(a: ArrayLike, b: ArrayLike) -> Array:
    """`a · recip(b)`; a Python number `b` becomes the constant `1/b`."""
    b = python_number(b)
    if is_scalar(b) and not isinstance(b, bool):
        with np.errstate(divide="ignore"):  # 1/0 is inf, as it will be at run time
            return multiply(floating(a), float(np.float32(1) / np.float32(b)))
    a, b = operands(a, b, dtype=FLOAT32)
    return lax.mul(a, lax.recip(b))


divide = true_divide


def floor_divide(a: ArrayLike, b: ArrayLike) -> Array:
    """Python's `//` on int32: the quotient rounded down (grad.idiv rounds
    toward zero, as C does; one less where the signs differ and it is inexact)."""
    a, b = operands(a, b)
    _no_float("// (floor division)", a)
    q, r = lax.div(a, b), lax.rem(a, b)
    return subtract(q, astype(_inexact_opposite(r, b), INT32))


def remainder(a: ArrayLike, b: ArrayLike) -> Array:
    """Python's `%` on int32: the remainder has the sign of the divisor."""
    a, b = operands(a, b)
    _no_float("% (remainder)", a)
    r = lax.rem(a, b)
    return where(_inexact_opposite(r, b), add(r, b), r)


def _inexact_opposite(r: Array, b: Array) -> Array:
    return bitwise_and(not_equal(r, 0), not_equal(less(r, 0), less(b, 0)))


def power(a: ArrayLike, b: ArrayLike) -> Array:
    """`a ** b`. An integer `b` is repeated multiplication (exact, as JAX's
    integer_pow); 0.5 is `sqrt`; otherwise `exp2(b · log2 a)`, which is NaN
    for a negative `a`."""
    b = python_number(b)
    if isinstance(b, float) and b.is_integer() and abs(b) <= 2**31:
        a, b = floating(a), int(b)  # as NumPy: an int to a float power is a float
    if isinstance(b, int) and not isinstance(b, bool):
        a = asarray(a)
        if a.dtype == BOOL:
            a = astype(a, INT32)
        if b < 0 and a.dtype != FLOAT32:
            raise error("integers to negative integer powers are not allowed")
        return _integer_power(a, b)
    if isinstance(b, float) and b == 0.5:
        return lax.sqrt(floating(a))
    a, b = operands(a, b, dtype=FLOAT32)
    return lax.exp2(lax.mul(b, lax.log2(a)))


def _integer_power(x: Array, n: int) -> Array:
    result, base, k = None, x, abs(n)
    while k:
        if k & 1:
            result = base if result is None else lax.mul(result, base)
        k >>= 1
        if k:
            base = lax.mul(base, base)
    if result is None:
        return full(x.shape, 1, x.dtype)
    return lax.recip(result) if n < 0 else result


def exp2(x: ArrayLike) -> Array:
    return lax.exp2(floating(x))


def log2(x: ArrayLike) -> Array:
    return lax.log2(floating(x))


def sqrt(x: ArrayLike) -> Array:
    return lax.sqrt(floating(x))


def sin(x: ArrayLike) -> Array:
    return lax.sin(floating(x))


def stop_gradient(x: ArrayLike) -> Array:
    """The value of `x`, through which no gradient flows (`grad.detach`)."""
    return lax.stop_gradient(asarray(x))


def maximum(a: ArrayLike, b: ArrayLike) -> Array:
    """Elementwise maximum; NaN if either is NaN; ties split the gradient."""
    a, b = operands(a, b)
    return (lax.bitwise_or if a.dtype == BOOL else lax.max)(a, b)


def minimum(a: ArrayLike, b: ArrayLike) -> Array:
    """`-max(-a, -b)`, exact; int32 uses `~` rather than `-`, which does not
    overflow."""
    a, b = operands(a, b)
    if a.dtype == BOOL:
        return lax.bitwise_and(a, b)
    flip = invert if a.dtype == INT32 else negative
    return flip(lax.max(flip(a), flip(b)))


def absolute(x: ArrayLike) -> Array:
    """For floats `where(x < 0 or x is a NaN with its sign bit set, -x, x) +
    0.0`: NumPy's bits (the sign bit cleared, NaN too, and `+ 0.0` makes -0.0
    +0.0) and JAX's derivative 1 at ±0; at a NaN the derivative is -1 where
    the sign bit was set (as JAX's) and 1 otherwise (JAX: -1)."""
    x = asarray(x)
    if x.dtype == BOOL:
        return x
    if x.dtype == INT32:
        return lax.max(x, lax.neg(x))
    zero = full(x.shape, 0.0)
    signed_nan = lax.bitwise_and(
        lax.ne(x, x), lax.lt(lax.bitcast_convert_type(x, INT32), full(x.shape, 0))
    )
    flip = lax.bitwise_or(lax.lt(x, zero), signed_nan)
    return lax.add(lax.select(flip, lax.neg(x), x), zero)


def where(condition: ArrayLike, x: ArrayLike, y: ArrayLike) -> Array:
    c = asarray(condition)
    if c.dtype != BOOL:
        c = not_equal(c, 0)
    x, y = operands(x, y)
    shape = broadcast_shapes(c.shape, x.shape)
    c, x, y = (broadcast_to(v, shape) for v in (c, x, y))
    return lax.select(c, x, y)


def clip(
    x: ArrayLike, a_min: ArrayLike | None = None, a_max: ArrayLike | None = None
) -> Array:
    result = asarray(x)
    if a_min is not None:
        result = maximum(result, a_min)
    if a_max is not None:
        result = minimum(result, a_max)
    return result


def _ordered(a: ArrayLike, b: ArrayLike) -> list[Array]:
    """Operands for `<`: `grad.cmplt` orders f32 and i32, so bools become i32."""
    a, b = operands(a, b)
    return [astype(a, INT32), astype(b, INT32)] if a.dtype == BOOL else [a, b]


def less(a: ArrayLike, b: ArrayLike) -> Array:
    return lax.lt(*_ordered(a, b))


def greater(a: ArrayLike, b: ArrayLike) -> Array:
    return less(b, a)


def less_equal(a: ArrayLike, b: ArrayLike) -> Array:
    """`a < b or a == b` (not `not b < a`, which would hold for NaN)."""
    a, b = _ordered(a, b)
    return lax.bitwise_or(lax.lt(a, b), lax.eq(a, b))


def greater_equal(a: ArrayLike, b: ArrayLike) -> Array:
    return less_equal(b, a)


def equal(a: ArrayLike, b: ArrayLike) -> Array:
    return lax.eq(*operands(a, b))


def not_equal(a: ArrayLike, b: ArrayLike) -> Array:
    return lax.ne(*operands(a, b))


def bitwise_and(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("&", a)
    return lax.bitwise_and(a, b)


def bitwise_or(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("|", a)
    return lax.bitwise_or(a, b)


def bitwise_xor(a: ArrayLike, b: ArrayLike) -> Array:
    a, b = operands(a, b)
    _no_float("^", a)
    return lax.bitwise_xor(a, b)


def invert(x: ArrayLike) -> Array:
    """`~x`: logical not of bools, bitwise not of int32."""
    x = asarray(x)
    _no_float("~", x)
    return lax.bitwise_xor(x, full(x.shape, True if x.dtype == BOOL else -1, x.dtype))
