"""NumPy's array creation, shapes and matrix products on traced arrays
(`asarray`, `full`, `reshape`, `transpose`, `matmul`, `stack`, ...), with
NumPy's promotion and broadcasting, built on `gradopt.frontend.lax`."""

from __future__ import annotations

import builtins
import hashlib
import math
from collections.abc import Iterator, Sequence

import numpy as np
from numpy.typing import DTypeLike
from xdsl.dialects.builtin import BytesAttr, DenseIntOrFPElementsAttr

from gradopt.dialect.ops import (
    ConstOp,
    dense_bytes,
)
from gradopt.dialect.types import fits_i32
from gradopt.frontend import lax
from gradopt.frontend.array import (
    BOOL,
    FLOAT32,
    INT32,
    Array,
    ArrayLike,
    Axis,
    Scalar,
    Shape,
    broadcast_shapes,
    canonical_dtype,
    int_list,
    is_scalar,
    python_number,
    result_dtype,
    scalar_dtype,
    tensor,
    trace,
)
from gradopt.frontend.trace import error


def full(shape: Sequence[int], value: Scalar, dtype: DTypeLike | None = None) -> Array:
    """A splat constant (one scalar attribute whatever the shape)."""
    if not is_scalar(value) and not isinstance(value, np.generic):
        raise error(f"a fill value must be a number, got {value!r}")
    dtype = canonical_dtype(dtype) if dtype is not None else scalar_dtype(value)
    if dtype == INT32 and not fits_i32(int(value)):
        raise error(f"{value} is out of range for int32")
    item = np.asarray(value).astype(dtype)
    active, shape = trace(), tuple(shape)
    key = ("splat", dtype, shape, item.tobytes())
    if (known := active.constants.get(key)) is None:
        known = active.emit(ConstOp.splat(item.item(), tensor(dtype, shape))).results[0]
        active.constants[key] = known
    return Array(active, known)


def constant(data: np.ndarray) -> Array:
    """NumPy data of a supported dtype as a `grad.const`."""
    flat = np.ascontiguousarray(data).reshape(-1)
    bits = flat.view(np.uint8).reshape(flat.size, flat.itemsize)
    if flat.size and (bits == bits[0]).all():  # one value: a splat
        return full(data.shape, flat[0].item(), data.dtype)
    active = trace()
    packed = dense_bytes(flat)
    key = ("dense", data.dtype, data.shape, hashlib.sha256(packed).digest())
    if (known := active.constants.get(key)) is None:
        type = tensor(data.dtype, data.shape)
        attr = DenseIntOrFPElementsAttr(type, BytesAttr(packed))  # pyright: ignore[reportArgumentType]
        known = active.emit(ConstOp(attr, type)).results[0]
        active.constants[key] = known
    return Array(active, known)


def asarray(x: ArrayLike, dtype: DTypeLike | None = None) -> Array:
    """`x` as a traced array: an `Array` of this trace, or a constant."""
    x = python_number(x)
    if isinstance(x, Array):
        if x.owner is not trace():
            raise error(
                "a traced array was used outside the function call that traced it"
            )
        return x if dtype is None else astype(x, dtype)
    if is_scalar(x):
        return full((), x, dtype)
    if isinstance(x, list | tuple):
        if builtins.any(isinstance(e, Array) for e in _leaves(x)):
            return _stack_nested(x, dtype)
        data = np.asarray(x)
        if dtype is None and data.dtype.kind in "biuf":  # Python data has no dtype
            dtype = {"b": BOOL, "f": FLOAT32}.get(data.dtype.kind, INT32)
            if (
                dtype == INT32
                and data.size
                and not (fits_i32(int(data.min())) and fits_i32(int(data.max())))
            ):
                raise error("a list of integers out of range for int32")
        x = data
    if isinstance(x, np.ndarray | np.generic):
        data = np.asarray(x)
        if dtype is not None:
            data = data.astype(canonical_dtype(dtype))
        canonical_dtype(data.dtype)
        return constant(data)
    raise error(f"cannot use a {type(x).__name__} as an array")


