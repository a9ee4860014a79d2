# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""`scf.while` on IREE (SPEC §11): a loop whose carried vectors start as
constants and whose branch yields constant flags, the pattern of GradBench's
`particle`, which IREE 3.13 compiled into a call that failed ("indirect buffer
reference slot 0 is out range of the declared binding capacity") until the
lowering put such programs in blocks and copied the loops' constant starts
(`runtime/iree_while`). The IREE test skips without the `iree` extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from xdsl.dialects import arith, cf, scf
from xdsl.dialects.builtin import TensorType
from xdsl.parser import Parser

import gradopt
from gradopt.dialect.context import make_context
from gradopt.runtime.iree import LOOP_COMPILE_FLAGS, _lowered, compile_flags
from gradopt.runtime.iree_while import lower_while_loops

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

# Euler steps of a particle pulled down while it stays above the axis (a
# run-time trip count, a branch in the loop): @main is the smallest program
# that failed; @gradient differentiates the squared distance where it stops
# by the pull %w (its reverse loop starts from zeros an `scf.execute_region`
# yields, which failed when only `arith.constant` starts were copied).
LOOP = """
  %x0 = grad.const dense<[0.0, 8.0]> : tensor<2xf32>
  %v0 = grad.const dense<[0.75, 0.0]> : tensor<2xf32>
  %go0 = grad.const true : tensor<i1>
  %x, %v, %go = scf.while (%xb = %x0, %vb = %v0, %gob = %go0) : (tensor<2xf32>, tensor<2xf32>, tensor<i1>) -> (tensor<2xf32>, tensor<2xf32>, tensor<i1>) {
    %c = tensor.extract %gob[] : tensor<i1>
    scf.condition(%c) %xb, %vb, %gob : tensor<2xf32>, tensor<2xf32>, tensor<i1>
  } do {
  ^bb0(%xa: tensor<2xf32>, %va: tensor<2xf32>, %goa: tensor<i1>):
    %h = grad.const 0.1 : tensor<2xf32>
    %dx = grad.mul %h, %va : tensor<2xf32>
    %moved = grad.add %xa, %dx : tensor<2xf32>
    %y1 = grad.slice %moved [1] [2] [1] : tensor<2xf32> to tensor<1xf32>
    %y = grad.reshape %y1 : tensor<1xf32> to tensor<f32>
    %zero = grad.const 0.0 : tensor<f32>
    %above = grad.cmplt %zero, %y : tensor<f32>
    %p = tensor.extract %above[] : tensor<i1>
    %xn, %vn, %gon = scf.if %p -> (tensor<2xf32>, tensor<2xf32>, tensor<i1>) {
      PULL
      %f = grad.mul %h, %pull : tensor<2xf32>
      %nf = grad.neg %f : tensor<2xf32>
      %vs = grad.add %va, %nf : tensor<2xf32>
      scf.yield %moved, %vs, %go0 : tensor<2xf32>, tensor<2xf32>, tensor<i1>
    } else {
      %stop = grad.const false : tensor<i1>
      scf.yield %xa, %va, %stop : tensor<2xf32>, tensor<2xf32>, tensor<i1>
    }
    scf.yield %xn, %vn, %gon : tensor<2xf32>, tensor<2xf32>, tensor<i1>
  }
"""

# IREE failed only while the loop's body did not read %w: @main's pull is
# the particle's height plus 0.1.
CONSTANT_PULL = "%pull = grad.add %xa, %h : tensor<2xf32>"
PULL = """%wb = grad.broadcast %w [] : tensor<f32> to tensor<2xf32>
      %pull = grad.mul %wb, %xa : tensor<2xf32>"""

PARTICLE = f"""
func.func @main(%w: tensor<f32>) -> tensor<1xf32> {{{LOOP.replace("PULL", CONSTANT_PULL)}
  %r = grad.slice %x [1] [2] [1] : tensor<2xf32> to tensor<1xf32>
  func.return %r : tensor<1xf32>
}}

func.func @gradient(%w: tensor<f32>) -> (tensor<f32>, tensor<f32>) {{{LOOP.replace("PULL", PULL)}
  %sq = grad.mul %x, %x : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w control_flow : tensor<f32>, tensor<f32>
  func.return %l, %g : tensor<f32>, tensor<f32>
}}
"""


def test_a_program_with_a_while_is_lowered_to_blocks() -> None:
    """No structured control flow is left, no branch carries a constant
    tensor into a loop (the loops start from copies), and the program
    compiles with the flags of a program with a loop."""
    lowered = _lowered(gradopt.Program(PARTICLE).module)
    lowered.verify()
    ops = list(lowered.walk())
    assert not any(isinstance(op, scf.WhileOp | scf.ForOp | scf.IfOp) for op in ops)
    branches = [
        op for op in ops if isinstance(op, cf.BranchOp | cf.ConditionalBranchOp)
    ]
    assert branches
    for op in branches:
        for value in op.operands:
            if isinstance(value.type, TensorType):
                assert not isinstance(value.owner, arith.ConstantOp)
    assert compile_flags(str(lowered)) == LOOP_COMPILE_FLAGS


def test_a_program_without_a_while_is_left_alone() -> None:
    text = "func.func @f(%a: tensor<f32>) -> tensor<f32> {\n  func.return %a : tensor<f32>\n}"
    module = Parser(make_context(), text).parse_module()
    before = str(module)
    assert not lower_while_loops(module)
    assert str(module) == before


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_while_from_constants_runs_on_iree() -> None:
    """Both functions in one module, compiled once, against the interpreter."""
    program = gradopt.Program(PARTICLE)
    for w in (0.05, 0.2):
        for entry in ("main", "gradient"):
            args = [np.array(w, np.float32)]
            on_iree = program.run(args=args, entry=entry, backend="iree").results
            expected = program.run(args=args, entry=entry).results
            for found, value in zip(on_iree, expected, strict=True):
                np.testing.assert_allclose(found, value, rtol=2e-5, atol=1e-6)
