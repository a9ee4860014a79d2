"""Loops at the edges of what their derivatives are built for (SPEC §11):
bounds known only at run time that make no sense, and run-time sizes that
the caches of a loop's reverse take from them."""

from __future__ import annotations

import numpy as np
import pytest

from gradopt import GradoptError, Program

STEPPED = """func.func @main(%x: tensor<3xf32>, %n: i32, %s: i32) -> tensor<3xf32> {
  %c0 = arith.constant 0 : i32
  %r = scf.for %i = %c0 to %n step %s iter_args(%h = %x) -> (tensor<3xf32>) : i32 {
    %a = grad.mul %h, %h : tensor<3xf32>
    scf.yield %a : tensor<3xf32>
  }
  %l = grad.reduce add %r [0] : tensor<3xf32> to tensor<f32>
  %g = grad.gradient %l wrt %x control_flow : tensor<f32>, tensor<3xf32>
  func.return %g : tensor<3xf32>
}"""


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (-1, "'tensor.empty' size -3 of dimension 0 is negative"),
        (0, "'arith.ceildivsi' divides by zero"),
    ],
)
def test_a_step_that_is_not_positive_is_a_located_error_under_a_gradient(
    step: int, message: str
) -> None:
    """A step known at run time sizes the reverse's cache before the loop
    runs (where the interpreter refuses such a step): the run stops there,
    at the loop, with a located error and no traceback."""
    program = Program(STEPPED, "stepped.mlir")
    args = [np.ones(3, np.float32), np.int32(3), np.int32(step)]
    with pytest.raises(GradoptError) as caught:
        program.run(args=args)
    assert str(caught.value).startswith(f"stepped.mlir:3:3: error: {message}")
    (gradient,) = program.run(args=[args[0], np.int32(3), np.int32(1)]).results
    np.testing.assert_array_equal(gradient, np.full(3, 8.0, np.float32))
