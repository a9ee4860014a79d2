"""Indexing with integer arrays and sorting (SPEC §9), on `grad.gather`,
`grad.scatter_add`, `grad.iota` and `grad.argsort`, with JAX's names and
signatures: `x[idx]` and `x[:, idx]`, `take`, `take_along_axis`,
`x.at[idx].set/add/multiply/get`, `sort`, `argsort`, `top_k`, `tril`, `triu`,
and the O(1) ranges (`iota`, `arange`) that `one_hot` and `argmax` use.

Indices are normalized as NumPy and JAX normalize them: a negative index
counts from the end. A static index (a Python int, list or NumPy array)
outside the axis is a located error at trace time, as NumPy's `IndexError`;
a traced one is a run-time error naming the op and the line (NumPy raises
too; JAX clamps a gather and drops a scatter's update silently, which
gradopt does not do). `take(mode="clip"|"wrap")` clamps or wraps instead.
"""

from __future__ import annotations

import builtins
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from gradopt.dialect.types import I32_MAX
from gradopt.frontend import lax
from gradopt.frontend.array import (
    BOOL,
    FLOAT32,
    INT32,
    Array,
    ArrayLike,
    broadcast_shapes,
)
from gradopt.frontend.control_flow import fori_loop
from gradopt.frontend.indexing import _is_index
from gradopt.frontend.indexing import getitem as basic_getitem
from gradopt.frontend.lax_numpy import (
    asarray,
    astype,
    broadcast_to,
    constant,
    full,
    normalize_axis,
    reshape,
)
from gradopt.frontend.limits import check_size
from gradopt.frontend.reductions import max as amax
from gradopt.frontend.scan import cummax
from gradopt.frontend.trace import error
from gradopt.frontend.ufuncs import (
    add,
    equal,
    less,
    less_equal,
    maximum,
    minimum,
    multiply,
    not_equal,
    remainder,
    subtract,
    where,
)

F32_EXACT = 2**24
"""Integers up to this size are exact in float32."""


# --- ranges -------------------------------------------------------------------


def iota(dtype: np.dtype, shape: Sequence[int], dimension: int = 0) -> Array:
    """Each element's index along `dimension`, O(1) in the trace whatever the
    shape (JAX's `lax.broadcasted_iota`); float32 beyond 2^24 is the int32
    index rounded to nearest, as NumPy's conversion rounds it."""
    shape = tuple(int(d) for d in shape)
    check_size("iota", shape, dtype)
    _check_int32("iota", shape[dimension])
    if dtype == FLOAT32 and shape[dimension] > F32_EXACT:
        return astype(lax.iota(INT32, shape, dimension), FLOAT32)
    if dtype == BOOL:
        return not_equal(lax.iota(INT32, shape, dimension), 0)
    return lax.iota(dtype, shape, dimension)


def integral_range(start: int, step: int, count: int, dtype: np.dtype) -> Array:
    """`start + step * iota(count)` in int32 (exact: the caller checked that
    every value fits), converted to `dtype`."""
    if dtype == BOOL:
        return not_equal(integral_range(start, step, count, INT32), 0)
    if (start, step) == (0, 1):
        return iota(dtype, (count,))
    values = iota(INT32, (count,))
    if step != 1:
        values = multiply(values, step)
    if start:
        values = add(values, start)
    return values if dtype == INT32 else astype(values, dtype)


def _check_int32(what: str, count: int) -> None:
    """Indices and positions are int32: `count` of them must fit."""
    if count - 1 > I32_MAX:
        raise error(
            f"{what}: {count} positions do not fit int32 indices (at most 2^31)"
        )


# --- indices ------------------------------------------------------------------


@dataclass(frozen=True)
class Index:
    """One integer-array index of an axis of size `size`, in range: `array`
    the traced int32 index, `static` its values when known at trace time."""

    array: Array
    static: np.ndarray | None


def _is_advanced(k: object) -> bool:
    """An integer array used as an index (NumPy's advanced indexing)."""
    return isinstance(k, Array | np.ndarray | list)