def _leaves(x: object) -> Iterator[object]:
    if isinstance(x, list | tuple):
        for e in x:
            yield from _leaves(e)
    else:
        yield x


def _stack_nested(x: list | tuple, dtype: DTypeLike | None) -> Array:
    parts = [
        asarray(e) if not isinstance(e, list | tuple) else _stack_nested(e, None)
        for e in x
    ]
    result = stack(parts)
    return result if dtype is None else astype(result, dtype)


def operands(*xs: ArrayLike, dtype: np.dtype | None = None) -> list[Array]:
    """`xs` as arrays of one dtype (promoted, or `dtype`) and one shape."""
    values = [python_number(x) for x in xs]
    values = [x if is_scalar(x) else asarray(x) for x in values]
    dtype = result_dtype(*values) if dtype is None else dtype
    shape = broadcast_shapes(*(x.shape for x in values if isinstance(x, Array)))
    return [
        broadcast_to(astype(x, dtype), shape)
        if isinstance(x, Array)
        else full(shape, x, dtype)
        for x in values
    ]


def astype(x: ArrayLike, dtype: DTypeLike) -> Array:
    x, dtype = asarray(x), canonical_dtype(dtype)
    if x.dtype == dtype:
        return x
    return lax.convert(x, dtype)


def floating(x: ArrayLike) -> Array:
    """`x` as float32 (NumPy computes `exp` of ints in floating point too)."""
    x = asarray(x)
    return x if x.dtype == FLOAT32 else astype(x, FLOAT32)


def broadcast_to(x: ArrayLike, shape: Sequence[int]) -> Array:
    """NumPy's `broadcast_to`: trailing dims aligned, size-1 dims expanded."""
    x, shape = asarray(x), tuple(shape)
    if x.shape == shape:
        return x
    offset = len(shape) - x.ndim
    if offset < 0 or builtins.any(
        d not in (1, shape[offset + i]) for i, d in enumerate(x.shape)
    ):
        raise error(f"cannot broadcast shape {x.shape} to {shape}")
    return lax.broadcast_in_dim(x, shape, range(offset, len(shape)))


def reshape(x: ArrayLike, shape: int | Sequence[int]) -> Array:
    x = asarray(x)
    shape = int_list(shape, "a shape")
    if shape.count(-1) > 1 or builtins.any(d < -1 for d in shape):
        raise error(f"invalid shape {tuple(shape)} for reshape")
    if -1 in shape:
        known = math.prod(d for d in shape if d != -1)
        if known == 0 or x.size % known:
            raise error(f"cannot reshape an array of shape {x.shape} to {tuple(shape)}")
        shape[shape.index(-1)] = x.size // known
    if math.prod(shape) != x.size:
        raise error(f"cannot reshape an array of shape {x.shape} to {tuple(shape)}")
    if tuple(shape) == x.shape:
        return x
    return lax.reshape(x, shape)


def normalize_axis(axis: int, ndim: int) -> int:
    if not -ndim <= axis < ndim:
        raise error(f"axis {axis} is out of bounds for an array of dimension {ndim}")
    return axis % ndim


def normalize_axes(axis: Axis, ndim: int) -> tuple[int, ...]:
    """Sorted axes in [0, ndim); None is every axis."""
    if axis is None:
        return tuple(range(ndim))
    axes = int_list(axis, "axis")
    result = [normalize_axis(int(a), ndim) for a in axes]
    if len(set(result)) != len(result):
        raise error(f"repeated axis in {tuple(axes)}")
    return tuple(sorted(result))


def transpose(x: ArrayLike, axes: Sequence[int] | None = None) -> Array:
    x = asarray(x)
    perm = list(range(x.ndim))[::-1] if axes is None else int_list(axes, "axes")
    if len(perm) != x.ndim or sorted(normalize_axis(a, x.ndim) for a in perm) != list(
        range(x.ndim)
    ):
        raise error(f"axes {tuple(perm)} are not a permutation of {x.ndim} dims")
    perm = [normalize_axis(a, x.ndim) for a in perm]
    if perm == list(range(x.ndim)):
        return x
    return lax.transpose(x, perm)


