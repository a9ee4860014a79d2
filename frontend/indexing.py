"""NumPy's basic indexing of traced arrays (ints, slices with steps, `...`,
`None`), as `grad.slice`, `grad.reverse` and `grad.reshape`."""

from __future__ import annotations

import builtins
from typing import TypeGuard

import numpy as np

from gradopt.frontend import lax
from gradopt.frontend.array import Array
from gradopt.frontend.lax_numpy import reshape
from gradopt.frontend.trace import error


def getitem(x: Array, key: object) -> Array:
    """Basic indexing: ints, slices (any step), `...` and `None`. A slice is a
    `grad.slice` (a negative step a `grad.reverse` first), then one reshape
    drops the integer-indexed dims and adds the `None` ones; what selects
    whole dims costs nothing."""
    keys = list(key) if isinstance(key, tuple) else [key]
    for k in keys:
        if not (k is None or k is Ellipsis or isinstance(k, slice) or _is_index(k)):
            raise error(
                f"only basic indexing (ints, slices, ..., None) is supported, "
                f"not {type(k).__name__}"
            )
    if keys.count(Ellipsis) > 1:
        raise error("an index can only have a single ellipsis ('...')")
    indexed = len([k for k in keys if k is not None and k is not Ellipsis])
    if indexed > x.ndim:
        raise error(f"too many indices for an array of dimension {x.ndim}")
    fill = [slice(None)] * (x.ndim - indexed)
    at = keys.index(Ellipsis) if Ellipsis in keys else len(keys)
    keys = keys[:at] + fill + keys[at + 1 :]
    start, limit, stride, reversed_dims, shape = [], [], [], [], []
    dim = 0
    for k in keys:
        if k is None:
            shape.append(1)
            continue
        size = x.shape[dim]
        if isinstance(k, slice):
            try:
                first, stop, step = k.indices(size)
            except (TypeError, ValueError) as complaint:  # a step of 0, say
                raise error(f"the index {k}: {complaint}") from None
            count = len(range(first, stop, step))
            if count <= 1:  # nothing, or one element: no step, no reverse
                first, step = (first if count else 0), 1
            elif step < 0:  # reversed, the same elements are a positive step
                reversed_dims.append(dim)
                first, step = size - 1 - first, -step
            start.append(first)
            limit.append(first + (count - 1) * step + 1 if count else first)
            stride.append(step)
            shape.append(count)
        elif _is_index(k):
            index = int(k)
            if not -size <= index < size:
                raise error(
                    f"index {index} is out of bounds for axis {dim} with size {size}"
                )
            start.append(index % size)
            limit.append(index % size + 1)
            stride.append(1)
        dim += 1
    if reversed_dims:
        x = lax.rev(x, reversed_dims)
    whole = start == [0] * x.ndim and limit == list(x.shape)
    if not whole or builtins.any(s != 1 for s in stride):
        x = lax.slice(x, start, limit, stride)
    return reshape(x, shape)


def _is_index(k: object) -> TypeGuard[int | np.integer]:
    return isinstance(k, int | np.integer) and not isinstance(k, bool | np.bool_)
