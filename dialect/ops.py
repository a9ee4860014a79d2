"""The ops of the `grad` dialect (SPEC §3), each with its NumPy meaning.

`kernel()` returns a function from operand arrays to the result array, with the
op's attributes already bound. It is the single definition of what an op
computes: the interpreter runs it, and constant folding calls it.
"""

from __future__ import annotations

import math
from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from enum import Enum
from functools import partial
from itertools import pairwise
from typing import ClassVar

import numpy as np
from xdsl.dialect_interfaces.constant_materialization import (
    ConstantMaterializationInterface,
)
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    MemRefType,
    StringAttr,
    TensorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    base,
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
    var_operand_def,
)
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    MemoryReadEffect,
    MemoryWriteEffect,
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.derivative import is_differentiated
from gradopt.dialect.errors import OpError
from gradopt.dialect.syntax import (
    int_values,
    literal_attr,
    parse_attributes,
    parse_int_list,
    parse_literal,
    parse_operand_list,
    parse_optional_literal,
    parse_tensor_type,
    parse_tensor_types,
    parse_typed_operands,
    print_attributes,
    print_int_list,
    print_scalar_literal,
    print_typed_operands,
    resolve,
    with_element,
)
from gradopt.dialect.types import (
    Named,
    check_slot,
    check_tensor,
    dtype_of,
    int_list,
    int_scalar,
    is_i1,
    tensor_type,
)

Kernel = Callable[..., "np.ndarray | None"]
"""A NumPy function from an op's operand values to its result value (None for
`grad.store`, which writes its slot)."""

FOLD_LIMIT = 1 << 20
"""Largest tensor (in elements) that constant folding computes or creates."""


class GradCanonicalization(HasCanonicalizationPatternsTrait):
    """The exact simplifications of `gradopt.dialect.canonicalization`."""

    def get_patterns(self, op: type[Operation]) -> tuple[RewritePattern, ...]:
        from gradopt.dialect.canonicalization import patterns_for

        return patterns_for(op)

    @classmethod
    def get_canonicalization_patterns(cls) -> tuple[RewritePattern, ...]:
        return ()


class KernelOp(IRDLOperation, HasFolderInterface, ABC):
    """An op that gradopt's interpreter runs by its NumPy kernel: every `grad`
    op but the differentiation ops, and an op of any other dialect that derives
    from it.

    Besides its kernel, an op says what the interpreter needs to know to manage
    memory (`fresh_result`, `out_operands`, `view_kernel`, `WRITES_SLOT`,
    `whole_store`), so
    that the executor needs no list of op types. A pure op with constant
    operands folds by running its kernel (xDSL's `canonicalize` calls `fold`
    and materializes the result as a `grad.const`)."""

    WRITES_SLOT: ClassVar[bool] = False
    """Whether the op writes a slot."""

    @abstractmethod
    def kernel(self) -> Kernel: ...

    def fresh_result(self) -> bool:
        """Whether the kernel's result is always a new array that shares memory
        with nothing (so it may be written over once dead); otherwise it may be
        an operand, a view of one, or a read-only constant."""
        return False

    def out_operands(self) -> tuple[int, ...]:
        """The operands whose buffer the kernel can write its result into when
        given it as `out=` (the executor does so only for a fresh operand of
        the result's type that dies here)."""
        return ()

    def view_kernel(self) -> Kernel | None:
        """A kernel giving a read-only view where `kernel` gives a copy, for a
        caller that knows nothing writes the viewed memory meanwhile."""
        return None

    def whole_store(self) -> tuple[int, int] | None:
        """For an op that copies a value over a whole slot of rank 1 or more:
        the operand positions of the value and of the slot (the executor may
        have the value computed straight into the slot instead)."""
        return None

    def fold(self) -> Sequence[SSAValue | Attribute] | None:
        """The result's value if every operand is a literal: the kernel's, so
        folding computes exactly what the interpreter would. Values that a
        differentiation op takes a derivative with respect to are kept."""
        if not self.has_trait(Pure) or not self.operands or len(self.results) != 1:
            return None
        types = [tensor_type(v) for v in (*self.operands, self.results[0])]
        if any(t.element_count() > FOLD_LIMIT for t in types) or any(
            is_differentiated(v) for v in (*self.operands, self.results[0])
        ):
            return None
        arrays = []
        for operand, type in zip(self.operands, types, strict=False):
            if (value := ConstantLike.get_constant_value(operand)) is None:
                return None
            arrays.append(literal_array(value, type))
        try:
            with np.errstate(all="ignore"):
                result = np.asarray(self.kernel()(*arrays))
        except OpError:  # a zero divisor, say: left for the run to report
            return None
        return (literal_of(result, types[-1]),)


