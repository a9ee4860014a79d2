"""A small program's entry on IREE takes one flat buffer per element type and
gives one back (`gradopt.runtime.iree_packing`): the same bits as the
unpacked call and the interpreter for every kind of input and result, every
result an array of its own, and the rewrite only where it is meant to be.
The lowering tests run without IREE; the others skip without it."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from test_iree import needs_iree
from xdsl.dialects import func
from xdsl.dialects.builtin import TensorType

import gradopt
import gradopt.numpy as gnp
from gradopt import Program
from gradopt.runtime import iree, iree_packing
from gradopt.runtime.buffers import ALIGNMENT
from gradopt.tree_util import tree_leaves

# Every kind of input and result: slots updated (%w, a 0-d %acc) and left
# as they came (%keep), tensors of f32, i1 and i64, scalars of i32, f32 and
# i1; results computed (a 0-d tensor, a scalar, one value returned twice)
# and inputs given back as they came (%x, %flag, %k).
PROGRAM = """
func.func @main(%w: memref<3x2xf32>, %keep: memref<4xi32>, %acc: memref<f32>,
                %x: tensor<2x3xf32>, %k: i32, %mask: tensor<3xi1>, %f: f32,
                %n: tensor<2xi64>, %flag: i1)
    -> (tensor<2x2xf32>, f32, tensor<f32>, tensor<3xi1>, tensor<2xi64>,
        tensor<2x3xf32>, i1, i32, tensor<2x2xf32>) {
  %wv = grad.load %w : memref<3x2xf32>
  %p = grad.dot %x, %wv : tensor<2x3xf32>, tensor<3x2xf32> to tensor<2x2xf32>
  %t = grad.reduce add %p [0, 1] : tensor<2x2xf32> to tensor<f32>
  %g = grad.gradient %t wrt %wv : tensor<f32>, tensor<3x2xf32>
  %half = grad.const 0.5 : tensor<3x2xf32>
  %d = grad.mul %g, %half : tensor<3x2xf32>
  %w2 = grad.add %wv, %d : tensor<3x2xf32>
  grad.store %w2, %w : memref<3x2xf32>
  %a = grad.load %acc : memref<f32>
  %a2 = grad.add %a, %t : tensor<f32>
  grad.store %a2, %acc : memref<f32>
  %ff = arith.mulf %f, %f : f32
  %true = grad.const true : tensor<3xi1>
  %flipped = grad.xor %mask, %true : tensor<3xi1>
  %nn = arith.addi %n, %n : tensor<2xi64>
  func.return %p, %ff, %t, %flipped, %nn, %x, %flag, %k, %p
      : tensor<2x2xf32>, f32, tensor<f32>, tensor<3xi1>, tensor<2xi64>,
        tensor<2x3xf32>, i1, i32, tensor<2x2xf32>
}
"""

LOOP = """
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c3 = arith.constant 3 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%a = %x) -> (tensor<4xf32>) {
    %b = arith.addf %a, %a : tensor<4xf32>
    scf.yield %b : tensor<4xf32>
  }
  func.return %r : tensor<4xf32>
}
"""

CALLED = """
func.func @twice(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  func.return %y : tensor<4xf32>
}
func.func @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = func.call @twice(%x) : (tensor<4xf32>) -> tensor<4xf32>
  func.return %y : tensor<4xf32>
}
"""


UTIL_FUNC = """
util.func public @main(%x: tensor<4xf32>) -> tensor<4xf32> {
  %y = arith.addf %x, %x : tensor<4xf32>
  util.return %y : tensor<4xf32>
}
"""


def inputs(seed: int) -> tuple[list[Any], list[Any]]:
    """Slots and staged inputs whose results are exact in float32 (small
    multiples of a half), so that IREE and the interpreter agree bit for bit."""
    rng = np.random.default_rng(seed)
    slots = [
        rng.integers(-4, 5, (3, 2)).astype(np.float32) / 2,
        rng.integers(-9, 9, 4).astype(np.int32),
        np.array(rng.integers(-4, 5) / 2, np.float32),
    ]
    args = [
        rng.integers(-4, 5, (2, 3)).astype(np.float32),
        int(rng.integers(-100, 100)),
        rng.integers(0, 2, 3).astype(bool),
        float(rng.integers(-8, 8)) / 4,
        np.array([2**40 + seed, -3], np.int64),
        bool(seed % 2),
    ]
    return slots, args


def outputs(result: Any) -> list[np.ndarray]:
    return [*result.results, *result.slots]


def same_bits(found: list[np.ndarray], expected: list[np.ndarray]) -> None:
    for got, want in zip(found, expected, strict=True):
        assert got.dtype == want.dtype and got.shape == want.shape
        assert got.tobytes() == want.tobytes()


@pytest.fixture(scope="module")
def programs(
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[Program, Program]]:
    """`PROGRAM` compiled packed and, in the same fresh cache, unpacked."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("GRADOPT_CACHE_DIR", str(tmp_path_factory.mktemp("iree")))
        packed = Program(PROGRAM)
        packed.compile_iree()
        unpacked = Program(PROGRAM)
        with pytest.MonkeyPatch.context() as unpacking:
            unpacking.setattr(iree_packing, "PACK_BELOW", 0)
            unpacked.compile_iree()
        yield packed, unpacked


@pytest.fixture
def packed(programs: tuple[Program, Program]) -> Program:
    return programs[0]


