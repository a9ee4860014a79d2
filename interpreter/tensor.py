"""The `tensor` ops run exactly (SPEC §10.4): they move data and compute
nothing. Offsets of `extract_slice`/`insert_slice` may be SSA `index` values
(checked to stay inside the tensor when the op runs); sizes and strides are
static. A result may be a read-only view of an operand: no kernel of an
upstream op writes into its operands."""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np
from xdsl.dialects import tensor
from xdsl.dialects.builtin import DYNAMIC_INDEX, IndexType, ShapedType
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.paths import captured
from gradopt.dialect.errors import OpError
from gradopt.dialect.upstream.tensor import GenerateOp
from gradopt.interpreter.scalar import Value, constant, dtype_of

Kernel = Callable[..., Value]


def _shape(value: SSAValue) -> tuple[int, ...]:
    type = value.type
    assert isinstance(type, ShapedType)
    return tuple(type.get_shape())


def _static(op: Operation, *values: SSAValue) -> None:
    for value in values:
        if any(d < 0 for d in _shape(value)):
            raise OpError(op, "cannot be run: dynamic shapes are not supported")


def _slices(
    op: tensor.ExtractSliceOp | tensor.InsertSliceOp, shape: Sequence[int]
) -> Callable[[Sequence[Value]], tuple[slice, ...]]:
    """The slices of `op` for its dynamic offsets, checked against `shape`.

    A loop body runs this once per iteration, so what does not depend on the
    offsets is worked out here: the static axes' slices and bounds; only the
    dynamic offsets are converted and checked when called."""
    static = [int(v) for v in op.static_offsets.get_values()]
    sizes = [int(v) for v in op.static_sizes.get_values()]
    strides = [int(v) for v in op.static_strides.get_values()]
    if op.sizes or op.strides or DYNAMIC_INDEX in sizes + strides:
        raise OpError(op, "cannot be run: sizes and strides must be static")
    if not len(static) == len(sizes) == len(strides) == len(shape):
        raise OpError(
            op,
            f"cannot be run: expected {len(shape)} offsets, sizes and strides, "
            f"got {len(static)}, {len(sizes)} and {len(strides)}",
        )
    dynamic = [i for i, v in enumerate(static) if v == DYNAMIC_INDEX]

    def window(axis: int, start: int) -> slice:
        size, stride, dim = sizes[axis], strides[axis], shape[axis]
        last = start + (size - 1) * stride
        if size and not 0 <= start <= last < dim:
            raise OpError(
                op,
                f"reads elements {start}..{last} of dim {axis}, of size {dim}",
                at_run_time=True,
            )
        return slice(start, last + 1, stride) if size else slice(0, 0)

    position = {axis: i for i, axis in enumerate(dynamic)}
    checked = list(dynamic)  # the axes whose slice is made when called
    fixed: list[slice] = []
    for axis, start in enumerate(static):
        if axis in position:
            fixed.append(slice(0, 0))
            continue
        try:
            fixed.append(window(axis, start))
        except OpError:  # reported when the op runs, in the order of the axes
            fixed.append(slice(0, 0))
            checked.append(axis)
    if not checked:
        whole = tuple(fixed)
        return lambda offsets: whole
    if len(checked) == 1 and checked[0] in position and sizes[checked[0]]:
        # one dynamic offset (a loop's index): the common case, kept short
        (axis,) = checked
        given, stride = position[axis], strides[axis]
        span, top = (sizes[axis] - 1) * stride, shape[axis] - 1
        before, after = tuple(fixed[:axis]), tuple(fixed[axis + 1 :])

        def one(offsets: Sequence[Value]) -> tuple[slice, ...]:
            start = int(offsets[given])  # pyright: ignore[reportArgumentType]
            if not 0 <= start <= top - span:
                window(axis, start)  # raises
            return (*before, slice(start, start + span + 1, stride), *after)

        return one
    checked.sort()

    def slices(offsets: Sequence[Value]) -> tuple[slice, ...]:
        at = list(fixed)
        for axis in checked:
            start = offsets[position[axis]] if axis in position else static[axis]
            at[axis] = window(axis, int(start))  # pyright: ignore[reportArgumentType]
        return tuple(at)

    return slices


def _slices_by_shape(
    op: tensor.ExtractSliceOp | tensor.InsertSliceOp,
) -> Callable[[tuple[int, ...]], Callable[[Sequence[Value]], tuple[slice, ...]]]:
    """`_slices` of `op` for an operand whose shape is known only when it runs,
    worked out again only when that shape changes: a loop reads a tape of
    run-time length at each iteration, and reading the op's offsets, sizes and
    strides each time took two thirds of a nested while loop's gradient. The
    shape and its slices are kept as one tuple, replaced whole (threads may
    share the kernel)."""
    known: list[tuple[tuple[int, ...], Callable[[Sequence[Value]], tuple[slice, ...]]]]
    known = []

    def slices(
        shape: tuple[int, ...],
    ) -> Callable[[Sequence[Value]], tuple[slice, ...]]:
        if known and (last := known[0])[0] == shape:
            return last[1]
        found = _slices(op, shape)
        known[:] = [(shape, found)]
        return found

    return slices


