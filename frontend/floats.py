"""Float32 functions that the `grad` ops have no instruction for, exact where
IEEE (and NumPy, and JAX) are: rounding to integers, `copysign`, `fmod` and
`remainder`, and `power` with C's special values.

The exact parts work on the bits (`grad.bitcast`, integer ops) or on casts,
which are dead ends for differentiation; where the function has a derivative
it is attached by `_with_derivative`, so the value keeps its exact bits.
"""

from __future__ import annotations

import math

from gradopt.frontend import lax
from gradopt.frontend.array import (
    FLOAT32,
    INT32,
    Array,
    ArrayLike,
    is_scalar,
    python_number,
)
from gradopt.frontend.lax_numpy import asarray, astype, floating, full, operands
from gradopt.frontend.trace import error
from gradopt.frontend.ufuncs import (
    absolute,
    add,
    bitwise_and,
    bitwise_or,
    equal,
    greater,
    invert,
    less,
    multiply,
    negative,
    not_equal,
    reciprocal,
    sqrt,
    stop_gradient,
    subtract,
    where,
)
from gradopt.frontend.ufuncs import floor_divide as integer_floor_divide
from gradopt.frontend.ufuncs import power as integer_power
from gradopt.frontend.ufuncs import remainder as integer_remainder

_SIGN, _MAGNITUDE = -(2**31), 2**31 - 1
_TWO_23 = 0x4B000000  # the bits of 2.0**23: from there on every float is an integer


def _bits(x: Array) -> Array:
    return lax.bitcast_convert_type(x, INT32)


def _float(bits: Array) -> Array:
    return lax.bitcast_convert_type(bits, FLOAT32)


def signbit(x: ArrayLike) -> Array:
    """Whether the sign bit is set (true for -0.0 and negative NaNs too)."""
    x = asarray(x)
    if x.dtype != FLOAT32:
        return less(x, 0)
    return less(_bits(x), 0)


def _with_sign_of(magnitude: Array, sign: Array) -> Array:
    """`magnitude` with the sign bit of `sign`, by the bits (no derivative)."""
    kept = bitwise_and(_bits(magnitude), _MAGNITUDE)
    return _float(bitwise_or(kept, bitwise_and(_bits(sign), _SIGN)))


def copysign(a: ArrayLike, b: ArrayLike) -> Array:
    """`|a|` with the sign of `b`, as `jnp.copysign`: `where(signbit(b), -|a|,
    |a|)`, so that the derivative in `a` is ±sign(a) and none flows to `b`."""
    a, b = operands(a, b, dtype=FLOAT32)
    magnitude = absolute(a)
    return where(signbit(b), negative(magnitude), magnitude)


def _trunc(x: Array) -> Array:
    """Rounding toward zero through an int32 cast, for |x| < 2^23 (beyond it,
    inf and NaN, x is its own integer); the sign of x is kept (-0.5 → -0.0)."""
    small = less(bitwise_and(_bits(x), _MAGNITUDE), _TWO_23)
    whole = astype(astype(x, INT32), FLOAT32)
    return _with_sign_of(where(small, whole, x), x)


def _floor(x: Array) -> Array:
    t = _trunc(x)
    return where(greater(t, x), subtract(t, 1.0), t)


def _detached(x: ArrayLike) -> Array | None:
    """A float32 x without its derivative (rounding is a dead end, as in JAX),
    or None for integers and bools, which are their own rounding."""
    x = asarray(x)
    return stop_gradient(x) if x.dtype == FLOAT32 else None


def trunc(x: ArrayLike) -> Array:
    """Rounding toward zero; zero gradient."""
    return asarray(x) if (d := _detached(x)) is None else _trunc(d)


def floor(x: ArrayLike) -> Array:
    return asarray(x) if (d := _detached(x)) is None else _floor(d)


def ceil(x: ArrayLike) -> Array:
    """`-floor(-x)`, which keeps `ceil(-0.5) = -0.0`."""
    return asarray(x) if (d := _detached(x)) is None else negative(_floor(negative(d)))


def round(x: ArrayLike, decimals: int = 0) -> Array:
    """Rounding half to even, as NumPy and JAX; with `decimals`, of x scaled
    by 10^decimals and scaled back (by `1 / 10^decimals`)."""
    if (d := _detached(x)) is None:
        return asarray(x)
    if decimals:
        factor = 10.0**decimals
        return multiply(_round_half_even(multiply(d, factor)), 1.0 / factor)
    return _round_half_even(d)


