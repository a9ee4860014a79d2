"""Cumulative functions (`cumsum`, `cumprod`, `cummax`, `cummin`, and
`cumlogsumexp` in `numpy`) as log-depth scans: ⌈log2 n⌉ steps of one slice,
one pad and one combining op each (Hillis and Steele), so that a scan of n entries is
O(log n) ops to trace and to differentiate, with the gradient of each step
given by the rules of those ops."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import DTypeLike

from gradopt.frontend import lax
from gradopt.frontend.array import BOOL, FLOAT32, INT32, Array, ArrayLike
from gradopt.frontend.lax_numpy import (
    asarray,
    astype,
    normalize_axis,
    reshape,
)
from gradopt.frontend.ufuncs import minimum

Combine = Callable[[Array, Array], Array]


def scan(
    x: Array, axis: int, combine: Combine, identity: float | int, reverse: bool
) -> Array:
    """Step k combines each entry with the one 2^k before it (the identity
    before the start), earlier operand first."""
    axis = normalize_axis(axis, x.ndim)
    if reverse:
        x = lax.rev(x, [axis]) if x.shape[axis] > 1 else x
    n, shift = x.shape[axis], 1
    while shift < n:
        limit = list(x.shape)
        limit[axis] = n - shift
        earlier = lax.slice(x, [0] * x.ndim, limit, [1] * x.ndim)
        low = [0] * x.ndim
        low[axis] = shift
        earlier = lax.pad(earlier, low, [0] * x.ndim, [0] * x.ndim, identity)
        x = combine(earlier, x)
        shift *= 2
    if reverse and n > 1:
        x = lax.rev(x, [axis])
    return x


def _numpy_axis(
    x: ArrayLike, axis: int | None, dtype: DTypeLike | None
) -> tuple[Array, int]:
    """NumPy's conventions: the flattened array for no axis, bools summed as
    int32, `dtype` applied first."""
    x = asarray(x)
    x = astype(x, dtype or (INT32 if x.dtype == BOOL else x.dtype))
    if axis is None:
        return reshape(x, (-1,)), 0
    return x, axis


def cumsum(
    x: ArrayLike,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    reverse: bool = False,
) -> Array:
    """NumPy's `cumsum`; `reverse=True` sums from the end, as `lax.cumsum`."""
    x, axis = _numpy_axis(x, axis, dtype)
    return scan(x, axis, lax.add, 0, reverse)


def cumprod(
    x: ArrayLike,
    axis: int | None = None,
    dtype: DTypeLike | None = None,
    reverse: bool = False,
) -> Array:
    """NumPy's `cumprod` as products of `grad.mul` (right with zeros)."""
    x, axis = _numpy_axis(x, axis, dtype)
    return scan(x, axis, lax.mul, 1, reverse)


def _lowest(x: Array) -> float | int | bool:
    if x.dtype == FLOAT32:
        return -np.inf
    return False if x.dtype == BOOL else int(np.iinfo(np.int32).min)


def cummax(x: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    """`lax.cummax`: the running maximum; ties split the gradient, as
    `grad.max` does (JAX's split depends on its own scan's pairing)."""
    x = asarray(x)
    combine = lax.bitwise_or if x.dtype == BOOL else lax.max
    return scan(x, axis, combine, _lowest(x), reverse)


def cummin(x: ArrayLike, axis: int = 0, reverse: bool = False) -> Array:
    x = asarray(x)
    combine = lax.bitwise_and if x.dtype == BOOL else minimum
    highest = {FLOAT32: np.inf, BOOL: True}.get(x.dtype, int(np.iinfo(np.int32).max))
    return scan(x, axis, combine, highest, reverse)
