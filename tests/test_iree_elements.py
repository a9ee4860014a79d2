# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Element accesses of rank >= 2 outside `linalg` bodies on IREE, which IREE
3.13 ran as out-of-range transfers until the lowering made them of rank 1
(`runtime/iree_elements`): the rewrite keeps every value, leaves accesses in
`linalg` bodies alone, and the gradient of a gather (`jnp.flip` as IREE
writes it), whose shares a loop adds into a matrix element by element, runs
on IREE. The IREE test skips without the `iree` extra."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from xdsl.dialects import linalg, tensor

from gradopt import Program
from gradopt.runtime.iree_elements import linearize_element_accesses

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

# The gradient of sum(w * flip(x)) along rows: the generic reads %x at
# computed indices, so %x's share is added element by element in a loop.
FLIP = """
func.func @main(%x: tensor<5x3xf32>, %w: tensor<5x3xf32>) -> (tensor<5x3xf32>, tensor<5x3xf32>) {
  %c4 = arith.constant 4 : index
  %e = tensor.empty() : tensor<5x3xf32>
  %f = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%w : tensor<5x3xf32>) outs(%e : tensor<5x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %i = linalg.index 0 : index
    %r = arith.subi %c4, %i : index
    %j = linalg.index 1 : index
    %v = tensor.extract %x[%r, %j] : tensor<5x3xf32>
    %p = arith.mulf %in, %v : f32
    linalg.yield %p : f32
  } -> tensor<5x3xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%f : tensor<5x3xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %acc, %in : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %gx, %gw = grad.gradient %s wrt %x, %w : tensor<f32>, tensor<5x3xf32>, tensor<5x3xf32>
  func.return %gx, %gw : tensor<5x3xf32>, tensor<5x3xf32>
}
"""


def _arguments() -> list[np.ndarray]:
    rng = np.random.default_rng(3)
    return [rng.standard_normal((5, 3)).astype(np.float32) for _ in range(2)]


def test_element_accesses_are_made_of_rank_one_with_the_same_values() -> None:
    program = Program(FLIP)
    module = program.module.clone()
    linearize_element_accesses(module)
    accesses = [
        (len(op.indices), isinstance(op.parent_op(), linalg.GenericOp))
        for op in module.walk()
        if isinstance(op, tensor.ExtractOp | tensor.InsertOp)
    ]
    assert (2, True) in accesses
    assert all(rank == 1 for rank, in_body in accesses if not in_body)
    assert sum(not in_body for _, in_body in accesses) >= 2
    args = _arguments()
    expected = program.run(args=args).results
    found = Program(module).run(args=args).results
    for got, want in zip(found, expected, strict=True):
        assert got.tobytes() == want.tobytes()
    x, w = args
    np.testing.assert_array_equal(expected[0], w[::-1])
    np.testing.assert_array_equal(expected[1], x[::-1])


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_gathers_gradient_runs_on_iree() -> None:
    args = _arguments()
    program = Program(FLIP)
    expected = program.run(args=args).results
    found = program.run(args=args, backend="iree").results
    for got, want in zip(found, expected, strict=True):
        np.testing.assert_array_equal(got, want)
