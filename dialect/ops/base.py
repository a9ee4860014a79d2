"""The ground of the `grad` ops: `KernelOp` (an op with its NumPy meaning),
literals, and constant materialization."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    f32,
    i64,
)
from xdsl.interfaces import HasFolderInterface
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.irdl import IRDLOperation, operand_def, result_def, traits_def
from xdsl.parser import Parser
from xdsl.pattern_rewriter import RewritePattern
from xdsl.printer import Printer
from xdsl.traits import (
    ConstantLike,
    HasCanonicalizationPatternsTrait,
    Pure,
)

from gradopt.dialect.differentiation import is_differentiated
from gradopt.dialect.errors import OpError
from gradopt.dialect.kernels import Kernel
from gradopt.dialect.syntax import (
    int_values,
    parse_attributes,
    parse_int_list,
    parse_operand_list,
    parse_tensor_type,
    parse_tensor_types,
    print_attributes,
    print_int_list,
    resolve,
)
from gradopt.dialect.types import (
    dtype_of,
    tensor_type,
)

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

    def takes_out(self) -> bool:
        """Whether the kernel writes its whole result into any array of the
        result's type given as `out=` (the executor passes buffers it keeps
        from run to run: `gradopt.interpreter.pool`)."""
        return bool(self.out_operands())

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


def shape_of(value: SSAValue) -> tuple[int, ...]:
    type = value.type
    assert isinstance(type, TensorType | MemRefType)
    return type.get_shape()


def axes_text(values: Sequence[int]) -> str:
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


class RetypeOp(KernelOp, ABC):
    """An op of one operand whose result has another type, written
    `$input : T to U` (`cast`, `bitcast`, `reshape`)."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, type: TensorType):
        super().__init__(operands=[input], result_types=[type])
