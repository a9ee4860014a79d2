# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""BLAS threads chosen by the size of a program's products
(`gradopt.runtime.threads`)."""

from __future__ import annotations

import numpy as np
import pytest

from gradopt import Program
from gradopt.runtime.threads import ONE_THREAD_BELOW, blas_threads_for, largest_product
from gradopt.support import determinism

needs_openblas = pytest.mark.skipif(
    determinism.blas_threads() is None, reason="NumPy's BLAS here is not OpenBLAS"
)

PRODUCTS = """
func.func @main(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>,
                %p: tensor<4x5x6xf32>, %q: tensor<4x6x7xf32>) -> tensor<256x256xf32> {
  %c = grad.dot %a, %b : tensor<256x256xf32>, tensor<256x256xf32> to tensor<256x256xf32>
  %d = grad.dot %p, %q : tensor<4x5x6xf32>, tensor<4x6x7xf32> to tensor<4x5x7xf32>
  func.return %c : tensor<256x256xf32>
}
"""


def test_the_largest_product_counts_multiply_adds() -> None:
    assert Program(PRODUCTS).largest_product == 256**3
    no_product = "func.func @main(%x: tensor<2xf32>) -> tensor<2xf32> {\n"
    no_product += "  func.return %x : tensor<2xf32>\n}\n"
    assert Program(no_product).largest_product == 0


LINALG_PRODUCTS = """
func.func @main(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>, %g: tensor<64x80xf32>, %x: tensor<1x3x9x9xf32>, %w: tensor<2x3x3x3xf32>) -> (tensor<64x80xf32>, tensor<96x80xf32>, tensor<1x2x7x7xf32>, tensor<64x80xf32>) {
  %z = arith.constant dense<0.0> : tensor<64x80xf32>
  %m = linalg.matmul ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>) outs(%z : tensor<64x80xf32>) -> tensor<64x80xf32>
  %zb = arith.constant dense<0.0> : tensor<96x80xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1)>, affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>], iterator_types = ["reduction", "parallel", "parallel"]} ins(%g, %a : tensor<64x80xf32>, tensor<64x96xf32>) outs(%zb : tensor<96x80xf32>) {
  ^bb0(%p: f32, %q: f32, %acc: f32):
    %r = arith.mulf %p, %q : f32
    %s = arith.addf %acc, %r : f32
    linalg.yield %s : f32
  } -> tensor<96x80xf32>
  %zc = arith.constant dense<0.0> : tensor<1x2x7x7xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x3x9x9xf32>, tensor<2x3x3x3xf32>) outs(%zc : tensor<1x2x7x7xf32>) -> tensor<1x2x7x7xf32>
  %e = tensor.empty() : tensor<64x80xf32>
  %h = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%g : tensor<64x80xf32>) outs(%e : tensor<64x80xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.mulf %p, %p : f32
    linalg.yield %r : f32
  } -> tensor<64x80xf32>
  func.return %m, %t, %c, %h : tensor<64x80xf32>, tensor<96x80xf32>, tensor<1x2x7x7xf32>, tensor<64x80xf32>
}
"""


def test_linalg_products_count_their_iteration_space() -> None:
    """A matmul, a contraction generic and a convolution (as IREE's input
    from JAX or torch holds them) are products: their multiply-adds are
    their iteration spaces; an elementwise product is not one."""
    assert Program(LINALG_PRODUCTS).largest_product == 64 * 96 * 80
    module = Program(LINALG_PRODUCTS).module
    sizes = sorted(largest_product(op) for op in module.body.block.first_op.body.ops)
    assert sizes[-4:] == [0, 2 * 7 * 7 * 3 * 3 * 3, 64 * 96 * 80, 64 * 96 * 80]


@needs_openblas
def test_small_products_run_on_one_thread_large_ones_and_none_as_they_are() -> None:
    before = determinism.blas_threads()
    with blas_threads_for(ONE_THREAD_BELOW - 1):
        assert determinism.blas_threads() == 1
    assert determinism.blas_threads() == before
    for size in (0, ONE_THREAD_BELOW):
        with blas_threads_for(size):
            assert determinism.blas_threads() == before


@needs_openblas
def test_a_run_of_small_products_gives_the_one_thread_bits() -> None:
    """256x256 @ 256x256 gives other bits on two OpenBLAS threads than on one
    (measured on this project's 2-core machine); by default it now runs on
    one, as `deterministic=True` does."""
    rng = np.random.default_rng(0)
    args = [
        rng.standard_normal((256, 256)).astype(np.float32),
        rng.standard_normal((256, 256)).astype(np.float32),
        np.ones((4, 5, 6), np.float32),
        np.ones((4, 6, 7), np.float32),
    ]
    program = Program(PRODUCTS)
    free = program.run(args=args).results[0]
    fixed = program.run(args=args, deterministic=True).results[0]
    assert free.tobytes() == fixed.tobytes()