def index_array(k: object, size: int, axis: int, mode: str | None = None) -> Index:
    """`k` (a traced or static integer array) as an int32 index into an axis
    of `size`, negative indices counted from the end; with `mode` "clip" or
    "wrap", clamped or wrapped into the axis (see `_normalized`)."""
    if isinstance(k, Array):
        if k.dtype != INT32:
            raise error(
                f"an index array must hold integers, got {k.dtype}"
                + (" (boolean masks are not supported)" if k.dtype == BOOL else "")
            )
        return Index(_normalized(k, size, mode), None)
    values = np.asarray(k)
    if values.dtype == np.bool_:
        raise error("boolean index arrays are not supported (the result's shape "
                    "would depend on the data)")  # fmt: skip
    if values.size == 0:
        values = values.astype(np.int64)
    if values.dtype.kind not in "iu":
        raise error(f"an index array must hold integers, got {values.dtype}")
    if mode == "clip":
        values = np.clip(values, 0, builtins.max(size - 1, 0))
    elif mode == "wrap" and size:
        values = values % size
    if values.size and not ((-size <= values) & (values < size)).all():
        bad = values[(values < -size) | (values >= size)].flat[0]
        raise error(f"index {bad} is out of bounds for axis {axis} with size {size}")
    normalized = (values % builtins.max(size, 1)).astype(np.int32)
    return Index(constant(normalized), normalized)


def _normalized(k: Array, size: int, mode: str | None) -> Array:
    """As NumPy and JAX: "wrap" takes the index modulo the size, "clip"
    clamps it into `0 .. size - 1` (a negative index becomes 0), and
    otherwise a negative index counts from the end."""
    if mode == "wrap":
        return remainder(k, size)  # NumPy's sign: in 0 .. size - 1
    if mode == "clip":
        return minimum(maximum(k, 0), size - 1)
    return where(less(k, 0), add(k, size), k)


def _key_list(key: object) -> list[object]:
    return list(key) if isinstance(key, tuple) else [key]


def _advanced(x: Array, key: object) -> tuple[Array, Index, int] | None:
    """NumPy's advanced indexing with integer arrays (None without one): x
    indexed by the key's basic entries, its array-indexed axes merged into one
    axis at `target`; the arrays, broadcast together, as one index into that
    axis (row-major over the indexed axes); and `target`. As NumPy places the
    index's dims: where the first advanced entry (an array, or an int among
    arrays) is when the advanced entries are adjacent in the key, else first."""
    keys = _key_list(key)
    arrays = [n for n, k in enumerate(keys) if _is_advanced(k)]
    if not arrays:
        return None
    consumed = [k for k in keys if k is not None and k is not Ellipsis]
    if len(consumed) > x.ndim:
        raise error(f"too many indices for an array of dimension {x.ndim}")
    fill = x.ndim - len(consumed)
    grouped = [n for n, k in enumerate(keys) if n in arrays or _is_index(k)]
    adjacent = grouped == list(range(grouped[0], grouped[-1] + 1))
    source = axis = target = 0
    axes, sources = [], []
    for n, k in enumerate(keys):
        if n == grouped[0] and adjacent:
            target = axis
        if k is Ellipsis:
            source, axis = source + fill, axis + fill
        elif k is None:
            axis += 1
        elif _is_index(k):
            source += 1
        else:
            if n in arrays:
                axes.append(axis)
                sources.append(source)
            source, axis = source + 1, axis + 1
    basic = [slice(None) if n in arrays else k for n, k in enumerate(keys)]
    y = basic_getitem(x, tuple(basic))
    if not adjacent:
        rest = [d for d in range(y.ndim) if d not in axes]
        y = lax.transpose(y, [*axes, *rest])
    sizes = [x.shape[s] for s in sources]
    merged = int(np.prod(sizes))
    _check_int32("indexing", merged)
    y = reshape(y, (*y.shape[:target], merged, *y.shape[target + len(axes) :]))
    entries = [
        index_array(keys[n], size, s)
        for n, size, s in zip(arrays, sizes, sources, strict=True)
    ]
    return y, _combined(entries, sizes), target


