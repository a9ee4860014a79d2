"""`gradopt.numpy`: NumPy's array functions, with NumPy's names and
signatures, on traced arrays.

The `grad` dialect has few elementwise ops (add, mul, max, neg, recip, exp2,
log2, sqrt, sin, compare, where); everything else is composed from them here,
one short function each, the way tinygrad builds its functions from its
primitives. Where a formula loses accuracy or overflows, the stable form is
used, and for its gradient too: a `where` that discards a branch must not
compute infinities there, because the discarded branch still receives a zero
share, and zero times infinity is NaN (the "double where" rule).
"""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable, Sequence

import numpy as np
from numpy.typing import DTypeLike

from gradopt.dialect.types import fits_i32
from gradopt.frontend import lax
from gradopt.frontend.arrange import (
    COPYING_PAD_MODES,
    array_split,
    diag,
    diagonal,
    meshgrid,
    pad_by_indices,
    repeat,
    roll,
    split,
    tile,
    trace,
)
from gradopt.frontend.array import (
    BOOL,
    FLOAT32,
    INT32,
    Array,
    ArrayLike,
    Axis,
    Scalar,
    canonical_dtype,
    int_list,
    provide_numpy,
    result_dtype,
)
from gradopt.frontend.einsum import einsum
from gradopt.frontend.float0 import FLOAT0 as float0
from gradopt.frontend.floats import (
    ceil,
    copysign,
    floor,
    floor_divide,
    fmod,
    power,
    remainder,
    round,
    signbit,
    trunc,
)
from gradopt.frontend.lax_numpy import (
    asarray,
    astype,
    broadcast_to,
    constant,
    expand_dims,
    floating,
    full,
    matmul,
    normalize_axes,
    normalize_axis,
    operands,
    reshape,
    squeeze,
    stack,
    transpose,
)
from gradopt.frontend.limits import check_size
from gradopt.frontend.reductions import (
    all,
    any,
    argmax,
    argmin,
    max,
    mean,
    min,
    prod,
    std,
    sum,
    var,
)
from gradopt.frontend.scan import cummax, cummin, cumprod, cumsum, scan
from gradopt.frontend.selection import (
    IndexUpdateHelper,
    argsort,
    getitem,
    integral_range,
    sort,
    take,
    take_along_axis,
    top_k,
    tril,
    triu,
)
from gradopt.frontend.trace import error
from gradopt.frontend.trig import arccos, arcsin, arctan, arctan2
from gradopt.frontend.ufuncs import (
    absolute,
    add,
    bitwise_and,
    bitwise_or,
    bitwise_xor,
    clip,
    divide,
    equal,
    exp2,
    greater,
    greater_equal,
    invert,
    less,
    less_equal,
    log2,
    maximum,
    minimum,
    multiply,
    negative,
    not_equal,
    reciprocal,
    sin,
    sqrt,
    stop_gradient,
    subtract,
    true_divide,
    where,
)

ndarray = Array
float32, int32, bool_ = np.float32, np.int32, np.bool_
newaxis = None
pi, e, inf, nan = math.pi, math.e, math.inf, math.nan

LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
LOG10_2 = 0.30102999566398120

abs = absolute
amax, amin = max, min
logical_and, logical_or, logical_xor = bitwise_and, bitwise_or, bitwise_xor


def logical_not(x: ArrayLike) -> Array:
    x = asarray(x)
    return invert(x) if x.dtype == BOOL else equal(x, 0)


def positive(x: ArrayLike) -> Array:
    return asarray(x)


def square(x: ArrayLike) -> Array:
    x = asarray(x)
    return multiply(x, x)


def exp(x: ArrayLike) -> Array:
    """`exp2(x · log2 e)`: relative error about |x| · 6e-8 (the rounding of
    the product), 5e-6 at the largest finite results."""
    return exp2(multiply(floating(x), LOG2E))


def log(x: ArrayLike) -> Array:
    return multiply(log2(x), LN2)


def log10(x: ArrayLike) -> Array:
    return multiply(log2(x), LOG10_2)


def _small(x: Array) -> tuple[Array, Array]:
    """Where |x| < 0.5, and x there (0 elsewhere): the inputs of a series-like
    formula that must see only the arguments it is used for."""
    near = less(absolute(x), 0.5)
    return near, where(near, x, 0.0)