def _extract_slice(op: tensor.ExtractSliceOp) -> Kernel:
    _static(op, op.result)
    shape = _shape(op.result)
    if any(d < 0 for d in _shape(op.source)):
        by_shape = _slices_by_shape(op)

        def extract(source: Value, *offsets: Value) -> np.ndarray:
            array = np.asarray(source)
            return array[by_shape(array.shape)(offsets)].reshape(shape)

        return extract
    slices = _slices(op, _shape(op.source))
    if shape == tuple(int(v) for v in op.static_sizes.get_values()):
        return lambda source, *offsets: np.asarray(source)[slices(offsets)]
    return lambda source, *offsets: np.asarray(source)[slices(offsets)].reshape(shape)


def _insert_slice(op: tensor.InsertSliceOp) -> Kernel:
    """`tensor.insert_slice`: a copy of the destination with the source written
    in, or, given `out` (the destination, which the executor found dies here
    and is not shared), the destination written in place."""
    _static(op, op.source)
    dynamic = any(d < 0 for d in _shape(op.dest))
    slices = None if dynamic else _slices(op, _shape(op.dest))
    by_shape = _slices_by_shape(op)
    sizes = tuple(int(v) for v in op.static_sizes.get_values())
    same = _shape(op.source) == sizes  # else rank-reduced: a reshape first

    def insert(
        source: Value, dest: Value, *offsets: Value, out: np.ndarray | None = None
    ) -> np.ndarray:
        result = np.array(dest) if out is None else out
        at = by_shape(result.shape) if slices is None else slices
        result[at(offsets)] = source if same else np.asarray(source).reshape(sizes)
        return result

    return insert


def _pad(op: tensor.PadOp) -> tuple[Kernel, list[SSAValue]]:
    _static(op, op.source, op.result)
    if op.low or op.high:
        raise OpError(op, "cannot be run: its padding must be static")
    low = [int(v) for v in op.static_low.get_values()]
    block = op.region.block
    yielded = block.last_op.operands[0] if block.last_op is not None else None
    owner = yielded.owner if yielded is not None else None
    value: Value = None
    if isinstance(owner, Operation) and owner.parent_block() is block:
        from xdsl.dialects.arith import ConstantOp

        if not isinstance(owner, ConstantOp):
            raise OpError(op, "cannot be run: its pad value must be a constant")
        value = constant(owner)
    elif yielded is not None and yielded in block.args:
        raise OpError(op, "cannot be run: its pad value must not depend on the index")
    outer = captured(op)
    shape, dtype = _shape(op.result), dtype_of(op.result.type, op)
    inside = tuple(slice(a, a + n) for a, n in zip(low, _shape(op.source), strict=True))

    at = outer.index(yielded) if yielded is not None and yielded in outer else None

    def pad(source: Value, *values: Value) -> np.ndarray:
        fill = value if at is None else values[at]
        result = np.full(shape, fill, dtype)
        result[inside] = source
        return result

    return pad, [op.source, *outer]


def _extract(op: tensor.ExtractOp) -> Kernel:
    """`tensor.extract`: a NumPy scalar, or a Python int for an `index`
    element, as the interpreter holds `index` values (its arithmetic takes
    the ints' shortcut)."""
    index = isinstance(op.result.type, IndexType)

    def extract(source: Value, *indices: Value) -> Value:
        shape = np.shape(source)
        at = tuple(int(i) for i in indices)  # pyright: ignore[reportArgumentType]
        if any(not 0 <= i < n for i, n in zip(at, shape, strict=True)):
            raise OpError(op, f"reads index {list(at)} of {shape}", at_run_time=True)
        value = np.asarray(source)[at]
        return int(value) if index else value

    return extract


def _insert(op: tensor.InsertOp) -> Kernel:
    """`tensor.insert`: as `tensor.insert_slice`, of one element."""

    def insert(
        scalar: Value, dest: Value, *indices: Value, out: np.ndarray | None = None
    ) -> np.ndarray:
        shape = np.shape(dest)
        at = tuple(int(i) for i in indices)  # pyright: ignore[reportArgumentType]
        if any(not 0 <= i < n for i, n in zip(at, shape, strict=True)):
            raise OpError(op, f"writes index {list(at)} of {shape}", at_run_time=True)
        result = np.array(dest) if out is None else out
        result[at] = scalar
        return result

    return insert