def _combined(entries: list[Index], sizes: list[int]) -> Index:
    """The row-major position over axes of `sizes` that the indices (each in
    range of its axis) name together, broadcast as NumPy broadcasts them."""
    if len(entries) == 1:
        return entries[0]
    try:
        shape = np.broadcast_shapes(*(e.array.shape for e in entries))
    except ValueError:
        shapes = " ".join(str(e.array.shape) for e in entries)
        raise error(
            f"shape mismatch: indexing arrays could not be broadcast together "
            f"with shapes {shapes}"
        ) from None
    strides = [int(np.prod(sizes[n + 1 :])) for n in range(len(sizes))]
    statics = [e.static for e in entries]
    if all(s is not None for s in statics):
        total = sum(
            np.broadcast_to(s, shape).astype(np.int64) * stride
            for s, stride in zip(statics, strides, strict=True)
            if s is not None
        )
        values = np.asarray(total, np.int32).reshape(shape)
        return Index(constant(values), values)
    terms = [
        multiply(broadcast_to(e.array, shape), stride) if stride != 1 else
        broadcast_to(e.array, shape)
        for e, stride in zip(entries, strides, strict=True)
    ]  # fmt: skip
    total = terms[0]
    for term in terms[1:]:
        total = add(total, term)
    return Index(total, None)


def getitem(x: Array, key: object) -> Array:
    """NumPy's indexing: basic indexing (`gradopt.frontend.indexing`) and
    integer arrays among the entries (`x[idx]`, `x[:, i, j]`, `x[i, :, j]`,
    `x[..., idx, 0]`), as NumPy's advanced indexing: one `grad.gather` from
    the indexed axes merged into one."""
    advanced = _advanced(x, key)
    if advanced is None:
        return basic_getitem(x, key)
    y, index, target = advanced
    return lax.gather(y, index.array, target)


def take(
    a: ArrayLike,
    indices: ArrayLike,
    axis: int | None = None,
    out: None = None,
    mode: str | None = None,
) -> Array:
    """`numpy.take`: elements of `a` (flattened if `axis` is None) at
    `indices` along `axis`. `mode` None or "raise" refuses indices outside
    the axis (at trace time if static, at run time otherwise), "clip" clamps
    them, "wrap" wraps them; JAX's "fill" is not supported."""
    if out is not None:
        raise error("take: out= is not supported (arrays are immutable)")
    if mode not in (None, "raise", "clip", "wrap"):
        raise error(f"take: mode must be None, 'raise', 'clip' or 'wrap', got {mode!r}")
    x = asarray(a)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    axis = normalize_axis(axis, x.ndim)
    if mode in ("clip", "wrap") and x.shape[axis] == 0:
        raise error(f"take: cannot {mode} indices into an empty axis")
    indices = indices if isinstance(indices, Array) else np.asarray(indices)
    return lax.gather(x, index_array(indices, x.shape[axis], axis, mode).array, axis)


def _rows(shape: Sequence[int], axis: int) -> Array:
    """For each element of `shape`, the number of its row when the array is
    read with `axis` moved last and the other dims flattened (int32)."""
    batch = [d for n, d in enumerate(shape) if n != axis]
    rows = 1
    for d in batch:
        rows *= d
    flat = reshape(iota(INT32, (rows, shape[axis]), 0), (*batch, shape[axis]))
    return _move_last_back(flat, axis)


def _move_last(x: Array, axis: int) -> Array:
    perm = [n for n in range(x.ndim) if n != axis] + [axis]
    return x if perm == list(range(x.ndim)) else lax.transpose(x, perm)


def _move_last_back(x: Array, axis: int) -> Array:
    perm = list(range(x.ndim - 1))
    perm.insert(axis, x.ndim - 1)
    return x if perm == list(range(x.ndim)) else lax.transpose(x, perm)


