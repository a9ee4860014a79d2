"""A small program called through one buffer per element type on IREE.

IREE's Python bindings cost a few microseconds for each argument and each
result of a call (importing a buffer, making its view, mapping a result,
checking that no result lies in an input): on the small MLP step, six
inputs and seven results cost twice what the compiled function computes in
(bench/RESULTS.md). So a small program's entry is rewritten, before IREE
compiles it, to take one flat tensor per element type holding every input
(which it slices and reshapes out at its start) and to return one flat
tensor per element type holding every result (inserted at each return): the
same ops on the same values in between. A call copies the inputs into one
buffer per element type that IREE allocated (each input starting on a
64-byte boundary, as IREE's code expects its operands to: the pads between
them stay zero), and hands back
the results as views of the one array each packed result maps to: a result
never shares memory with an input, nor with another result, by
construction. A function that another one calls keeps its signature.

A result that the entry returns as it took it (a slot left unchanged, an
input given back) is not packed: it is a copy of the argument.

Only a program whose inputs and results together hold at most `PACK_BELOW`
bytes is packed: the copy of a large input costs more than importing it in
place, as the unpacked call does.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import cached_property
from typing import NamedTuple, cast

import numpy as np
from xdsl.dialects import arith, func, scf, tensor
from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IndexType,
    IntegerAttr,
    ModuleOp,
    TensorType,
    f32,
    i1,
    i8,
    i32,
    i64,
)
from xdsl.ir import Attribute, Operation, SSAValue

from gradopt.dialect.upstream.tensor import ExpandShapeOp
from gradopt.passes.convert_grad_to_standard import elementwise
from gradopt.runtime.buffers import ALIGNMENT
from gradopt.runtime.iree_given import entries, given_back, left_in_place

PACK_BELOW = 1 << 20
"""The most bytes of inputs and results (1 MiB) of a packed program. Six
inputs and six results of f32 elementwise ops, `IreeModule.call` packed
against unpacked: 0.29x at 12 KiB, 0.54x at 768 KiB, 0.72x at 1.5 MiB,
0.91x at 3 MiB, 1.68x at 12 MiB (bench/RESULTS.md); one MiB leaves room
for programs of fewer inputs and results, which gain less."""

_STORAGE: dict[Attribute, tuple[Attribute, np.dtype]] = {
    f32: (f32, np.dtype(np.float32)),
    i32: (i32, np.dtype(np.int32)),
    i64: (i64, np.dtype(np.int64)),
    i1: (i8, np.dtype(np.uint8)),  # IREE keeps an i1 in a byte
}
"""The element types that are packed: the element and NumPy dtype of the
flat tensor that holds them."""


class Part(NamedTuple):
    """Where one input or result lies in its flat array: elements
    `start:stop` of group `group`, that is `offset` bytes in, as an array of
    `shape` (`()` for a 0-d tensor or a scalar) and `dtype` (bool for an i1,
    held in a byte)."""

    group: int
    start: int
    stop: int
    offset: int
    shape: tuple[int, ...]
    dtype: np.dtype


class Result(NamedTuple):
    """Where one result lies in the packed results, or (`argument`, its
    index) which argument it is, given back as it came: a copy of it."""

    part: Part
    argument: int | None


@dataclass(frozen=True)
class Packing:
    """How an entry's arguments are packed and its results unpacked."""

    function: str
    """The entry's name."""
    input_groups: tuple[np.dtype, ...]
    """The dtype of each flat input, in the packed entry's argument order."""
    input_sizes: tuple[int, ...]
    inputs: tuple[Part, ...]
    """Where each argument lies in the flat inputs."""
    result_groups: tuple[np.dtype, ...]
    result_sizes: tuple[int, ...]
    results: tuple[Result, ...]

    @cached_property
    def result_shapes(self) -> tuple[tuple[tuple[int], np.dtype], ...]:
        """The shape and dtype of each flat result, as mapped."""
        return tuple(
            ((size,), dtype)
            for dtype, size in zip(self.result_groups, self.result_sizes, strict=True)
        )

    def places(self, flats: Sequence[np.ndarray]) -> list[np.ndarray]:
        """Each argument's place in `flats` (one flat array of each input
        group's dtype and size), a view of the argument's shape."""
        return [
            flats[part.group][part.start : part.stop].reshape(part.shape)
            for part in self.inputs
        ]

    @staticmethod
    def pack(
        arguments: Sequence[np.ndarray | float], places: Sequence[np.ndarray]
    ) -> None:
        """Copy `arguments` (arrays or Python numbers, of the entry's types)
        into their `places`: one assignment each took half the time of one
        `np.concatenate` per flat input (2.1 against 4.4 us for the small
        MLP step's six)."""
        for place, argument in zip(places, arguments, strict=True):
            place[...] = argument

    def unpack(
        self,
        arguments: Sequence[np.ndarray | float],
        outputs: Sequence[np.ndarray],
        in_place: Sequence[int] = (),
    ) -> list[np.ndarray]:
        """The entry's results: views of the flat `outputs`, and for each
        argument given back as it came a copy of it, or the argument itself
        where it is left in place (`iree_given.left_in_place`)."""
        count = len(self.results)
        results = []
        for j, (argument, group, shape, dtype, offset) in enumerate(self.read_as):
            if argument is None:
                # a view made directly (0.5 us; a slice reshaped took 0.8)
                results.append(np.ndarray(shape, dtype, outputs[group], offset))
            elif in_place and left_in_place(j, argument, count, in_place):
                results.append(cast(np.ndarray, arguments[argument]))
            else:
                results.append(np.array(arguments[argument], dtype))
        return results

    @cached_property
    def read_as(
        self,
    ) -> tuple[tuple[int | None, int, tuple[int, ...], np.dtype, int], ...]:
        """How `unpack` reads each result: the argument it is (None if it is
        computed), its group, shape, dtype and byte offset, as plain tuples,
        which unpack faster than `Part`'s fields read (1 us of 5 on the
        small MLP step)."""
        return tuple(
            (argument, part.group, part.shape, part.dtype, part.offset)
            for part, argument in self.results
        )


