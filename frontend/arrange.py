"""NumPy's functions that rearrange an array by a pattern known while tracing
(`repeat`, `tile`, `split`, `roll`, `diagonal`, `diag`, `trace`, `meshgrid`
and the index patterns of `pad`'s modes): only slices, reversals, broadcasts,
pads and concatenations, so that values move bit for bit and gradients are
the rules of those ops."""

from __future__ import annotations

import itertools
from collections.abc import Sequence

import numpy as np

from gradopt.frontend import lax
from gradopt.frontend.array import Array, ArrayLike, int_list
from gradopt.frontend.lax_numpy import (
    asarray,
    broadcast_to,
    full,
    normalize_axis,
    reshape,
    transpose,
)
from gradopt.frontend.limits import check_size
from gradopt.frontend.reductions import sum
from gradopt.frontend.trace import error


def _slice_axis(x: Array, axis: int, start: int, limit: int, step: int = 1) -> Array:
    if (start, limit, step) == (0, x.shape[axis], 1):
        return x
    starts, limits, steps = [0] * x.ndim, list(x.shape), [1] * x.ndim
    starts[axis], limits[axis], steps[axis] = start, limit, step
    return lax.slice(x, starts, limits, steps)


def _runs(indices: np.ndarray) -> list[tuple[int, int, int]]:
    """(first, count, step) for maximal runs of `indices` with a step of 1,
    -1 or 0 between neighbours."""
    runs, i = [], 0
    while i < len(indices):
        step, j = 1, i + 1
        if j < len(indices) and indices[j] - indices[i] in (-1, 0, 1):
            step = int(indices[j] - indices[i])
            while j < len(indices) and indices[j] - indices[j - 1] == step:
                j += 1
        runs.append((int(indices[i]), j - i, step))
        i = j
    return runs


def take_static(x: Array, indices: np.ndarray, axis: int) -> Array:
    """x's entries at `indices` (known while tracing) along `axis`: one slice
    per run of neighbouring indices, reversed for a falling run and broadcast
    for a repeated one, joined by one `grad.concat`."""
    if len(indices) == 0:
        return _slice_axis(x, axis, 0, 0)
    parts = []
    for first, count, step in _runs(indices):
        if step == 1:
            parts.append(_slice_axis(x, axis, first, first + count))
        elif step == -1:
            part = _slice_axis(x, axis, first - count + 1, first + 1)
            parts.append(lax.rev(part, [axis]) if count > 1 else part)
        else:
            part = _slice_axis(x, axis, first, first + 1)
            shape = [*x.shape[:axis], count, *x.shape[axis + 1 :]]
            parts.append(lax.broadcast_in_dim(part, shape, range(x.ndim)))
    return lax.concatenate(parts, axis)


def repeat(
    x: ArrayLike,
    repeats: int | Sequence[int],
    axis: int | None = None,
    total_repeat_length: int | None = None,
) -> Array:
    """Each entry `repeats` times along `axis` (flattened if None): a
    broadcast and a reshape for one count, runs of slices for several."""
    x = asarray(x)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis(axis, x.ndim)
    counts = np.asarray(int_list(repeats, "repeats"))
    n = x.shape[axis]
    if (counts < 0).any() or len(counts) not in (1, n):
        raise error(f"repeat: repeats {repeats!r} do not fit an axis of size {n}")
    if len(counts) == n and n != 1:
        indices = np.repeat(np.arange(n), counts)
    else:
        indices = np.repeat(np.arange(n), int(counts[0]))
    if total_repeat_length is not None and total_repeat_length != len(indices):
        raise error(
            f"repeat: total_repeat_length {total_repeat_length} is not the "
            f"{len(indices)} entries the repeats make"
        )
    check_size("repeat", [*x.shape[:axis], len(indices), *x.shape[axis + 1 :]], x.dtype)
    if len(counts) == 1 or len(set(counts.tolist())) == 1:
        count = int(counts[0])
        grown = [*x.shape[: axis + 1], count, *x.shape[axis + 1 :]]
        spread = lax.broadcast_in_dim(
            x, grown, [*range(axis + 1), *range(axis + 2, x.ndim + 1)]
        )
        return reshape(spread, [*x.shape[:axis], n * count, *x.shape[axis + 1 :]])
    return take_static(x, indices, axis)


