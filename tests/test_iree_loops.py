# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Loops with branches on IREE (SPEC §10.4, §11), which IREE 3.13 ran into
a deallocated buffer when a branch yields a value that lives on (a loop's
carried value, a constant also a loop's initial value) until the lowering
copied every branch's yields (`runtime/iree_branches`): the expanded gradient
of a loop with a run-time trip count and a branch, and the pattern itself in
upstream ops. The IREE test skips without the `iree` extra."""

from __future__ import annotations

import functools
import importlib.util

import numpy as np
import pytest
from xdsl.dialects import scf
from xdsl.parser import Parser

import gradopt
from gradopt.dialect.context import make_context
from gradopt.runtime.iree_branches import copy_branch_results

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

# Odd iterations apply sin(h * w), even ones pass h on: the reverse loop's
# branch yields zero as the share of %w on one side and the carried gradient
# as it came on the other.
BRANCHY = """
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %nn = arith.index_cast %ni : i32 to index
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {
    %odd = arith.remui %i, %c2 : index
    %cond = arith.cmpi eq, %odd, %c1 : index
    %next = scf.if %cond -> (tensor<2xf32>) {
      %m = grad.mul %h, %w : tensor<2xf32>
      %s = grad.sin %m : tensor<2xf32>
      scf.yield %s : tensor<2xf32>
    } else {
      scf.yield %h : tensor<2xf32>
    }
    scf.yield %next : tensor<2xf32>
  }
  %sq = grad.mul %r, %r : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw : tensor<2xf32>, tensor<2xf32>
}
"""

# Alternate iterations: one branch yields the carried %g as it came and a
# zero equal to %a's initial value, the other a product IREE merges with %y
# (computed before the loop, %g's initial value).
CARRIED = """
func.func @carried(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %nn = arith.index_cast %ni : i32 to index
  %zero = arith.constant dense<0.0> : tensor<2xf32>
  %y = arith.mulf %x, %w : tensor<2xf32>
  %r, %acc = scf.for %i = %c0 to %nn step %c1 iter_args(%g = %y, %a = %zero) -> (tensor<2xf32>, tensor<2xf32>) {
    %odd = arith.remui %i, %c2 : index
    %cond = arith.cmpi eq, %odd, %c1 : index
    %q, %z = scf.if %cond -> (tensor<2xf32>, tensor<2xf32>) {
      %m = arith.mulf %g, %w : tensor<2xf32>
      %m2 = arith.mulf %x, %w : tensor<2xf32>
      scf.yield %m, %m2 : tensor<2xf32>, tensor<2xf32>
    } else {
      %z0 = arith.constant dense<0.0> : tensor<2xf32>
      scf.yield %g, %z0 : tensor<2xf32>, tensor<2xf32>
    }
    %s = arith.addf %a, %q : tensor<2xf32>
    %t = arith.addf %s, %z : tensor<2xf32>
    scf.yield %g, %t : tensor<2xf32>, tensor<2xf32>
  }
  func.return %r, %acc : tensor<2xf32>, tensor<2xf32>
}
"""

# Binomial checkpointing with a run-time trip count: its snapshot stack is a
# tensor of run-time size that its branch yields (the copy reads the size
# off the stack), and its positions are i64 (IREE takes no index tensor
# across a dispatch).
REVOLVE = """
func.func @revolve(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %nn = arith.index_cast %ni : i32 to index
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {
    %m = grad.mul %h, %w : tensor<2xf32>
    %s = grad.sin %m : tensor<2xf32>
    scf.yield %s : tensor<2xf32>
  } {"grad.checkpoint" = "binomial", "grad.snapshots" = 2 : i64}
  %sq = grad.mul %r, %r : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw : tensor<2xf32>, tensor<2xf32>
}
"""


def test_every_tensor_a_branch_yields_becomes_a_copy() -> None:
    module = Parser(make_context(), CARRIED).parse_module()
    copy_branch_results(module)
    module.verify()
    (branch,) = [op for op in module.walk() if isinstance(op, scf.IfOp)]
    for region in branch.regions:
        terminator = region.block.last_op
        assert terminator is not None
        for value in terminator.operands:
            assert value.owner.name == "linalg.generic"
            assert value.owner.parent is region.block
    assert str(module).count('"util.optimization_barrier"') == 4


@functools.cache
def both_on_iree() -> gradopt.Program:
    return gradopt.Program(BRANCHY + CARRIED + REVOLVE)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_loops_with_run_time_trip_counts_and_branches_run_on_iree() -> None:
    """The functions in one module, compiled once."""
    program = both_on_iree()
    x, w = np.array([0.4, -0.7], np.float32), np.array([1.3, 0.6], np.float32)
    for entry in ("main", "carried", "revolve"):
        for n in (0, 1, 6):
            args = [x, w, np.array(n, np.int32)]
            on_iree = program.run(args=args, entry=entry, backend="iree").results
            expected = program.run(args=args, entry=entry).results
            for found, value in zip(on_iree, expected, strict=True):
                np.testing.assert_allclose(found, value, rtol=1e-5, atol=1e-6)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_failure_inside_iree_is_a_located_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """IREE raises some statuses as `IndexError` (OUT_OF_RANGE, as a run-time
    shaped copy in particle's gradient gave): they are errors for people."""
    program = both_on_iree()
    args = [np.zeros(2, np.float32), np.zeros(2, np.float32), np.array(1, np.int32)]
    program.run(args=args, backend="iree")
    module = program.iree_module
    assert module is not None

    def out_of_range(*_: object) -> None:
        raise IndexError("OUT_OF_RANGE; indirect buffer reference slot 0")

    monkeypatch.setattr(module, "_invoke", out_of_range)
    with pytest.raises(gradopt.GradoptError, match="IREE failed running @main: OUT"):
        program.run(args=args, backend="iree")