def expm1(x: ArrayLike) -> Array:
    """`exp(x) - 1`, accurate near 0 by Kahan's `(u - 1) · x / log u`."""
    x = floating(x)
    near, xs = _small(x)
    u = exp(xs)
    one = equal(u, 1.0)
    safe = where(one, 2.0, u)
    kahan = where(one, xs, true_divide(multiply(subtract(safe, 1.0), xs), log(safe)))
    return where(near, kahan, subtract(exp(x), 1.0))


def log1p(x: ArrayLike) -> Array:
    """`log(1 + x)`, accurate near 0 by Goldberg's `log(u) · x / (u - 1)`."""
    x = floating(x)
    near, xs = _small(x)
    u = add(xs, 1.0)
    exact = equal(u, 1.0)
    d = where(exact, 1.0, subtract(u, 1.0))
    goldberg = where(exact, xs, true_divide(multiply(log(u), xs), d))
    return where(near, goldberg, log(add(x, 1.0)))


def rsqrt(x: ArrayLike) -> Array:
    return reciprocal(sqrt(x))


def cos(x: ArrayLike) -> Array:
    """`1 - 2 sin²(x/2)`: exact at 0 and, unlike `sin(x + π/2)`, without the
    rounding of a shifted argument for large x."""
    half = sin(multiply(floating(x), 0.5))
    return subtract(1.0, multiply(multiply(half, half), 2.0))


def tan(x: ArrayLike) -> Array:
    return true_divide(sin(x), cos(x))


def _polynomial(x: Array, coefficients: Sequence[float]) -> Array:
    """Horner's rule, highest coefficient first."""
    result = full(x.shape, coefficients[0], FLOAT32)
    for c in coefficients[1:]:
        result = add(multiply(result, x), c)
    return result


_TANH_P = (-2.76076847742355e-16, 2.00018790482477e-13, -8.60467152213735e-11,
           5.12229709037114e-08, 1.48572235717979e-05, 6.37261928875436e-04,
           4.89352455891786e-03)  # fmt: skip
_TANH_Q = (1.19825839466702e-06, 1.18534705686654e-04, 2.26843463243900e-03,
           4.89352518554385e-03)  # fmt: skip


def tanh(x: ArrayLike) -> Array:
    """XLA's and Eigen's float32 tanh: an odd rational function of degree
    13/6 on x clamped to ±7.905 (where tanh rounds to ±1), and x itself below
    4e-4. It has no exponential that could overflow, and its denominator is
    at least 4.9e-3, so value and gradient are finite everywhere."""
    x = floating(x)
    c = clip(x, -7.90531110763549805, 7.90531110763549805)
    c2 = multiply(c, c)
    rational = true_divide(
        multiply(c, _polynomial(c2, _TANH_P)), _polynomial(c2, _TANH_Q)
    )
    return where(less(absolute(x), 0.0004), x, rational)


_ERF_P = (-2.72614225801306e-10, 2.77068142495902e-08, -2.10102402082508e-06,
          -5.69250639462346e-05, -7.34990630326855e-04, -2.95459980854025e-03,
          -1.60960333262415e-02)  # fmt: skip
_ERF_Q = (-1.45660718464996e-05, -2.13374055278905e-04, -1.68282697438203e-03,
          -7.37332916720468e-03, -1.42647390514189e-02)  # fmt: skip


def erf(x: ArrayLike) -> Array:
    """The error function (not in NumPy: `scipy.special.erf`), by XLA's and
    Eigen's float32 rational approximation on x clamped to ±4 (absolute error
    below 2e-7)."""
    c = clip(floating(x), -4.0, 4.0)
    c2 = multiply(c, c)
    return true_divide(multiply(c, _polynomial(c2, _ERF_P)), _polynomial(c2, _ERF_Q))


def sinh(x: ArrayLike) -> Array:
    """`(expm1(x) - expm1(-x)) / 2`, accurate near 0."""
    x = floating(x)
    return multiply(subtract(expm1(x), expm1(negative(x))), 0.5)


def cosh(x: ArrayLike) -> Array:
    x = floating(x)
    return multiply(add(exp(x), exp(negative(x))), 0.5)


_SQRT_MAX = 1.8446742974197924e19  # sqrt of the largest float32: x² overflows


def arcsinh(x: ArrayLike) -> Array:
    """`log1p(a + a² / (1 + sqrt(1 + a²)))` of a = |x|, `log(a) + log 2`
    where a² would overflow, with x's sign (XLA's formula)."""
    x = floating(x)
    negative_side = signbit(x)
    a = where(negative_side, negative(x), x)
    large = greater_equal(a, _SQRT_MAX)
    small, big = where(large, 0.0, a), where(large, a, 1.0)
    square = multiply(small, small)
    near = log1p(add(small, true_divide(square, add(sqrt(add(square, 1.0)), 1.0))))
    r = where(large, add(log(big), LN2), near)
    return where(negative_side, negative(r), r)


