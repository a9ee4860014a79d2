"""One function per `grad` op (SPEC §3), on traced arrays, as `jax.lax` is one
function per XLA primitive: no promotion and no broadcasting here. Operands
already have the types the op's verifier wants; `gradopt.numpy` (through
`lax_numpy`, `ufuncs`, `reductions` and `indexing`) makes them so."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from gradopt.dialect.ops import (
    AddOp,
    AndOp,
    ArgsortOp,
    BitcastOp,
    BroadcastOp,
    CastOp,
    CmpEqOp,
    CmpLtOp,
    CmpNeOp,
    ConcatOp,
    DetachOp,
    DotOp,
    Exp2Op,
    GatherOp,
    IDivOp,
    IotaOp,
    Log2Op,
    MaxOp,
    ModOp,
    MulOp,
    NegOp,
    OrOp,
    PadOp,
    PermuteOp,
    RecipOp,
    ReduceOp,
    ReshapeOp,
    ReverseOp,
    ScatterAddOp,
    ShlOp,
    ShrOp,
    SinOp,
    SliceOp,
    SqrtOp,
    WhereOp,
    XorOp,
)
from gradopt.frontend.array import Array, Scalar, emit, tensor


def add(a: Array, b: Array) -> Array:
    return emit(AddOp(a.value, b.value))


def mul(a: Array, b: Array) -> Array:
    return emit(MulOp(a.value, b.value))


def max(a: Array, b: Array) -> Array:
    return emit(MaxOp(a.value, b.value))


def neg(x: Array) -> Array:
    return emit(NegOp(x.value))


def recip(x: Array) -> Array:
    return emit(RecipOp(x.value))


def exp2(x: Array) -> Array:
    return emit(Exp2Op(x.value))


def log2(x: Array) -> Array:
    return emit(Log2Op(x.value))


def sqrt(x: Array) -> Array:
    return emit(SqrtOp(x.value))


def sin(x: Array) -> Array:
    return emit(SinOp(x.value))


def lt(a: Array, b: Array) -> Array:
    return emit(CmpLtOp(a.value, b.value))


def eq(a: Array, b: Array) -> Array:
    return emit(CmpEqOp(a.value, b.value))


def ne(a: Array, b: Array) -> Array:
    return emit(CmpNeOp(a.value, b.value))


def select(condition: Array, on_true: Array, on_false: Array) -> Array:
    """`grad.where`."""
    return emit(WhereOp(condition.value, on_true.value, on_false.value))


def div(a: Array, b: Array) -> Array:
    """`grad.idiv`: int32 division rounding toward zero."""
    return emit(IDivOp(a.value, b.value))


def rem(a: Array, b: Array) -> Array:
    """`grad.mod`: the remainder with the dividend's sign."""
    return emit(ModOp(a.value, b.value))


def shift_left(a: Array, b: Array) -> Array:
    return emit(ShlOp(a.value, b.value))


def shift_right_arithmetic(a: Array, b: Array) -> Array:
    return emit(ShrOp(a.value, b.value))


def bitwise_and(a: Array, b: Array) -> Array:
    return emit(AndOp(a.value, b.value))


def bitwise_or(a: Array, b: Array) -> Array:
    return emit(OrOp(a.value, b.value))


def bitwise_xor(a: Array, b: Array) -> Array:
    return emit(XorOp(a.value, b.value))


def convert(x: Array, dtype: np.dtype) -> Array:
    """`grad.cast` to `dtype` (to x's own dtype it is a copy of x)."""
    return emit(CastOp(x.value, tensor(dtype, x.shape)))


def bitcast_convert_type(x: Array, dtype: np.dtype) -> Array:
    """`grad.bitcast`: the bits of f32 as i32 or back."""
    return emit(BitcastOp(x.value, tensor(dtype, x.shape)))


def stop_gradient(x: Array) -> Array:
    """`grad.detach`."""
    return emit(DetachOp(x.value))


def reduce(kind: str, x: Array, axes: Sequence[int]) -> Array:
    """`grad.reduce` of kind `add`, `max` or `mul` over the sorted `axes`."""
    kept = [d for i, d in enumerate(x.shape) if i not in axes]
    return emit(ReduceOp(kind, x.value, list(axes), tensor(x.dtype, kept)))


def broadcast_in_dim(x: Array, shape: Sequence[int], dims: Sequence[int]) -> Array:
    return emit(BroadcastOp(x.value, list(dims), tensor(x.dtype, shape)))


def reshape(x: Array, shape: Sequence[int]) -> Array:
    return emit(ReshapeOp(x.value, tensor(x.dtype, shape)))


def transpose(x: Array, perm: Sequence[int]) -> Array:
    """`grad.permute`: output dim i is x's dim perm[i]."""
    shape = [x.shape[p] for p in perm]
    return emit(PermuteOp(x.value, list(perm), tensor(x.dtype, shape)))


def dot(a: Array, b: Array) -> Array:
    """`grad.dot`: (..., M, K) by (..., K, N) with equal batch dims."""
    return emit(DotOp(a.value, b.value))


def slice(
    x: Array, start: Sequence[int], limit: Sequence[int], stride: Sequence[int]
) -> Array:
    """`grad.slice`: like `stablehlo.slice`."""
    start, limit, stride = ([int(v) for v in vs] for vs in (start, limit, stride))
    return emit(SliceOp(x.value, start, limit, stride))


def pad(
    x: Array,
    low: Sequence[int],
    high: Sequence[int],
    interior: Sequence[int],
    value: Scalar,
) -> Array:
    """`grad.pad`: like `stablehlo.pad`, `value` a literal of x's dtype."""
    literal = np.asarray(value).astype(x.dtype).item()
    low, high, interior = ([int(v) for v in vs] for vs in (low, high, interior))
    return emit(PadOp(x.value, low, high, interior, literal))


def rev(x: Array, dims: Sequence[int]) -> Array:
    """`grad.reverse` of the listed dims."""
    return emit(ReverseOp(x.value, sorted(int(d) for d in dims)))


def concatenate(xs: Sequence[Array], dim: int) -> Array:
    """`grad.concat` of arrays of one dtype along `dim` (one array is itself)."""
    if len(xs) == 1:
        return xs[0]
    return emit(ConcatOp([x.value for x in xs], int(dim)))


def gather(x: Array, index: Array, axis: int) -> Array:
    """`grad.gather`: NumPy's `take(x, index, axis)` for an int32 index in range."""
    return emit(GatherOp(x.value, index.value, int(axis)))


def scatter_add(x: Array, index: Array, updates: Array, axis: int) -> Array:
    """`grad.scatter_add`: x with `updates` added at `index` along `axis`."""
    return emit(ScatterAddOp(x.value, index.value, updates.value, int(axis)))


def iota(dtype: np.dtype, shape: Sequence[int], dimension: int) -> Array:
    """`grad.iota`: each element's index along `dimension` (JAX's
    `broadcasted_iota`)."""
    return emit(IotaOp(int(dimension), tensor(dtype, shape)))


def argsort(x: Array, dimension: int) -> Array:
    """`grad.argsort`: the stable ascending order along `dimension`, NaN last."""
    return emit(ArgsortOp(x.value, int(dimension)))
