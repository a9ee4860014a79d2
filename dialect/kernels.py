"""The NumPy kernels of the `grad` ops that take more than one NumPy call:
selecting bits, C division, saturating casts, checked slot indices. Each computes
exactly what SPEC §6 says, for the interpreter and constant folding alike."""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects.builtin import (
    f32,
    i32,
)
from xdsl.ir import Attribute, Operation

from gradopt.dialect.errors import OpError
from gradopt.dialect.types import I32_MAX, I32_MIN, dtype_of, is_i1

Kernel = Callable[..., "np.ndarray | None"]
"""A NumPy function from an op's operand values to its result value (None for
`grad.store`, which writes its slot)."""


def select_or_zero(
    condition: np.ndarray,
    on_true: np.ndarray,
    on_false: np.ndarray,
    out: np.ndarray | None = None,
    *,
    dtype: type[np.generic],
    zero: int,
) -> np.ndarray:
    """`np.where` with one side all zero bits (operand `zero`), in one pass:
    the other side's bits times the condition (or its negation), which is
    those bits or zero, exactly as `select_bits` would select them."""
    bits = np.int32
    if zero == 2:
        kept, keep = on_true, condition
    else:
        kept, keep = on_false, np.logical_not(condition)
    target = None if out is None else out.view(bits)
    result = np.multiply(kept.view(bits), keep, out=target)
    return out if out is not None else result.view(dtype)


def select_bits(
    condition: np.ndarray,
    on_true: np.ndarray,
    on_false: np.ndarray,
    out: np.ndarray | None = None,
    *,
    dtype: type[np.generic],
) -> np.ndarray:
    """`np.where` on arrays of 4-byte elements, by selecting bits.

    NumPy's `where` branches on each element, and is about 10x slower when the
    condition changes often (a ReLU's gradient on random data) than these three
    branch-free integer ops: `d = a ^ b`, `d *= c` (by 0 or 1: exact), `d ^ b`.
    The bits taken are the same: NaN payloads and signed zeros included. The
    result may go into `out`, which may be `on_true` or `on_false` (each is read
    before it is written), or a new array."""
    bits = np.int32
    if out is not None and out is on_false:
        # on_true ^ ((on_true ^ on_false) * not condition)
        keep, base = np.logical_not(condition), on_true
    else:
        # on_false ^ ((on_true ^ on_false) * condition)
        keep, base = condition, on_false
    target = None if out is None else out.view(bits)
    result = np.bitwise_xor(on_true.view(bits), on_false.view(bits), out=target)
    np.multiply(result, keep, out=result)
    np.bitwise_xor(result, base.view(bits), out=result)
    return out if out is not None else result.view(dtype)


SHORT_ROWS = 32
"""The longest run of trailing elements that `maximum_reduce` reduces across
rows: NumPy reduces a C-contiguous (1000, 10) array along its last axis in
38 us, its transposed copy along the first in 9 us; at 64 both take 50 us."""

FEWEST_ROWS = 256
"""The fewest rows that `maximum_reduce` reduces across: NumPy's reduction
along the last axis costs about 40 ns a row, the transposed copy and the
check for zeros about 6 us in all. Rows of 2-32 elements on a Zen 3 (bench/
RESULTS.md): 64 rows took 3.8-4.4 us as written and 6.2-8.4 transposed,
128 rows 6.2-7.5 and 6.3-9.3, 256 rows 11-13.5 and 6.7-11.4."""


