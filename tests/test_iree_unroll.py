# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""The rewrite of lowered loops for IREE (`runtime/iree_loops`): innermost
loops unrolled with the iterations left run by the original loop. It keeps
the interpreter's bits, with static and run-time trip counts (the
remainders of the unrolled trips included); the IREE test (skipped without
the `iree` extra) runs the rewritten gradient against the interpreter."""

from __future__ import annotations

import importlib.util
from functools import cache

import numpy as np
import pytest
from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import ModuleOp

from gradopt import Program
from gradopt.dialect.context import make_context
from gradopt.passes.convert_grad_to_standard import ConvertGradToStandardPass
from gradopt.runtime import iree, iree_loops
from gradopt.runtime.iree_loops import MAX_UNROLL, unroll_loops

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)

ROWS = 13

# A tanh RNN over the first n of 13 rows, n a run-time value (static when
# {bound} is a literal), and its gradient wrt the state, the rows, the weights.
RNN = """
func.func @main(%h0: tensor<1x3xf32>, %xs: tensor<13x3xf32>, %w: tensor<3x3xf32>, %n: tensor<i32>) -> (tensor<1x3xf32>, tensor<13x3xf32>, tensor<3x3xf32>) {{
  %lo = arith.constant 0 : index
  %one = arith.constant 1 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %dynamic = arith.index_cast %ni : i32 to index
  %static = arith.constant {steps} : index
  %h = scf.for %i = %lo to %{bound} step %one iter_args(%c = %h0) -> (tensor<1x3xf32>) {{
    %x = tensor.extract_slice %xs[%i, 0] [1, 3] [1, 1] : tensor<13x3xf32> to tensor<1x3xf32>
    %wc = grad.dot %c, %w : tensor<1x3xf32>, tensor<3x3xf32> to tensor<1x3xf32>
    %s = grad.add %wc, %x : tensor<1x3xf32>
    %t = math.tanh %s : tensor<1x3xf32>
    scf.yield %t : tensor<1x3xf32>
  }}
  %sq = grad.mul %h, %h : tensor<1x3xf32>
  %l = grad.reduce add %sq [0, 1] : tensor<1x3xf32> to tensor<f32>
  %g0, %gx, %gw = grad.gradient %l wrt %h0, %xs, %w control_flow : tensor<f32>, tensor<1x3xf32>, tensor<13x3xf32>, tensor<3x3xf32>
  func.return %g0, %gx, %gw : tensor<1x3xf32>, tensor<13x3xf32>, tensor<3x3xf32>
}}
"""


@cache
def _lowered(bound: str, steps: int) -> ModuleOp:
    module = Program(RNN.format(bound=bound, steps=steps)).module.clone()
    ConvertGradToStandardPass().apply(make_context(), module)
    return module


def lowered(bound: str, steps: int = 0) -> ModuleOp:
    """The gradient expanded and lowered to upstream ops, not yet rewritten."""
    return _lowered(bound, steps).clone()


SMALL = 3
"""The unroll factor of the tests that run programs (7 and 13 iterations
leave 1), which keeps them small."""


def inputs(n: int) -> list[np.ndarray]:
    rng = np.random.default_rng(n)
    return [
        rng.uniform(-1, 1, (1, 3)).astype(np.float32),
        rng.uniform(-1, 1, (ROWS, 3)).astype(np.float32),
        rng.uniform(-1, 1, (3, 3)).astype(np.float32),
        np.array(n, np.int32),
    ]


def loops(module: ModuleOp) -> list[scf.ForOp]:
    return [op for op in module.walk() if isinstance(op, scf.ForOp)]


def whole_adds(module: ModuleOp) -> int:
    """Adds of the 13-row running sum as a whole, inside a loop."""
    return sum(
        isinstance(op, arith.AddfOp)
        and str(op.result.type) == "tensor<13x3xf32>"
        and isinstance(op.parent_op(), scf.ForOp)
        for op in module.walk()
    )


@pytest.mark.parametrize(("bound", "steps"), [("dynamic", 0), ("static", ROWS)])
def test_rewrites_keep_the_interpreters_bits(
    bound: str, steps: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(iree_loops, "MAX_UNROLL", SMALL)
    plain = lowered(bound, steps)
    assert whole_adds(plain) == 0  # the expansion adds the rows' shares alone
    rewritten = plain.clone()
    assert unroll_loops(rewritten) == 2  # the recording loop and the reverse
    rewritten.verify()
    assert len(loops(rewritten)) == 4  # and the loops of the iterations left
    before, after = Program(str(plain)), Program(str(rewritten))
    for n in (0, 1, 7, ROWS) if bound == "dynamic" else (steps,):
        args = inputs(n)
        expected = before.run(args=args).results
        found = after.run(args=args).results
        for a, b in zip(expected, found, strict=True):
            assert a.tobytes() == b.tobytes()


def test_unrolled_body_runs_factor_steps_in_order() -> None:
    module = lowered("static", MAX_UNROLL)
    unroll_loops(module)
    assert len(loops(module)) == 2  # no iterations left: no loops for them
    forward = loops(module)[0]
    rows = [op for op in forward.body.walk() if isinstance(op, tensor.ExtractSliceOp)]
    assert len(rows) == MAX_UNROLL
    step = forward.step.owner
    assert isinstance(step, arith.ConstantOp)
    assert step.value.value.data == MAX_UNROLL  # pyright: ignore


def test_a_loop_shorter_than_the_factor_is_one_trip() -> None:
    module = lowered("static", 4)
    assert unroll_loops(module) == 2
    assert len(loops(module)) == 2
    for loop in loops(module):
        assert isinstance(step := loop.step.owner, arith.ConstantOp)
        assert step.value.value.data == 4  # pyright: ignore


def test_programs_with_loops_get_the_loop_flags() -> None:
    assert iree.compile_flags(str(lowered("static", 4))) == iree.LOOP_COMPILE_FLAGS
    assert iree.compile_flags("func.func @f() {}") == iree.COMPILE_FLAGS


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_rewritten_gradient_runs_on_iree(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Run-time trip counts below, at and past one unrolled trip (compiled once)."""
    monkeypatch.setenv("GRADOPT_CACHE_DIR", str(tmp_path_factory.mktemp("iree")))
    monkeypatch.setattr(iree_loops, "MAX_UNROLL", SMALL)
    program = Program(RNN.format(bound="dynamic", steps=0))
    for n in (0, 1, 7, ROWS):
        on_iree = program.run(args=inputs(n), backend="iree").results
        expected = program.run(args=inputs(n)).results
        for found, value in zip(on_iree, expected, strict=True):
            np.testing.assert_allclose(found, value, rtol=1e-5, atol=1e-6)