def tile(x: ArrayLike, reps: int | Sequence[int]) -> Array:
    """`x` repeated `reps` times along each axis: one broadcast into
    interleaved (rep, size) pairs of dims and one reshape."""
    x = asarray(x)
    counts = int_list(reps, "reps")
    if any(r < 0 for r in counts):
        raise error(f"tile: reps must not be negative, got {reps!r}")
    ndim = max(x.ndim, len(counts))
    counts = [1] * (ndim - len(counts)) + counts
    shape = [1] * (ndim - x.ndim) + list(x.shape)
    check_size("tile", [r * s for r, s in zip(counts, shape, strict=True)], x.dtype)
    paired = [v for r, s in zip(counts, shape, strict=True) for v in (r, s)]
    spread = lax.broadcast_in_dim(
        reshape(x, shape), paired, [2 * i + 1 for i in range(ndim)]
    )
    return reshape(spread, [r * s for r, s in zip(counts, shape, strict=True)])


def _split(x: Array, bounds: list[int], axis: int) -> list[Array]:
    n = x.shape[axis]
    edges = [0, *(min(max(b + n if b < 0 else b, 0), n) for b in bounds), n]
    return [
        _slice_axis(x, axis, lo, max(lo, hi)) for lo, hi in itertools.pairwise(edges)
    ]