def take_along_axis(arr: ArrayLike, indices: ArrayLike, axis: int | None) -> Array:
    """`numpy.take_along_axis`: `result[..., j, ...] = arr[..., indices[..., j,
    ...], ...]` along `axis`, the other dims broadcast between the two; one
    `gather` from the flattened array at `row * size + index`."""
    x = asarray(arr)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
        indices = reshape(indices, (-1,)) if isinstance(indices, Array) else (
            np.asarray(indices).reshape(-1)
        )  # fmt: skip
    axis = normalize_axis(axis, x.ndim)
    size = x.shape[axis]
    idx = index_array(indices, size, axis).array
    if idx.ndim != x.ndim:
        raise error(
            f"take_along_axis: indices must have the array's rank ({x.ndim}), "
            f"got {idx.ndim}"
        )
    batch = broadcast_shapes(
        tuple(1 if n == axis else d for n, d in enumerate(x.shape)),
        tuple(1 if n == axis else d for n, d in enumerate(idx.shape)),
    )
    x = broadcast_to(x, tuple(size if n == axis else d for n, d in enumerate(batch)))
    idx = broadcast_to(
        idx, tuple(idx.shape[axis] if n == axis else d for n, d in enumerate(batch))
    )
    _check_int32("take_along_axis", x.size)
    flat = add(multiply(_rows(idx.shape, axis), size), idx)
    return lax.gather(reshape(_move_last(x, axis), (-1,)), flat, 0)


# --- sorting ------------------------------------------------------------------


def _sortable(a: ArrayLike, axis: int | None) -> tuple[Array, int]:
    x = asarray(a)
    if axis is None:
        x, axis = reshape(x, (-1,)), 0
    if x.ndim == 0:
        raise error("cannot sort a 0-d array along an axis")
    return (astype(x, INT32) if x.dtype == BOOL else x), normalize_axis(axis, x.ndim)


def _order(x: Array, axis: int, descending: bool) -> Array:
    """The stable order along `axis`; descending keeps equal elements in
    their order too (the ascending order of the reversed array, reversed
    and mapped back, as JAX computes it), so NaN comes first."""
    if not descending:
        return lax.argsort(x, axis)
    last = x.shape[axis] - 1
    order = lax.rev(lax.argsort(lax.rev(x, [axis]), axis), [axis])
    return subtract(last, order)


def argsort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: str | None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
) -> Array:
    """`jax.numpy.argsort`: always stable (NumPy's `kind="stable"`), NaN
    last (first when descending); `kind` is accepted and ignored, as JAX."""
    if order is not None:
        raise error("argsort: order= (structured arrays) is not supported")
    x, axis = _sortable(a, axis)
    return _order(x, axis, descending)


def sort(
    a: ArrayLike,
    axis: int | None = -1,
    *,
    kind: str | None = None,
    order: None = None,
    stable: bool = True,
    descending: bool = False,
) -> Array:
    """`jax.numpy.sort`: the elements in `argsort`'s order, gathered; the
    gradient goes back through the permutation (a `scatter_add`)."""
    if order is not None:
        raise error("sort: order= (structured arrays) is not supported")
    x = asarray(a)
    values, axis = _sortable(x, axis)
    result = take_along_axis(values, _order(values, axis, descending), axis)
    return astype(result, BOOL) if x.dtype == BOOL else result


def top_k(operand: ArrayLike, k: int) -> tuple[Array, Array]:
    """`jax.lax.top_k`: the `k` largest entries along the last axis, largest
    first (equal ones in index order, NaN first), and their indices."""
    x = asarray(operand)
    if x.ndim == 0:
        raise error("top_k: the operand must have at least one dim")
    k = int(k)
    if not 0 <= k <= x.shape[-1]:
        raise error(f"top_k: k must be in [0, {x.shape[-1]}], got {k}")
    values, axis = _sortable(x, -1)
    full_order = _order(values, axis, descending=True)
    shape = list(x.shape)
    limit = [*shape[:-1], k]
    indices = lax.slice(full_order, [0] * x.ndim, limit, [1] * x.ndim)
    return take_along_axis(x, indices, -1), indices


# --- triangles ----------------------------------------------------------------