def arccosh(x: ArrayLike) -> Array:
    """`log1p((x - 1) + sqrt(x + 1) · sqrt(x - 1))`, `log(x) + log 2` where x²
    would overflow; NaN below 1 (the root of x - 1)."""
    x = floating(x)
    large = greater_equal(x, _SQRT_MAX)
    small, big = where(large, 1.0, x), where(large, x, 1.0)
    below = subtract(small, 1.0)
    near = log1p(add(below, multiply(sqrt(add(small, 1.0)), sqrt(below))))
    return where(large, add(log(big), LN2), near)


def arctanh(x: ArrayLike) -> Array:
    """`(log1p(x) - log1p(-x)) / 2`: ±inf at ±1, NaN beyond."""
    x = floating(x)
    return multiply(subtract(log1p(x), log1p(negative(x))), 0.5)


def sign(x: ArrayLike) -> Array:
    """-1, 0 or 1 (NaN stays NaN); its gradient is 0."""
    x = asarray(x)
    if x.dtype == BOOL:
        return x
    kept = stop_gradient(x)
    return where(greater(x, 0), 1, where(less(x, 0), -1, kept))


def isnan(x: ArrayLike) -> Array:
    x = asarray(x)
    return not_equal(x, x)


def isinf(x: ArrayLike) -> Array:
    x = asarray(x)
    if x.dtype != FLOAT32:
        return full(x.shape, False)
    return equal(absolute(x), math.inf)


def isfinite(x: ArrayLike) -> Array:
    x = asarray(x)
    if x.dtype != FLOAT32:
        return full(x.shape, True)
    return less(absolute(x), math.inf)


def logaddexp(a: ArrayLike, b: ArrayLike) -> Array:
    """`log(exp(a) + exp(b))` as `max + log1p(exp(-|a - b|))`, the maximum and
    `-|a - b|` both taking `a` at a tie (so that a tie gives each side half);
    where `a - b` is NaN (equal infinities, or a NaN) it is `a + b`, as JAX."""
    a, b = operands(a, b, dtype=FLOAT32)
    d = subtract(a, b)
    undefined = not_equal(d, d)
    d = where(undefined, 0.0, d)
    tail = log1p(exp(where(less(d, 0.0), d, negative(d))))
    return where(undefined, add(a, b), add(where(less(a, b), b, a), tail))


