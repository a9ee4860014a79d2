# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Gradients through calls, loops and branches (SPEC §11), in-process: each
program's `control_flow` expansion against float64 references (JAX where the
`jax` extra is present, NumPy otherwise), against `scf-for-loop-unroll`
followed by `expand-gradient`, and calls against the inlined program, bit for
bit."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from xdsl.context import Context
from xdsl.dialects.builtin import ModuleOp
from xdsl.parser import Parser
from xdsl.transforms.scf_for_loop_unroll import ScfForLoopUnrollPass

import gradopt
from gradopt.dialect.context import make_context
from gradopt.passes.expand_gradient import ExpandGradientPass
from gradopt.passes.expand_jvp import ExpandJvpPass

HAVE_JAX = importlib.util.find_spec("jax") is not None
HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)


def _parse(text: str) -> tuple[Context, ModuleOp]:
    ctx = make_context()
    return ctx, Parser(ctx, text).parse_module()


def expanded(text: str, unroll: bool = False, jvp_first: bool = False) -> ModuleOp:
    """`text` after `expand-gradient` (after `scf-for-loop-unroll` if asked)."""
    ctx, module = _parse(text)
    if unroll:
        ScfForLoopUnrollPass().apply(ctx, module)
    if jvp_first:
        ExpandJvpPass().apply(ctx, module)
    ExpandGradientPass().apply(ctx, module)
    module.verify()
    return module


def results(module: ModuleOp | str, *args: np.ndarray, backend: str = "numpy") -> list[np.ndarray]:
    return gradopt.run(module, args=list(args), backend=backend).results


def same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.tobytes() == y.tobytes() for x, y in zip(a, b)
    )


RNG = np.random.default_rng(22)


def f32(*shape: int) -> np.ndarray:
    return RNG.uniform(-1.0, 1.0, shape).astype(np.float32)


def close(found: np.ndarray, expected: np.ndarray, tolerance: float = 2e-5) -> None:
    scale = max(1.0, float(np.max(np.abs(expected))))
    assert np.max(np.abs(found.astype(np.float64) - expected)) <= tolerance * scale


# A tanh RNN in IREE's form of a `lax.scan`: i32 bounds, the step's input row
# picked by a dynamic offset, upstream ops only.
RNN = """
func.func @main(%h0: tensor<4xf32>, %xs: tensor<{n}x4xf32>, %w: tensor<4x4xf32>) -> (tensor<4xf32>, tensor<4x4xf32>, tensor<{n}x4xf32>) {{
  %lo = arith.constant 0 : i32
  %hi = arith.constant {n} : i32
  %one = arith.constant 1 : i32
  %h = scf.for %i = %lo to %hi step %one iter_args(%c = %h0) -> (tensor<4xf32>) : i32 {{
    %k = arith.index_cast %i : i32 to index
    %x = tensor.extract_slice %xs[%k, 0] [1, 4] [1, 1] : tensor<{n}x4xf32> to tensor<4xf32>
    %e = tensor.empty() : tensor<4xf32>
    %z = arith.constant 0.0 : f32
    %init = linalg.fill ins(%z : f32) outs(%e : tensor<4xf32>) -> tensor<4xf32>
    %wc = linalg.matvec ins(%w, %c : tensor<4x4xf32>, tensor<4xf32>) outs(%init : tensor<4xf32>) -> tensor<4xf32>
    %s = arith.addf %wc, %x : tensor<4xf32>
    %t = math.tanh %s : tensor<4xf32>
    scf.yield %t : tensor<4xf32>
  }}
  %e0 = tensor.empty() : tensor<f32>
  %z0 = arith.constant 0.0 : f32
  %acc = linalg.fill ins(%z0 : f32) outs(%e0 : tensor<f32>) -> tensor<f32>
  %sq = arith.mulf %h, %h : tensor<4xf32>
  %l = linalg.reduce ins(%sq : tensor<4xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {{
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }}
  %g0, %gw, %gx = grad.gradient %l wrt %h0, %w, %xs control_flow : tensor<f32>, tensor<4xf32>, tensor<4x4xf32>, tensor<{n}x4xf32>
  func.return %g0, %gw, %gx : tensor<4xf32>, tensor<4x4xf32>, tensor<{n}x4xf32>
}}
"""


def rnn_reference(h0: np.ndarray, xs: np.ndarray, w: np.ndarray) -> list[np.ndarray]:
    """The RNN's gradients in float64, by hand-written reverse mode."""
    h0, xs, w = (a.astype(np.float64) for a in (h0, xs, w))
    hs = [h0]
    for x in xs:
        hs.append(np.tanh(w @ hs[-1] + x))
    g = 2 * hs[-1]
    gw, gx = np.zeros_like(w), np.zeros_like(xs)
    for k in reversed(range(len(xs))):
        gs = g * (1 - hs[k + 1] ** 2)
        gx[k] = gs
        gw += np.outer(gs, hs[k])
        g = w.T @ gs
    return [g, gw, gx]


def test_rnn_matches_float64_and_the_unrolled_loop() -> None:
    text = RNN.format(n=6)
    args = (f32(4), f32(6, 4), f32(4, 4))
    found = results(expanded(text), *args)
    for value, expected in zip(found, rnn_reference(*args)):
        close(value, expected)
    unrolled = results(expanded(text, unroll=True), *args)
    for value, expected in zip(found, unrolled):
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
