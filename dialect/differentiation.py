"""The differentiation ops of SPEC §3.4, §5.5 and §5.6: `grad.gradient`,
`grad.vjp` and `grad.jvp`, with the validity rules of §4."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TypeVar

from xdsl.dialects.builtin import Float32Type, TensorType, UnitAttr, f32
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    AnyAttr,
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    opt_prop_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import Pure
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.syntax import (
    parse_attributes,
    parse_operand_list,
    parse_type_list,
    print_attributes,
    resolve,
)
from gradopt.dialect.types import is_f32_tensor


class DifferentiationOp(IRDLOperation, ABC):
    """`grad.gradient`, `grad.vjp` and `grad.jvp`: replaced by ordinary ops
    before anything runs. One on a path needs no derivative of its own: it is
    expanded first (SPEC §5.7)."""

    traits = traits_def(Pure())

    control_flow = opt_prop_def(UnitAttr)
    """SPEC §11: calls and structured control flow may lie on the path (rules 4
    and 5 are relaxed for them, and only for them)."""

    @property
    @abstractmethod
    def root(self) -> SSAValue:
        """The value it differentiates: the loss, or the jvp's output."""

    @property
    @abstractmethod
    def differentiated(self) -> Sequence[SSAValue]:
        """The values it differentiates with respect to (its targets)."""


def is_differentiated(value: SSAValue) -> bool:
    """Whether a differentiation op takes a derivative with respect to `value`:
    then `value` must stay a node of its own (SPEC §4 rule 3)."""
    return any(
        isinstance(use.operation, DifferentiationOp)
        and value in use.operation.differentiated
        for use in value.uses
    )


PathCheck = Callable[
    [DifferentiationOp, SSAValue, Sequence[SSAValue], Sequence[SSAValue]], None
]
"""Checks SPEC §4 rules 2-6 for a differentiation op: (op, loss, targets,
extra roots such as a jvp's tangent), raising an `OpError`."""

_PATH_CHECK: list[PathCheck] = []


def provide_path_check(check: PathCheck) -> None:
    """Install the check of which ops lie on a path and whether each has a
    derivative. It needs the derivative registry and path analysis of
    `gradopt.autodiff`, a floor above the dialect, so the dialect promises it
    (as MLIR dialects promise interfaces implemented elsewhere) and autodiff
    provides it when imported."""
    _PATH_CHECK[:] = [check]


def _is_scalar_f32(type: Attribute) -> bool:
    """`tensor<f32>`, or the `f32` scalar of the upstream dialects (SPEC §10.1)."""
    return type == f32 or (
        is_f32_tensor(type) and isinstance(type, TensorType) and not type.get_shape()
    )


def _is_f32(type: Attribute) -> bool:
    return is_f32_tensor(type) or isinstance(type, Float32Type)


_Op = TypeVar("_Op", bound=DifferentiationOp)


@dataclass(frozen=True)
class _Suffix:
    """What follows the operands of a differentiation op's custom syntax:
    `control_flow`, the attribute dictionary and the types."""

    control_flow: bool
    attributes: dict[str, Attribute]
    types: list[Attribute]

    def apply_to(self, op: _Op) -> _Op:
        op.attributes.update(self.attributes)
        if self.control_flow:
            op.control_flow = UnitAttr()
        return op


class _DifferentiationOp(DifferentiationOp, ABC):
    """The checks and syntax the three differentiation ops share."""

    @classmethod
    def _parse_suffix(cls, parser: Parser, count: int) -> _Suffix:
        control_flow = parser.parse_optional_keyword("control_flow") is not None
        attributes = parse_attributes(parser, cls)
        parser.parse_punctuation(":")
        return _Suffix(control_flow, attributes, parse_type_list(parser, count))

    def _check_results(
        self, targets: Sequence[SSAValue], results: Sequence[SSAValue]
    ) -> None:
        if not targets:
            raise VerifyException("expected at least one target")
        if len(results) != len(targets):
            raise VerifyException(
                f"expected one result per target ({len(targets)}), got {len(results)}"
            )
        self._check_types(
            [
                (f"result {i} must have the type of target {i}", r, t.type)
                for i, (r, t) in enumerate(zip(results, targets, strict=True))
            ]
        )

    def _check_paths(
        self,
        loss: SSAValue,
        targets: Sequence[SSAValue],
        extra_roots: Sequence[SSAValue] = (),
    ) -> None:
        """SPEC §4 rules 2-6, by the check that `gradopt.autodiff` provides."""
        if not _PATH_CHECK:
            raise VerifyException(
                "the path checks of SPEC §4 are provided by gradopt.autodiff, "
                "which is not loaded: import gradopt.autodiff (gradopt's "
                "contexts and drivers do)"
            )
        _PATH_CHECK[0](self, loss, targets, extra_roots)

    def _check_types(self, pairs: Sequence[tuple[str, SSAValue, Attribute]]) -> None:
        for message, value, expected in pairs:
            if value.type != expected:
                raise VerifyException(
                    f"{message}: expected {expected}, got {value.type}"
                )

    def _print_types(self, printer: Printer, types: Sequence[Attribute]) -> None:
        if self.control_flow is not None:
            printer.print_string(" control_flow")
        print_attributes(printer, self)
        printer.print_string(" : ")
        printer.print_list(types, printer.print_attribute)


