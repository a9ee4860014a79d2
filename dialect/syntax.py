"""Parsing and printing helpers shared by the custom formats of `grad` ops.

The declarative assembly format covers the plain ops; the ones whose result type
is derived from an operand type, or that carry an integer list such as `[1, 0]`,
use these helpers so that all custom formats read and print the same way.
"""

from __future__ import annotations

import re
import struct
from collections.abc import Callable, Sequence
from typing import cast

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    FloatAttr,
    IntegerAttr,
    IntegerType,
    TensorType,
    f32,
)
from xdsl.ir import Attribute, Operation, SSAValue
from xdsl.parser import Parser, UnresolvedOperand
from xdsl.printer import Printer
from xdsl.utils.lexer import Span

from gradopt.dialect.types import ELEMENT_TYPES, describe, fits_i32, is_tensor_of

_NUMBER = re.compile(
    r"-?(0x[0-9a-fA-F]+|inf|nan|[0-9]+(\.[0-9]*)?([eE][+-]?[0-9]+)?)(?![\w.$])"
)


def parse_operand_list(parser: Parser) -> list[UnresolvedOperand]:
    """Parse `%a, %b, ...` (at least one operand)."""
    operands = [parser.parse_unresolved_operand()]
    while parser.parse_optional_punctuation(",") is not None:
        operands.append(parser.parse_unresolved_operand())
    return operands


def parse_type_list(parser: Parser, count: int | None = None) -> list[Attribute]:
    """Parse `T0, T1, ...` (at least one type; exactly `count` if given)."""
    start = parser.pos
    types: list[Attribute] = [parser.parse_type()]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parser.parse_type())
    if count is not None and len(types) != count:
        parser.raise_error(
            f"expected {count} type{'s' * (count != 1)}, got {len(types)}",
            Span(start, parser.pos, parser.lexer.input),
        )
    return types


def parse_int_list(parser: Parser) -> list[int]:
    """Parse `[1, 0]` (possibly empty)."""
    return parser.parse_comma_separated_list(
        parser.Delimiter.SQUARE, lambda: parser.parse_integer(allow_boolean=False)
    )


def int_values(values: DenseArrayBase) -> tuple[int, ...]:
    """The integers of an `array<i64: ...>` property."""
    return cast(DenseArrayBase[IntegerType], values).get_values()


def print_int_list(printer: Printer, values: Sequence[int]) -> None:
    printer.print_string(" [")
    printer.print_list(values, lambda v: printer.print_string(str(v)))
    printer.print_string("]")


def parse_attributes(parser: Parser, op_type: type[Operation]) -> dict[str, Attribute]:
    """Parse an optional attribute dictionary, refusing property names."""
    attrs = parser.parse_optional_attr_dict_with_reserved_attr_names(
        getattr(op_type, "property_names", ())
    )
    return {} if attrs is None else dict(attrs.data)


def print_attributes(printer: Printer, op: Operation) -> None:
    printer.print_op_attributes(op.attributes)


def resolve(
    parser: Parser,
    operands: Sequence[UnresolvedOperand],
    types: Sequence[Attribute],
    count: int,
) -> list[SSAValue]:
    """Resolve `operands` against `types`, requiring exactly `count` of them."""
    if len(operands) != count:
        parser.raise_error(
            f"expected {count} operand{'s' * (count != 1)}, got {len(operands)}",
            operands[0].span,
        )
    return [parser.resolve_operand(o, t) for o, t in zip(operands, types, strict=True)]


def with_element(type: TensorType, element: Attribute) -> TensorType:
    """`type` with its element type replaced."""
    return TensorType(element, type.get_shape())


def parse_optional_literal(parser: Parser) -> tuple[str, int] | None:
    """Consume a scalar literal (`2.0`, `-1e-3`, `0x7FC00000`, `3`, `true`) if
    one comes next, and return its text and start position; what it means
    depends on the type that follows it. MLIR's lexer has no token for `1e-3`,
    so numbers are matched on the source text, and the parser resumes after
    them (xDSL has no public way to resume at a position)."""
    start = parser.pos
    if (flag := parser.parse_optional_boolean()) is not None:
        return ("true" if flag else "false"), start
    match = _NUMBER.match(parser.lexer.input.content, start)
    if match is None:
        return None
    parser._resume_from(start + len(match.group(0)))  # pyright: ignore[reportPrivateUsage]
    return match.group(0), start