def _round_half_even(x: Array) -> Array:
    f = _floor(x)
    d = subtract(x, f)  # exact: x and f are within one of each other
    odd = equal(bitwise_and(astype(f, INT32), 1), 1)
    up = bitwise_or(greater(d, 0.5), bitwise_and(equal(d, 0.5), odd))
    return _with_sign_of(where(up, add(f, 1.0), f), x)


def _with_derivative(value: Array, linear: Array) -> Array:
    """`value` (exact bits, no derivative of its own) with the derivative of
    `linear`: `value + -(detach(linear) - linear)`, whose second term is -0.0
    for a finite `linear`, and adding -0.0 changes no float."""
    carrier = negative(subtract(stop_gradient(linear), linear))
    return add(value, carrier)


def _int(value: int, like: Array) -> Array:
    return full(like.shape, value, INT32)


def _power_of_two(k: Array) -> Array:
    """2^k for -126 ≤ k ≤ 127, by the bits."""
    return _float(lax.shift_left(add(k, 127), _int(23, k)))


def _mantissa(x: Array) -> tuple[Array, Array]:
    """(m, e) with x = m · 2^(e - 150), m < 2^24 an integer, for finite x ≥ 0
    (a subnormal has the exponent field 0 and means e = 1)."""
    bits = _bits(x)
    field = lax.shift_right_arithmetic(bits, _int(23, x))
    fraction = bitwise_and(bits, 0x7FFFFF)
    m = where(greater(field, 0), bitwise_or(fraction, 0x800000), fraction)
    return m, lax.max(field, _int(1, x))


