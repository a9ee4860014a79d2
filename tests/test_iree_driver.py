"""IREE's driver by program size (`gradopt.runtime.iree_driver`): the calling
thread for a small program, the worker threads for large products together
or a large elementwise value."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_iree import needs_iree

from gradopt import Program
from gradopt.runtime.iree_driver import VALUES_SYNC_BELOW, driver_for, largest_value


def dot_program(m: int, k: int, n: int) -> str:
    return f"""
func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>)
    -> tensor<{m}x{n}xf32> {{
  %p = grad.dot %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> to tensor<{m}x{n}xf32>
  func.return %p : tensor<{m}x{n}xf32>
}}
"""


def elementwise_program(size: int) -> str:
    return f"""
func.func @main(%a: tensor<{size}xf32>) -> tensor<{size}xf32> {{
  %p = grad.mul %a, %a : tensor<{size}xf32>
  func.return %p : tensor<{size}xf32>
}}
"""


def two_dots_program(m: int, k: int, n: int) -> str:
    a, b, c = (f"tensor<{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @main(%a: {a}, %b: {b}, %c: {b}) -> ({c}, {c}) {{
  %p = grad.dot %a, %b : {a}, {b} to {c}
  %q = grad.dot %a, %c : {a}, {b} to {c}
  func.return %p, %q : {c}, {c}
}}
"""


def test_the_driver_follows_all_products_and_the_largest_value() -> None:
    small = Program(dot_program(64, 64, 32)).module  # 131 072 multiply-adds
    assert driver_for(small) == "local-sync"
    assert largest_value(small) == 64 * 64
    # 256^3 = 2^24 multiply-adds in one product, or in two
    assert driver_for(Program(dot_program(256, 256, 256)).module) == "local-task"
    assert driver_for(Program(dot_program(256, 255, 256)).module) == "local-sync"
    assert driver_for(Program(two_dots_program(256, 256, 128)).module) == "local-task"
    assert driver_for(Program(two_dots_program(256, 255, 128)).module) == "local-sync"
    elementwise = Program(elementwise_program(VALUES_SYNC_BELOW)).module
    assert largest_value(elementwise) == VALUES_SYNC_BELOW
    assert driver_for(elementwise) == "local-task"
    assert driver_for(Program(elementwise_program(1000)).module) == "local-sync"


def matmul_program(m: int, k: int, n: int) -> str:
    a, b, c = (f"tensor<{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @main(%a: {a}, %b: {b}) -> {c} {{
  %z = arith.constant dense<0.0> : {c}
  %p = linalg.matmul ins(%a, %b : {a}, {b}) outs(%z : {c}) -> {c}
  func.return %p : {c}
}}
"""


def test_a_linalg_product_counts_as_a_dot_does() -> None:
    """IREE's input from JAX or torch has `linalg` products, no `grad.dot`:
    the large MLP step in linalg ran on the calling thread alone, 1.45x the
    same step in `grad` ops (bench/RESULTS.md)."""
    assert driver_for(Program(matmul_program(256, 256, 256)).module) == "local-task"
    assert driver_for(Program(matmul_program(256, 255, 256)).module) == "local-sync"


@pytest.fixture
def fresh_cache(tmp_path: Path) -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path))
        yield


@needs_iree
@pytest.mark.usefixtures("fresh_cache")
def test_a_small_program_runs_on_the_calling_thread() -> None:
    program = Program(dot_program(4, 3, 2))
    a = np.arange(12, dtype=np.float32).reshape(4, 3)
    b = np.arange(6, dtype=np.float32).reshape(3, 2)
    result = program.run(args=[a, b], backend="iree")
    assert program.iree_module is not None
    assert program.iree_module.driver == "local-sync"
    np.testing.assert_array_equal(result.results[0], a @ b)