def literal_array(value: Attribute, type: TensorType) -> np.ndarray:
    """The read-only array of `type` that literal `value` (a scalar splat or
    dense data) stands for."""
    dtype = dtype_of(type.get_element_type())
    if isinstance(value, DenseIntOrFPElementsAttr):
        array = dense_array(value.data.data, np.dtype(dtype)).reshape(type.get_shape())
    else:
        assert isinstance(value, FloatAttr | IntegerAttr)
        array = np.full(type.get_shape(), value.value.data, dtype=dtype)
    array.flags.writeable = False
    return array


def dense_bytes(array: np.ndarray) -> bytes:
    """The bytes of a `dense<...>` literal holding `array` (float32, int32 or
    bool), as xDSL packs them: little-endian, an i1 true as 0xff. One copy
    of the data, where a list of Python numbers costs ten times its size."""
    if array.dtype == np.bool_:
        return np.where(array, np.int8(-1), np.int8(0)).tobytes()
    return array.astype(array.dtype.newbyteorder("<"), copy=False).tobytes()


def dense_array(data: bytes, dtype: np.dtype) -> np.ndarray:
    """The read-only array of `dtype` (float32, int32 or bool) whose
    `dense<...>` bytes are `data`: a view of them where the byte order allows."""
    if dtype == np.bool_:
        return np.frombuffer(data, np.int8) != 0
    return np.frombuffer(data, dtype.newbyteorder("<")).astype(dtype, copy=False)


def literal_of(array: np.ndarray, type: TensorType) -> Attribute:
    """The literal of a `grad.const` holding `array`: one scalar if every
    element has the same bits, dense data otherwise."""
    flat = np.ascontiguousarray(array).reshape(-1)
    bits = flat.view(np.int32) if flat.dtype == np.float32 else flat
    if flat.size and np.all(bits == bits[0]):
        return scalar_literal(flat[0].item(), type.get_element_type())
    return DenseIntOrFPElementsAttr.from_list(
        type,  # pyright: ignore[reportArgumentType, reportCallIssue]
        flat.tolist(),
    )


def scalar_literal(value: float | int | bool, element: Attribute) -> Attribute:
    """The splat literal `value` of element type `element`, in its precision."""
    if element == f32:
        return FloatAttr(float(np.float32(value)), f32)
    assert isinstance(element, IntegerType)
    return IntegerAttr(int(value), element)


class GradConstantMaterialization(ConstantMaterializationInterface):
    """Folded values become `grad.const` ops."""

    def materialize_constant(self, value: Attribute, type: Attribute) -> Operation:
        assert isinstance(type, TensorType)
        return ConstOp(value, type)


def _shape(value: SSAValue) -> tuple[int, ...]:
    type = value.type
    assert isinstance(type, TensorType | MemRefType)
    return type.get_shape()


# --- §3.1 Elementwise -------------------------------------------------------


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
        branches to cost more than the three passes of `_select_bits`."""
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
            return partial(_select_or_zero, dtype=dtype, zero=zero)
        return partial(_select_bits, dtype=dtype)

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


def _select_or_zero(
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
    those bits or zero, exactly as `_select_bits` would select them."""
    bits = np.int32
    if zero == 2:
        kept, keep = on_true, condition
    else:
        kept, keep = on_false, np.logical_not(condition)
    target = None if out is None else out.view(bits)
    result = np.multiply(kept.view(bits), keep, out=target)
    return out if out is not None else result.view(dtype)


