"""SPEC §3.1: the elementwise ops (`const`, arithmetic, comparisons, `where`,
`detach`)."""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Sequence
from functools import partial
from typing import ClassVar

import numpy as np
from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
    f32,
    i1,
    i32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.kernels import Kernel, select_bits, select_or_zero
from gradopt.dialect.ops.base import (
    GradCanonicalization,
    KernelOp,
    literal_array,
    scalar_literal,
)
from gradopt.dialect.syntax import (
    literal_attr,
    parse_attributes,
    parse_optional_literal,
    parse_tensor_type,
    parse_typed_operands,
    print_attributes,
    print_scalar_literal,
    print_typed_operands,
    with_element,
)
from gradopt.dialect.types import (
    check_tensor,
    dtype_of,
    is_i1,
    tensor_type,
)


@irdl_op_definition
class ConstOp(KernelOp):
    """A literal: one scalar splat over the whole shape, or `dense<[...]>` data."""

    name = "grad.const"
    value = prop_def(
        base(FloatAttr) | base(IntegerAttr) | base(DenseIntOrFPElementsAttr)
    )
    result = result_def(TensorType)
    traits = traits_def(Pure(), ConstantLike())

    def __init__(self, value: Attribute, type: TensorType):
        super().__init__(result_types=[type], properties={"value": value})

    @classmethod
    def splat(cls, value: float | int | bool, type: TensorType) -> ConstOp:
        return cls(scalar_literal(value, type.get_element_type()), type)

    def verify_(self) -> None:
        type = check_tensor("result", self.result.type)
        element = type.get_element_type()
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            if self.value.get_type() != type:
                raise VerifyException(
                    f"dense value type {self.value.get_type()} does not match "
                    f"result type {type}"
                )
        elif self.value.type != element:
            raise VerifyException(
                f"value type {self.value.type} does not match result element "
                f"type {element}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> ConstOp:
        if (text := parse_optional_literal(parser)) is None:
            start = parser.pos
            if not parser.lexer.input.content.startswith("dense", start):
                parser.raise_error("expected a literal value")
            try:
                value = parser.parse_attribute()
            except OverflowError:  # xDSL packs f32 data with `struct`
                parser.raise_error(
                    "a value of the dense literal is out of range for f32",
                    start,
                    parser.pos,
                )
            if not isinstance(value, DenseIntOrFPElementsAttr) or not isinstance(
                type := value.get_type(), TensorType
            ):
                parser.raise_error(
                    f"expected a dense literal of tensor type, got {value}",
                    start,
                    parser.pos,
                )
            attrs = parse_attributes(parser, cls)
            op = cls(value, type)
        else:
            attrs = parse_attributes(parser, cls)
            parser.parse_punctuation(":")
            type = parse_tensor_type(parser)
            op = cls(literal_attr(parser, *text, type.get_element_type()), type)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        if isinstance(self.value, DenseIntOrFPElementsAttr):
            printer.print_attribute(self.value)
            print_attributes(printer, self)
            return
        print_scalar_literal(printer, self.value)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.result.type)

    def array(self) -> np.ndarray:
        """The literal as a read-only array of the result's shape and dtype."""
        return literal_array(self.value, tensor_type(self.result))

    def fold(self) -> Sequence[SSAValue | Attribute]:
        return (self.value,)

    def kernel(self) -> Kernel:
        type = tensor_type(self.result)
        if isinstance(self.value, DenseIntOrFPElementsAttr) or not type.get_shape():
            array = self.array()
        else:
            # a splat: its one element, converted as in `array`, seen at every
            # position of a read-only view, so that a big constant takes no memory
            dtype = dtype_of(type.get_element_type())
            element = np.full((), self.value.value.data, dtype=dtype)
            array = np.broadcast_to(element, type.get_shape())
        return lambda: array


class UfuncOp(KernelOp, ABC):
    """An op whose kernel is one NumPy ufunc, `UFUNC` (which takes `out=`)."""

    UFUNC: ClassVar[np.ufunc]

    def kernel(self) -> Kernel:
        return self.UFUNC


