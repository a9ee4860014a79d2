"""SPEC §3.2: `slice`, `pad`, `reverse` and `concat`, which move data and
compute nothing."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    TensorType,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.kernels import Kernel
from gradopt.dialect.ops.base import KernelOp, ListOp, axes_text, scalar_literal
from gradopt.dialect.syntax import (
    literal_attr,
    parse_literal,
    print_scalar_literal,
)
from gradopt.dialect.types import (
    Named,
    check_tensor,
    dtype_of,
    int_list,
    int_scalar,
    tensor_type,
)


def _check_per_dim(lists: str, values: Sequence[Sequence[int]], rank: int) -> None:
    if any(len(v) != rank for v in values):
        raise VerifyException(f"{lists} must have one entry per input dim ({rank})")


def _expected_result(op: KernelOp, shape: Sequence[int]) -> None:
    source = tensor_type(op.operands[0])
    expected = TensorType(source.get_element_type(), shape)
    if op.results[0].type != expected:
        raise VerifyException(f"result must be {expected}, got {op.results[0].type}")


def _sliced_size(start: int, limit: int, stride: int) -> int:
    return -(-(limit - start) // stride)


@irdl_op_definition
class SliceOp(ListOp):
    """Like `stablehlo.slice`: `%r = grad.slice %a [start] [limit] [stride]`,
    per dim, 0 <= start <= limit <= size, stride >= 1."""

    name = "grad.slice"
    start = prop_def(int_list("start"))
    limit = prop_def(int_list("limit"))
    stride = prop_def(int_list("stride"))
    input = operand_def(TensorType)
    result = result_def(TensorType)
    LISTS: ClassVar = ("start", "limit", "stride")

    def __init__(
        self,
        input: SSAValue,
        start: Sequence[int],
        limit: Sequence[int],
        stride: Sequence[int],
    ):
        source = tensor_type(input)
        shape = [_sliced_size(*d) for d in zip(start, limit, stride, strict=True)]
        super().__init__(
            operands=[input],
            result_types=[TensorType(source.get_element_type(), shape)],
            properties={
                "start": DenseArrayBase.from_list(i64, start),
                "limit": DenseArrayBase.from_list(i64, limit),
                "stride": DenseArrayBase.from_list(i64, stride),
            },
        )

    def dims(self) -> list[tuple[int, int, int]]:
        """(start, limit, stride) of each dim."""
        return list(zip(*(self.ints(n) for n in self.LISTS), strict=True))

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        _check_per_dim(
            "start, limit and stride",
            [self.ints(n) for n in self.LISTS],
            source.get_num_dims(),
        )
        for d, ((start, limit, stride), size) in enumerate(
            zip(self.dims(), source.get_shape(), strict=True)
        ):
            if not 0 <= start <= limit <= size:
                raise VerifyException(
                    f"dim {d}: expected 0 <= start <= limit <= size ({size}), got "
                    f"start {start} and limit {limit}"
                )
            if stride < 1:
                raise VerifyException(
                    f"dim {d}: stride must be at least 1, got {stride}"
                )
        _expected_result(self, [_sliced_size(*d) for d in self.dims()])

    def kernel(self) -> Kernel:
        index = tuple(slice(*d) for d in self.dims())
        return lambda a: a[index]


def padded_size(size: int, low: int, high: int, interior: int) -> int:
    return low + size + max(size - 1, 0) * interior + high


@irdl_op_definition
class PadOp(ListOp):
    """Like `stablehlo.pad`: `%r = grad.pad %a low [..] high [..] interior [..]
    value 0.0`, amounts >= 0, a literal pad value of the element type."""

    name = "grad.pad"
    low = prop_def(int_list("low"))
    high = prop_def(int_list("high"))
    interior = prop_def(int_list("interior"))
    value = prop_def(
        Named("value", base(FloatAttr) | base(IntegerAttr), "a scalar literal")
    )
    input = operand_def(TensorType)
    result = result_def(TensorType)
    LISTS: ClassVar = ("low", "high", "interior")
    NAMED_LISTS: ClassVar = True

    def __init__(
        self,
        input: SSAValue,
        low: Sequence[int],
        high: Sequence[int],
        interior: Sequence[int],
        value: float | int | bool,
    ):
        source = tensor_type(input)
        element = source.get_element_type()
        shape = [
            padded_size(*d)
            for d in zip(source.get_shape(), low, high, interior, strict=True)
        ]
        super().__init__(
            operands=[input],
            result_types=[TensorType(element, shape)],
            properties={
                "low": DenseArrayBase.from_list(i64, low),
                "high": DenseArrayBase.from_list(i64, high),
                "interior": DenseArrayBase.from_list(i64, interior),
                "value": scalar_literal(value, element),
            },
        )

    @property
    def literal(self) -> FloatAttr | IntegerAttr:
        """The pad value (verified to be a scalar literal)."""
        assert isinstance(self.value, FloatAttr | IntegerAttr)
        return self.value

    def dims(self) -> list[tuple[int, int, int]]:
        """(low, high, interior) of each dim."""
        return list(zip(*(self.ints(n) for n in self.LISTS), strict=True))

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        _check_per_dim(
            "low, high and interior",
            [self.ints(n) for n in self.LISTS],
            source.get_num_dims(),
        )
        for d, (low, high, interior) in enumerate(self.dims()):
            if min(low, high, interior) < 0:
                raise VerifyException(
                    f"dim {d}: pad amounts must not be negative, got low {low}, "
                    f"high {high}, interior {interior}"
                )
        element = source.get_element_type()
        if self.literal.type != element:
            raise VerifyException(
                f"pad value must be a literal of the element type {element}, got "
                f"{self.value}"
            )
        _expected_result(
            self,
            [
                padded_size(size, *d)
                for size, d in zip(source.get_shape(), self.dims(), strict=True)
            ],
        )

    @classmethod
    def parse_suffix(
        cls, parser: Parser
    ) -> Callable[[TensorType], dict[str, Attribute]]:
        parser.parse_keyword("value")
        text, start = parse_literal(parser)
        return lambda type: {
            "value": literal_attr(parser, text, start, type.get_element_type())
        }

    def print_suffix(self, printer: Printer) -> None:
        printer.print_string(" value ")
        print_scalar_literal(printer, self.value)

    def kernel(self) -> Kernel:
        type = tensor_type(self.result)
        dtype = dtype_of(type.get_element_type())
        fill, shape = self.literal.value.data, type.get_shape()
        index = tuple(
            slice(low, padded_size(size, low, 0, interior), interior + 1)
            for size, (low, _, interior) in zip(
                tensor_type(self.input).get_shape(), self.dims(), strict=True
            )
        )

        def pad(a: np.ndarray) -> np.ndarray:
            padded = np.full(shape, fill, dtype)
            padded[index] = a
            return padded

        return pad

    def fresh_result(self) -> bool:
        return True


@irdl_op_definition
class ReverseOp(ListOp):
    """`%r = grad.reverse %a [dims] : T`: flips the listed dims."""

    name = "grad.reverse"
    dims = prop_def(int_list("dims"))
    input = operand_def(TensorType)
    result = result_def(TensorType)
    LISTS: ClassVar = ("dims",)
    SAME_TYPE: ClassVar = True

    def __init__(self, input: SSAValue, dims: Sequence[int]):
        super().__init__(
            operands=[input],
            result_types=[input.type],
            properties={"dims": DenseArrayBase.from_list(i64, dims)},
        )

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        dims, rank = self.ints("dims"), source.get_num_dims()
        if not dims:
            raise VerifyException("dims must not be empty")
        if any(not 0 <= d < rank for d in dims):
            raise VerifyException(
                f"dims must be in range [0, {rank}), got {axes_text(dims)}"
            )
        if list(dims) != sorted(set(dims)):
            raise VerifyException(
                f"dims must be sorted and unique, got {axes_text(dims)}"
            )
        if self.result.type != source:
            raise VerifyException(
                f"result must have the type of input ({source}), got {self.result.type}"
            )

    def kernel(self) -> Kernel:
        dims = self.ints("dims")
        return lambda a: np.flip(a, dims)


@irdl_op_definition
class ConcatOp(ListOp):
    """`%r = grad.concat %a, %b [d] : Ta, Tb to T`: two or more operands of one
    element type, equal but along dim d, joined along it in operand order."""

    name = "grad.concat"
    inputs = var_operand_def(TensorType)
    dim = prop_def(int_scalar("dim"))
    result = result_def(TensorType)
    LISTS: ClassVar = ("dim",)
    SCALARS: ClassVar = ("dim",)
    VARIADIC: ClassVar = True

    def __init__(self, inputs: Sequence[SSAValue], dim: int):
        first, *_ = (tensor_type(v) for v in inputs)
        shape = list(first.get_shape())
        shape[dim] = sum(tensor_type(v).get_shape()[dim] for v in inputs)
        super().__init__(
            operands=[inputs],
            result_types=[TensorType(first.get_element_type(), shape)],
            properties={"dim": IntegerAttr(dim, i64)},
        )

    @property
    def axis(self) -> int:
        assert isinstance(self.dim, IntegerAttr)
        return self.dim.value.data

    def verify_(self) -> None:
        if len(self.inputs) < 2:
            raise VerifyException(
                f"expected at least two operands, got {len(self.inputs)}"
            )
        first = check_tensor("operand 0", self.inputs[0].type)
        rank, d = first.get_num_dims(), self.axis
        if not 0 <= d < rank:
            raise VerifyException(f"dim must be in range [0, {rank}), got {d}")
        shape = list(first.get_shape())
        for i, value in enumerate(self.inputs[1:], 1):
            type = check_tensor(f"operand {i}", value.type)
            if (type.get_element_type(), type.get_num_dims()) != (
                first.get_element_type(),
                rank,
            ):
                raise VerifyException(
                    f"operand {i} must have the element type and rank of operand 0"
                    f" ({first}), got {type}"
                )
            other = list(type.get_shape())
            if other[:d] + other[d + 1 :] != shape[:d] + shape[d + 1 :]:
                raise VerifyException(
                    f"operand {i} must match operand 0 off dim {d}: expected "
                    f"{shape} with any size at {d}, got {other}"
                )
        shape[d] = sum(tensor_type(v).get_shape()[d] for v in self.inputs)
        _expected_result(self, shape)

    def kernel(self) -> Kernel:
        axis = self.axis
        return lambda *arrays, out=None: np.concatenate(arrays, axis=axis, out=out)

    def fresh_result(self) -> bool:
        return True

    def takes_out(self) -> bool:
        return True
