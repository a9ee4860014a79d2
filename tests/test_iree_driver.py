"""IREE's driver by program size (`gradopt.runtime.iree_driver`): the calling
thread for a small program, the worker threads for large products together
or a large elementwise value; and the small programs of plain matrix
products compiled without tiled layouts."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from test_iree import needs_iree

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.iree_driver import (
    UNTILED_BELOW,
    VALUES_SYNC_BELOW,
    driver_for,
    largest_value,
    products_untiled,
)


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


def batched_dot_program(batch: int, m: int, k: int, n: int) -> str:
    a, b, c = (f"tensor<{batch}x{x}x{y}xf32>" for x, y in ((m, k), (k, n), (m, n)))
    return f"""
func.func @main(%a: {a}, %b: {b}) -> {c} {{
  %p = grad.dot %a, %b : {a}, {b} to {c}
  func.return %p : {c}
}}
"""


def test_small_plain_products_are_compiled_untiled() -> None:
    """Only a program on the calling thread whose products are all plain
    matrix products under `UNTILED_BELOW` multiply-adds (small MLP steps
    0.80-0.96x the time untiled; small attention steps, of batched products,
    up to 1.71x: `bench/small_tiling.py`)."""

    def untiled(text: str) -> bool:
        return products_untiled(Program(text).module)

    assert untiled(dot_program(64, 64, 32))
    assert untiled(two_dots_program(64, 64, 32))
    assert untiled(matmul_program(64, 64, 32))
    assert UNTILED_BELOW == 128 * 128 * 256
    assert untiled(dot_program(128, 128, 255))
    assert not untiled(dot_program(128, 128, 256))
    assert not untiled(two_dots_program(256, 256, 128))  # on the workers
    assert not untiled(batched_dot_program(2, 8, 8, 8))
    assert not untiled(elementwise_program(1000))  # no product to gain on


def test_untiled_programs_compile_with_the_loop_flags() -> None:
    text = "func.func @f() {\n  func.return\n}"
    assert iree.compile_flags(text) == iree.COMPILE_FLAGS
    assert iree.compile_flags(text, untiled=True) == iree.LOOP_COMPILE_FLAGS


@needs_iree
@pytest.mark.usefixtures("fresh_cache")
def test_a_small_product_compiles_untiled(monkeypatch: pytest.MonkeyPatch) -> None:
    """`load` compiles (and keys its cache entry) with the untiled flags for a
    small plain product, the tiled ones for a batched product; both run as
    the interpreter does."""
    compile = iree._compile
    flags: list[tuple[str, ...]] = []

    def recorded(text: str, untiled: bool = False) -> bytes:
        flags.append(iree.compile_flags(text, untiled))
        return compile(text, untiled)

    monkeypatch.setattr(iree, "_compile", recorded)
    rng = np.random.default_rng(0)
    for text, shapes in [
        (dot_program(6, 5, 4), [(6, 5), (5, 4)]),
        (batched_dot_program(2, 3, 5, 4), [(2, 3, 5), (2, 5, 4)]),
    ]:
        program = Program(text)
        args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        result = program.run(args=args, backend="iree").results[0]
        expected = program.run(args=args).results[0]
        np.testing.assert_allclose(result, expected, rtol=1e-5)
    assert flags == [iree.LOOP_COMPILE_FLAGS, iree.COMPILE_FLAGS]
