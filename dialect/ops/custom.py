"""SPEC §3.7: `grad.custom`, a call of a function whose derivatives are other
functions that the user gives (JAX's `custom_vjp`/`custom_jvp`).

`%r = grad.custom @f(%a, %b) vjp @f_vjp jvp @f_jvp : (T0, T1) -> R`

Its value is `func.call @f(%a, %b)`; the reverse share to each operand is the
matching result of `@f_vjp(operands..., one cotangent per result)` and the
tangent of each result the matching result of `@f_jvp(operands..., one tangent
per operand)` (`gradopt.autodiff.rules.custom` applies them by
copying their bodies). The verifier
checks the three signatures against the op's own, and names the function that
does not fit.
"""

from __future__ import annotations

from collections.abc import Sequence

from xdsl.dialects.builtin import (
    FlatSymbolRefAttrConstr,
    FunctionType,
    MemRefType,
    SymbolRefAttr,
    TensorType,
)
from xdsl.dialects.func import FuncOp
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    opt_prop_def,
    prop_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure, SymbolTable
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.syntax import parse_attributes, print_attributes

MODES = ("vjp", "jvp")


@irdl_op_definition
class CustomOp(IRDLOperation):
    """A pure call of `@callee` with user-given derivatives: `vjp` names the
    function of the reverse mode, `jvp` that of the forward mode; either may
    be absent, and then that mode refuses the op on a path."""

    name = "grad.custom"

    arguments = var_operand_def()
    res = var_result_def()
    callee = prop_def(FlatSymbolRefAttrConstr)
    vjp = opt_prop_def(FlatSymbolRefAttrConstr)
    jvp = opt_prop_def(FlatSymbolRefAttrConstr)

    traits = traits_def(Pure())

    def __init__(
        self,
        callee: str,
        arguments: Sequence[SSAValue],
        result_types: Sequence[Attribute],
        vjp: str | None = None,
        jvp: str | None = None,
    ):
        properties: dict[str, Attribute] = {"callee": SymbolRefAttr(callee)}
        for mode, name in (("vjp", vjp), ("jvp", jvp)):
            if name is not None:
                properties[mode] = SymbolRefAttr(name)
        super().__init__(
            operands=[arguments], result_types=[result_types], properties=properties
        )

    def function(self, mode: str | None = None) -> str | None:
        """The name of @f (mode None), of its vjp or of its jvp, if given."""
        attr = self.callee if mode is None else getattr(self, mode)
        return None if attr is None else attr.string_value()

    def expected_type(self, mode: str | None) -> FunctionType:
        """The signature SPEC §3.7 requires of @f, its vjp or its jvp."""
        inputs, outputs = list(self.arguments.types), list(self.res.types)
        if mode == "vjp":
            return FunctionType.from_lists([*inputs, *outputs], inputs)
        if mode == "jvp":
            return FunctionType.from_lists([*inputs, *inputs], outputs)
        return FunctionType.from_lists(inputs, outputs)

    def verify_(self) -> None:
        for value in (*self.arguments, *self.res):
            if not isinstance(value.type, TensorType) or isinstance(
                value.type, MemRefType
            ):
                raise VerifyException(
                    f"operands and results must be tensors, got {value.type}"
                )
        for mode in (None, *MODES):
            if (name := self.function(mode)) is None:
                continue
            what = "the function" if mode is None else f"the {mode} function"
            found = SymbolTable.lookup_symbol(self, name)
            if not isinstance(found, FuncOp):
                raise VerifyException(
                    f"{what} @{name} is not a func.func of the module"
                )
            expected = self.expected_type(mode)
            if found.function_type != expected:
                raise VerifyException(
                    f"{what} @{name} has type {found.function_type}, expected "
                    f"{expected}"
                    + (f" for @{self.function()}" if mode is not None else "")
                )

    @classmethod
    def parse(cls, parser: Parser) -> CustomOp:
        properties: dict[str, Attribute] = {
            "callee": SymbolRefAttr(parser.parse_symbol_name())
        }
        operands = parser.parse_comma_separated_list(
            parser.Delimiter.PAREN, parser.parse_unresolved_operand
        )
        for mode in MODES:
            if parser.parse_optional_keyword(mode) is not None:
                properties[mode] = SymbolRefAttr(parser.parse_symbol_name())
        attributes = parse_attributes(parser, cls)
        parser.parse_punctuation(":")
        start = parser.pos
        type = parser.parse_function_type()
        if len(type.inputs) != len(operands):
            parser.raise_error(
                f"expected {len(operands)} operand type{'s' * (len(operands) != 1)}"
                f", got {len(type.inputs)}",
                start,
                parser.pos,
            )
        values = [
            parser.resolve_operand(o, t)
            for o, t in zip(operands, type.inputs.data, strict=True)
        ]
        return cls.create(
            operands=values,
            result_types=list(type.outputs.data),
            properties=properties,
            attributes=attributes,
        )

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_symbol_name(self.callee.string_value())
        printer.print_string("(")
        printer.print_list(self.arguments, printer.print_operand)
        printer.print_string(")")
        for mode in MODES:
            if (name := self.function(mode)) is not None:
                printer.print_string(f" {mode} ")
                printer.print_symbol_name(name)
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_attribute(
            FunctionType.from_lists(self.arguments.types, self.res.types)
        )


__all__ = ["CustomOp"]