def array_split(
    x: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0
) -> list[Array]:
    """Slices of `x` along `axis`: `k` sections (the first `n % k` one
    longer), or the parts between the given indices."""
    x = asarray(x)
    axis = normalize_axis(axis, x.ndim)
    if isinstance(indices_or_sections, int | np.integer):
        k, n = int(indices_or_sections), x.shape[axis]
        if k <= 0:
            raise error("array_split: the number of sections must be positive")
        sizes = [n // k + (i < n % k) for i in range(k)]
        return _split(x, np.cumsum(sizes)[:-1].tolist(), axis)
    return _split(x, int_list(indices_or_sections, "indices"), axis)


def split(
    x: ArrayLike, indices_or_sections: int | Sequence[int], axis: int = 0
) -> list[Array]:
    """As `array_split`, but `k` sections must be equal."""
    x = asarray(x)
    if isinstance(indices_or_sections, int | np.integer):
        n = x.shape[normalize_axis(axis, x.ndim)]
        if indices_or_sections <= 0 or n % int(indices_or_sections):
            raise error(
                f"split: {n} entries do not split into {indices_or_sections} equal "
                "sections (array_split allows unequal ones)"
            )
    return array_split(x, indices_or_sections, axis)


def roll(
    x: ArrayLike, shift: int | Sequence[int], axis: int | Sequence[int] | None = None
) -> Array:
    """Entries shifted by `shift` along `axis` (the flattened array if None),
    wrapping around: two slices joined."""
    x = asarray(x)
    if axis is None:
        return reshape(roll(reshape(x, (-1,)), shift, 0), x.shape)
    shifts, axes = int_list(shift, "shift"), int_list(axis, "axis")
    if len(shifts) == 1:
        shifts = shifts * len(axes)
    if len(axes) == 1:
        axes = axes * len(shifts)
    if len(shifts) != len(axes):
        raise error(f"roll: {len(shifts)} shifts for {len(axes)} axes")
    for s, a in zip(shifts, axes, strict=True):
        a = normalize_axis(a, x.ndim)
        n = x.shape[a]
        if n and s % n:
            k = n - s % n
            tail, head = _slice_axis(x, a, k, n), _slice_axis(x, a, 0, k)
            x = lax.concatenate([tail, head], a)
    return x


def diagonal(x: ArrayLike, offset: int = 0, axis1: int = 0, axis2: int = 1) -> Array:
    """The `offset` diagonal of the (axis1, axis2) planes, as a last axis:
    the two axes moved last and flattened, then one strided slice."""
    x = asarray(x)
    if x.ndim < 2:
        raise error(f"diagonal needs an array of 2 or more dims, got {x.ndim}")
    a, b = normalize_axis(axis1, x.ndim), normalize_axis(axis2, x.ndim)
    if a == b:
        raise error("diagonal: axis1 and axis2 cannot be the same")
    rest = [i for i in range(x.ndim) if i not in (a, b)]
    n, m = x.shape[a], x.shape[b]
    flat = reshape(transpose(x, [*rest, a, b]), [*(x.shape[i] for i in rest), n * m])
    if offset >= 0:
        count, start = max(0, min(n, m - offset)), offset
    else:
        count, start = max(0, min(n + offset, m)), -offset * m
    if count == 0:
        return _slice_axis(flat, flat.ndim - 1, 0, 0)
    return _slice_axis(
        flat, flat.ndim - 1, start, start + (count - 1) * (m + 1) + 1, m + 1
    )


def diag(v: ArrayLike, k: int = 0) -> Array:
    """The `k` diagonal of a 2-D array, or a square matrix with a 1-D array
    on its `k` diagonal (one `grad.pad` with interior padding)."""
    v = asarray(v)
    if v.ndim == 2:
        return diagonal(v, k)
    if v.ndim != 1:
        raise error(f"diag needs a 1-D or 2-D array, got {v.ndim} dims")
    length = v.shape[0]
    n = length + abs(k)
    check_size("diag", (n, n), v.dtype)
    if length == 0:
        return full((n, n), 0, v.dtype)
    start = k if k >= 0 else -k * n
    high = n * n - start - (length - 1) * (n + 1) - 1
    return reshape(lax.pad(v, [start], [high], [n], 0), (n, n))


def trace(
    x: ArrayLike,
    offset: int = 0,
    axis1: int = 0,
    axis2: int = 1,
    dtype: object = None,
) -> Array:
    """The sum of the `offset` diagonal."""
    return sum(diagonal(x, offset, axis1, axis2), -1, dtype)  # pyright: ignore[reportArgumentType]


def meshgrid(
    *xs: ArrayLike, indexing: str = "xy", sparse: bool = False, copy: bool = True
) -> list[Array]:
    """Coordinate arrays: each 1-D input reshaped along its own axis and
    broadcast (`xy` swaps the first two axes, as NumPy)."""
    if indexing not in ("xy", "ij"):
        raise error(f"meshgrid: indexing must be 'xy' or 'ij', not {indexing!r}")
    arrays = [reshape(asarray(x), (-1,)) for x in xs]
    shape = [x.shape[0] for x in arrays]
    axes = list(range(len(arrays)))
    if indexing == "xy" and len(arrays) > 1:
        shape[0], shape[1] = shape[1], shape[0]
        axes[0], axes[1] = 1, 0
    result = []
    for x, a in zip(arrays, axes, strict=True):
        own = [1] * len(arrays)
        own[a] = x.shape[0]
        placed = reshape(x, own)
        result.append(placed if sparse else broadcast_to(placed, shape))
    return result


COPYING_PAD_MODES = ("reflect", "symmetric", "edge", "wrap")


def pad_by_indices(x: Array, widths: np.ndarray, mode: str) -> Array:
    """`numpy.pad` in a mode that copies entries (`reflect`, `symmetric`,
    `edge`, `wrap`): NumPy pads the indices 0..n-1 of each axis, and the
    padded indices are taken with `take_static`."""
    for axis, (low, high) in enumerate(widths.tolist()):
        if low or high:
            n = x.shape[axis]
            try:
                indices = np.pad(np.arange(n), (low, high), mode=mode)  # pyright: ignore[reportArgumentType, reportCallIssue]
            except ValueError as complaint:
                raise error(f"pad: {complaint}") from None
            x = take_static(x, indices, axis)
    return x