def maximum_reduce(a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
    """`np.maximum.reduce(a, axes)` of a C-contiguous `a`, with its bits.
    When the axes are the last ones and span at most `SHORT_ROWS` elements
    of at least `FEWEST_ROWS` rows, NumPy is several times faster reducing a
    transposed copy across rows.
    The maximum does not depend on the order of a reduction, but for the
    bits of the only two values that compare equal, -0.0 and +0.0, and for
    which NaN comes out; so a result with a zero or a NaN (a row that holds
    a NaN gives one either way) is computed again as written."""
    rank, kept = a.ndim, a.ndim - len(axes)
    inner = math.prod(a.shape[kept:])
    if (
        kept == 0
        or axes != tuple(range(kept, rank))
        or not 0 < inner <= SHORT_ROWS
        or a.size < FEWEST_ROWS * inner
    ):
        return np.maximum.reduce(a, axes)
    rows = np.ascontiguousarray(a.reshape(-1, inner).T)
    found = np.maximum.reduce(rows, 0).reshape(a.shape[:kept])
    if a.dtype.kind == "f" and np.count_nonzero(np.abs(found) > 0) < found.size:
        return np.maximum.reduce(a, axes)  # |x| > 0 is False for 0 and NaN
    return found


BLOCKED_FROM = 1 << 16
"""The smallest transposed matrix (64 KiB) that `contiguous` copies a block of
rows at a time: at 16 KiB NumPy's own copy was faster (1.8 against 3.8 us)."""

BLOCK_BYTES = 1 << 15
"""The bytes of the source's rows that `contiguous` copies at a time (32 KiB,
a core's L1 data cache here: 4096x128 f32 took 300 us in blocks of 64 rows,
350 in 32, 690 in 128)."""


def contiguous(a: np.ndarray) -> np.ndarray:
    """`np.ascontiguousarray(a)`: the same elements, C-ordered. A transposed
    matrix of `BLOCKED_FROM` bytes or more (the last two axes of a C-ordered
    array swapped, as `grad.permute` leaves an operand of `dot`) is copied
    `BLOCK_BYTES` of the source's rows at a time, which NumPy's copy, going
    down the source's columns, is not: 256x512 f32 took 88 us against 289,
    4096x128 309 against 1141 (bench/RESULTS.md). A copy moves bits: the
    result is the same either way."""
    if a.nbytes < BLOCKED_FROM or a.ndim < 2 or a.flags.c_contiguous:
        return np.ascontiguousarray(a)
    source = a.swapaxes(-1, -2)
    *_, rows, width = source.shape
    if not source.flags.c_contiguous or rows * width * a.itemsize < BLOCKED_FROM:
        return np.ascontiguousarray(a)
    result = np.empty(a.shape, a.dtype)
    step = max(1, BLOCK_BYTES // (width * a.itemsize))
    for start in range(0, rows, step):
        result[..., start : start + step] = source[
            ..., start : start + step, :
        ].swapaxes(-1, -2)
    return result


def wrap_i32(values: np.ndarray) -> np.ndarray:
    """int64 values wrapped to int32, two's complement."""
    return values.astype(np.int32)


def check_divisor(op: Operation, b: np.ndarray) -> None:
    if np.any(b == 0):
        raise OpError(op, "divides by zero", at_run_time=True)


def divide_toward_zero(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Quotient rounded toward zero, as in C, in int64 (exact for int32 inputs)."""
    a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
    quotient = np.abs(a64) // np.abs(b64)
    return np.where((a64 < 0) != (b64 < 0), -quotient, quotient)


def cast_kernel(source: Attribute, target: Attribute) -> Kernel:
    dtype = dtype_of(target)
    if source == target:
        return lambda a: a
    if is_i1(target):
        return lambda a: np.not_equal(a, 0)
    if source == f32 and target == i32:
        # f32 -> i32 rounds toward zero and saturates; NaN becomes 0
        def to_i32(a: np.ndarray) -> np.ndarray:
            wide = np.trunc(np.nan_to_num(np.asarray(a, np.float64), nan=0.0))
            return np.clip(wide, I32_MIN, I32_MAX).astype(np.int32)

        return to_i32
    return lambda a: np.asarray(a).astype(dtype)


def check_indices(op: Operation, shape: Sequence[int], indices: Sequence) -> tuple:
    position = tuple(int(i) for i in indices)
    for i, size in zip(position, shape, strict=False):
        if not 0 <= i < size:
            raise OpError(
                op,
                f"index {list(position)} is out of range for a slot of shape "
                f"{list(shape)}",
                at_run_time=True,
            )
    return position