def pack_entries(module: ModuleOp, below: int | None = None) -> dict[str, Packing]:
    """Pack (in place) each public function of the lowered `module` whose
    inputs and results are tensors or scalars of the packed element types,
    none empty, at most `below` bytes in all (default `PACK_BELOW`, read at
    the call), that no function calls; returns how each is packed, by its
    name."""
    below = PACK_BELOW if below is None else below
    packings = {}
    for function in entries(module):
        if (packing := _pack(function, below)) is not None:
            packings[function.sym_name.data] = packing
    return packings


class _Layout(NamedTuple):
    """An input or result of `shape` (`()` for a scalar or a 0-d tensor) and
    `element`, a tensor unless `scalar`."""

    element: Attribute
    shape: tuple[int, ...]
    scalar: bool

    @property
    def size(self) -> int:
        return math.prod(self.shape)


def _layouts(types: Iterable[Attribute]) -> list[_Layout] | None:
    """What each of `types` is packed as, or None if one cannot be."""
    layouts = [_layout(type) for type in types]
    return None if None in layouts else cast(list[_Layout], layouts)


def _layout(type: Attribute) -> _Layout | None:
    """What `type` is packed as, or None if it cannot be."""
    if isinstance(type, TensorType):
        element, shape = type.get_element_type(), tuple(type.get_shape())
        if element in _STORAGE and all(d > 0 for d in shape):
            return _Layout(element, shape, False)
    elif type in _STORAGE:
        return _Layout(type, (), True)
    return None


