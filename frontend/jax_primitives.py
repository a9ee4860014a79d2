"""The rules of `from_jax` for JAX's structured primitives: scans, sorting,
dynamic slices, gathers and scatters, convolutions and windowed reductions.

Each maps one JAX equation onto the front end's own functions (`grad.gather`,
`grad.scatter_add`, `grad.argsort`, the log-depth scans, `conv2d`), so that
the derivative is gradopt's. Indices follow XLA's semantics, not NumPy's:
start indices of dynamic slices are clamped so the slice fits, a gather's
indices are clamped (or, in `FILL_OR_DROP` mode, out-of-range ones give the
fill value) and a scatter drops the updates at indices out of range (or
clamps them in `CLIP` mode). Every gather and scatter is supported: those
of whole axes at integer indices (`x[idx]`, `x[:, idx]`, `x[i, j]`,
`take_along_axis`, `x.at[idx]`) as one `grad.gather` or `grad.scatter_add`
of the indexed axes, any other (windows at indices: `x[1:, idx]`,
`x.at[idx, :2]`, a vmapped `dynamic_slice`) as one of the flattened operand
at every element's position.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from gradopt.frontend import lax
from gradopt.frontend import numpy as gnp
from gradopt.frontend.array import BOOL, FLOAT32, INT32, Array, canonical_dtype
from gradopt.frontend.convolution import conv
from gradopt.frontend.indexing import getitem as basic_getitem
from gradopt.frontend.lax_numpy import asarray, floating
from gradopt.frontend.selection import IndexUpdateRef, iota, take_along_axis
from gradopt.frontend.trace import error

Value = Array | np.ndarray


def _cumulative(f: Callable[..., Array]) -> Callable[..., Array]:
    return lambda params, x: f(x, axis=int(params["axis"]), reverse=params["reverse"])


def _round(params: dict, x: Value) -> Array:
    """`lax.round`: method 0 rounds half away from zero, 1 half to even."""
    if int(params["rounding_method"]) == 1:
        return gnp.round(x)
    d = gnp.stop_gradient(floating(x))
    t = gnp.trunc(d)
    away = gnp.greater_equal(gnp.absolute(gnp.subtract(d, t)), 0.5)
    return gnp.where(away, gnp.add(t, gnp.sign(d)), t)


def _iota(params: dict) -> Array:
    """`grad.iota`: O(1) whatever the shape."""
    return iota(canonical_dtype(params["dtype"]), params["shape"], params["dimension"])


def _permute(x: Array, perm: Sequence[int]) -> Array:
    return x if list(perm) == list(range(x.ndim)) else gnp.transpose(x, perm)


def _moved_last(axis: int, ndim: int) -> list[int]:
    return [d for d in range(ndim) if d != axis] + [axis]


def _sort(params: dict, *operands: Value) -> list[Array]:
    """`lax.sort`: every operand in the stable ascending order of the first
    (JAX's `argsort` sorts the key with an `iota`); NaN last."""
    if int(params["num_keys"]) != 1:
        raise error(
            f"from_jax: 'sort' with {params['num_keys']} keys is not supported "
            "(only one key)"
        )
    xs = [asarray(x) for x in operands]
    dim = int(params["dimension"])
    key = xs[0] if xs[0].dtype != BOOL else gnp.astype(xs[0], INT32)
    order = lax.argsort(key, dim)
    return [
        gnp.astype(take_along_axis(gnp.astype(x, INT32), order, dim), BOOL)
        if x.dtype == BOOL
        else take_along_axis(x, order, dim)
        for x in xs
    ]


def _top_k(params: dict, x: Value) -> list[Array]:
    """`lax.top_k` along `axis` (the last one unless JAX says otherwise)."""
    x = asarray(x)
    axis = int(params.get("axis", -1)) % max(x.ndim, 1)
    perm = _moved_last(axis, x.ndim)
    values, indices = gnp.top_k(_permute(x, perm), int(params["k"]))
    back = list(np.argsort(perm))
    return [_permute(values, back), _permute(indices, back)]


def _clamped_start(start: Value, size: int, limit: int) -> Value:
    """A start index clamped into `0 .. limit - size`, as XLA clamps it."""
    if isinstance(start, np.ndarray):
        return np.asarray(min(max(int(start), 0), limit - size), np.int32)
    return gnp.clip(gnp.astype(start, INT32), 0, limit - size)


def _dynamic_slice(params: dict, x: Value, *starts: Value) -> Array:
    """`lax.dynamic_slice`: a static start is a `slice`; a traced one a
    `gather` of `start + iota(size)` along its axis."""
    x = asarray(x)
    sizes = [int(s) for s in params["slice_sizes"]]
    for axis, (start, size) in enumerate(zip(starts, sizes, strict=True)):
        start = _clamped_start(start, size, x.shape[axis])
        if isinstance(start, np.ndarray):
            begin = [int(start) if d == axis else 0 for d in range(x.ndim)]
            limit = [
                int(start) + size if d == axis else n for d, n in enumerate(x.shape)
            ]
            if begin != [0] * x.ndim or limit != list(x.shape):
                x = lax.slice(x, begin, limit, [1] * x.ndim)
        else:
            x = lax.gather(x, gnp.add(iota(INT32, (size,)), start), axis)
    return x


def _dynamic_update_slice(
    params: dict, x: Value, update: Value, *starts: Value
) -> Array:
    """`lax.dynamic_update_slice`: along each axis, the update gathered at
    `i - start` (clamped), kept where every axis's position is inside it."""
    x, update = asarray(x), asarray(update)
    spread, inside = update, None
    for axis, (start, size) in enumerate(zip(starts, update.shape, strict=True)):
        start = _clamped_start(start, size, x.shape[axis])
        offset = gnp.subtract(iota(INT32, (x.shape[axis],)), start)
        spread = lax.gather(spread, gnp.clip(offset, 0, size - 1), axis)
        hit = gnp.logical_and(gnp.greater_equal(offset, 0), gnp.less(offset, size))
        hit = gnp.reshape(hit, [-1 if d == axis else 1 for d in range(x.ndim)])
        inside = hit if inside is None else gnp.logical_and(inside, hit)
    return spread if inside is None else gnp.where(inside, spread, x)


def _mode(params: dict) -> str:
    return getattr(params.get("mode"), "name", str(params.get("mode")))


def _refuse(what: str, numbers: Any) -> Exception:
    return error(
        f"from_jax: '{what}' with dimension numbers {numbers} is not supported "
        "(only integer indices of whole axes, as x[idx], x[:, idx], x[i, j], "
        "take, take_along_axis and x.at[idx] make)"
    )


def _index_axis(
    numbers: Any, mapped: Sequence[int], collapsed: Sequence[int], what: str
) -> int:
    """The one operand axis that a gather's or scatter's index selects."""
    mapped = tuple(mapped)
    if len(mapped) != 1 or tuple(collapsed) != mapped:
        raise _refuse(what, numbers)
    return int(mapped[0])


def _index(indices: Value, what: str, numbers: Any) -> Array:
    """The index array without its trailing index-vector dim of size 1."""
    indices = asarray(indices)
    if indices.ndim == 0 or indices.shape[-1] != 1:
        raise _refuse(what, numbers)
    return gnp.astype(gnp.reshape(indices, indices.shape[:-1]), INT32)


def _in_range(index: Array, size: int, clip: bool) -> tuple[Array, Array | None]:
    """`index` clamped into the axis, and (unless clamping is the semantics)
    whether each was in range."""
    clamped = gnp.clip(index, 0, max(size - 1, 0))
    if clip:
        return clamped, None
    return clamped, gnp.logical_and(gnp.greater_equal(index, 0), gnp.less(index, size))


def _fill(dtype: np.dtype, fill: Any) -> Any:
    if fill is not None:
        return fill
    if dtype == FLOAT32:
        return math.nan
    return True if dtype == BOOL else int(np.iinfo(np.int32).min)


def _several_axes(
    numbers: Any, mapped: Sequence[int], collapsed: Sequence[int], what: str
) -> list[int] | None:
    """The operand axes (in index-vector order) of a gather or scatter whose
    index vector has several entries, each for an axis it collapses (as
    `x[i, j]`, `x[i, :, j]` and `x.at[i, j]` make); None for one entry."""
    axes = [int(d) for d in mapped]
    if len(axes) < 2:
        return None
    if sorted(axes) != sorted(int(d) for d in collapsed) or len(set(axes)) < len(axes):
        raise _refuse(what, numbers)
    if tuple(numbers.operand_batching_dims):
        raise _refuse(what, numbers)
    return axes


def _merged(
    x: Array, axes: list[int], indices: Value, clip: bool, what: str, numbers: Any
) -> tuple[Array, Array, Array | None]:
    """x with `axes` moved first and merged into one; the row-major position
    in them that each index vector names (each entry clamped into its axis);
    and, unless clamping is the semantics, whether every entry was in range."""
    rest = [d for d in range(x.ndim) if d not in axes]
    merged = gnp.reshape(
        _permute(x, [*axes, *rest]),
        (math.prod(x.shape[d] for d in axes), *(x.shape[d] for d in rest)),
    )
    indices = asarray(indices)
    if indices.ndim == 0 or indices.shape[-1] != len(axes):
        raise _refuse(what, numbers)
    position, valid = None, None
    for k, axis in enumerate(axes):
        column = gnp.astype(basic_getitem(indices, (Ellipsis, k)), INT32)
        clamped, ok = _in_range(column, x.shape[axis], clip)
        stride = math.prod(x.shape[d] for d in axes[k + 1 :])
        term = clamped if stride == 1 else gnp.multiply(clamped, stride)
        position = term if position is None else gnp.add(position, term)
        if ok is not None:
            valid = ok if valid is None else gnp.logical_and(valid, ok)
    assert position is not None
    return merged, position, valid


def _gather_several(params: dict, x: Array, indices: Value, axes: list[int]) -> Array:
    """A gather of several collapsed axes: one `grad.gather` of the merged
    axes, its offset dims (x's other dims, in order) placed as JAX says."""
    numbers = params["dimension_numbers"]
    sizes = [int(s) for s in params["slice_sizes"]]
    if sizes != [1 if d in axes else n for d, n in enumerate(x.shape)]:
        raise _refuse("gather", numbers)
    clip = _mode(params) != "FILL_OR_DROP"
    merged, position, valid = _merged(x, axes, indices, clip, "gather", numbers)
    taken = lax.gather(merged, position, 0)
    offsets, batch = list(numbers.offset_dims), iter(range(position.ndim))
    perm = [
        position.ndim + offsets.index(p) if p in offsets else next(batch)
        for p in range(taken.ndim)
    ]
    result = _permute(taken, perm)
    if valid is None:
        return result
    shape = iter(position.shape)
    valid = gnp.reshape(valid, [1 if p in offsets else next(shape)
                                for p in range(result.ndim)])  # fmt: skip
    return gnp.where(valid, result, _fill(x.dtype, params.get("fill_value")))


def _window_positions(
    x: Array,
    shape: list[int],
    indices: Array,
    mapped: list[int],
    places: list[int],
    windows: dict[int, int],
    sizes: list[int],
    batched: dict[int, int],
) -> tuple[Array, Array]:
    """For an array of `shape` laid over windows of x at the starts that
    `indices` gives (a gather's result, a scatter's updates): the flat
    position in x of each element, its window's start clamped so that the
    window fits, and whether each start was in range. `places`: where the
    index batch dims lie in `shape`; `windows`: the place of each operand
    dim that a window spans; `batched`: the index batch dim of each operand
    batching dim."""
    layout = [shape[p] if p in places else 1 for p in range(len(shape))]
    position, valid = None, None
    for d in range(x.ndim):
        index = None
        if d in mapped:
            start = gnp.astype(
                basic_getitem(indices, (Ellipsis, mapped.index(d))), INT32
            )
            highest = x.shape[d] - sizes[d]
            index = gnp.reshape(gnp.clip(start, 0, highest), layout)
            inside = gnp.logical_and(gnp.greater_equal(start, 0), start <= highest)
            valid = inside if valid is None else gnp.logical_and(valid, inside)
        if d in batched:
            index = iota(INT32, shape, places[batched[d]])
        elif d in windows and sizes[d] > 1:
            step = iota(INT32, shape, windows[d])
            index = step if index is None else gnp.add(index, step)
        if index is not None:
            stride = math.prod(x.shape[d + 1 :])
            term = index if stride == 1 else gnp.multiply(index, stride)
            position = term if position is None else gnp.add(position, term)
    position = gnp.zeros(shape, INT32) if position is None else position
    valid = gnp.full(layout, True) if valid is None else gnp.reshape(valid, layout)
    return gnp.broadcast_to(position, shape), valid


def _gather_windows(params: dict, x: Array, indices: Value) -> Array:
    """Any `lax.gather`, as XLA defines it (slices of `slice_sizes` at
    clamped starts, as `x[1:, idx]`, `x[idx, 2:5]` and a vmapped
    `dynamic_slice` make): one `grad.gather` of the flattened x at the flat
    position of every result element."""
    numbers = params["dimension_numbers"]
    sizes = [int(s) for s in params["slice_sizes"]]
    offsets, batching = list(numbers.offset_dims), list(numbers.operand_batching_dims)
    indices = asarray(indices)
    if indices.ndim == 0 or indices.shape[-1] != len(numbers.start_index_map):
        raise _refuse("gather", numbers)
    spanned = [
        d
        for d in range(x.ndim)
        if d not in numbers.collapsed_slice_dims and d not in batching
    ]
    rank = indices.ndim - 1 + len(spanned)
    places = [p for p in range(rank) if p not in offsets]
    shape = [0] * rank
    for p, n in zip(places, indices.shape[:-1], strict=True):
        shape[p] = n
    for p, d in zip(offsets, spanned, strict=True):
        shape[p] = sizes[d]
    pairs = zip(batching, numbers.start_indices_batching_dims, strict=True)
    position, valid = _window_positions(
        x,
        shape,
        indices,
        list(numbers.start_index_map),
        places,
        dict(zip(spanned, offsets, strict=True)),
        sizes,
        {int(d): int(e) for d, e in pairs},
    )
    taken = lax.gather(gnp.reshape(x, (-1,)), position, 0)
    if _mode(params) != "FILL_OR_DROP":
        return taken
    return gnp.where(valid, taken, _fill(x.dtype, params.get("fill_value")))


def _scatter_windows(
    how: str, params: dict, x: Array, indices: Value, updates: Value
) -> Array:
    """Any `lax.scatter`, as XLA defines it (windows of updates at starts,
    as `x.at[idx, :2]` and a vmapped `dynamic_update_slice` make): `x.at`
    of the flattened x at the flat position of every update element, a
    window whose start is out of range sent to an extra slot past the end
    (or clamped into range in `CLIP` mode)."""
    numbers = params["dimension_numbers"]
    indices, updates = asarray(indices), asarray(updates)
    windows, batching = (
        list(numbers.update_window_dims),
        list(numbers.operand_batching_dims),
    )
    spanned = [
        d
        for d in range(x.ndim)
        if d not in numbers.inserted_window_dims and d not in batching
    ]
    mapped = list(numbers.scatter_dims_to_operand_dims)
    if len(spanned) != len(windows) or indices.ndim == 0:
        raise _refuse("scatter", numbers)
    if indices.shape[-1] != len(mapped):
        raise _refuse("scatter", numbers)
    sizes = [1] * x.ndim
    for d, p in zip(spanned, windows, strict=True):
        sizes[d] = updates.shape[p]
    places = [p for p in range(updates.ndim) if p not in windows]
    pairs = zip(batching, numbers.scatter_indices_batching_dims, strict=True)
    position, valid = _window_positions(
        x,
        list(updates.shape),
        indices,
        mapped,
        places,
        dict(zip(spanned, windows, strict=True)),
        sizes,
        {int(d): int(e) for d, e in pairs},
    )
    flat = gnp.reshape(x, (-1,))
    if _mode(params) == "CLIP":
        return gnp.reshape(
            getattr(IndexUpdateRef(flat, (position,)), how)(updates), x.shape
        )
    padded = lax.pad(flat, [0], [1], [0], 0)
    position = gnp.where(valid, position, x.size)
    result = getattr(IndexUpdateRef(padded, (position,)), how)(updates)
    return gnp.reshape(lax.slice(result, [0], [x.size], [1]), x.shape)


def _whole_scatter(numbers: Any, x: Array, updates: Value) -> bool:
    """Whether a scatter writes whole axes at integer indices (one index per
    axis it inserts, each window the whole of x's other axes), which
    `_scatter` makes one `grad.scatter_add` of."""
    inserted = sorted(int(d) for d in numbers.inserted_window_dims)
    mapped = sorted(int(d) for d in numbers.scatter_dims_to_operand_dims)
    if mapped != inserted or tuple(numbers.operand_batching_dims):
        return False
    kept = [x.shape[d] for d in range(x.ndim) if d not in inserted]
    return [np.shape(updates)[p] for p in numbers.update_window_dims] == kept


def _whole_axes(params: dict, x: Array, indices: Value) -> bool:
    """Whether a gather takes whole axes at integer indices (what `_gather`
    makes one `grad.gather` of): one index per collapsed axis, or one index
    along one axis batched as `take_along_axis` makes it."""
    numbers = params["dimension_numbers"]
    sizes = [int(s) for s in params["slice_sizes"]]
    collapsed = sorted(int(d) for d in numbers.collapsed_slice_dims)
    mapped = sorted(int(d) for d in numbers.start_index_map)
    batching = [int(d) for d in numbers.operand_batching_dims]
    taken = [1 if d in collapsed or d in batching else n for d, n in enumerate(x.shape)]
    if sizes != taken or mapped != collapsed:
        return False
    return not batching or (
        len(mapped) == 1
        and not numbers.offset_dims
        and len(batching) == x.ndim - 1
        and asarray(indices).ndim == x.ndim + 1
    )


def _gather(params: dict, x: Value, indices: Value) -> Array:
    """`lax.gather` of one index along one axis, as `grad.gather` (JAX's
    operand/index batching dims are `take_along_axis`), or of several
    collapsed axes (`_gather_several`), or of slices (`_gather_windows`)."""
    x, numbers = asarray(x), params["dimension_numbers"]
    if not _whole_axes(params, x, indices):
        return _gather_windows(params, x, indices)
    several = _several_axes(
        numbers, numbers.start_index_map, numbers.collapsed_slice_dims, "gather"
    )
    if several is not None:
        return _gather_several(params, x, indices, several)
    axis = _index_axis(
        numbers, numbers.start_index_map, numbers.collapsed_slice_dims, "gather"
    )
    index = _index(indices, "gather", numbers)
    sizes = [int(s) for s in params["slice_sizes"]]
    batching = tuple(numbers.operand_batching_dims)
    if sizes != [1 if d == axis or d in batching else n for d, n in enumerate(x.shape)]:
        raise _refuse("gather", numbers)
    mode = _mode(params)
    clamped, valid = _in_range(index, x.shape[axis], mode != "FILL_OR_DROP")
    if batching:
        if numbers.offset_dims or len(batching) != x.ndim - 1 or index.ndim != x.ndim:
            raise _refuse("gather", numbers)
        paired = dict(zip(batching, numbers.start_indices_batching_dims, strict=True))
        free = next(d for d in range(index.ndim) if d not in paired.values())
        perm = [paired.get(d, free) for d in range(x.ndim)]
        result = _permute(
            take_along_axis(x, _permute(clamped, perm), axis), list(np.argsort(perm))
        )
    else:
        taken = lax.gather(x, clamped, axis)
        offsets = list(numbers.offset_dims)
        order = [d for d in range(x.ndim) if d != axis]
        perm, batch = [], iter(range(axis, axis + index.ndim))
        for position in range(taken.ndim):
            if position in offsets:
                d = order[offsets.index(position)]
                perm.append(d if d < axis else d + index.ndim - 1)
            else:
                perm.append(next(batch))
        result = _permute(taken, perm)
        if valid is not None:
            sizes = iter(index.shape)
            valid = gnp.reshape(
                valid, [1 if p in offsets else next(sizes) for p in range(result.ndim)]
            )
    if valid is None:
        return result
    return gnp.where(valid, result, _fill(x.dtype, params.get("fill_value")))


def _scatter(how: str) -> Callable[..., Array]:
    """`lax.scatter` (`set`), `scatter-add` and `scatter-mul` of one index
    along one axis as `x.at[..., idx].set/add/multiply`; an out-of-range
    update goes to an extra slot past the end of the axis, cut off after."""

    def rule(params: dict, x: Value, indices: Value, updates: Value) -> Array:
        x, numbers = asarray(x), params["dimension_numbers"]
        if not _whole_scatter(numbers, x, updates):
            return _scatter_windows(how, params, x, indices, updates)
        several = _several_axes(
            numbers,
            numbers.scatter_dims_to_operand_dims,
            numbers.inserted_window_dims,
            "scatter",
        )
        if several is not None:
            return _scatter_several(how, params, x, indices, updates, several)
        axis = _index_axis(
            numbers,
            numbers.scatter_dims_to_operand_dims,
            numbers.inserted_window_dims,
            "scatter",
        )
        if tuple(numbers.operand_batching_dims):
            raise _refuse("scatter", numbers)
        index = _index(indices, "scatter", numbers)
        size = x.shape[axis]
        clamped, valid = _in_range(index, size, _mode(params) == "CLIP")
        if valid is not None:
            clamped = gnp.where(valid, clamped, size)
        windows = list(numbers.update_window_dims)
        updates = asarray(updates)
        scattered = [p for p in range(updates.ndim) if p not in windows]
        perm = windows[:axis] + scattered + windows[axis:]
        updates = _permute(updates, perm)
        if updates.shape != (*x.shape[:axis], *index.shape, *x.shape[axis + 1 :]):
            raise _refuse("scatter", numbers)
        low, high = [0] * x.ndim, [1 if d == axis else 0 for d in range(x.ndim)]
        padded = lax.pad(x, low, high, [0] * x.ndim, 0) if valid is not None else x
        ref = IndexUpdateRef(padded, (*[slice(None)] * axis, clamped))
        result = getattr(ref, how)(updates)
        if valid is None:
            return result
        return lax.slice(result, [0] * x.ndim, list(x.shape), [1] * x.ndim)

    return rule


def _scatter_several(
    how: str, params: dict, x: Array, indices: Value, updates: Value, axes: list[int]
) -> Array:
    """A scatter into several inserted axes: `x.at[position]` of the merged
    axes, an out-of-range update sent to an extra slot past their end."""
    numbers = params["dimension_numbers"]
    clip = _mode(params) == "CLIP"
    merged, position, valid = _merged(x, axes, indices, clip, "scatter", numbers)
    size = merged.shape[0]
    if valid is not None:
        position = gnp.where(valid, position, size)
    windows = list(numbers.update_window_dims)
    updates = asarray(updates)
    scattered = [p for p in range(updates.ndim) if p not in windows]
    updates = _permute(updates, scattered + windows)
    if updates.shape != (*position.shape, *merged.shape[1:]):
        raise _refuse("scatter", numbers)
    ndim = merged.ndim
    if valid is not None:
        merged = lax.pad(merged, [0] * ndim, [1] + [0] * (ndim - 1), [0] * ndim, 0)
    result = getattr(IndexUpdateRef(merged, (position,)), how)(updates)
    if valid is not None:
        result = lax.slice(result, [0] * ndim, [size, *result.shape[1:]], [1] * ndim)
    rest = [d for d in range(x.ndim) if d not in axes]
    moved = gnp.reshape(result, [x.shape[d] for d in [*axes, *rest]])
    return _permute(moved, list(np.argsort([*axes, *rest])))


def _spatial_pad(
    x: Array, padding: Sequence[Sequence[int]], dilation: Sequence[int], value: float
) -> Array:
    """The spatial dims (all but the first two) padded by `padding` (a
    negative amount crops) with `dilation - 1` interior entries."""
    pads = [(0, 0), (0, 0), *((int(lo), int(hi)) for lo, hi in padding)]
    interior = [0, 0, *(int(d) - 1 for d in dilation)]
    low, high = [max(lo, 0) for lo, _ in pads], [max(hi, 0) for _, hi in pads]
    if any(low + high + interior):
        x = lax.pad(x, low, high, interior, value)
    start = [-min(lo, 0) for lo, _ in pads]
    limit = [n + min(hi, 0) for n, (_, hi) in zip(x.shape, pads, strict=True)]
    if start != [0] * x.ndim or limit != list(x.shape):
        x = lax.slice(x, start, limit, [1] * x.ndim)
    return x


def _conv_general_dilated(params: dict, lhs: Value, rhs: Value) -> Array:
    """`lax.conv_general_dilated` as a channels-first convolution (1 spatial
    dim as `nn.conv2d` of height 1): both sides permuted to N, C, spatial /
    O, I, spatial, the input dilated and padded first."""
    lhs_spec, rhs_spec, out_spec = params["dimension_numbers"]
    if int(params.get("batch_group_count", 1)) != 1:
        raise error("from_jax: 'conv_general_dilated' with batch_group_count > 1 "
                    "is not supported")  # fmt: skip
    x, w = _permute(floating(lhs), lhs_spec), _permute(floating(rhs), rhs_spec)
    spatial = x.ndim - 2
    if spatial < 1:
        raise error("from_jax: 'conv_general_dilated' without spatial dims is not "
                    "supported")  # fmt: skip
    strides = list(params["window_strides"])
    dilation = list(params.get("rhs_dilation") or [1] * spatial)
    x = _spatial_pad(
        x, params["padding"], params.get("lhs_dilation") or [1] * spatial, 0.0
    )
    if spatial == 1:
        x, w = gnp.expand_dims(x, 2), gnp.expand_dims(w, 2)
        strides, dilation = [1, *strides], [1, *dilation]
    groups = int(params["feature_group_count"])
    out = conv(
        x, w, None, strides, 0, dilation, groups, x.ndim - 2, "conv_general_dilated"
    )
    if spatial == 1:
        out = gnp.squeeze(out, 2)
    out = _permute(out, list(np.argsort(out_spec)))
    preferred = params.get("preferred_element_type")
    return out if preferred is None else gnp.astype(out, canonical_dtype(preferred))


def _reduce_window(
    reduce: Callable[..., Array], identity: float
) -> Callable[..., Array]:
    """`reduce_window_*`: the input padded with the reduction's identity, one
    strided slice per window position, stacked on a new axis and reduced."""

    def rule(params: dict, x: Value) -> Array:
        x = asarray(x)
        window = [int(k) for k in params["window_dimensions"]]
        strides = [int(s) for s in params["window_strides"]]
        dilation = [int(d) for d in params["window_dilation"]]
        fill = identity if x.dtype == FLOAT32 else _integral_identity(identity)
        lifted = gnp.reshape(x, (1, 1, *x.shape))
        padded = _spatial_pad(lifted, params["padding"], params["base_dilation"], fill)
        padded = gnp.reshape(padded, padded.shape[2:])
        out = [
            (n - d * (k - 1) - 1) // s + 1
            for n, k, s, d in zip(padded.shape, window, strides, dilation, strict=True)
        ]
        parts = []
        for position in np.ndindex(*window):
            start = [p * d for p, d in zip(position, dilation, strict=True)]
            limit = [
                b + (o - 1) * s + 1 for b, o, s in zip(start, out, strides, strict=True)
            ]
            parts.append(gnp.expand_dims(lax.slice(padded, start, limit, strides), 0))
        return reduce(lax.concatenate(parts, 0) if len(parts) > 1 else parts[0], 0)

    return rule


def _integral_identity(identity: float) -> int:
    if identity == 0:
        return 0
    info = np.iinfo(np.int32)
    return int(info.min if identity < 0 else info.max)


RULES: dict[str, Callable[..., Any]] = {
    "floor": lambda params, x: gnp.floor(x),
    "ceil": lambda params, x: gnp.ceil(x),
    "round": _round,
    "atan2": lambda params, y, x: gnp.arctan2(y, x),
    "asin": lambda params, x: gnp.arcsin(x),
    "acos": lambda params, x: gnp.arccos(x),
    "atan": lambda params, x: gnp.arctan(x),
    "asinh": lambda params, x: gnp.arcsinh(x),
    "acosh": lambda params, x: gnp.arccosh(x),
    "atanh": lambda params, x: gnp.arctanh(x),
    "iota": _iota,
    "cumsum": _cumulative(gnp.cumsum),
    "cumprod": _cumulative(gnp.cumprod),
    "cummax": _cumulative(gnp.cummax),
    "cummin": _cumulative(gnp.cummin),
    "cumlogsumexp": _cumulative(gnp.cumlogsumexp),
    "sort": _sort,
    "top_k": _top_k,
    "dynamic_slice": _dynamic_slice,
    "dynamic_update_slice": _dynamic_update_slice,
    "gather": _gather,
    "scatter-add": _scatter("add"),
    "scatter": _scatter("set"),
    "scatter-mul": _scatter("multiply"),
    "conv_general_dilated": _conv_general_dilated,
    "reduce_window_sum": _reduce_window(gnp.sum, 0.0),
    "reduce_window_max": _reduce_window(gnp.max, -math.inf),
    "reduce_window_min": _reduce_window(gnp.min, math.inf),
    "tile": lambda params, x: gnp.tile(x, params["reps"]),
    "stack": lambda params, *xs: gnp.stack(xs, int(params["axis"])),
}
"""Rules by primitive name, merged into `from_jax.RULES`."""