def squeeze(x: ArrayLike, axis: Axis = None) -> Array:
    x = asarray(x)
    if axis is None:
        axes = tuple(i for i, d in enumerate(x.shape) if d == 1)
    else:
        axes = normalize_axes(axis, x.ndim)
    if builtins.any(x.shape[a] != 1 for a in axes):
        raise error(f"cannot squeeze axes {axes} of shape {x.shape}: not of size 1")
    return reshape(x, [d for i, d in enumerate(x.shape) if i not in axes])


def expand_dims(x: ArrayLike, axis: int | Sequence[int]) -> Array:
    x = asarray(x)
    axis = int_list(axis, "axis")
    ndim = x.ndim + len(axis)
    axes = normalize_axes(axis, ndim)
    return reshape(x, kept_shape(x.shape, axes, len(axes)))


def kept_shape(shape: Shape, axes: tuple[int, ...], count: int) -> list[int]:
    sizes = iter(shape)
    return [1 if i in axes else next(sizes) for i in range(len(shape) + count)]


def matmul(a: ArrayLike, b: ArrayLike) -> Array:
    """NumPy's `matmul` in float32 with `grad.dot`: 1-D operands get a unit dim,
    batch dims broadcast. Batches on one side only fold into the matrix (rows
    of `a`, or columns of `b` after a permute), so that only batches on both
    sides need a batched `grad.dot`."""
    a, b = floating(a), floating(b)
    if a.ndim == 0 or b.ndim == 0:
        raise error("matmul of a 0-d array: use * to multiply by a scalar")
    shapes, vector_a, vector_b = (a.shape, b.shape), a.ndim == 1, b.ndim == 1
    if vector_a:
        a = reshape(a, (1, a.shape[0]))
    if vector_b:
        b = reshape(b, (b.shape[0], 1))
    (m, k), (k2, n) = a.shape[-2:], b.shape[-2:]
    if k != k2:
        raise error(
            f"matmul: shapes {shapes[0]} and {shapes[1]} do not align ({k} != {k2})"
        )
    batch = broadcast_shapes(a.shape[:-2], b.shape[:-2])
    size = math.prod(batch)
    if math.prod(b.shape[:-2]) == 1:
        rows = reshape(a, (math.prod(a.shape[:-1]), k))
        result = lax.dot(rows, reshape(b, (k, n)))
    elif math.prod(a.shape[:-2]) == 1:
        b = broadcast_to(b, (*batch, k, n))
        columns = transpose(b, [len(batch), *range(len(batch)), len(batch) + 1])
        product = lax.dot(reshape(a, (m, k)), reshape(columns, (k, size * n)))
        product = reshape(product, (m, *batch, n))
        result = transpose(product, [*range(1, len(batch) + 1), 0, len(batch) + 1])
    else:
        a = reshape(broadcast_to(a, (*batch, m, k)), (size, m, k))
        b = reshape(broadcast_to(b, (*batch, k, n)), (size, k, n))
        result = lax.dot(a, b)
    shape = [*batch, *([] if vector_a else [m]), *([] if vector_b else [n])]
    return reshape(result, shape)


def stack(xs: Sequence[ArrayLike], axis: int = 0) -> Array:
    arrays = [asarray(x) for x in xs]
    if not arrays:
        raise error("need at least one array to stack")
    if len({x.shape for x in arrays}) != 1:
        raise error(
            "all arrays to stack must have the same shape, got "
            + ", ".join(str(x.shape) for x in arrays)
        )
    axis = normalize_axis(axis, arrays[0].ndim + 1)
    dtype = result_dtype(*arrays)
    return lax.concatenate([expand_dims(astype(x, dtype), axis) for x in arrays], axis)