class _Groups:
    """Flat arrays being laid out: one per element type, in order of first
    use, each part starting on a 64-byte boundary."""

    def __init__(self) -> None:
        self.elements: list[Attribute] = []
        self.sizes: list[int] = []

    def add(self, layout: _Layout) -> Part:
        """Lay an input or result of `layout` out after the others of its
        element type."""
        if layout.element not in self.elements:
            self.elements.append(layout.element)
            self.sizes.append(0)
        group = self.elements.index(layout.element)
        dtype = _STORAGE[layout.element][1]
        step = ALIGNMENT // dtype.itemsize
        start = -(-self.sizes[group] // step) * step
        self.sizes[group] = start + layout.size
        shown = np.dtype(np.bool_) if layout.element == i1 else dtype
        offset = start * dtype.itemsize
        return Part(group, start, start + layout.size, offset, layout.shape, shown)

    def dtypes(self) -> tuple[np.dtype, ...]:
        return tuple(_STORAGE[e][1] for e in self.elements)

    def types(self) -> list[TensorType]:
        return [
            TensorType(_STORAGE[e][0], [size])
            for e, size in zip(self.elements, self.sizes, strict=True)
        ]


def _pack(function: func.FuncOp, below: int) -> Packing | None:
    """Rewrite `function` in place to take and give flat tensors, or return
    None if it is not to be packed (see `pack_entries`)."""
    inputs = _layouts(function.function_type.inputs)
    outputs = _layouts(function.function_type.outputs)
    if inputs is None or outputs is None or not (inputs or outputs):
        return None
    storage = sum(
        layout.size * _STORAGE[layout.element][1].itemsize
        for layout in (*inputs, *outputs)
    )
    if (
        storage > below
        or len(function.body.blocks) != 1
        or any(isinstance(op, _CONTROL_FLOW) for op in function.walk())
    ):
        return None
    entry = function.body.block
    ret = entry.last_op
    assert isinstance(ret, func.ReturnOp)
    given = given_back(function)
    packed_inputs, packed_outputs = _Groups(), _Groups()
    input_parts = [packed_inputs.add(layout) for layout in inputs]
    results: list[Result] = []
    for j, layout in enumerate(outputs):
        if (argument := given.get(j)) is not None:
            results.append(Result(input_parts[argument], argument))
        else:
            results.append(Result(packed_outputs.add(layout), None))
    old = list(entry.args)
    flats = [entry.insert_arg(t, len(entry.args)) for t in packed_inputs.types()]
    ops: list[Operation] = []
    for argument, part, layout in zip(old, input_parts, inputs, strict=True):
        argument.replace_all_uses_with(_unpacked(ops, flats[part.group], part, layout))
        entry.erase_arg(argument)
    if (first := entry.first_op) is None:
        entry.add_ops(ops)
    else:
        entry.insert_ops_before(ops, first)
    _return_packed(ret, results, outputs, packed_outputs.types())
    function.function_type = FunctionType.from_lists(
        packed_inputs.types(), packed_outputs.types()
    )
    return Packing(
        function.sym_name.data,
        packed_inputs.dtypes(),
        tuple(packed_inputs.sizes),
        tuple(input_parts),
        packed_outputs.dtypes(),
        tuple(packed_outputs.sizes),
        tuple(results),
    )


_CONTROL_FLOW = (scf.ForOp, scf.WhileOp, scf.IfOp)
"""Ops that keep a function from being packed, as blocks do: IREE 3.13
failed to compile the gradient of a gather (a loop adding element by
element) with its inputs sliced out of one ("operand #0 does not dominate
this use", after unrolling), and a program with a loop is rarely small."""


def _return_packed(
    ret: func.ReturnOp,
    results: Sequence[Result],
    outputs: Sequence[_Layout],
    types: Sequence[TensorType],
) -> None:
    """Replace `ret` by a return of the packed results."""
    ops: list[Operation] = []
    flats: list[SSAValue] = []
    for flat_type in types:
        empty = tensor.EmptyOp((), flat_type)
        ops.append(empty)
        flats.append(empty.tensor)
    for (part, argument), layout, value in zip(
        results, outputs, ret.arguments, strict=True
    ):
        if argument is None:
            flat = _flat(ops, value, layout)
            insert = tensor.InsertSliceOp.from_static_parameters(
                flat, flats[part.group], [part.start], [part.stop - part.start]
            )
            ops.append(insert)
            flats[part.group] = insert.result
    ops.append(type(ret)(*flats))  # func.return, or util.return in a util.func
    block = ret.parent_block()
    assert block is not None
    block.insert_ops_before(ops, ret)
    block.erase_op(ret)


def _index(ops: list[Operation], value: int) -> SSAValue:
    constant = arith.ConstantOp(IntegerAttr(value, IndexType()))
    ops.append(constant)
    return constant.result


def _unpacked(
    ops: list[Operation], flat: SSAValue, part: Part, layout: _Layout
) -> SSAValue:
    """The input `part` of `flat` as the entry takes it (appending the ops).
    A tensor of one element is made from its element: IREE 3.13 failed to
    compile a one-element slice expanded to `tensor<1x1xf32>` as a matrix
    product's operand ("expected rank to be smaller or equal to the other
    rank")."""
    element, storage = layout.element, _STORAGE[layout.element][0]
    rank = len(layout.shape)
    if layout.size == 1:
        index = _index(ops, part.start)
        value: SSAValue = _append(ops, [tensor.ExtractOp(flat, [index], storage)])
        if layout.scalar:
            if element == i1:
                value = _append(ops, [arith.TruncIOp(value, i1)])
            return value
        type = TensorType(storage, layout.shape)
        value = _append(ops, [tensor.FromElementsOp(value, result_type=type)])
    else:
        slice = tensor.ExtractSliceOp.from_static_parameters(
            flat, [part.start], [layout.size]
        )
        value = _append(ops, [slice])
        if rank > 1:
            type = TensorType(storage, layout.shape)
            expand = ExpandShapeOp(value, [], _all_dims(rank), layout.shape, type)
            value = _append(ops, [expand])
    if element == i1:
        truncate = elementwise(
            [value],
            TensorType(i1, layout.shape),
            lambda a: arith.TruncIOp(a[0], i1).result,
        )
        value = _append(ops, truncate)
    return value


def _flat(ops: list[Operation], value: SSAValue, layout: _Layout) -> SSAValue:
    """A result `value` as the flat rank-1 tensor of its storage element
    that is inserted into its packed result (appending the ops)."""
    element, size = layout.element, layout.size
    storage = _STORAGE[element][0]
    if layout.scalar:
        if element == i1:
            value = _append(ops, [arith.ExtUIOp(value, i8)])
        return _append(
            ops, [tensor.FromElementsOp(value, result_type=TensorType(storage, [1]))]
        )
    rank = len(layout.shape)
    flat = TensorType(element, [size])
    if rank == 0:
        value = _append(ops, [ExpandShapeOp(value, [], ArrayAttr([]), [1], flat)])
    elif rank > 1:
        collapse = tensor.CollapseShapeOp.build(
            operands=[value],
            result_types=[flat],
            properties={"reassociation": _all_dims(rank)},
        )
        value = _append(ops, [collapse])
    if element == i1:
        widen = elementwise(
            [value], TensorType(i8, [size]), lambda a: arith.ExtUIOp(a[0], i8).result
        )
        value = _append(ops, widen)
    return value


def _all_dims(rank: int) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    """The reassociation of `rank` dims into one."""
    return ArrayAttr([ArrayAttr([IntegerAttr(d, i64) for d in range(rank)])])


def _append(ops: list[Operation], new: Sequence[Operation]) -> SSAValue:
    """Append `new` to `ops`; the last one's result."""
    ops.extend(new)
    return new[-1].results[0]
