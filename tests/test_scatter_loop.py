# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""The scatter-add loop nest run as one `np.add.at` (`interpreter.scatter_loop`):
the same bits as the loop, on random and adversarial values, for the nest a
gather's gradient gets and for the same nest written by hand; any other nest,
and any run the fast path does not cover, runs as the loop."""

from __future__ import annotations

import numpy as np
import pytest
from test_torch_corpus import differentiated
from xdsl.dialects.scf import ForOp

from gradopt import GradoptError, Program
from gradopt.interpreter import scatter_loop

NEST = """func.func @main(%init: tensor<6x4xf32>, %rows: tensor<5x3xi32>, %cols: tensor<5x3xi64>, %v: tensor<5x3xf32>) -> tensor<6x4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c5 = arith.constant 5 : index
  %r = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %init) -> (tensor<6x4xf32>) {
    %c3 = arith.constant 3 : index
    %s = scf.for %j = %c0 to %c3 step %c1 iter_args(%b = %a) -> (tensor<6x4xf32>) {
      %w0 = tensor.extract %rows[%i, %j] : tensor<5x3xi32>
      %x0 = arith.index_cast %w0 : i32 to index
      %w1 = tensor.extract %cols[%i, %j] : tensor<5x3xi64>
      %x1 = arith.index_cast %w1 : i64 to index
      %old = tensor.extract %b[%x0, %x1] : tensor<6x4xf32>
      %e = tensor.extract %v[%i, %j] : tensor<5x3xf32>
      %new = arith.addf %old, %e : f32
      %t = tensor.insert %new into %b[%x0, %x1] : tensor<6x4xf32>
      scf.yield %t : tensor<6x4xf32>
    }
    scf.yield %s : tensor<6x4xf32>
  }
  func.return %r : tensor<6x4xf32>
}
"""

GATHER = """func.func @main(%t: tensor<10x4xf32>, %idx: tensor<7xi64>) -> tensor<10x4xf32> {
  %e = tensor.empty() : tensor<7x4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%idx : tensor<7xi64>) outs(%e : tensor<7x4xf32>) {
  ^bb0(%in: i64, %out: f32):
    %i = arith.index_cast %in : i64 to index
    %j = linalg.index 1 : index
    %x = tensor.extract %t[%i, %j] : tensor<10x4xf32>
    %y = arith.mulf %x, %x : f32
    linalg.yield %y : f32
  } -> tensor<7x4xf32>
  %z = arith.constant dense<0.0> : tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> ()>], iterator_types = ["reduction", "reduction"]} ins(%r : tensor<7x4xf32>) outs(%z : tensor<f32>) {
  ^bb0(%in: f32, %out: f32):
    %a = arith.addf %in, %out : f32
    linalg.yield %a : f32
  } -> tensor<f32>
  %g = grad.gradient %s wrt %t : tensor<f32>, tensor<10x4xf32>
  func.return %g : tensor<10x4xf32>
}
"""


def kernel_name(program: Program) -> str:
    """The name of the kernel that runs the outermost loop of `@main`."""
    program.interpreter.prepare("main")
    plan = program.interpreter.plans["main"]
    kernel = next(s.kernel for s in plan.steps if isinstance(s.op, ForOp))
    return kernel.__name__


def both(
    monkeypatch: pytest.MonkeyPatch, text: str, args: list[np.ndarray]
) -> tuple[np.ndarray, np.ndarray]:
    """The first result with the fast path (checked to be planned) and as the
    plain loop."""
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(scatter_loop, "ENABLED", enabled)
        program = Program(text)
        assert kernel_name(program) == ("scatter_add" if enabled else "loop")
        results.append(program.run(args=args).results[0])
    return results[0], results[1]


def bits(array: np.ndarray) -> bytes:
    return array.dtype.str.encode() + str(array.shape).encode() + array.tobytes()


def f32(*words: int) -> np.ndarray:
    return np.array(words, np.uint32).view(np.float32)


def adversarial(rng: np.random.Generator) -> list[np.ndarray]:
    """An init and values mixing signed zeros, NaNs of several payloads (and
    signs), infinities of both signs, subnormals and sums whose value depends
    on their order (1e8 + 1 - 1e8), at indices with many repeats."""
    special = np.concatenate(
        [
            f32(0x7FC00001, 0xFFC00002, 0x7F800003, 0x7F800000, 0xFF800000),
            f32(0x00000001, 0x80000001, 0x80000000, 0x00000000),
            np.array([1e8, 1.0, -1e8, 3e38, 3e38, -0.5], np.float32),
        ]
    )
    init = np.full((6, 4), -0.0, np.float32)
    init[rng.integers(0, 6, 3), rng.integers(0, 4, 3)] = rng.choice(special, 3)
    v = rng.choice(np.concatenate([special, np.zeros(5, np.float32)]), (5, 3))
    rows = rng.integers(0, 2, (5, 3)).astype(np.int32)
    cols = rng.integers(0, 2, (5, 3)).astype(np.int64)
    return [init, rows, cols, v.astype(np.float32)]


def uniform(rng: np.random.Generator) -> list[np.ndarray]:
    return [
        rng.normal(size=(6, 4)).astype(np.float32),
        rng.integers(0, 6, (5, 3)).astype(np.int32),
        rng.integers(0, 4, (5, 3)).astype(np.int64),
        (rng.normal(size=(5, 3)) * 10.0 ** rng.integers(-8, 8, (5, 3))).astype(
            np.float32
        ),
    ]


@pytest.mark.parametrize(
    "text",
    [NEST, NEST.replace("arith.addf %old, %e", "arith.addf %e, %old")],
    ids=["addf-old-value", "addf-value-old"],
)
def test_the_fast_path_has_the_loops_bits(
    monkeypatch: pytest.MonkeyPatch, text: str
) -> None:
    rng = np.random.default_rng(21)
    for make in [uniform, adversarial] * 4:
        fast, slow = both(monkeypatch, text, make(rng))
        assert bits(fast) == bits(slow)


def test_duplicates_add_in_row_major_order_each_rounded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """All fifteen values land on one element: 1e8, then 1 (lost), -1e8, 1;
    any other order or a wider sum gives another value."""
    v = np.zeros((5, 3), np.float32)
    v[0, 0], v[0, 1], v[0, 2], v[1, 0] = 1e8, 1.0, -1e8, 1.0
    zeros = np.zeros((5, 3))
    args = [np.zeros((6, 4), np.float32), zeros.astype(np.int32), zeros, v]
    args[2] = args[2].astype(np.int64)
    fast, slow = both(monkeypatch, NEST, args)
    assert fast[0, 0] == slow[0, 0] == np.float32(1.0)
    assert np.signbit(fast).sum() == 0  # -0.0 + +0.0 is +0.0; untouched +0.0
    args[0] = np.full((6, 4), -0.0, np.float32)
    fast, slow = both(monkeypatch, NEST, args)
    assert bits(fast) == bits(slow) and np.signbit(fast).sum() == 23


@pytest.mark.parametrize("swapped", [False, True])
def test_nan_payloads_are_the_first_operands(
    monkeypatch: pytest.MonkeyPatch, swapped: bool
) -> None:
    """Two NaNs meet, in either operand order: NumPy's loops keep one
    payload or the other, so a NaN among the values runs the loop."""
    text = (
        NEST.replace("arith.addf %old, %e", "arith.addf %e, %old") if swapped else NEST
    )
    init = np.zeros((6, 4), np.float32)
    init[1, 2] = f32(0x7FC00001)[0]
    v = np.zeros((5, 3), np.float32)
    v[3, 1] = f32(0xFFC00002)[0]
    rows, cols = np.ones((5, 3), np.int32), np.full((5, 3), 2, np.int64)
    fast, slow = both(monkeypatch, text, [init, rows, cols, v])
    assert bits(fast) == bits(slow)


def test_an_induction_variable_as_a_coordinate(monkeypatch: pytest.MonkeyPatch):
    """Rows scattered whole (`acc[rows[i, j], j]`) as a person writes it."""
    text = NEST.replace("%b[%x0, %x1]", "%b[%x0, %j]")
    text = text.replace(
        "%w1 = tensor.extract %cols[%i, %j] : tensor<5x3xi64>\n", ""
    ).replace("%x1 = arith.index_cast %w1 : i64 to index\n", "")
    args = uniform(np.random.default_rng(3))
    fast, slow = both(monkeypatch, text, args)
    expected = args[0].copy()
    for i in range(5):
        for j in range(3):
            expected[args[1][i, j], j] += args[3][i, j]
    assert bits(fast) == bits(slow) == bits(expected)


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("arith.addf %old, %e", "arith.subf %old, %e"),
        ("arith.addf %old, %e", "arith.mulf %old, %e"),
        ("%j = %c0 to %c3 step %c1", "%j = %c0 to %c3 step %c2"),
        ("%j = %c0 to %c3", "%j = %c1 to %c3"),
        ("%i = %c0 to %c5", "%i = %c1 to %c5"),
        ("%i = %c0 to %c5 step %c1", "%i = %c0 to %c5 step %c2"),
        ("%e = tensor.extract %v[%i, %j]", "%e = tensor.extract %v[%j, %i]"),
        ("into %b[%x0, %x1]", "into %b[%x0, %c0]"),
        ("%new = arith.addf", "%u = arith.mulf %e, %e : f32\n%new = arith.addf"),
        ("%t = tensor.insert %new into %b", "%t = tensor.insert %e into %b"),
    ],
    ids=[
        "subf",
        "mulf",
        "step-2",
        "inner-start-1",
        "outer-start-1",
        "outer-step-2",
        "values-transposed",
        "insert-elsewhere",
        "extra-op",
        "no-add",
    ],
)
def test_another_nest_runs_as_a_loop(old: str, new: str) -> None:
    text = NEST.replace(old, new)
    assert text != NEST
    program = Program(text)
    assert kernel_name(program) == "loop"
    args = uniform(np.random.default_rng(5))
    if old.startswith("%j = %c0 to %c3 step"):
        expected = args[0].copy()
        for i in range(5):
            for j in (0, 2):
                expected[args[1][i, j], args[2][i, j]] += args[3][i, j]
        assert bits(program.run(args=args).results[0]) == bits(expected)


def test_two_carried_values_run_as_a_loop() -> None:
    text = """func.func @main(%init: tensor<6xf32>, %rows: tensor<5xi32>, %v: tensor<5xf32>) -> (tensor<6xf32>, f32) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c5 = arith.constant 5 : index
  %zero = arith.constant 0.0 : f32
  %r, %total = scf.for %i = %c0 to %c5 step %c1 iter_args(%a = %init, %sum = %zero) -> (tensor<6xf32>, f32) {
    %w = tensor.extract %rows[%i] : tensor<5xi32>
    %x = arith.index_cast %w : i32 to index
    %old = tensor.extract %a[%x] : tensor<6xf32>
    %e = tensor.extract %v[%i] : tensor<5xf32>
    %new = arith.addf %old, %e : f32
    %t = tensor.insert %new into %a[%x] : tensor<6xf32>
    %more = arith.addf %sum, %e : f32
    scf.yield %t, %more : tensor<6xf32>, f32
  }
  func.return %r, %total : tensor<6xf32>, f32
}
"""
    program = Program(text)
    assert kernel_name(program) == "loop"
    init, rows = np.ones(6, np.float32), np.array([1, 1, 4, 0, 1], np.int32)
    v = np.arange(5, dtype=np.float32)
    found, total = program.run(args=[init, rows, v]).results
    expected = init.copy()
    np.add.at(expected, rows, v)
    assert bits(found) == bits(expected) and total == np.float32(10.0)


def test_an_inner_loop_carrying_nothing_runs_as_a_loop() -> None:
    text = """func.func @main(%init: tensor<6xf32>) -> tensor<6xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c1 step %c1 iter_args(%a = %init) -> (tensor<6xf32>) {
    scf.for %k = %c0 to %c1 step %c1 {
    }
    scf.yield %a : tensor<6xf32>
  }
  func.return %r : tensor<6xf32>
}
"""
    program = Program(text)
    assert kernel_name(program) == "loop"
    init = np.arange(6, dtype=np.float32)
    assert bits(program.run(args=[init]).results[0]) == bits(init)


DYNAMIC = (
    NEST.replace("%v: tensor<5x3xf32>)", "%v: tensor<5x3xf32>, %from: i32, %to: i32)")
    .replace(
        "%i = %c0 to %c5",
        "%i = %lo to %hi",
    )
    .replace(
        "%c0 = arith.constant 0 : index\n",
        "%c0 = arith.constant 0 : index\n"
        "  %lo = arith.index_cast %from : i32 to index\n"
        "  %hi = arith.index_cast %to : i32 to index\n",
    )
)


def test_bounds_known_when_it_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    """The outer loop's bounds are arguments: the fast path is planned, and
    a run from 1 (not covered) or of no iterations runs the loop."""
    args = uniform(np.random.default_rng(8))
    for lo, hi in [(0, 5), (0, 2), (1, 5), (3, 1)]:
        fast, slow = both(monkeypatch, DYNAMIC, [*args, np.int32(lo), np.int32(hi)])
        expected = args[0].copy()
        for i in range(lo, hi):
            for j in range(3):
                expected[args[1][i, j], args[2][i, j]] += args[3][i, j]
        assert bits(fast) == bits(slow) == bits(expected)


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ("row", "reads index [6, 1] of (6, 4)"),
        ("negative", "reads index [-1, 1] of (6, 4)"),
        ("bound", "reads index [5, 0] of (5, 3)"),
        ("values", "reads index [5, 0] of (5, 3)"),
    ],
)
def test_a_bad_index_fails_as_the_loop_does(
    monkeypatch: pytest.MonkeyPatch, change: str, message: str
) -> None:
    """An index out of range, or an iteration space larger than the index
    tensors or (with larger index tensors) the values."""
    init, rows, cols, v = uniform(np.random.default_rng(9))
    text = DYNAMIC
    if change == "values":
        text = text.replace("tensor<5x3xi32>", "tensor<6x3xi32>")
        text = text.replace("tensor<5x3xi64>", "tensor<6x3xi64>")
        rows, cols = np.ones((6, 3), np.int32), np.ones((6, 3), np.int64)
    cols[2, 1] = 1
    rows[2, 1] = {"row": 6, "negative": -1}.get(change, 0)
    top = np.int32(5 if change in ("row", "negative") else 6)
    errors = []
    for enabled in (True, False):
        monkeypatch.setattr(scatter_loop, "ENABLED", enabled)
        with pytest.raises(GradoptError) as error:
            Program(text).run(args=[init, rows, cols, v, np.int32(0), top])
        errors.append(str(error.value))
    assert errors[0] == errors[1] and message in errors[0]


def test_a_gathers_gradient_takes_the_fast_path(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    rng = np.random.default_rng(4)
    t = rng.normal(size=(10, 4)).astype(np.float32)
    idx = np.array([3, 9, 3, 0, 3, 9, 5], np.int64)
    fast, slow = both(monkeypatch, GATHER, [t, idx])
    expected = np.zeros_like(t)
    np.add.at(expected, idx, 2 * t[idx])
    assert bits(fast) == bits(slow) == bits(expected)


def test_torch_embedding_gradient_same_bits(monkeypatch: pytest.MonkeyPatch) -> None:
    """nn.Embedding as IREE lowers it (a three-deep nest: 2 x 3 lookups of
    rows of 4)."""
    results = []
    for enabled in (True, False):
        monkeypatch.setattr(scatter_loop, "ENABLED", enabled)
        program, args, _, _ = differentiated("embedding")
        assert kernel_name(program) == ("scatter_add" if enabled else "loop")
        results.append(program.run(args=args).results)
    for fast, slow in zip(*results, strict=True):
        assert bits(np.asarray(fast)) == bits(np.asarray(slow))
