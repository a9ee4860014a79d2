"""SPEC §3.6: `gather`, `scatter_add`, `iota` and `argsort`, the ops that
index with computed integers and the ones that make those integers."""

from __future__ import annotations

from collections.abc import Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import IntegerAttr, TensorType, f32, i32, i64
from xdsl.ir import SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.errors import OpError
from gradopt.dialect.kernels import Kernel
from gradopt.dialect.ops.base import GradCanonicalization, KernelOp, ListOp
from gradopt.dialect.syntax import (
    parse_attributes,
    parse_int_list,
    parse_tensor_type,
    print_attributes,
    print_int_list,
)
from gradopt.dialect.types import (
    check_tensor,
    dtype_of,
    int_scalar,
    tensor_type,
)


def gathered_shape(source: Sequence[int], index: Sequence[int], axis: int) -> list[int]:
    """The shape of `take(source, index, axis)`: source's dims before the axis,
    index's dims, then source's dims after it."""
    return [*source[:axis], *index, *source[axis + 1 :]]


def _check_axis(what: str, axis: int, rank: int) -> None:
    if not 0 <= axis < rank:
        raise VerifyException(f"{what} must be in range [0, {rank}), got {axis}")


def _check_index(op: KernelOp, index: np.ndarray, size: int, axis: int) -> None:
    """An index outside `0 .. size - 1` is a run-time error naming the op."""
    if index.size and (int(index.min()) < 0 or int(index.max()) >= size):
        bad = int(index[(index < 0) | (index >= size)].flat[0])
        raise OpError(
            op,
            f"index {bad} is out of range for axis {axis} of size {size}",
            at_run_time=True,
        )


class AxisOp(ListOp):
    """An op with one listed axis (stored as the `i64` property `LISTS[0]`)."""

    SCALARS: ClassVar = ("axis",)
    LISTS: ClassVar = ("axis",)

    @property
    def axis_value(self) -> int:
        return self.ints(self.LISTS[0])[0]