def cumlogsumexp(x: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """`lax.cumlogsumexp`: a running `logaddexp`, -inf before the start."""
    return scan(floating(x), axis, logaddexp, -math.inf, reverse)


# --- Shapes ----------------------------------------------------------------


def ravel(x: ArrayLike) -> Array:
    return reshape(x, (-1,))


def swapaxes(x: ArrayLike, axis1: int, axis2: int) -> Array:
    x = asarray(x)
    perm = list(range(x.ndim))
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    perm[a], perm[b] = perm[b], perm[a]
    return transpose(x, perm)


def moveaxis(x: ArrayLike, source: int, destination: int) -> Array:
    x = asarray(x)
    source, destination = (normalize_axis(a, x.ndim) for a in (source, destination))
    perm = [i for i in range(x.ndim) if i != source]
    perm.insert(destination, source)
    return transpose(x, perm)


def concatenate(arrays: Sequence[ArrayLike], axis: int | None = 0) -> Array:
    values = [asarray(a) for a in arrays]
    if not values:
        raise error("need at least one array to concatenate")
    if axis is None:
        values, axis = [ravel(v) for v in values], 0
    if [v for v in values if v.ndim == 0]:
        raise error("zero-dimensional arrays cannot be concatenated")
    axis = normalize_axis(axis, values[0].ndim)
    for v in values[1:]:
        other = [d for i, d in enumerate(v.shape) if i != axis]
        first = [d for i, d in enumerate(values[0].shape) if i != axis]
        if v.ndim != values[0].ndim or other != first:
            raise error(
                f"cannot concatenate shapes {values[0].shape} and {v.shape} along "
                f"axis {axis}"
            )
    dtype = result_dtype(*values)
    values = [astype(v, dtype) for v in values]
    return lax.concatenate(  # parts of size 0 along the axis add nothing
        [v for v in values if v.shape[axis]] or values[:1], axis
    )


def pad(
    x: ArrayLike,
    pad_width: int | Sequence[int] | Sequence[Sequence[int]],
    mode: str = "constant",
    constant_values: Scalar = 0,
) -> Array:
    """`numpy.pad`: "constant" with `grad.pad`; "reflect", "symmetric",
    "edge" and "wrap" copy entries (`arrange.pad_by_indices`)."""
    x = asarray(x)
    if mode not in ("constant", *COPYING_PAD_MODES):
        raise error(f"pad: mode {mode!r} is not supported")
    widths = _numpy(
        "pad", lambda: np.broadcast_to(np.asarray(pad_width, np.int64), (x.ndim, 2))
    )
    if (widths < 0).any():
        raise error("pad: widths must not be negative")
    if not widths.any():
        return x
    grown = [d + lo + hi for d, (lo, hi) in zip(x.shape, widths.tolist(), strict=True)]
    check_size("pad", grown, x.dtype)
    if mode != "constant":
        return pad_by_indices(x, widths, mode)
    low, high = widths[:, 0].tolist(), widths[:, 1].tolist()
    return lax.pad(x, low, high, [0] * x.ndim, constant_values)


def flip(x: ArrayLike, axis: Axis = None) -> Array:
    x = asarray(x)
    axes = [a for a in normalize_axes(axis, x.ndim) if x.shape[a] > 1]
    return lax.rev(x, axes) if axes else x


def dot(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's `dot`: a product with a scalar, `matmul` up to 2-D, and the sum
    over the last axis of `a` and the second-to-last of `b` beyond."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    if b.ndim <= 2:
        return matmul(a, b)
    moved = moveaxis(b, -2, 0)
    flat = reshape(moved, (b.shape[-2], -1))
    product = matmul(a, flat)
    return reshape(product, [*a.shape[:-1], *b.shape[:-2], b.shape[-1]])


def outer(a: ArrayLike, b: ArrayLike) -> Array:
    return multiply(reshape(a, (-1, 1)), reshape(b, (1, -1)))


def inner(a: ArrayLike, b: ArrayLike) -> Array:
    """The sum over the last axes of both."""
    a, b = asarray(a), asarray(b)
    if a.ndim == 0 or b.ndim == 0:
        return multiply(a, b)
    return matmul(a, moveaxis(b, -1, 0)) if b.ndim > 1 else matmul(a, b)


# --- Making arrays -----------------------------------------------------------


def array(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    return asarray(x, dtype)


def zeros(shape: int | Sequence[int], dtype: DTypeLike = FLOAT32) -> Array:
    return full(_shape(shape), 0, canonical_dtype(dtype))


def ones(shape: int | Sequence[int], dtype: DTypeLike = FLOAT32) -> Array:
    return full(_shape(shape), 1, canonical_dtype(dtype))


def full_like(
    x: ArrayLike, fill_value: Scalar, dtype: DTypeLike | None = None
) -> Array:
    x = asarray(x)
    return full(x.shape, fill_value, dtype or x.dtype)


def zeros_like(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    return full_like(x, 0, dtype)


def ones_like(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    return full_like(x, 1, dtype)


def _shape(shape: int | Sequence[int]) -> tuple[int, ...]:
    return tuple(int_list(shape, "a shape"))


def _numpy(what: str, make: Callable[[], np.ndarray]) -> np.ndarray:
    """Data made by NumPy at trace time; NumPy's complaint as a located error."""
    try:
        return make()
    except (TypeError, ValueError, OverflowError, ZeroDivisionError) as complaint:
        raise error(f"{what}: {complaint}") from None


def arange(
    start: Scalar,
    stop: Scalar | None = None,
    step: Scalar = 1,
    dtype: DTypeLike | None = None,
) -> Array:
    """`numpy.arange`; integral values that fit int32 are a `grad.iota`
    (O(1) in the trace whatever the count), others NumPy's values."""
    count = _arange_count(start, stop, step)
    check_size("arange", (count,), INT32)
    if (found := _integral(start, stop, step, count)) is not None:
        first, integral_dtype = found
        target = integral_dtype if dtype is None else canonical_dtype(dtype)
        return integral_range(first, int(step), count, target)
    values = _numpy("arange", lambda: np.arange(start, stop, step))
    if dtype is None:
        dtype = INT32 if values.dtype.kind in "iu" else FLOAT32
    return constant(values.astype(canonical_dtype(dtype)))


def _integral(
    start: Scalar, stop: Scalar | None, step: Scalar, count: int
) -> tuple[int, np.dtype] | None:
    """The first value and default dtype of an arange whose values are
    integers within int32, which `start + step * i` in int32 gives exactly;
    None otherwise."""
    ends = [start, step] if stop is None else [start, stop, step]
    if not builtins.all(
        isinstance(v, int | float | np.integer | np.floating) for v in ends
    ):
        return None
    first = 0 if stop is None else start
    if isinstance(first, bool) or not count or float(first) != int(first):
        return None
    if float(step) != int(step):
        return None
    last = int(first) + int(step) * (count - 1)
    if not (fits_i32(int(first)) and fits_i32(last)):
        return None
    integral = builtins.all(isinstance(v, int | np.integer) for v in ends)
    return int(first), INT32 if integral else FLOAT32


def _arange_count(start: Scalar, stop: Scalar | None, step: Scalar) -> int:
    """How many values `numpy.arange` would make, known before it makes them
    (0 where NumPy will refuse the arguments, with its own message)."""
    first, last = (0, start) if stop is None else (start, stop)
    try:
        count = math.ceil((last - first) / step)
    except (TypeError, ValueError, OverflowError, ZeroDivisionError):
        return 0
    return count if count > 0 else 0  # this module's `max` is NumPy's


def linspace(start: float, stop: float, num: int = 50, endpoint: bool = True) -> Array:
    return constant(
        _numpy(
            "linspace", lambda: np.linspace(start, stop, num, endpoint=endpoint)
        ).astype(np.float32)
    )


def eye(n: int, m: int | None = None, k: int = 0, dtype: DTypeLike = FLOAT32) -> Array:
    return constant(_numpy("eye", lambda: np.eye(n, m, k, canonical_dtype(dtype))))


def identity(n: int, dtype: DTypeLike = FLOAT32) -> Array:
    return eye(n, dtype=dtype)


def shape(x: ArrayLike) -> tuple[int, ...]:
    return asarray(x).shape


def ndim(x: ArrayLike) -> int:
    return asarray(x).ndim


def size(x: ArrayLike) -> int:
    return asarray(x).size


__all__ = [
    "abs",
    "absolute",
    "add",
    "all",
    "amax",
    "amin",
    "any",
    "arange",
    "arccos",
    "arccosh",
    "arcsin",
    "arcsinh",
    "arctan",
    "arctan2",
    "arctanh",
    "argmax",
    "argmin",
    "argsort",
    "array",
    "array_split",
    "asarray",
    "astype",
    "bitwise_and",
    "bitwise_or",
    "bitwise_xor",
    "bool_",
    "broadcast_to",
    "ceil",
    "clip",
    "concatenate",
    "copysign",
    "cos",
    "cosh",
    "cumlogsumexp",
    "cummax",
    "cummin",
    "cumprod",
    "cumsum",
    "diag",
    "diagonal",
    "divide",
    "dot",
    "e",
    "einsum",
    "equal",
    "erf",
    "exp",
    "exp2",
    "expand_dims",
    "expm1",
    "eye",
    "flip",
    "float0",
    "float32",
    "floor",
    "floor_divide",
    "fmod",
    "full",
    "full_like",
    "greater",
    "greater_equal",
    "identity",
    "inf",
    "inner",
    "int32",
    "invert",
    "isfinite",
    "isinf",
    "isnan",
    "less",
    "less_equal",
    "linspace",
    "log",
    "log1p",
    "log2",
    "log10",
    "logaddexp",
    "logical_and",
    "logical_not",
    "logical_or",
    "logical_xor",
    "matmul",
    "max",
    "maximum",
    "mean",
    "meshgrid",
    "min",
    "minimum",
    "moveaxis",
    "multiply",
    "nan",
    "ndarray",
    "ndim",
    "negative",
    "newaxis",
    "not_equal",
    "ones",
    "ones_like",
    "outer",
    "pad",
    "pi",
    "positive",
    "power",
    "prod",
    "ravel",
    "reciprocal",
    "remainder",
    "repeat",
    "reshape",
    "roll",
    "round",
    "rsqrt",
    "shape",
    "sign",
    "signbit",
    "sin",
    "sinh",
    "size",
    "sort",
    "split",
    "sqrt",
    "square",
    "squeeze",
    "stack",
    "std",
    "subtract",
    "sum",
    "swapaxes",
    "take",
    "take_along_axis",
    "tan",
    "tanh",
    "tile",
    "top_k",
    "trace",
    "transpose",
    "tril",
    "triu",
    "true_divide",
    "trunc",
    "var",
    "where",
    "zeros",
    "zeros_like",
]  # fmt: skip

provide_numpy(
    {
        **{name: globals()[name] for name in __all__},
        "getitem": getitem,
        "at": IndexUpdateHelper,
    }
)