class ElementwiseOp(UfuncOp, ABC):
    """Base of the ops whose operands and result all have one type `T`:
    `%r = grad.add %a, %b : T`. The types are checked here rather than by an
    IRDL constraint, so that a mismatch names the operand. Most compute one
    ufunc; the others define `kernel`."""

    ELEMENTS: ClassVar[tuple[Attribute, ...]] = (f32, i32)
    OPERAND_NAMES: ClassVar[tuple[str, ...]]
    traits = traits_def(Pure(), GradCanonicalization())

    def verify_(self) -> None:
        first, *others = zip(self.OPERAND_NAMES, self.operands, strict=True)
        type = check_tensor(first[0], first[1].type, self.ELEMENTS)
        for name, operand in others:
            if operand.type != type:
                raise VerifyException(
                    f"{name} must have the type of {first[0]} ({type}), got "
                    f"{operand.type}"
                )
        if self.results[0].type != type:
            raise VerifyException(
                f"result must have the type of {first[0]} ({type}), got "
                f"{self.results[0].type}"
            )

    def fresh_result(self) -> bool:
        return True

    def out_operands(self) -> tuple[int, ...]:
        return tuple(range(len(self.operands)))  # a ufunc, or one partly applied

    @classmethod
    def parse(cls, parser: Parser) -> ElementwiseOp:
        values, type, attrs = parse_typed_operands(
            parser, cls, lambda t: [t] * len(cls.OPERAND_NAMES)
        )
        return cls.create(operands=values, result_types=[type], attributes=attrs)

    def print(self, printer: Printer) -> None:
        print_typed_operands(printer, self, self.results[0].type)


class UnaryOp(ElementwiseOp, ABC):
    input = operand_def(TensorType)
    result = result_def(TensorType)
    OPERAND_NAMES: ClassVar = ("input",)

    def __init__(self, input: SSAValue):
        super().__init__(operands=[input], result_types=[input.type])


class BinaryOp(ElementwiseOp, ABC):
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    OPERAND_NAMES: ClassVar = ("lhs", "rhs")

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        super().__init__(operands=[lhs, rhs], result_types=[lhs.type])


@irdl_op_definition
class AddOp(BinaryOp):
    name = "grad.add"
    UFUNC: ClassVar = np.add


@irdl_op_definition
class MulOp(BinaryOp):
    name = "grad.mul"
    UFUNC: ClassVar = np.multiply


@irdl_op_definition
class MaxOp(BinaryOp):
    """Elementwise maximum; a NaN operand gives NaN."""

    name = "grad.max"
    UFUNC: ClassVar = np.maximum


@irdl_op_definition
class NegOp(UnaryOp):
    name = "grad.neg"
    UFUNC: ClassVar = np.negative


class FloatUnaryOp(UnaryOp, ABC):
    ELEMENTS: ClassVar = (f32,)


@irdl_op_definition
class RecipOp(FloatUnaryOp):
    name = "grad.recip"

    def kernel(self) -> Kernel:
        # a ufunc with its first operand bound: the interpreter can pass `out=`
        return partial(np.divide, np.float32(1.0))


@irdl_op_definition
class Exp2Op(FloatUnaryOp):
    name = "grad.exp2"
    UFUNC: ClassVar = np.exp2


@irdl_op_definition
class Log2Op(FloatUnaryOp):
    name = "grad.log2"
    UFUNC: ClassVar = np.log2


@irdl_op_definition
class SqrtOp(FloatUnaryOp):
    name = "grad.sqrt"
    UFUNC: ClassVar = np.sqrt


@irdl_op_definition
class SinOp(FloatUnaryOp):
    name = "grad.sin"
    UFUNC: ClassVar = np.sin


@irdl_op_definition
class DetachOp(UnaryOp):
    """The value of its operand, through which no gradient passes."""

    name = "grad.detach"
    ELEMENTS: ClassVar = (f32, i32, i1)

    def fresh_result(self) -> bool:
        return False

    def out_operands(self) -> tuple[int, ...]:
        return ()

    def kernel(self) -> Kernel:
        return lambda a: a


class CompareOp(UfuncOp, ABC):
    """`%r = grad.cmplt %a, %b : T`, with a result of T's shape and element i1."""

    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    ELEMENTS: ClassVar[tuple[Attribute, ...]] = (f32, i32)

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        type = tensor_type(lhs)
        super().__init__(operands=[lhs, rhs], result_types=[with_element(type, i1)])

    def verify_(self) -> None:
        type = check_tensor("lhs", self.lhs.type, self.ELEMENTS)
        if self.rhs.type != type:
            raise VerifyException(
                f"rhs must have the type of lhs ({type}), got {self.rhs.type}"
            )
        if self.result.type != with_element(type, i1):
            raise VerifyException(
                f"result must be {with_element(type, i1)}, got {self.result.type}"
            )

    def fresh_result(self) -> bool:
        return True

    def takes_out(self) -> bool:
        return True  # the ufunc, into an i1 array

    @classmethod
    def parse(cls, parser: Parser) -> CompareOp:
        (lhs, rhs), _, attrs = parse_typed_operands(parser, cls, lambda t: [t, t])
        op = cls(lhs, rhs)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_typed_operands(printer, self, self.lhs.type)