_FMOD_SHIFT = 7  # t < 2^24, so t · 2^7 < 2^31 fits int32
_FMOD_STAGES = -(-253 // _FMOD_SHIFT)  # exponent fields differ by at most 253


def _fmod_magnitude(x: Array, y: Array) -> Array:
    """`x mod y` for finite x ≥ 0 and y > 0, on the integer mantissas:
    `mx · 2^d mod my` by shifts of at most 7 bits, each followed by an int32
    `grad.mod`, then scaled back by 2^(ey - 150) in two exact steps."""
    (mx, ex), (my, ey) = _mantissa(x), _mantissa(y)
    gap, t = lax.max(subtract(ex, ey), _int(0, x)), lax.rem(mx, my)
    shift = _int(_FMOD_SHIFT, x)
    for _ in range(_FMOD_STAGES):
        step = lax.select(less(gap, shift), gap, shift)
        t = lax.rem(lax.shift_left(t, step), my)
        gap = subtract(gap, step)
    k = subtract(ey, 150)
    k1 = lax.shift_right_arithmetic(k, _int(1, k))
    scaled = multiply(
        multiply(astype(t, FLOAT32), _power_of_two(k1)), _power_of_two(subtract(k, k1))
    )
    return where(less(x, y), x, scaled)


def fmod(a: ArrayLike, b: ArrayLike) -> Array:
    """C's `fmod` (the remainder with the sign of `a`), exact, as `lax.rem`;
    its derivative is 1 in `a` and `-trunc(a / b)` in `b`, as in JAX.
    Integers are refused: use `%` or `remainder`."""
    a, b = operands(a, b)
    if a.dtype != FLOAT32:
        raise error("fmod of integers: use % (gradopt.numpy.remainder)")
    x, y = absolute(stop_gradient(a)), absolute(stop_gradient(b))
    bad = bitwise_or(
        bitwise_or(equal(y, 0.0), not_equal(y, y)),
        bitwise_or(not_equal(x, x), equal(x, math.inf)),
    )
    huge = equal(y, math.inf)
    sx, sy = where(bad, 0.0, x), where(bitwise_or(bad, huge), 1.0, y)
    r = _with_sign_of(_fmod_magnitude(sx, sy), a)
    r = where(bad, math.nan, where(huge, stop_gradient(a), r))
    quotient = _trunc(stop_gradient(multiply(a, reciprocal(b))))
    quotient = where(less(absolute(quotient), math.inf), quotient, 0.0)
    finite_b = where(huge, 0.0, b)  # a / inf truncates to 0, and 0 · inf is NaN
    return _with_derivative(r, subtract(a, multiply(finite_b, quotient)))


def remainder(a: ArrayLike, b: ArrayLike) -> Array:
    """`a % b` with the sign of `b`: for floats `fmod` plus `b` where the signs
    differ (as `jnp.remainder`; a zero keeps fmod's sign); ints as before."""
    a, b = operands(a, b)
    if a.dtype != FLOAT32:
        return integer_remainder(a, b)
    r = fmod(a, b)
    flip = bitwise_and(not_equal(r, 0.0), not_equal(less(r, 0.0), less(b, 0.0)))
    return where(flip, add(r, b), r)


def floor_divide(a: ArrayLike, b: ArrayLike) -> Array:
    """`a // b`; for floats as `jnp.floor_divide` (CPython's `float_divmod`):
    `(a - fmod(a, b)) / b`, one less where the remainder and b have opposite
    signs, rounded to the integer it is within an ulp of; `a / b` for b = 0.
    A dead end, as rounding is."""
    a, b = operands(a, b)
    if a.dtype != FLOAT32:
        return integer_floor_divide(a, b)
    a, b = stop_gradient(a), stop_gradient(b)
    mod = fmod(a, b)
    zero = equal(b, 0.0)
    div = multiply(where(zero, a, subtract(a, mod)), reciprocal(b))
    opposite = bitwise_and(not_equal(mod, 0.0), not_equal(less(b, 0.0), less(mod, 0.0)))
    return _round_half_even(where(opposite, subtract(div, 1.0), div))


def power(a: ArrayLike, b: ArrayLike) -> Array:
    """`a ** b` with C's (and NumPy's, and JAX's) special values.

    A Python integer exponent is repeated multiplication (`ufuncs.power`);
    otherwise `exp2(b · log2|a|)` with the sign and the special cases of C's
    `pow` by `where`: `x ** 0 = 1 = 1 ** y` (NaN too), negative bases to
    integral powers, `(±0) ** y` and `(±inf) ** y`. At |a| = 0 and inf the
    value and the derivative in `a` come from `a²`, `a`, `sqrt(a)` or `1/a`
    (for b > 1, = 1, in (0, 1), < 0), which have C's values there and the
    limits of `b · a^(b-1)` as slopes; the derivative in `b` is 0 there."""
    b = python_number(b)
    b = int(b) if isinstance(b, bool) else b
    if is_scalar(b) and (isinstance(b, int) or (b.is_integer() and abs(b) <= 2**31)):
        return integer_power(a, b)
    if isinstance(b, float) and b == 0.5:
        x = floating(a)  # sqrt(-0.0) is -0.0 and sqrt(-inf) NaN; pow gives +0, inf
        low = equal(x, -math.inf)
        return where(low, math.inf, sqrt(add(where(low, 1.0, x), 0.0)))
    return _float_power(*operands(a, b, dtype=FLOAT32))


def _float_power(a: Array, b: Array) -> Array:
    whole = equal(_trunc(stop_gradient(b)), b)  # ±inf counts: C treats it as even
    small = less(bitwise_and(_bits(b), _MAGNITUDE), 0x4B800000)  # |b| < 2^24
    odd = bitwise_and(
        bitwise_and(whole, small),
        equal(bitwise_and(astype(where(small, b, 0.0), INT32), 1), 1),
    )
    negative_base = signbit(a)
    m = where(negative_base, negative(a), a)
    edge = bitwise_or(equal(m, 0.0), equal(m, math.inf))
    core = lax.exp2(lax.mul(b, lax.log2(where(edge, 1.0, m))))

    def on_edge(holds: Array) -> Array:
        """m where the edge branch `holds` is taken, 1 elsewhere (finite
        slopes in the branches a `where` discards)."""
        return where(bitwise_and(edge, holds), m, 1.0)

    big, positive = greater(b, 1.0), greater(b, 0.0)
    squared, root = on_edge(big), on_edge(bitwise_and(positive, less(b, 1.0)))
    inverted = on_edge(less(b, 0.0))
    at_edge = where(
        big,
        multiply(squared, squared),
        where(
            equal(b, 1.0),
            m,
            where(positive, sqrt(root), reciprocal(inverted)),
        ),
    )
    r = where(edge, at_edge, core)
    r = where(bitwise_and(negative_base, odd), negative(r), r)
    finite_negative = bitwise_and(less(a, 0.0), greater(a, -math.inf))
    r = where(bitwise_and(finite_negative, invert(whole)), math.nan, r)
    unit = equal(m, 1.0)
    r = where(bitwise_and(unit, equal(absolute(b), math.inf)), 1.0, r)
    nan_b = not_equal(b, b)
    r = where(nan_b, math.nan, r)
    ones = bitwise_or(
        bitwise_and(equal(b, 0.0), bitwise_or(edge, not_equal(a, a))),
        bitwise_and(equal(a, 1.0), nan_b),
    )
    return where(ones, 1.0, r)