@irdl_op_definition
class GatherOp(AxisOp):
    """NumPy's `take(a, i, axis)`: `%r = grad.gather %a, %i [1] : tensor<4x5xf32>,
    tensor<3xi32> to tensor<4x3xf32>`. The index is checked, never wrapped or
    clamped: an index outside the axis is a run-time error."""

    name = "grad.gather"
    input = operand_def(TensorType)
    index = operand_def(TensorType)
    axis = prop_def(int_scalar("axis"))
    result = result_def(TensorType)
    VARIADIC: ClassVar = True

    def __init__(self, input: SSAValue, index: SSAValue, axis: int):
        source = tensor_type(input)
        shape = gathered_shape(source.get_shape(), tensor_type(index).get_shape(), axis)
        super().__init__(
            operands=[input, index],
            result_types=[TensorType(source.get_element_type(), shape)],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        index = check_tensor("index", self.index.type, (i32,))
        _check_axis("axis", self.axis_value, source.get_num_dims())
        shape = gathered_shape(source.get_shape(), index.get_shape(), self.axis_value)
        expected = TensorType(source.get_element_type(), shape)
        if self.result.type != expected:
            raise VerifyException(
                f"result must be {expected} (input dims before the axis, index "
                f"dims, input dims after it), got {self.result.type}"
            )

    def kernel(self) -> Kernel:
        axis = self.axis_value
        size = tensor_type(self.input).get_shape()[axis]

        def gather(a: np.ndarray, index: np.ndarray) -> np.ndarray:
            _check_index(self, index, size, axis)
            return np.take(a, index, axis)

        return gather

    def fresh_result(self) -> bool:
        return True


@irdl_op_definition
class ScatterAddOp(AxisOp):
    """`%r = grad.scatter_add %d, %i, %u [1]`: d with the slice of u at each
    position p of i (row-major) added onto d's slice at index i[p], one f32
    (or wrapping i32) `add` at a time onto the running value, so repeated
    indices give fixed bits."""

    name = "grad.scatter_add"
    dest = operand_def(TensorType)
    index = operand_def(TensorType)
    updates = operand_def(TensorType)
    axis = prop_def(int_scalar("axis"))
    result = result_def(TensorType)
    VARIADIC: ClassVar = True

    def __init__(self, dest: SSAValue, index: SSAValue, updates: SSAValue, axis: int):
        super().__init__(
            operands=[dest, index, updates],
            result_types=[dest.type],
            properties={"axis": IntegerAttr(axis, i64)},
        )

    def verify_(self) -> None:
        dest = check_tensor("dest", self.dest.type, (f32, i32))
        index = check_tensor("index", self.index.type, (i32,))
        _check_axis("axis", self.axis_value, dest.get_num_dims())
        shape = gathered_shape(dest.get_shape(), index.get_shape(), self.axis_value)
        expected = TensorType(dest.get_element_type(), shape)
        if self.updates.type != expected:
            raise VerifyException(
                f"updates must be {expected} (what gathering dest at index "
                f"gives), got {self.updates.type}"
            )
        if self.result.type != dest:
            raise VerifyException(
                f"result must have the type of dest ({dest}), got {self.result.type}"
            )

    def kernel(self) -> Kernel:
        axis = self.axis_value
        size = tensor_type(self.dest).get_shape()[axis]
        before = (slice(None),) * axis

        def scatter_add(d: np.ndarray, index: np.ndarray, u: np.ndarray) -> np.ndarray:
            """`np.add.at` applies the updates of each element in the
            row-major order of the index, one ufunc call each: SPEC's fold."""
            _check_index(self, index, size, axis)
            result = np.array(d, copy=True, order="C")
            np.add.at(result, (*before, index), u)  # pyright: ignore[reportArgumentType]
            return result

        return scatter_add

    def fresh_result(self) -> bool:
        return True


@irdl_op_definition
class IotaOp(KernelOp):
    """`%r = grad.iota [0] : tensor<4x3xi32>`: each element's index along the
    listed dim, as i32 or f32 (exact up to 2^24). No operands and nothing
    stored but the type, so a trace can name a huge range in O(1)."""

    name = "grad.iota"
    dim = prop_def(int_scalar("dim"))
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())

    def __init__(self, dim: int, type: TensorType):
        super().__init__(result_types=[type], properties={"dim": IntegerAttr(dim, i64)})

    @property
    def dim_value(self) -> int:
        assert isinstance(self.dim, IntegerAttr)
        return self.dim.value.data

    def verify_(self) -> None:
        type = check_tensor("result", self.result.type, (i32, f32))
        _check_axis("dim", self.dim_value, type.get_num_dims())

    @classmethod
    def parse(cls, parser: Parser) -> IotaOp:
        start = parser.pos
        values = parse_int_list(parser)
        if len(values) != 1:
            parser.raise_error("expected one integer for dim", start)
        attrs = parse_attributes(parser, cls)
        parser.parse_punctuation(":")
        type = parse_tensor_type(parser)
        return cls.create(
            result_types=[type],
            properties={"dim": IntegerAttr(values[0], i64)},
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        print_int_list(printer, [self.dim_value])
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def kernel(self) -> Kernel:
        type = tensor_type(self.result)
        shape, dim = type.get_shape(), self.dim_value
        dtype = dtype_of(type.get_element_type())
        placed = [1] * len(shape)
        placed[dim] = shape[dim]

        def iota() -> np.ndarray:
            """A read-only view: one row of indices, broadcast."""
            row = np.arange(shape[dim], dtype=np.int64).astype(dtype)
            return np.broadcast_to(row.reshape(placed), shape)

        return iota


@irdl_op_definition
class ArgsortOp(AxisOp):
    """`%r = grad.argsort %a [1] : tensor<4x5xf32> to tensor<4x5xi32>`: the
    stable ascending order along the dim (NumPy's `kind="stable"`, NaN last,
    -0.0 and +0.0 equal)."""

    name = "grad.argsort"
    input = operand_def(TensorType)
    dim = prop_def(int_scalar("dim"))
    result = result_def(TensorType)
    LISTS: ClassVar = ("dim",)
    SCALARS: ClassVar = ("dim",)

    def __init__(self, input: SSAValue, dim: int):
        shape = tensor_type(input).get_shape()
        super().__init__(
            operands=[input],
            result_types=[TensorType(i32, shape)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type, (f32, i32))
        _check_axis("dim", self.axis_value, source.get_num_dims())
        expected = TensorType(i32, source.get_shape())
        if self.result.type != expected:
            raise VerifyException(f"result must be {expected}, got {self.result.type}")

    def kernel(self) -> Kernel:
        dim = self.axis_value
        return lambda a: np.argsort(a, axis=dim, kind="stable").astype(np.int32)

    def fresh_result(self) -> bool:
        return True
