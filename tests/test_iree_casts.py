"""Float scalars converted to integers on IREE's host (`runtime/iree_casts`):
a loop from `fptosi(x)` to `fptosi(y)` runs as many times as on the
interpreter, where IREE's VM rounded the bounds to the nearest integer.
One compiled module; skips without the `iree` extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest

import gradopt
from gradopt.runtime.iree import lower

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

COUNT = """
func.func @main(%x: tensor<f32>, %y: tensor<f32>) -> (tensor<f32>, tensor<i32>) {
  %c1 = arith.constant 1 : index
  %xs = tensor.extract %x[] : tensor<f32>
  %ys = tensor.extract %y[] : tensor<f32>
  %xi = arith.fptosi %xs : f32 to i32
  %yi = arith.fptoui %ys : f32 to i32
  %lo = arith.index_cast %xi : i32 to index
  %hi = arith.index_cast %yi : i32 to index
  %zero = grad.const dense<0.0> : tensor<f32>
  %n = scf.for %i = %lo to %hi step %c1 iter_args(%c = %zero) -> (tensor<f32>) {
    %one = grad.const dense<1.0> : tensor<f32>
    %s = grad.add %c, %one : tensor<f32>
    scf.yield %s : tensor<f32>
  }
  %t = tensor.from_elements %xi : tensor<i32>
  func.return %n, %t : tensor<f32>, tensor<i32>
}
"""


def test_scalar_conversions_are_corrected_outside_linalg_bodies() -> None:
    """Both scalar conversions get a correction; the program's `grad` ops'
    own conversions inside `linalg` bodies do not."""
    text = lower(gradopt.Program(COUNT).module)
    assert text.count("arith.fptosi") == 1 and text.count("arith.fptoui") == 1
    assert text.count("arith.sitofp") == 1 and text.count("arith.uitofp") == 1


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_loop_bounds_converted_from_floats_truncate_on_iree() -> None:
    """Fractions above and below one half, of either sign, and integers:
    without the correction, -1.7 to 2.7 ran 5 times, not 3."""
    program = gradopt.Program(COUNT)
    fresh = gradopt.Program(COUNT)
    for x, y in [(-1.7, 2.7), (0.0, 3.9), (-2.3, 2.5), (0.6, 4.0), (-0.4, 1.2)]:
        args = [np.array(x, np.float32), np.array(y, np.float32)]
        on_iree = fresh.run(args=args, backend="iree").results
        expected = program.run(args=args).results
        assert [a.tolist() for a in on_iree] == [e.tolist() for e in expected], (x, y)