def _select_bits(
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


class IntegerBinaryOp(BinaryOp, ABC):
    ELEMENTS: ClassVar = (i32,)


def _wrap(values: np.ndarray) -> np.ndarray:
    """int64 values wrapped to int32, two's complement."""
    return values.astype(np.int32)


class IntegerArithmeticOp(IntegerBinaryOp, ABC):
    """`idiv`, `mod`, `shl`, `shr`: computed in int64 and wrapped, or checked,
    into a new array; not a ufunc that takes `out=`."""

    def out_operands(self) -> tuple[int, ...]:
        return ()


def _check_divisor(op: Operation, b: np.ndarray) -> None:
    if np.any(b == 0):
        raise OpError(op, "divides by zero", at_run_time=True)


def _divide_toward_zero(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Quotient rounded toward zero, as in C, in int64 (exact for int32 inputs)."""
    a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
    quotient = np.abs(a64) // np.abs(b64)
    return np.where((a64 < 0) != (b64 < 0), -quotient, quotient)


@irdl_op_definition
class IDivOp(IntegerArithmeticOp):
    name = "grad.idiv"

    def kernel(self) -> Kernel:
        def idiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            _check_divisor(self, b)
            return _wrap(_divide_toward_zero(a, b))

        return idiv


@irdl_op_definition
class ModOp(IntegerArithmeticOp):
    """Remainder with the sign of the dividend, as in C."""

    name = "grad.mod"

    def kernel(self) -> Kernel:
        def mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            _check_divisor(self, b)
            a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
            return _wrap(a64 - b64 * _divide_toward_zero(a64, b64))

        return mod


class BitwiseOp(IntegerBinaryOp, ABC):
    ELEMENTS: ClassVar = (i32, i1)


@irdl_op_definition
class AndOp(BitwiseOp):
    name = "grad.and"
    UFUNC: ClassVar = np.bitwise_and


@irdl_op_definition
class OrOp(BitwiseOp):
    name = "grad.or"
    UFUNC: ClassVar = np.bitwise_or


@irdl_op_definition
class XorOp(BitwiseOp):
    name = "grad.xor"
    UFUNC: ClassVar = np.bitwise_xor


class ShiftOp(IntegerArithmeticOp, ABC):
    def _checked(self, shift: np.ndarray) -> np.ndarray:
        if np.any((shift < 0) | (shift > 31)):
            raise OpError(self, "shift amount outside 0..31", at_run_time=True)
        return shift


@irdl_op_definition
class ShlOp(ShiftOp):
    name = "grad.shl"

    def kernel(self) -> Kernel:
        return lambda a, b: _wrap(
            np.left_shift(np.asarray(a, np.int64), self._checked(b))
        )


@irdl_op_definition
class ShrOp(ShiftOp):
    """Arithmetic shift right."""

    name = "grad.shr"

    def kernel(self) -> Kernel:
        return lambda a, b: np.right_shift(a, self._checked(b))


class ConversionOp(KernelOp, ABC):
    """`%r = grad.cast %a : tensor<5xf32> to tensor<5xi32>`: same shape."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, type: TensorType):
        super().__init__(operands=[input], result_types=[type])

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_shape() != target.get_shape():
            raise VerifyException(
                f"result shape must equal the input shape {list(source.get_shape())}"
                f", got {list(target.get_shape())}"
            )

    def conversion(self) -> tuple[Attribute, Attribute]:
        return tensor_type(self.input).get_element_type(), tensor_type(
            self.result
        ).get_element_type()


_I32_MIN, _I32_MAX = -(2**31), 2**31 - 1


def _cast(source: Attribute, target: Attribute) -> Kernel:
    dtype = dtype_of(target)
    if source == target:
        return lambda a: a
    if is_i1(target):
        return lambda a: np.not_equal(a, 0)
    if source == f32 and target == i32:
        # f32 -> i32 rounds toward zero and saturates; NaN becomes 0
        def to_i32(a: np.ndarray) -> np.ndarray:
            wide = np.trunc(np.nan_to_num(np.asarray(a, np.float64), nan=0.0))
            return np.clip(wide, _I32_MIN, _I32_MAX).astype(np.int32)

        return to_i32
    return lambda a: np.asarray(a).astype(dtype)


@irdl_op_definition
class CastOp(ConversionOp):
    name = "grad.cast"

    def kernel(self) -> Kernel:
        return _cast(*self.conversion())

    def fresh_result(self) -> bool:
        source, target = self.conversion()
        return source != target


@irdl_op_definition
class BitcastOp(ConversionOp):
    """Reinterprets the bits of f32 as i32 or back."""

    name = "grad.bitcast"

    def verify_(self) -> None:
        super().verify_()
        source, target = self.conversion()
        if source != target and {source, target} != {f32, i32}:
            raise VerifyException(
                f"bitcast must be between f32 and i32 or to the same type, got "
                f"{source} to {target}"
            )

    def kernel(self) -> Kernel:
        source, target = self.conversion()
        if source == target:
            return lambda a: a
        dtype = dtype_of(target)
        return lambda a: np.asarray(a).view(dtype)


# --- §3.2 Shapes ------------------------------------------------------------


class ReduceKind(Enum):
    """A reduction of `grad.reduce`: its keyword, its NumPy ufunc, and its
    identity for f32 and for i32 (the init of a reduction, as the lowering
    builds it: -0.0 for an f32 sum, so that a sum of -0.0 stays -0.0)."""

    ADD = ("add", np.add, -0.0, 0)
    MAX = ("max", np.maximum, float("-inf"), -(2**31))
    MUL = ("mul", np.multiply, 1.0, 1)

    def __init__(
        self, keyword: str, ufunc: np.ufunc, f32_identity: float, i32_identity: int
    ):
        self.keyword = keyword
        self.ufunc = ufunc
        self.f32_identity = f32_identity
        self.i32_identity = i32_identity

    def identity(self, element: Attribute) -> float | int:
        return self.f32_identity if element == f32 else self.i32_identity

    @classmethod
    def named(cls, keyword: str) -> ReduceKind | None:
        return next((kind for kind in cls if kind.keyword == keyword), None)


def _axes_text(values: Sequence[int]) -> str:
    return "[" + ", ".join(str(v) for v in values) + "]"


class ListOp(KernelOp, ABC):
    """An op whose properties are lists of integers (`array<i64: ...>`):
    `%r = grad.<op> %a [, %b ...] [ints]... attr-dict : T1 [, T2 ...] to T`.
    One parser and printer serves them all: a leading keyword (`reduce add`:
    `parse_prefix`), each list after its name (`NAMED_LISTS`: `low [1]`), one
    integer stored as an `i64` (`SCALARS`: concat's `[0]`), a trailing literal
    (`parse_suffix`: pad's `value 0.0`), one type for an op whose result has
    its operand's type (`SAME_TYPE`), any number of operands (`VARIADIC`)."""

    traits = traits_def(Pure(), GradCanonicalization())
    LISTS: ClassVar[tuple[str, ...]]
    NAMED_LISTS: ClassVar[bool] = False
    SCALARS: ClassVar[tuple[str, ...]] = ()
    SAME_TYPE: ClassVar[bool] = False
    VARIADIC: ClassVar[bool] = False

    def ints(self, name: str) -> tuple[int, ...]:
        """The integers of list property `name` (verified to be i64)."""
        values = self.properties[name]
        if isinstance(values, IntegerAttr):
            return (values.value.data,)
        assert isinstance(values, DenseArrayBase)
        return int_values(values)

    @classmethod
    def parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        return {}

    def print_prefix(self, printer: Printer) -> None:
        printer.print_string(" ")

    @classmethod
    def parse_suffix(
        cls, parser: Parser
    ) -> Callable[[TensorType], dict[str, Attribute]]:
        """What follows the lists, as properties once the operand type is known."""
        return lambda _: {}

    def print_suffix(self, printer: Printer) -> None:
        pass

    @classmethod
    def parse(cls, parser: Parser) -> ListOp:
        properties = cls.parse_prefix(parser)
        operands = parse_operand_list(parser)
        for name in cls.LISTS:
            if cls.NAMED_LISTS:
                parser.parse_keyword(name)
            start = parser.pos
            values = parse_int_list(parser)
            if name in cls.SCALARS:
                if len(values) != 1:
                    parser.raise_error(f"expected one integer for {name}", start)
                properties[name] = IntegerAttr(values[0], i64)
            else:
                properties[name] = DenseArrayBase.from_list(i64, values)
        suffix = cls.parse_suffix(parser)
        attrs = parse_attributes(parser, cls)
        parser.parse_punctuation(":")
        count = len(operands) if cls.VARIADIC else 1
        sources = parse_tensor_types(parser, count)
        if cls.SAME_TYPE:
            type = sources[0]
        else:
            parser.parse_keyword("to")
            type = parse_tensor_type(parser)
        properties |= suffix(sources[0])
        return cls.create(
            operands=resolve(parser, operands, sources, count),
            result_types=[type],
            properties=properties,
            attributes=attrs,
        )

    def print(self, printer: Printer) -> None:
        self.print_prefix(printer)
        printer.print_list(self.operands, printer.print_operand)
        for name in self.LISTS:
            if self.NAMED_LISTS:
                printer.print_string(f" {name}")
            print_int_list(printer, self.ints(name))
        self.print_suffix(printer)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_list(self.operand_types, printer.print_attribute)
        if not self.SAME_TYPE:
            printer.print_string(" to ")
            printer.print_attribute(self.results[0].type)


@irdl_op_definition
class ReduceOp(ListOp):
    """`%r = grad.reduce add %a [0] : tensor<5x3xf32> to tensor<3xf32>`."""

    name = "grad.reduce"
    kind = prop_def(StringAttr)
    axes = prop_def(int_list("axes"))
    input = operand_def(TensorType)
    result = result_def(TensorType)
    LISTS: ClassVar = ("axes",)

    def __init__(
        self, kind: str, input: SSAValue, axes: Sequence[int], type: TensorType
    ):
        super().__init__(
            operands=[input],
            result_types=[type],
            properties={
                "kind": StringAttr(kind),
                "axes": DenseArrayBase.from_list(i64, axes),
            },
        )

    @property
    def axis_list(self) -> tuple[int, ...]:
        return self.ints("axes")

    @property
    def reduce_kind(self) -> ReduceKind:
        kind = ReduceKind.named(self.kind.data)
        assert kind is not None, "verified"
        return kind

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type, (f32, i32))
        if ReduceKind.named(self.kind.data) is None:
            raise VerifyException(
                f"kind must be add, max or mul, got '{self.kind.data}'"
            )
        axes, rank = self.axis_list, source.get_num_dims()
        if not axes:
            raise VerifyException("axes must not be empty")
        if any(not 0 <= a < rank for a in axes):
            raise VerifyException(
                f"axes must be in range [0, {rank}), got {_axes_text(axes)}"
            )
        if list(axes) != sorted(set(axes)):
            raise VerifyException(
                f"axes must be sorted and unique, got {_axes_text(axes)}"
            )
        expected = TensorType(
            source.get_element_type(),
            [d for i, d in enumerate(source.get_shape()) if i not in axes],
        )
        if self.result.type != expected:
            raise VerifyException(
                f"result must be {expected} (the input without the reduced axes), "
                f"got {self.result.type}"
            )

    @classmethod
    def parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        kind = parser.parse_identifier(" (reduction kind: add, max or mul)")
        return {"kind": StringAttr(kind)}

    def print_prefix(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")

    def kernel(self) -> Kernel:
        ufunc, axes = self.reduce_kind.ufunc, self.axis_list
        dtype = dtype_of(tensor_type(self.input).get_element_type())
        return lambda a: ufunc.reduce(np.ascontiguousarray(a), axes, dtype)

    def fresh_result(self) -> bool:
        return True


class ShapeOp(ListOp, ABC):
    """`%r = grad.<op> %a [ints] : T1 to T2`, for broadcast and permute."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, values: Sequence[int], type: TensorType):
        super().__init__(
            operands=[input],
            result_types=[type],
            properties={self.LISTS[0]: DenseArrayBase.from_list(i64, values)},
        )

    def int_list(self) -> tuple[int, ...]:
        return self.ints(self.LISTS[0])

    def types(self) -> tuple[TensorType, TensorType]:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_element_type() != target.get_element_type():
            raise VerifyException(
                f"result element type must be {source.get_element_type()}, got "
                f"{target.get_element_type()}"
            )
        return source, target


@irdl_op_definition
class BroadcastOp(ShapeOp):
    """Like `stablehlo.broadcast_in_dim`: input dim i becomes output dim dims[i];
    an input dim of size 1 may expand."""

    name = "grad.broadcast"
    dims = prop_def(int_list("dims"))
    LISTS: ClassVar = ("dims",)

    def verify_(self) -> None:
        source, target = self.types()
        dims, rank = self.int_list(), target.get_num_dims()
        if len(dims) != source.get_num_dims():
            raise VerifyException(
                f"dims must have one entry per input dim ({source.get_num_dims()})"
                f", got {_axes_text(dims)}"
            )
        if any(not 0 <= d < rank for d in dims):
            raise VerifyException(
                f"dims must be in range [0, {rank}), got {_axes_text(dims)}"
            )
        if any(a >= b for a, b in pairwise(dims)):
            raise VerifyException(
                f"dims must be strictly increasing, got {_axes_text(dims)}"
            )
        for i, (size, d) in enumerate(zip(source.get_shape(), dims, strict=True)):
            if size not in (1, target.get_shape()[d]):
                raise VerifyException(
                    f"input dim {i} of size {size} cannot broadcast to output dim "
                    f"{d} of size {target.get_shape()[d]}"
                )

    def kernel(self) -> Kernel:
        source, target = _shape(self.input), _shape(self.result)
        placed = [1] * len(target)
        for size, d in zip(source, self.int_list(), strict=True):
            placed[d] = size
        dtype = np.dtype(dtype_of(tensor_type(self.input).get_element_type()))
        c_strides = tuple(
            dtype.itemsize * math.prod(source[i + 1 :]) for i in range(len(source))
        )
        strides = [0] * len(target)
        for i, d in enumerate(self.int_list()):
            if source[i] == target[d]:
                strides[d] = c_strides[i]

        def broadcast(a: np.ndarray) -> np.ndarray:
            """A read-only view with stride 0 along the expanded dims: built
            directly on `a`'s memory (4x faster than `np.broadcast_to`) where
            `a` is C-ordered, as results of whole ops are, so that the view's
            strides are known when planning."""
            if a.strides == c_strides:
                try:
                    view = np.ndarray(target, dtype, a, 0, strides)
                except (TypeError, ValueError, BufferError):  # no buffer
                    pass
                else:
                    view.flags.writeable = False
                    return view
            return np.broadcast_to(a.reshape(placed), target)

        return broadcast


@irdl_op_definition
class PermuteOp(ShapeOp):
    """Output dim i is input dim perm[i]."""

    name = "grad.permute"
    perm = prop_def(int_list("perm"))
    LISTS: ClassVar = ("perm",)

    def verify_(self) -> None:
        source, target = self.types()
        perm = self.int_list()
        if sorted(perm) != list(range(source.get_num_dims())):
            raise VerifyException(
                f"perm must be a permutation of [0, {source.get_num_dims()}), got "
                f"{_axes_text(perm)}"
            )
        expected = [source.get_shape()[p] for p in perm]
        if list(target.get_shape()) != expected:
            raise VerifyException(
                f"result shape must be {expected}, got {list(target.get_shape())}"
            )

    def kernel(self) -> Kernel:
        perm = self.int_list()
        return lambda a: a.transpose(perm)


@irdl_op_definition
class ReshapeOp(KernelOp):
    """Same elements in row-major order, another shape."""

    name = "grad.reshape"
    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, type: TensorType):
        super().__init__(operands=[input], result_types=[type])

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_element_type() != target.get_element_type():
            raise VerifyException(
                f"result element type must be {source.get_element_type()}, got "
                f"{target.get_element_type()}"
            )
        if source.element_count() != target.element_count():
            raise VerifyException(
                f"result must have as many elements as the input "
                f"({source.element_count()}), got {target.element_count()}"
            )

    def kernel(self) -> Kernel:
        shape = _shape(self.result)
        return lambda a: a.reshape(shape)


def swap_last(rank: int) -> list[int]:
    """The permutation that swaps the last two dims and keeps the batch dims."""
    return [*range(rank - 2), rank - 1, rank - 2]


@irdl_op_definition
class DotOp(KernelOp):
    """f32 matrix product, batched over equal leading dims:
    `tensor<BxMxKxf32>, tensor<BxKxNxf32>` to `tensor<BxMxNxf32>`."""

    name = "grad.dot"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `to` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        (*batch, m, _), (*_, n) = _shape(lhs), _shape(rhs)
        result = TensorType(f32, [*batch, m, n])
        super().__init__(operands=[lhs, rhs], result_types=[result])

    def verify_(self) -> None:
        shapes = []
        for name, value in (("lhs", self.lhs), ("rhs", self.rhs)):
            type = check_tensor(name, value.type, (f32,))
            if type.get_num_dims() < 2:
                raise VerifyException(
                    f"{name} must be a tensor of rank at least 2, got {type}"
                )
            shapes.append(type.get_shape())
        (*batch, m, k), (*batch2, k2, n) = shapes
        if len(batch) != len(batch2):
            raise VerifyException(
                f"lhs and rhs must have the same rank, got {len(batch) + 2} and "
                f"{len(batch2) + 2}"
            )
        if batch != batch2:
            raise VerifyException(
                f"batch dims must agree: lhs has {batch}, rhs has {batch2}"
            )
        if k != k2:
            raise VerifyException(
                f"inner sizes must agree: lhs has {k} columns, rhs has {k2} rows"
            )
        expected = TensorType(f32, [*batch, m, n])
        if self.result.type != expected:
            raise VerifyException(f"result must be {expected}, got {self.result.type}")

    def kernel(self) -> Kernel:
        return lambda a, b: np.matmul(np.ascontiguousarray(a), np.ascontiguousarray(b))

    def fresh_result(self) -> bool:
        return True


# --- §3.2 Slicing: ops that move data and compute nothing --------------------


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
                f"dims must be in range [0, {rank}), got {_axes_text(dims)}"
            )
        if list(dims) != sorted(set(dims)):
            raise VerifyException(
                f"dims must be sorted and unique, got {_axes_text(dims)}"
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
        return lambda *arrays: np.concatenate(arrays, axis=axis)

    def fresh_result(self) -> bool:
        return True


# --- §3.3 Memory ------------------------------------------------------------


def _indexed_type(slot: MemRefType, count: int) -> TensorType:
    """The tensor type of a slot indexed at its `count` leading dims."""
    return TensorType(slot.get_element_type(), slot.get_shape()[count:])


def _parse_slot_access(
    parser: Parser,
) -> tuple[SSAValue, Sequence[SSAValue], MemRefType, dict[str, Attribute]]:
    """Parse `%slot[%i, ...] attr-dict : memref<...>` (the indices optional)."""
    slot = parser.parse_unresolved_operand()
    indices = parser.parse_optional_comma_separated_list(
        parser.Delimiter.SQUARE, parser.parse_unresolved_operand
    )
    attrs = parse_attributes(parser, KernelOp)
    parser.parse_punctuation(":")
    start = parser.pos
    type = parser.parse_type()
    if not isinstance(type, MemRefType):
        parser.raise_error(f"expected a memref type, got {type}", start)
    indices = indices or []
    if len(indices) > type.get_num_dims():
        parser.raise_error(
            f"too many indices for {type}: expected at most {type.get_num_dims()}, "
            f"got {len(indices)}",
            start,
        )
    index_values = [parser.resolve_operand(i, IndexType()) for i in indices]
    return parser.resolve_operand(slot, type), index_values, type, attrs


def _print_slot_access(printer: Printer, slot: SSAValue, indices: Sequence[SSAValue]):
    printer.print_operand(slot)
    if indices:
        printer.print_string("[")
        printer.print_list(indices, printer.print_operand)
        printer.print_string("]")


def _check_slot_access(slot: SSAValue, indices: Sequence[SSAValue]) -> MemRefType:
    type = check_slot("slot", slot.type)
    if len(indices) > type.get_num_dims():
        raise VerifyException(
            f"too many indices for {type}: expected at most {type.get_num_dims()}, "
            f"got {len(indices)}"
        )
    for i, index in enumerate(indices):
        if not isinstance(index.type, IndexType):
            raise VerifyException(f"index {i} must be of type index, got {index.type}")
    return type


def _check_indices(op: Operation, shape: Sequence[int], indices: Sequence) -> tuple:
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


@irdl_op_definition
class LoadOp(KernelOp):
    """The whole slot as a tensor, or the sub-tensor at the leading indices."""

    name = "grad.load"
    slot = operand_def(MemRefType)
    indices = var_operand_def(AnyAttr())  # checked in verify_, naming the index
    result = result_def(TensorType)
    # A load reads its slot, and SPEC §3.3 says it is never merged or removed (an
    # out-of-range index must still fail at run time). xDSL's cse merges, and dce
    # removes, ops whose only effect is a read, so a load also declares a write,
    # as MLIR ops that must stay do.
    traits = traits_def(MemoryReadEffect(), MemoryWriteEffect())

    def __init__(self, slot: SSAValue, indices: Sequence[SSAValue] = ()):
        assert isinstance(slot.type, MemRefType)
        super().__init__(
            operands=[slot, indices],
            result_types=[_indexed_type(slot.type, len(indices))],
        )

    def verify_(self) -> None:
        type = _check_slot_access(self.slot, self.indices)
        expected = _indexed_type(type, len(self.indices))
        if self.result.type != expected:
            raise VerifyException(f"result must be {expected}, got {self.result.type}")

    @classmethod
    def parse(cls, parser: Parser) -> LoadOp:
        slot, indices, _, attrs = _parse_slot_access(parser)
        op = cls(slot, indices)
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        _print_slot_access(printer, self.slot, self.indices)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.slot.type)

    def kernel(self) -> Kernel:
        shape = _shape(self.slot)
        if not self.indices and shape:
            return np.ndarray.copy

        def load(slot: np.ndarray, *indices: int) -> np.ndarray:
            return slot[_check_indices(self, shape, indices)].copy()

        return load

    def fresh_result(self) -> bool:
        return True

    def view_kernel(self) -> Kernel:
        """Like `kernel`, but a read-only view of the slot rather than a copy."""
        shape = _shape(self.slot)

        def load_view(slot: np.ndarray, *indices: int) -> np.ndarray:
            view = slot[_check_indices(self, shape, indices)] if indices else slot
            if isinstance(view, np.ndarray):
                view = view.view()
                view.flags.writeable = False
            return view

        return load_view


@irdl_op_definition
class StoreOp(KernelOp):
    """Writes the whole slot, or the part at the leading indices."""

    name = "grad.store"
    value = operand_def(TensorType)
    slot = operand_def(MemRefType)
    indices = var_operand_def(AnyAttr())  # checked in verify_, naming the index
    traits = traits_def(MemoryWriteEffect())
    WRITES_SLOT: ClassVar = True

    def __init__(
        self, value: SSAValue, slot: SSAValue, indices: Sequence[SSAValue] = ()
    ):
        super().__init__(operands=[value, slot, indices])

    def verify_(self) -> None:
        type = _check_slot_access(self.slot, self.indices)
        expected = _indexed_type(type, len(self.indices))
        if self.value.type != expected:
            raise VerifyException(f"value must be {expected}, got {self.value.type}")

    @classmethod
    def parse(cls, parser: Parser) -> StoreOp:
        value = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        slot, indices, type, attrs = _parse_slot_access(parser)
        op = cls(
            parser.resolve_operand(value, _indexed_type(type, len(indices))),
            slot,
            indices,
        )
        op.attributes.update(attrs)
        return op

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.value)
        printer.print_string(", ")
        _print_slot_access(printer, self.slot, self.indices)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(self.slot.type)

    def kernel(self) -> Kernel:
        shape = _shape(self.slot)

        def store(value: np.ndarray, slot: np.ndarray, *indices: int) -> None:
            slot[_check_indices(self, shape, indices) if indices else ...] = value

        return store

    def whole_store(self) -> tuple[int, int] | None:
        return None if self.indices or not _shape(self.slot) else (0, 1)


GRAD_OPS: tuple[type[KernelOp], ...] = (
    ConstOp,
    AddOp,
    MulOp,
    MaxOp,
    NegOp,
    RecipOp,
    Exp2Op,
    Log2Op,
    SqrtOp,
    SinOp,
    CmpLtOp,
    CmpEqOp,
    CmpNeOp,
    WhereOp,
    IDivOp,
    ModOp,
    AndOp,
    OrOp,
    XorOp,
    ShlOp,
    ShrOp,
    CastOp,
    BitcastOp,
    DetachOp,
    ReduceOp,
    BroadcastOp,
    ReshapeOp,
    PermuteOp,
    DotOp,
    SliceOp,
    PadOp,
    ReverseOp,
    ConcatOp,
    LoadOp,
    StoreOp,
)
"""The ops of SPEC §3.1-§3.3 (the differentiation ops of §3.4 are in
`gradopt.dialect.differentiation`)."""
