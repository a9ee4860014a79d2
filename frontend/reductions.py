"""NumPy's reductions on traced arrays (`sum`, `mean`, `max`, `argmax`, ...,
with `axis` and `keepdims`), built on `grad.reduce`."""

from __future__ import annotations

import builtins
import math
from collections.abc import Callable

import numpy as np
from numpy.typing import DTypeLike

from gradopt.frontend import lax
from gradopt.frontend.array import BOOL, FLOAT32, INT32, Array, ArrayLike, Axis
from gradopt.frontend.lax_numpy import (
    asarray,
    astype,
    floating,
    full,
    kept_shape,
    normalize_axes,
    normalize_axis,
    reshape,
    transpose,
)
from gradopt.frontend.trace import error
from gradopt.frontend.ufuncs import (
    bitwise_or,
    equal,
    invert,
    multiply,
    negative,
    not_equal,
    sqrt,
    subtract,
    true_divide,
    where,
)


def _reduce(kind: str, x: Array, axes: tuple[int, ...], keepdims: bool) -> Array:
    if axes:
        x = lax.reduce(kind, x, axes)
    return x if not keepdims else reshape(x, kept_shape(x.shape, axes, len(axes)))


def _accumulate(
    kind: str, x: ArrayLike, axis: Axis, dtype: DTypeLike | None, keepdims: bool
) -> Array:
    """`sum` and `prod`: booleans count as int32, as in NumPy."""
    x = asarray(x)
    x = astype(x, dtype or (INT32 if x.dtype == BOOL else x.dtype))
    return _reduce(kind, x, normalize_axes(axis, x.ndim), keepdims)


def sum(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    return _accumulate("add", x, axis, dtype, keepdims)


def prod(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    """For float32 a product tree of `grad.mul` (halves multiplied
    elementwise, log2(n) levels), which can be differentiated and is right
    with zeros; integers keep `grad.reduce mul` (they carry no gradient)."""
    x = asarray(x)
    x = astype(x, dtype or (INT32 if x.dtype == BOOL else x.dtype))
    if x.dtype != FLOAT32:
        return _accumulate("mul", x, axis, dtype, keepdims)
    axes = normalize_axes(axis, x.ndim)
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    order = [i for i in range(x.ndim) if i not in axes] + list(axes)
    n = math.prod(x.shape[a] for a in axes)
    flat = reshape(transpose(x, order), (math.prod(kept), n))
    product = product_tree(flat)
    shape = kept_shape(tuple(kept), axes, len(axes)) if keepdims else kept
    return reshape(product, shape)


def product_tree(x: Array) -> Array:
    """The products of the rows of a 2-D float32 x: the first half of the
    columns times the second, an odd one out carried to the next level."""
    n = x.shape[1]
    if n == 0:
        return full((x.shape[0],), 1.0, FLOAT32)
    while n > 1:
        half = n // 2
        paired = lax.mul(
            lax.slice(x, [0, 0], [x.shape[0], half], [1, 1]),
            lax.slice(x, [0, half], [x.shape[0], 2 * half], [1, 1]),
        )
        if n % 2:
            rest = lax.slice(x, [0, n - 1], [x.shape[0], n], [1, 1])
            paired = lax.concatenate([paired, rest], 1)
        x, n = paired, half + n % 2
    return reshape(x, (x.shape[0],))


def mean(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    keepdims: bool = False,
) -> Array:
    x = floating(x) if dtype is None else astype(x, dtype)
    axes = normalize_axes(axis, x.ndim)
    count = math.prod(x.shape[a] for a in axes)
    total = _reduce("add", x, axes, keepdims)
    return multiply(
        total, float(np.float32(1) / np.float32(count)) if count else np.nan
    )


def var(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Array:
    x = floating(x) if dtype is None else astype(x, dtype)
    axes = normalize_axes(axis, x.ndim)
    centered = subtract(x, mean(x, axes, keepdims=True))
    count = math.prod(x.shape[a] for a in axes)
    total = sum(multiply(centered, centered), axes, keepdims=keepdims)
    return true_divide(total, float(builtins.max(count - ddof, 0)))


def std(
    x: ArrayLike,
    axis: Axis = None,
    dtype: DTypeLike | None = None,
    ddof: int = 0,
    keepdims: bool = False,
) -> Array:
    return sqrt(var(x, axis, dtype, ddof, keepdims))


def _extremum(x: ArrayLike, axis: Axis, what: str) -> tuple[Array, tuple[int, ...]]:
    x = asarray(x)
    axes = normalize_axes(axis, x.ndim)
    if builtins.any(x.shape[a] == 0 for a in axes):
        raise error(f"{what} of an empty array: it has no identity")
    return x, axes


def max(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    """`grad.reduce max`; ties split the gradient evenly (SPEC §5.3)."""
    x, axes = _extremum(x, axis, "max")
    if x.dtype == BOOL:
        return astype(_reduce("max", astype(x, INT32), axes, keepdims), BOOL)
    return _reduce("max", x, axes, keepdims)


def min(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x, axes = _extremum(x, axis, "min")
    if x.dtype == BOOL:
        return astype(min(astype(x, INT32), axes, keepdims), BOOL)
    flip = invert if x.dtype == INT32 else negative
    return flip(_reduce("max", flip(x), axes, keepdims))


def any(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x = asarray(x)
    return max(x if x.dtype == BOOL else not_equal(x, 0), axis, keepdims)


def all(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x = asarray(x)
    return min(x if x.dtype == BOOL else not_equal(x, 0), axis, keepdims)


def argmax(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    """The first index of the maximum (or of a NaN), as int32."""
    return _arg(asarray(x), axis, max, "argmax", keepdims)


def argmin(x: ArrayLike, axis: int | None = None, keepdims: bool = False) -> Array:
    return _arg(asarray(x), axis, min, "argmin", keepdims)


def _arg(
    x: Array,
    axis: int | None,
    extremum: Callable[..., Array],
    what: str,
    keepdims: bool,
) -> Array:
    """With `keepdims`, the reduced axis (every axis for `axis=None`) stays
    with size 1, as in NumPy and JAX."""
    shape = x.shape
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis(axis, x.ndim)
    if x.shape[axis] == 0:
        raise error(f"{what} of an empty sequence")
    best = extremum(x, axis, keepdims=True)
    hit = equal(x, best)
    if x.dtype == FLOAT32:
        hit = bitwise_or(hit, not_equal(x, x))  # the first NaN, as NumPy
    index = lax.iota(INT32, x.shape, axis)
    result = min(where(hit, index, x.shape[axis]), axis, keepdims)
    if keepdims and x.ndim != len(shape):
        return reshape(result, (1,) * len(shape))
    return result