def test_a_small_entry_takes_and_gives_one_flat_tensor_per_element_type() -> None:
    lowered = iree._lowered(Program(PROGRAM).module)
    packing = iree_packing.pack_entries(lowered)["main"]
    function = next(op for op in lowered.ops if isinstance(op, func.FuncOp))
    elements = [
        t.get_element_type()
        for t in function.function_type.inputs
        if isinstance(t, TensorType)
    ]
    assert [str(e) for e in elements] == ["f32", "i32", "i8", "i64"]
    assert len(function.function_type.outputs) == 3  # f32, i1 in bytes, i64
    assert [d.name for d in packing.input_groups] == [
        "float32",
        "int32",
        "uint8",
        "int64",
    ]
    parts = [r.part for r in packing.results]
    assert all(p.offset % ALIGNMENT == 0 for p in parts)
    # %x, %flag, %k and the slot %keep come back as they went in: not packed
    given_back = [(i, r.argument) for i, r in enumerate(packing.results)]
    assert [(i, a) for i, a in given_back if a is not None] == [
        (5, 3),
        (6, 8),
        (7, 4),
        (10, 1),
    ]


def test_only_small_entries_without_control_flow_nor_callers_are_packed() -> None:
    small = iree._lowered(Program(PROGRAM).module)
    assert not iree_packing.pack_entries(small, below=100)
    assert not iree_packing.pack_entries(iree._lowered(Program(LOOP).module))
    called = iree._lowered(Program(CALLED).module)
    assert list(iree_packing.pack_entries(called)) == ["main"]


def test_a_util_func_is_packed_with_its_own_return() -> None:
    lowered = iree._lowered(Program(UTIL_FUNC).module)
    assert list(iree_packing.pack_entries(lowered)) == ["main"]
    ops = [op.name for op in lowered.walk()]
    assert "util.return" in ops and "func.return" not in ops


@needs_iree
def test_packed_results_are_the_unpacked_and_the_interpreters(
    programs: tuple[Program, Program],
) -> None:
    packed, unpacked = programs
    assert packed.iree_module is not None and unpacked.iree_module is not None
    assert "main" in packed.iree_module.packings
    assert not unpacked.iree_module.packings
    for seed in (0, 1):
        slots, args = inputs(seed)
        expected = outputs(packed.run(slots=slots, args=args))
        found = packed.run(slots=slots, args=args, backend="iree", deterministic=True)
        assert found.backend == "iree"
        same_bits(outputs(found), expected)
        plain = unpacked.run(slots=slots, args=args, backend="iree")
        same_bits(outputs(plain), expected)


@needs_iree
def test_packed_results_are_arrays_of_their_own(packed: Program) -> None:
    slots, args = inputs(2)
    before = [np.array(a, copy=True) for a in [*slots, *args]]
    expected = outputs(packed.run(slots=slots, args=args))
    first = outputs(packed.run(slots=slots, args=args, backend="iree"))
    given = [a for a in [*slots, *args] if isinstance(a, np.ndarray)]
    for i, out in enumerate(first):
        assert out.flags.writeable
        assert not any(np.shares_memory(out, a) for a in given)
        assert not any(np.shares_memory(out, o) for o in first[i + 1 :])
    # later calls on other inputs leave them as they were (the buffer the
    # inputs are packed into is used again)
    kept = [out.copy() for out in first]
    packed.run(*inputs(3), backend="iree")
    same_bits(first, kept)
    for out in first:
        out[...] = 7
    again = outputs(packed.run(slots=slots, args=args, backend="iree"))
    same_bits(again, expected)
    for value, old in zip([*slots, *args], before, strict=True):
        assert np.array_equal(value, old)


@needs_iree
def test_packed_in_place_slots_are_written_through(packed: Program) -> None:
    slots, args = inputs(4)
    expected = packed.run(slots=slots, args=args)
    mine = [np.array(s) for s in slots]
    result = packed.run(slots=mine, args=args, backend="iree", in_place=True)
    assert all(s is r for s, r in zip(mine, result.slots, strict=True))
    same_bits(outputs(result), outputs(expected))


@needs_iree
def test_each_thread_packs_into_buffers_of_its_own(packed: Program) -> None:
    module = packed.iree_module
    assert module is not None
    packing = module.packings["main"]
    mine = module._packed_inputs(packing)[0]
    assert module._packed_inputs(packing)[0] is mine  # used again
    theirs: list[list[np.ndarray]] = []
    thread = threading.Thread(
        target=lambda: theirs.append(module._packed_inputs(packing)[0])
    )
    thread.start()
    thread.join()
    assert not any(np.shares_memory(a, b) for a in mine for b in theirs[0])


@needs_iree
def test_jit_on_iree_calls_the_packed_program(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`jit` on IREE (`Program.run_staged`) through the packed entry, with a
    0-d input; integers in float32, so that the sums are exact in any order."""
    monkeypatch.setenv("GRADOPT_CACHE_DIR", str(tmp_path))

    def loss(w: Any, x: Any, k: Any) -> Any:
        return gnp.sum(gnp.maximum(x @ w, 0.0) * k)

    rng = np.random.default_rng(5)
    w = rng.integers(-3, 4, (3, 2)).astype(np.float32)
    x = rng.integers(-3, 4, (4, 3)).astype(np.float32)
    k = np.float32(-2.0)
    on_iree = gradopt.jit(gradopt.value_and_grad(loss), backend="iree")
    found = on_iree(w, x, k)
    program = on_iree.compile((w, x, k), {}).program
    assert program.iree_module is not None and program.iree_module.packings
    expected = gradopt.jit(gradopt.value_and_grad(loss))(w, x, k)
    same_bits(list(tree_leaves(found)), list(tree_leaves(expected)))
