"""BLAS threads chosen by the size of a program's products
(`gradopt.runtime.threads`)."""

from __future__ import annotations

import numpy as np
import pytest

from gradopt import Program
from gradopt.runtime.threads import ONE_THREAD_BELOW, blas_threads_for
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