def _triangle(m: ArrayLike, k: int, lower: bool) -> Array:
    x = asarray(m)
    if x.ndim < 2:
        raise error(f"{'tril' if lower else 'triu'} needs an array of rank 2 or more")
    shape = x.shape[-2:]
    diagonal = subtract(iota(INT32, shape, 1), iota(INT32, shape, 0))
    keep = less_equal(diagonal, k) if lower else less_equal(k, diagonal)
    return where(keep, x, 0)


def tril(m: ArrayLike, k: int = 0) -> Array:
    """`numpy.tril`: zeros above diagonal k (from `iota` comparisons)."""
    return _triangle(m, int(k), True)


def triu(m: ArrayLike, k: int = 0) -> Array:
    """`numpy.triu`: zeros below diagonal k."""
    return _triangle(m, int(k), False)


# --- x.at[idx] ----------------------------------------------------------------


class IndexUpdateHelper:
    """`x.at`: `x.at[idx]` names the elements that `x[idx]` would give."""

    __slots__ = ("array",)

    def __init__(self, array: Array) -> None:
        self.array = array

    def __getitem__(self, key: object) -> IndexUpdateRef:
        return IndexUpdateRef(self.array, key)


class IndexUpdateRef:
    """JAX's `x.at[idx]`: out-of-place updates of the elements `x[idx]`
    selects. Each update gives a new array of x's shape and dtype; repeated
    indices accumulate for `add` and `multiply` (in index order) and the last
    one wins for `set`, as in NumPy's `x[idx] = v`."""

    __slots__ = ("array", "key")

    def __init__(self, array: Array, key: object) -> None:
        self.array, self.key = array, key

    def get(self) -> Array:
        return getitem(self.array, self.key)

    def set(self, values: ArrayLike) -> Array:
        return self._update("set", values)

    def add(self, values: ArrayLike) -> Array:
        return self._update("add", values)

    def multiply(self, values: ArrayLike) -> Array:
        return self._update("multiply", values)

    def _positions(self) -> tuple[Array, np.ndarray | None, bool]:
        """The flat positions in x of the selected elements (int32, the shape
        of `x[idx]`); for static integer-array indices, the round of each
        (how many earlier entries of the index name the same element, laid
        out like the positions); whether a position may repeat."""
        x = self.array
        _check_int32("x.at[...]", x.size)
        flat = reshape(iota(INT32, (x.size,), 0), x.shape)
        advanced = _advanced(flat, self.key)
        if advanced is None:
            return basic_getitem(flat, self.key), None, False
        y, index, target = advanced
        positions = lax.gather(y, index.array, target)
        if index.static is None:
            return positions, None, True
        rounds = _occurrences(index.static)
        after = positions.ndim - target - index.static.ndim
        placed = rounds.reshape((1,) * target + index.static.shape + (1,) * after)
        return positions, np.broadcast_to(placed, positions.shape), bool(rounds.any())

    def _update(self, how: str, values: ArrayLike) -> Array:
        x = self.array
        positions, rounds, repeats = self._positions()
        data = x if x.dtype != BOOL else astype(x, INT32)
        v = astype(broadcast_to(asarray(values), positions.shape), data.dtype)
        flat_x = reshape(data, (x.size,))
        where_to = reshape(positions, (-1,))
        flat_v = reshape(v, (-1,))
        if how == "add":
            result = lax.scatter_add(flat_x, where_to, flat_v, 0)
        elif how == "set":
            result = _set(flat_x, where_to, flat_v, repeats)
        elif rounds is not None and repeats:
            result = _multiply_rounds(flat_x, where_to, flat_v, rounds.reshape(-1))
        elif repeats:
            result = _multiply_traced(flat_x, where_to, flat_v)
        else:
            result = multiply(flat_x, _set(full((x.size,), 1, data.dtype), where_to,
                                           flat_v, False))  # fmt: skip
        result = reshape(result, x.shape)
        return result if x.dtype != BOOL else not_equal(result, 0)


