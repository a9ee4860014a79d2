"""An op of another dialect gets a derivative through the public registry
(`register_derivative`), as gradopt's own ops do, and runs in the interpreter
by deriving from `KernelOp` (here its `UfuncOp`): a dialect defined here, with
one op that has a rule (`test.square`) and one that has none (`test.floor`)."""

from __future__ import annotations

from typing import ClassVar

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import Builtin, TensorType
from xdsl.dialects.func import Func
from xdsl.ir import Dialect, Operation, SSAValue
from xdsl.irdl import (
    VarConstraint,
    base,
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import Pure

from gradopt import GradoptError, Program
from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import Derivative, derivative_of, register_derivative
from gradopt.dialect import Grad
from gradopt.dialect.ops import UfuncOp
from gradopt.dialect.verifier import verify_module
from gradopt.passes import ExpandGradientPass
from gradopt.support.diagnostics import parse_module


class _UnaryTestOp(UfuncOp):
    T: ClassVar = VarConstraint("T", base(TensorType))
    input = operand_def(T)
    result = result_def(T)
    traits = traits_def(Pure())
    assembly_format = "$input attr-dict `:` type($input)"

    def fresh_result(self) -> bool:
        return True


@irdl_op_definition
class SquareOp(_UnaryTestOp):
    name = "test.square"
    UFUNC: ClassVar = np.square


@irdl_op_definition
class FloorOp(_UnaryTestOp):
    name = "test.floor"
    UFUNC: ClassVar = np.floor


def _square(e: Emitter, op: Operation, x: SSAValue) -> SSAValue:
    """d(a²) = 2a: the share `mul g (mul a 2.0)`, the tangent `mul t (mul a 2.0)`."""
    return e.mul(x, e.mul(op.operands[0], 2.0))


register_derivative(SquareOp, Derivative.chain(_square))

TestDialect = Dialect("test", [SquareOp, FloorOp])


def _context() -> Context:
    ctx = Context()
    for dialect in (Builtin, Func, Grad, TestDialect):
        ctx.load_dialect(dialect)
    return ctx


def _gradient_of(op: str) -> str:
    return f"""
func.func @main(%x: tensor<3xf32>) -> (tensor<f32>, tensor<3xf32>) {{
  %y = {op} %x : tensor<3xf32>
  %l = grad.reduce add %y [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<3xf32>
  func.return %l, %g : tensor<f32>, tensor<3xf32>
}}
"""


def test_the_registered_derivative_is_found() -> None:
    module = parse_module(_context(), _gradient_of("test.square"), "square.mlir")
    square = next(op for op in module.walk() if isinstance(op, SquareOp))
    floor = FloorOp.create(operands=[square.input], result_types=[square.result.type])
    assert derivative_of(square) is not None
    assert derivative_of(floor) is None


def test_a_gradient_through_the_op_with_a_rule_expands() -> None:
    module = parse_module(_context(), _gradient_of("test.square"), "square.mlir")
    verify_module(module)
    ExpandGradientPass().apply(_context(), module)
    verify_module(module)
    text = str(module)
    assert "grad.gradient" not in text
    assert "test.square" in text
    assert "grad.const 2.0 : tensor<3xf32>" in text


def test_the_interpreter_runs_the_expanded_gradient() -> None:
    module = parse_module(_context(), _gradient_of("test.square"), "square.mlir")
    x = np.array([1.0, -2.0, 0.5], np.float32)
    loss, gradient = Program(module).run(args=[x]).results
    assert loss == np.float32(1.0 + 4.0 + 0.25)
    np.testing.assert_array_equal(gradient, 2 * x)


def test_the_op_without_a_rule_is_refused_on_the_path() -> None:
    module = parse_module(_context(), _gradient_of("test.floor"), "floor.mlir")
    with pytest.raises(GradoptError) as error:
        Program(module)
    assert (
        "floor.mlir:5:3: error: 'grad.gradient' op 'test.floor' lies on the path "
        "from the target to the loss and has no gradient rule"
    ) in str(error.value)
    assert "floor.mlir:3:3: note: 'test.floor' is here" in str(error.value)


def test_the_op_without_a_rule_runs_off_the_path() -> None:
    text = """
func.func @main(%x: tensor<3xf32>) -> tensor<3xf32> {
  %y = test.floor %x : tensor<3xf32>
  func.return %y : tensor<3xf32>
}
"""
    module = parse_module(_context(), text, "floor.mlir")
    (result,) = (
        Program(module).run(args=[np.array([1.5, -0.5, 2.0], np.float32)]).results
    )
    np.testing.assert_array_equal(result, np.array([1.0, -1.0, 2.0], np.float32))


def test_a_second_registration_is_refused() -> None:
    with pytest.raises(ValueError, match="SquareOp already has a derivative"):
        register_derivative(SquareOp, Derivative.chain(_square))