def parse_literal(parser: Parser) -> tuple[str, int]:
    """`parse_optional_literal`, where a literal must come."""
    if (literal := parse_optional_literal(parser)) is None:
        parser.raise_error("expected a literal value")
    return literal


def literal_attr(
    parser: Parser, text: str, start: int, element: Attribute
) -> FloatAttr | IntegerAttr:
    """The attribute of literal `text` for element type `element`."""
    span = Span(start, start + len(text), parser.lexer.input)
    if isinstance(element, IntegerType) and element.width.data == 1:
        if text not in ("true", "false"):
            parser.raise_error(f"expected 'true' or 'false' for i1, got '{text}'", span)
        return IntegerAttr(int(text == "true"), element)
    if text in ("true", "false"):
        parser.raise_error(f"expected a number for {element}, got '{text}'", span)
    if isinstance(element, IntegerType):
        if not re.fullmatch(r"-?(0x[0-9a-fA-F]+|[0-9]+)", text):
            parser.raise_error(f"expected an integer literal, got '{text}'", span)
        value = int(text, 0)
        if not fits_i32(value):
            parser.raise_error(f"integer literal {text} does not fit in i32", span)
        return IntegerAttr(value, element)
    negative, digits = text.startswith("-"), text.lstrip("-")
    if digits.startswith("0x"):
        bits = int(digits, 16)
        if bits >= 2**32:
            parser.raise_error(f"hexadecimal literal {text} exceeds 32 bits", span)
        (value,) = struct.unpack("<f", struct.pack("<I", bits))
        return FloatAttr(-value if negative else value, f32)
    with np.errstate(over="ignore"):  # beyond float32's range is an infinity
        return FloatAttr(float(np.float32(float(text))), f32)


def format_float32(value: float) -> str:
    """The shortest text that reads back as the same float32: `0.1`, `1.0e-45`;
    NaN and infinities as their bit pattern, as MLIR prints them."""
    x = np.float32(value)
    if not np.isfinite(x):
        return f"0x{x.view(np.uint32):08X}"
    text = str(x)
    if "e" in text and "." not in text:
        text = text.replace("e", ".0e")
    return text


def print_scalar_literal(printer: Printer, value: Attribute) -> None:
    if isinstance(value, FloatAttr):
        printer.print_string(format_float32(value.value.data))
    elif isinstance(value, IntegerAttr):
        if value.type == IntegerType(1):
            printer.print_string("true" if value.value.data else "false")
        else:
            printer.print_string(str(value.value.data))
    else:
        printer.print_attribute(value)


def parse_tensor_type(parser: Parser) -> TensorType:
    """Parse a type that must be a tensor of f32, i32 or i1, statically shaped."""
    start = parser.pos
    type = parser.parse_type()
    if not is_tensor_of(type):
        parser.raise_error(
            f"expected a statically shaped tensor of {describe(ELEMENT_TYPES)}, "
            f"got {type}",
            Span(start, parser.pos, parser.lexer.input),
        )
    return type


def parse_tensor_types(parser: Parser, count: int) -> list[TensorType]:
    """Parse `T0, T1, ...`: exactly `count` tensor types (see `parse_tensor_type`)."""
    start = parser.pos
    types = [parse_tensor_type(parser)]
    while parser.parse_optional_punctuation(",") is not None:
        types.append(parse_tensor_type(parser))
    if len(types) != count:
        parser.raise_error(
            f"expected {count} type{'s' * (count != 1)}, got {len(types)}",
            Span(start, parser.pos, parser.lexer.input),
        )
    return types


def parse_typed_operands(
    parser: Parser,
    op_type: type[Operation],
    operand_types: Callable[[TensorType], Sequence[Attribute]],
) -> tuple[list[SSAValue], TensorType, dict[str, Attribute]]:
    """Parse `%a, %b attr-dict : T`, the operands' types derived from T."""
    operands = parse_operand_list(parser)
    attrs = parse_attributes(parser, op_type)
    parser.parse_punctuation(":")
    type = parse_tensor_type(parser)
    types = operand_types(type)
    return resolve(parser, operands, types, len(types)), type, attrs


def print_typed_operands(printer: Printer, op: Operation, type: Attribute) -> None:
    """Print `%a, %b attr-dict : T`."""
    printer.print_string(" ")
    printer.print_list(op.operands, printer.print_operand)
    print_attributes(printer, op)
    printer.print_string(" : ")
    printer.print_attribute(type)