@irdl_op_definition
class GradientOp(_DifferentiationOp):
    """`%g0, %g1 = grad.gradient %y wrt %a, %b : tensor<f32>, T0, T1`:
    result i holds the derivative of the scalar loss `%y` w.r.t. target i."""

    name = "grad.gradient"
    loss = operand_def(AnyAttr())
    targets = var_operand_def(AnyAttr())
    gradients = var_result_def(AnyAttr())

    @property
    def root(self) -> SSAValue:
        return self.loss

    @property
    def differentiated(self) -> Sequence[SSAValue]:
        return self.targets

    def __init__(self, loss: SSAValue, targets: Sequence[SSAValue]):
        super().__init__(
            operands=[loss, targets], result_types=[[t.type for t in targets]]
        )

    def verify_(self) -> None:
        self._check_results(self.targets, self.gradients)
        if not _is_scalar_f32(self.loss.type):
            raise VerifyException(f"loss must be a scalar f32, got {self.loss.type}")
        self._check_paths(self.loss, self.targets)

    @classmethod
    def parse(cls, parser: Parser) -> GradientOp:
        loss = parser.parse_unresolved_operand()
        parser.parse_keyword("wrt")
        targets = parse_operand_list(parser)
        suffix = cls._parse_suffix(parser, 1 + len(targets))
        types = suffix.types
        loss_value, *target_values = resolve(
            parser, [loss, *targets], types, len(types)
        )
        op = cls(loss_value, target_values)
        return suffix.apply_to(op)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.loss)
        printer.print_string(" wrt ")
        printer.print_list(self.targets, printer.print_operand)
        self._print_types(printer, [self.loss.type, *(t.type for t in self.targets)])


@irdl_op_definition
class VjpOp(_DifferentiationOp):
    """`%g = grad.vjp %y, %ct wrt %x : Ty, Tx`: reverse mode seeded with the
    cotangent `%ct` (of y's type)."""

    name = "grad.vjp"
    loss = operand_def(AnyAttr())
    cotangent = operand_def(AnyAttr())
    targets = var_operand_def(AnyAttr())
    gradients = var_result_def(AnyAttr())

    @property
    def root(self) -> SSAValue:
        return self.loss

    @property
    def differentiated(self) -> Sequence[SSAValue]:
        return self.targets

    def __init__(
        self, loss: SSAValue, cotangent: SSAValue, targets: Sequence[SSAValue]
    ):
        super().__init__(
            operands=[loss, cotangent, targets],
            result_types=[[t.type for t in targets]],
        )

    def verify_(self) -> None:
        self._check_results(self.targets, self.gradients)
        if not _is_f32(self.loss.type):
            raise VerifyException(f"loss must be an f32 tensor, got {self.loss.type}")
        self._check_types(
            [("cotangent must have the loss's type", self.cotangent, self.loss.type)]
        )
        self._check_paths(self.loss, self.targets)

    @classmethod
    def parse(cls, parser: Parser) -> VjpOp:
        loss = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        cotangent = parser.parse_unresolved_operand()
        parser.parse_keyword("wrt")
        targets = parse_operand_list(parser)
        suffix = cls._parse_suffix(parser, 1 + len(targets))
        types = suffix.types
        loss_value, *target_values = resolve(
            parser, [loss, *targets], types, len(types)
        )
        op = cls(loss_value, parser.resolve_operand(cotangent, types[0]), target_values)
        return suffix.apply_to(op)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_list([self.loss, self.cotangent], printer.print_operand)
        printer.print_string(" wrt ")
        printer.print_list(self.targets, printer.print_operand)
        self._print_types(printer, [self.loss.type, *(t.type for t in self.targets)])


@irdl_op_definition
class JvpOp(_DifferentiationOp):
    """`%ty = grad.jvp %y wrt %x, %tx : Ty, Tx`: the derivative of `%y` at `%x`
    along the tangent `%tx` (forward mode)."""

    name = "grad.jvp"
    output = operand_def(AnyAttr())
    target = operand_def(AnyAttr())
    tangent = operand_def(AnyAttr())
    result = result_def(AnyAttr())

    @property
    def root(self) -> SSAValue:
        return self.output

    @property
    def differentiated(self) -> Sequence[SSAValue]:
        return (self.target,)

    def __init__(self, output: SSAValue, target: SSAValue, tangent: SSAValue):
        super().__init__(operands=[output, target, tangent], result_types=[output.type])

    def verify_(self) -> None:
        self._check_types(
            [("result must have the type of the output", self.result, self.output.type)]
        )
        if not _is_f32(self.output.type):
            raise VerifyException(
                f"output must be an f32 tensor, got {self.output.type}"
            )
        self._check_types(
            [("tangent must have the target's type", self.tangent, self.target.type)]
        )
        self._check_paths(self.output, [self.target], [self.tangent])

    @classmethod
    def parse(cls, parser: Parser) -> JvpOp:
        output = parser.parse_unresolved_operand()
        parser.parse_keyword("wrt")
        target = parser.parse_unresolved_operand()
        parser.parse_punctuation(",")
        tangent = parser.parse_unresolved_operand()
        suffix = cls._parse_suffix(parser, 2)
        types = suffix.types
        output_value, target_value = resolve(parser, [output, target], types, 2)
        op = cls(output_value, target_value, parser.resolve_operand(tangent, types[1]))
        return suffix.apply_to(op)

    def print(self, printer: Printer) -> None:
        printer.print_string(" ")
        printer.print_operand(self.output)
        printer.print_string(" wrt ")
        printer.print_list([self.target, self.tangent], printer.print_operand)
        self._print_types(printer, [self.output.type, self.target.type])