def _generate(op: GenerateOp) -> tuple[Kernel, Sequence[SSAValue]]:
    """`tensor.generate`: the body once, on index arrays along each dim."""
    from gradopt.interpreter.linalg import body_program

    _static(op, op.result)
    shape, dtype = _shape(op.result), dtype_of(op.result.type, op)
    block = op.body.block
    body = body_program(op, block, shape, set())
    indices = []
    for dim, size in enumerate(shape):
        along = [1] * len(shape)
        along[dim] = size
        index = np.arange(size, dtype=np.int64).reshape(along)
        index.flags.writeable = False
        indices.append(index)
    terminator = block.last_op
    assert terminator is not None
    (yielded,) = terminator.operands
    outer = captured(op)

    def generate(*values: Value) -> np.ndarray:
        env: dict[SSAValue, Value] = dict(zip(block.args, indices, strict=True))
        env.update(zip(outer, values, strict=True))
        body(env)
        return np.broadcast_to(env[yielded], shape).astype(dtype)

    return generate, outer


def _dynamic_empty(op: tensor.EmptyOp) -> Kernel:
    """`tensor.empty(%n)`: sized when it runs (the caches of a loop whose trip
    count is known only at run time, SPEC §11). Zeros, as a read-only view of
    one element like a static `tensor.empty`: a loop that writes its cache
    in place copies it once, and that copy is the one allocation. A negative
    size (a cache sized by the trip count of a loop whose step is not
    positive) is a run-time error."""
    static, zero = _shape(op.tensor), np.zeros((), dtype_of(op.tensor.type, op))

    def empty(*sizes: Value) -> np.ndarray:
        given = iter(sizes)
        shape = [int(next(given)) if d < 0 else d for d in static]  # pyright: ignore[reportArgumentType]
        for d, size in enumerate(shape):
            if size < 0:
                message = f"size {size} of dimension {d} is negative"
                raise OpError(op, message, at_run_time=True)
        return np.broadcast_to(zero, shape)

    return empty


def destination(op: Operation) -> int | None:
    """The position, among its kernel's operands, of the tensor that `op`
    writes into a copy of (`tensor.insert_slice`, `tensor.insert`), whose
    buffer the kernel may write instead (`out=`): None for any other op. Not
    for rank 0, whose values are NumPy scalars."""
    if isinstance(op, tensor.InsertSliceOp | tensor.InsertOp) and _shape(op.dest):
        return 1
    return None


def kernel_of(op: Operation) -> tuple[Kernel, Sequence[SSAValue]] | None:
    """The kernel of a `tensor` op and the values it takes, or None if `op`
    is not one this module runs."""
    if isinstance(op, tensor.ExtractSliceOp):
        return _extract_slice(op), [op.source, *op.offsets]
    if isinstance(op, tensor.InsertSliceOp):
        return _insert_slice(op), [op.source, op.dest, *op.offsets]
    if isinstance(op, tensor.PadOp):
        return _pad(op)
    if isinstance(op, tensor.ExtractOp):
        return _extract(op), [op.tensor, *op.indices]
    if isinstance(op, tensor.InsertOp):
        return _insert(op), [op.scalar, op.dest, *op.indices]
    if isinstance(op, GenerateOp):
        return _generate(op)
    if not isinstance(
        op,
        tensor.EmptyOp
        | tensor.ConcatOp
        | tensor.CollapseShapeOp
        | tensor.ExpandShapeOp
        | tensor.ReshapeOp
        | tensor.CastOp
        | tensor.SplatOp
        | tensor.FromElementsOp
        | tensor.DimOp,
    ):
        return None
    if isinstance(op, tensor.DimOp):
        _static(op, op.source)
        sizes = _shape(op.source)
        return (lambda _, index: sizes[int(index)]), [op.source, op.index]
    result = op.results[0]
    if isinstance(op, tensor.EmptyOp) and op.dynamic_sizes:
        return _dynamic_empty(op), op.dynamic_sizes
    _static(op, result, *(v for v in op.operands if isinstance(v.type, ShapedType)))
    shape, dtype = _shape(result), dtype_of(result.type, op)
    if isinstance(op, tensor.EmptyOp):
        zeros = np.broadcast_to(np.zeros((), dtype), shape)
        return (lambda: zeros), []
    if isinstance(op, tensor.ConcatOp):
        axis = op.dim.value.data
        return (lambda *parts: np.concatenate(parts, axis)), op.inputs
    if isinstance(op, tensor.SplatOp):
        return (lambda value: np.full(shape, value, dtype)), [op.input]
    if isinstance(op, tensor.FromElementsOp):
        return (lambda *e: np.array(e, dtype).reshape(shape)), op.elements
    source = op.operands[0]
    return (lambda value: np.reshape(value, shape)), [source]