@irdl_op_definition
class CmpLtOp(CompareOp):
    name = "grad.cmplt"
    UFUNC: ClassVar = np.less


@irdl_op_definition
class CmpEqOp(CompareOp):
    name = "grad.cmpeq"
    ELEMENTS: ClassVar = (f32, i32, i1)
    UFUNC: ClassVar = np.equal


@irdl_op_definition
class CmpNeOp(CompareOp):
    name = "grad.cmpne"
    ELEMENTS: ClassVar = (f32, i32, i1)
    UFUNC: ClassVar = np.not_equal


@irdl_op_definition
class WhereOp(KernelOp):
    """`%r = grad.where %c, %a, %b : T`: `%a` where `%c` holds, else `%b`."""

    name = "grad.where"
    condition = operand_def(TensorType)
    on_true = operand_def(TensorType)
    on_false = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())

    def __init__(self, condition: SSAValue, on_true: SSAValue, on_false: SSAValue):
        super().__init__(
            operands=[condition, on_true, on_false], result_types=[on_true.type]
        )

    def verify_(self) -> None:
        type = check_tensor("result", self.result.type)
        for name, operand in (("on_true", self.on_true), ("on_false", self.on_false)):
            if operand.type != type:
                raise VerifyException(
                    f"{name} must have the result type {type}, got {operand.type}"
                )
        if self.condition.type != with_element(type, i1):
            raise VerifyException(
                f"condition must be {with_element(type, i1)}, got {self.condition.type}"
            )

    @classmethod
    def parse(cls, parser: Parser) -> WhereOp:
        (condition, on_true, on_false), _, attrs = parse_typed_operands(
            parser, cls, lambda t: [with_element(t, i1), t, t]
        )
        op = cls(condition, on_true, on_false)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        print_typed_operands(printer, self, self.result.type)

    def _selects_bits(self) -> bool:
        """Whether the kernel selects bits rather than calling `np.where`: on
        4-byte elements, where there are enough of them for `np.where`'s
        branches to cost more than the three passes of `select_bits`."""
        type = tensor_type(self.result)
        return math.prod(type.get_shape()) >= SELECT_BITS_FROM and not is_i1(
            type.get_element_type()
        )

    def _zero_side(self) -> int | None:
        """The operand position (1 or 2) of a side that is a literal of zero
        bits (`0.0`, not `-0.0`; or `0`), if the other side is not one too."""
        zero = [i for i in (1, 2) if _is_zero_splat(self.operands[i])]
        return zero[0] if len(zero) == 1 else None

    def kernel(self) -> Kernel:
        if not self._selects_bits():
            return np.where
        dtype = dtype_of(tensor_type(self.result).get_element_type())
        if (zero := self._zero_side()) is not None:
            return partial(select_or_zero, dtype=dtype, zero=zero)
        return partial(select_bits, dtype=dtype)

    def fresh_result(self) -> bool:
        return True

    def out_operands(self) -> tuple[int, ...]:
        """Over on_true or on_false (the bit-selecting kernels read each
        element before writing it), unless the same value is also the other
        side."""
        if not self._selects_bits() or self.on_true is self.on_false:
            return ()
        return (1, 2)


SELECT_BITS_FROM = 2048
"""The fewest elements `grad.where` selects bits for: below, `np.where` is
faster (measured with random conditions: equal at 2048 elements, 2.5x faster
at 256, 9x slower at 65536)."""


def _is_zero_splat(value: SSAValue) -> bool:
    op = value.owner
    if not isinstance(op, ConstOp) or isinstance(op.value, DenseIntOrFPElementsAttr):
        return False
    element = np.asarray(op.kernel()()).flat[0]
    return not element.tobytes().strip(b"\0")


class GradConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become `grad.const` ops."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation:
        assert isinstance(type, TensorType)
        return ConstOp(value, type)