def _set(flat_x: Array, where_to: Array, values: Array, repeats: bool) -> Array:
    """flat_x with `values` written at `where_to`, the last of repeated
    positions winning: the values are added onto -0.0 (which keeps every
    value's bits, -0.0 too) after the others at a repeated position are made
    -0.0, and `where` keeps x where nothing was written."""
    size, count = flat_x.size, where_to.size
    filler = -0.0 if flat_x.dtype == FLOAT32 else 0
    if repeats and count:
        values = where(_last_occurrence(where_to), values, filler)
    written = lax.scatter_add(full((size,), filler, flat_x.dtype), where_to, values, 0)
    hits = lax.scatter_add(full((size,), 0, INT32), where_to, full((count,), 1), 0)
    return where(not_equal(hits, 0), written, flat_x)


def _sorted_runs(where_to: Array) -> tuple[Array, Array]:
    """The stable sort order of `where_to`, and whether each sorted value
    differs from the next (the ends of its runs of equal values)."""
    count = where_to.size
    order = lax.argsort(where_to, 0)
    ordered = lax.gather(where_to, order, 0)
    following = lax.slice(ordered, [1], [count], [1])
    return order, not_equal(lax.slice(ordered, [0], [count - 1], [1]), following)


def _last_occurrence(where_to: Array) -> Array:
    """Whether each position is the last occurrence of its value (bool):
    in the stable sort order, where the next sorted value differs."""
    count = where_to.size
    order, differs = _sorted_runs(where_to)
    last = lax.concatenate([astype(differs, INT32), full((1,), 1)], 0)
    unsorted = lax.scatter_add(full((count,), 0, INT32), order, last, 0)
    return not_equal(unsorted, 0)


def _occurrences(index: np.ndarray) -> np.ndarray:
    """For each entry of a static index, how many earlier entries (row-major)
    have its value."""
    flat = index.reshape(-1)
    order = np.argsort(flat, kind="stable")
    ordered = flat[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    run_start = np.repeat(starts, np.diff(np.r_[starts, flat.size]))
    rounds = np.empty(flat.size, np.int64)
    rounds[order] = np.arange(flat.size) - run_start
    return rounds.reshape(index.shape)


def _multiply_rounds(
    flat_x: Array, where_to: Array, values: Array, rounds: np.ndarray
) -> Array:
    """Repeated static indices: one multiply per round, round r taking the
    r-th occurrence of each element, so repeated factors apply in index
    order."""
    result = flat_x
    for r in range(int(rounds.max(initial=-1)) + 1):
        chosen = constant(np.flatnonzero(rounds == r).astype(np.int32))
        factors = _set(
            full((flat_x.size,), 1, flat_x.dtype),
            lax.gather(where_to, chosen, 0),
            lax.gather(values, chosen, 0),
            False,
        )
        result = multiply(result, factors)
    return result


def _traced_occurrences(where_to: Array) -> Array:
    """`_occurrences` of a traced index (int32): each entry's place in its
    run of equal positions in the stable sort order."""
    count = where_to.size
    order, differs = _sorted_runs(where_to)
    places = lax.iota(INT32, (count,), 0)
    starts = lax.concatenate([full((1,), True), differs], 0)
    run_start = cummax(where(starts, places, 0))
    return lax.scatter_add(
        full((count,), 0, INT32), order, subtract(places, run_start), 0
    )


def _multiply_traced(flat_x: Array, where_to: Array, values: Array) -> Array:
    """Repeated traced indices: `_multiply_rounds` with the rounds counted
    at run time, one trip of a `fori_loop` per round (the same multiplies in
    the same order, so the same bits as the same index given statically)."""
    if where_to.size == 0:
        return flat_x
    rounds = _traced_occurrences(where_to)
    size, filler = flat_x.size, -0.0 if flat_x.dtype == FLOAT32 else 0

    def one_round(r: Array, result: Array) -> Array:
        chosen = equal(rounds, r)
        written = lax.scatter_add(
            full((size,), filler, flat_x.dtype),
            where_to,
            where(chosen, values, filler),
            0,
        )
        hits = lax.scatter_add(
            full((size,), 0, INT32), where_to, astype(chosen, INT32), 0
        )
        return multiply(result, where(not_equal(hits, 0), written, 1))

    return fori_loop(0, add(amax(rounds), 1), one_round, flat_x)
