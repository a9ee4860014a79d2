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


def results(
    module: ModuleOp | str, *args: np.ndarray, backend: str = "numpy"
) -> list[np.ndarray]:
    return gradopt.run(module, args=list(args), backend=backend).results


def same_bits(a: list[np.ndarray], b: list[np.ndarray]) -> bool:
    return len(a) == len(b) and all(
        x.dtype == y.dtype and x.tobytes() == y.tobytes()
        for x, y in zip(a, b, strict=True)
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
    for value, expected in zip(found, rnn_reference(*args), strict=True):
        close(value, expected)
    unrolled = results(expanded(text, unroll=True), *args)
    for value, expected in zip(found, unrolled, strict=True):
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)


CALLS = """
func.func @loss(%a: tensor<3xf32>, %b: tensor<3xf32>) -> tensor<f32> {{
  %d = grad.mul %a, %b : tensor<3xf32>
  %s = grad.sin %d : tensor<3xf32>
  %e = {inner}
  %r = grad.reduce add %e [0] : tensor<3xf32> to tensor<f32>
  func.return %r : tensor<f32>
}}
func.func @square(%a: tensor<3xf32>) -> tensor<3xf32> {{
  %m = grad.mul %a, %a : tensor<3xf32>
  func.return %m : tensor<3xf32>
}}
func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> (tensor<3xf32>, tensor<3xf32>) {{
  %l1 = {call1}
  %xx = grad.mul %x, %y : tensor<3xf32>
  %l2 = {call2}
  %l3 = grad.add %l1, %l2 : tensor<f32>
  %gx, %gy = grad.gradient %l3 wrt %x, %y control_flow : tensor<f32>, tensor<3xf32>, tensor<3xf32>
  func.return %gx, %gy : tensor<3xf32>, tensor<3xf32>
}}
"""


def _calls(inline: bool) -> str:
    """A loss called from two sites (one of them through a second call), as
    calls or pasted in by hand."""
    if not inline:
        return CALLS.format(
            inner="func.call @square(%s) : (tensor<3xf32>) -> tensor<3xf32>",
            call1="func.call @loss(%x, %y) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>",
            call2="func.call @loss(%xx, %x) : (tensor<3xf32>, tensor<3xf32>) -> tensor<f32>",
        )
    body = """grad.mul {a}, {b} : tensor<3xf32>
  %s{n} = grad.sin %d{n} : tensor<3xf32>
  %e{n} = grad.mul %s{n}, %s{n} : tensor<3xf32>
  %l{n} = grad.reduce add %e{n} [0] : tensor<3xf32> to tensor<f32>"""
    return (
        CALLS.format(
            inner="grad.mul %s, %s : tensor<3xf32>",
            call1="grad.const 0.0 : tensor<f32>\n  %d1 = "
            + body.format(a="%x", b="%y", n=1),
            call2="grad.const 0.0 : tensor<f32>\n  %d2 = "
            + body.format(a="%xx", b="%x", n=2),
        )
        .replace("%l1 = grad.const", "%unused1 = grad.const")
        .replace("%l2 = grad.const", "%unused2 = grad.const")
    )


def test_calls_have_the_bits_of_inlining() -> None:
    args = (f32(3), f32(3))
    called = results(expanded(_calls(False)), *args)
    inlined = results(expanded(_calls(True)), *args)
    assert same_bits(called, inlined)
    x, y = (a.astype(np.float64) for a in args)
    # l = sum(sin(x*y)^2) + sum(sin(x*y*x)^2)
    d1, d2 = x * y, x * y * x
    s1, s2 = 2 * np.sin(d1) * np.cos(d1), 2 * np.sin(d2) * np.cos(d2)
    close(called[0], s1 * y + s2 * 2 * x * y)
    close(called[1], s1 * x + s2 * x * x)


NESTED = """
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>, %n: tensor<i32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {{
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %ni = tensor.extract %n[] : tensor<i32>
  %nd = arith.index_cast %ni : i32 to index
  %nn = {count}
  %r = scf.for %i = %c0 to %nn step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {{
    %inner = scf.for %j = %c0 to %c3 step %c1 iter_args(%u = %h) -> (tensor<2xf32>) {{
      %a = grad.mul %u, %w : tensor<2xf32>
      %b = grad.sin %a : tensor<2xf32>
      %c = grad.add %b, %h : tensor<2xf32>
      scf.yield %c : tensor<2xf32>
    }}
    %pos = grad.reduce add %inner [0] : tensor<2xf32> to tensor<f32>
    %zero = grad.const 0.0 : tensor<f32>
    %above = grad.cmplt %zero, %pos : tensor<f32>
    %cond = tensor.extract %above[] : tensor<i1>
    %next = scf.if %cond -> (tensor<2xf32>) {{
      %m = grad.mul %inner, %w : tensor<2xf32>
      scf.yield %m : tensor<2xf32>
    }} else {{
      %m2 = grad.neg %inner : tensor<2xf32>
      scf.yield %m2 : tensor<2xf32>
    }}
    scf.yield %next : tensor<2xf32>
  }}
  %sq = grad.mul %r, %r : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  %t = grad.jvp %r wrt %x, %w control_flow : tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw, %t : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}}
"""


def nested_reference(
    x: np.ndarray, w: np.ndarray, n: int, t: np.ndarray
) -> list[np.ndarray]:
    """Gradients of the nested program in float64 by forward-mode dual numbers
    (one pass per input direction), and the jvp along `t` at x."""

    def run(dx: np.ndarray, dw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        h, dh = x.astype(np.float64), dx
        wf = w.astype(np.float64)
        for _ in range(n):
            u, du = h, dh
            for _ in range(3):
                a, da = u * wf, du * wf + u * dw
                u, du = np.sin(a) + h, np.cos(a) * da + dh
            if u.sum() > 0:
                h, dh = u * wf, du * wf + u * dw
            else:
                h, dh = -u, -du
        return h, dh

    eye = np.eye(2)
    zero = np.zeros(2)
    gx = np.array([2 * np.sum(np.prod(run(eye[k], zero), axis=0)) for k in range(2)])
    gw = np.array([2 * np.sum(np.prod(run(zero, eye[k]), axis=0)) for k in range(2)])
    return [gx, gw, run(t.astype(np.float64), zero)[1]]


@pytest.mark.parametrize(
    "count", ["arith.constant 3 : index", "arith.addi %nd, %c0 : index"]
)
def test_nested_loops_branches_and_run_time_trip_counts(count: str) -> None:
    text = NESTED.format(count=count)
    x, w = np.array([0.3, -0.2], np.float32), np.array([0.8, 1.1], np.float32)
    found = results(expanded(text), x, w, np.array(3, np.int32))
    for value, expected in zip(found, nested_reference(x, w, 3, w), strict=True):
        close(value, expected)
    if "constant" in count:
        unrolled = results(expanded(text, unroll=True), x, w, np.array(3, np.int32))
        for value, expected in zip(found, unrolled, strict=True):
            np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)
    else:
        none = results(expanded(text), x, w, np.array(0, np.int32))
        assert same_bits(none[:2], [2 * x, np.zeros(2, np.float32)])


SECOND_ORDER = """
func.func @cell(%h: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %a = grad.mul %h, %w : tensor<2xf32>
  %b = grad.sin %a : tensor<2xf32>
  func.return %b : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %r = scf.for %i = %c0 to %c4 step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {
    %n = func.call @cell(%h, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  }
  %sq = grad.mul %r, %r : tensor<2xf32>
  %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
  %g = grad.gradient %l wrt %w control_flow : tensor<f32>, tensor<2xf32>
  %gg = grad.mul %g, %g : tensor<2xf32>
  %l2 = grad.reduce add %gg [0] : tensor<2xf32> to tensor<f32>
  %g2 = grad.gradient %l2 wrt %x control_flow : tensor<f32>, tensor<2xf32>
  func.return %g, %g2 : tensor<2xf32>, tensor<2xf32>
}
"""


def _first_gradient(x: np.ndarray, w: np.ndarray) -> np.ndarray:
    """d/dw sum(r^2) of the loop above, in float64 (dual numbers per w_k)."""
    out = np.zeros(2)
    for k in range(2):
        dw = np.eye(2)[k]
        h, dh = x, np.zeros(2)
        for _ in range(4):
            a, da = h * w, dh * w + h * dw
            h, dh = np.sin(a), np.cos(a) * da
        out[k] = np.sum(2 * h * dh)
    return out


def test_gradient_of_a_gradient_through_a_loop_with_a_call() -> None:
    x, w = np.array([0.4, -0.7], np.float32), np.array([1.2, 0.9], np.float32)
    g, g2 = results(expanded(SECOND_ORDER), x, w)
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    close(g, _first_gradient(xd, wd))
    eps = 1e-6
    expected = [
        (
            np.sum(_first_gradient(xd + eps * e, wd) ** 2)
            - np.sum(_first_gradient(xd - eps * e, wd) ** 2)
        )
        / (2 * eps)
        for e in np.eye(2)
    ]
    close(g2, np.array(expected), 1e-4)
    unrolled = results(expanded(SECOND_ORDER, unroll=True), x, w)
    for value, other in zip([g, g2], unrolled, strict=True):
        np.testing.assert_allclose(value, other, rtol=1e-5, atol=1e-6)


WHILE = """
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>, tensor<2xf32>) {
  %r = scf.while (%a = %x) : (tensor<2xf32>) -> tensor<2xf32> {
    %s = grad.reduce add %a [0] : tensor<2xf32> to tensor<f32>
    %lim = grad.const 20.0 : tensor<f32>
    %lt = grad.cmplt %s, %lim : tensor<f32>
    %c = tensor.extract %lt[] : tensor<i1>
    scf.condition(%c) %a : tensor<2xf32>
  } do {
  ^bb0(%b: tensor<2xf32>):
    %m = grad.mul %b, %w : tensor<2xf32>
    %q = grad.mul %m, %b : tensor<2xf32>
    %n = grad.add %q, %b : tensor<2xf32>
    scf.yield %n : tensor<2xf32>
  }
  %l = grad.reduce add %r [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  %t = grad.jvp %r wrt %w, %x control_flow : tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw, %t : tensor<2xf32>, tensor<2xf32>, tensor<2xf32>
}
"""


def test_while_loop_against_float64() -> None:
    x, w = np.array([0.9, 1.3], np.float32), np.array([0.7, 0.4], np.float32)
    gx, gw, t = results(WHILE, x, w)
    xd, wd = x.astype(np.float64), w.astype(np.float64)
    steps = 0
    h = xd.copy()
    while h.sum() < 20.0:  # the trip count is a constant of the derivative
        h = h * wd * h + h
        steps += 1
    assert steps > 2

    def tangent(dx: np.ndarray, dw: np.ndarray) -> np.ndarray:
        h, dh = xd, dx
        for _ in range(steps):
            h, dh = h * wd * h + h, 2 * h * wd * dh + h * h * dw + dh
        return dh

    eye = np.eye(2)
    close(gx, np.array([tangent(e, np.zeros(2)).sum() for e in eye]))
    close(gw, np.array([tangent(np.zeros(2), e).sum() for e in eye]))
    close(t, tangent(np.zeros(2), xd))


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_the_expanded_rnn_runs_on_iree_as_loops() -> None:
    text, args = RNN.format(n=5), (f32(4), f32(5, 4), f32(4, 4))
    module = expanded(text)
    on_iree = results(module, *args, backend="iree")
    for value, expected in zip(on_iree, results(module, *args), strict=True):
        np.testing.assert_allclose(value, expected, rtol=1e-5, atol=1e-6)


TRAINING = """
func.func @main(%w0: tensor<2xf32>, %xs: tensor<4x2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %lr = grad.const 0.1 : tensor<2xf32>
  %w = scf.for %i = %c0 to %c4 step %c1 iter_args(%v = %w0) -> (tensor<2xf32>) {
    %x = tensor.extract_slice %xs[%i, 0] [1, 2] [1, 1] : tensor<4x2xf32> to tensor<2xf32>
    %d = grad.add %v, %x : tensor<2xf32>
    %sq = grad.mul %d, %d : tensor<2xf32>
    %l = grad.reduce add %sq [0] : tensor<2xf32> to tensor<f32>
    %g = grad.gradient %l wrt %v control_flow : tensor<f32>, tensor<2xf32>
    %step = grad.mul %g, %lr : tensor<2xf32>
    %n = grad.neg %step : tensor<2xf32>
    %v2 = grad.add %v, %n : tensor<2xf32>
    scf.yield %v2 : tensor<2xf32>
  }
  func.return %w : tensor<2xf32>
}
"""


def test_a_training_loop_in_ir() -> None:
    """Rule 4 is lifted by `control_flow`: the loss and the target depend on
    the iteration (the weights are the loop's iter_args)."""
    w0, xs = f32(2), f32(4, 2)
    (found,) = results(TRAINING, w0, xs)
    w = w0.astype(np.float64)
    for x in xs.astype(np.float64):
        w = w - 0.1 * 2 * (w + x)
    close(found, w)
    with pytest.raises(gradopt.GradoptError, match="depends on an open loop range"):
        results(TRAINING.replace(" control_flow", ""), w0, xs)


@pytest.mark.parametrize(
    "attributes",
    [
        '{"grad.checkpoint" = "periodic"}',
        '{"grad.checkpoint" = "periodic", "grad.period" = 4 : i64}',
        '{"grad.checkpoint" = "periodic", "grad.period" = 50 : i64}',
    ],
)
def test_periodic_checkpointing_gives_the_bits_of_the_cache(attributes: str) -> None:
    """Default period ⌈√7⌉ = 3 (segments 3, 3, 1), a period that does not
    divide the trip count, and one longer than the loop."""
    text = RNN.format(n=7)
    args = (f32(4), f32(7, 4), f32(4, 4))
    marked = text.replace(
        "  scf.yield %t : tensor<4xf32>\n  }",
        "  scf.yield %t : tensor<4xf32>\n  } " + attributes,
    )
    assert marked != text
    assert same_bits(results(expanded(marked), *args), results(expanded(text), *args))


def test_periodic_checkpointing_with_a_run_time_trip_count() -> None:
    text = NESTED.format(count="arith.addi %nd, %c0 : index")
    marked = text.replace(
        "    scf.yield %next : tensor<2xf32>\n  }",
        '    scf.yield %next : tensor<2xf32>\n  } {"grad.checkpoint" = "periodic"}',
    )
    assert marked != text
    x, w = np.array([0.3, -0.2], np.float32), np.array([0.8, 1.1], np.float32)
    checkpointed, cached = expanded(marked), expanded(text)
    for n in (0, 1, 5):
        args = (x, w, np.array(n, np.int32))
        assert same_bits(results(checkpointed, *args), results(cached, *args))


IREE_FORM = """
module @jit_example {
  util.func private @scale(%x: tensor<3xf32>, %k: f32) -> tensor<3xf32> {
    %e = tensor.empty() : tensor<3xf32>
    %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<3xf32>) outs(%e : tensor<3xf32>) {
    ^bb0(%in: f32, %out: f32):
      %m = arith.mulf %in, %k : f32
      linalg.yield %m : f32
    } -> tensor<3xf32>
    util.return %r : tensor<3xf32>
  }
  util.func public @main(%arg0: tensor<3xf32>, %arg1: tensor<3x3xf32>) -> (tensor<3xf32>, tensor<3x3xf32>) {
    %c0_i32 = arith.constant 0 : i32
    %c3_i32 = arith.constant 3 : i32
    %c1_i32 = arith.constant 1 : i32
    %c2 = arith.constant 2 : index
    %half = arith.constant 0.5 : f32
    %0 = scf.for %i = %c0_i32 to %c3_i32 step %c1_i32 iter_args(%acc = %arg0) -> (tensor<3xf32>)  : i32 {
      %idx = arith.index_cast %i : i32 to index
      %row = tensor.extract_slice %arg1[%idx, 0] [1, 3] [1, 1] : tensor<3x3xf32> to tensor<3xf32>
      %last = arith.cmpi eq, %idx, %c2 : index
      %next = scf.if %last -> (tensor<3xf32>) {
        %s = util.call @scale(%row, %half) : (tensor<3xf32>, f32) -> tensor<3xf32>
        scf.yield %s : tensor<3xf32>
      } else {
        scf.yield %row : tensor<3xf32>
      }
      %sum = arith.addf %acc, %next : tensor<3xf32>
      scf.yield %sum : tensor<3xf32>
    }
    %sq = arith.mulf %0, %0 : tensor<3xf32>
    %l = grad.reduce add %sq [0] : tensor<3xf32> to tensor<f32>
    %gx, %ga = grad.gradient %l wrt %arg0, %arg1 control_flow : tensor<f32>, tensor<3xf32>, tensor<3x3xf32>
    util.return %gx, %ga : tensor<3xf32>, tensor<3x3xf32>
  }
}
"""


def test_iree_form_loop_with_a_branch_and_a_util_call() -> None:
    """IREE's input form (SPEC §10.5): i32 bounds, a dynamic slice offset,
    `scf.if` and `util.call` inside the loop."""
    x, a = f32(3), f32(3, 3)
    gx, ga = results(IREE_FORM, x, a)
    r = x.astype(np.float64) + a[0] + a[1] + 0.5 * a[2].astype(np.float64)
    close(gx, 2 * r)
    close(ga, np.stack([2 * r, 2 * r, r]))


LOOP_IN_CALLEE = """
func.func @run(%x: tensor<2xf32>, %w: tensor<2xf32>) -> tensor<2xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %r = scf.for %i = %c0 to %c3 step %c1 iter_args(%h = %x) -> (tensor<2xf32>) {
    %a = grad.mul %h, %w : tensor<2xf32>
    %b = grad.sin %a : tensor<2xf32>
    scf.yield %b : tensor<2xf32>
  }
  func.return %r : tensor<2xf32>
}
func.func @main(%x: tensor<2xf32>, %w: tensor<2xf32>) -> (tensor<2xf32>, tensor<2xf32>) {
  %r1 = func.call @run(%x, %w) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %r2 = func.call @run(%r1, %x) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
  %l = grad.reduce add %r2 [0] : tensor<2xf32> to tensor<f32>
  %gx, %gw = grad.gradient %l wrt %x, %w control_flow : tensor<f32>, tensor<2xf32>, tensor<2xf32>
  func.return %gx, %gw : tensor<2xf32>, tensor<2xf32>
}
"""


def test_loops_in_a_callee_called_twice() -> None:
    """Against finite differences of the same program's forward value in
    float64 (the loop's body in NumPy)."""
    x, w = np.array([0.5, -0.3], np.float32), np.array([1.1, 0.6], np.float32)
    gx, gw = results(LOOP_IN_CALLEE, x, w)

    def loss(x: np.ndarray, w: np.ndarray) -> float:
        def run(h: np.ndarray, v: np.ndarray) -> np.ndarray:
            for _ in range(3):
                h = np.sin(h * v)
            return h

        return float(run(run(x, w), x).sum())

    eps, xd, wd = 1e-6, x.astype(np.float64), w.astype(np.float64)
    for found, wrt in ((gx, 0), (gw, 1)):
        expected = []
        for e in np.eye(2) * eps:
            plus = loss(xd + e, wd) if wrt == 0 else loss(xd, wd + e)
            minus = loss(xd - e, wd) if wrt == 0 else loss(xd, wd - e)
            expected.append((plus - minus) / (2 * eps))
        close(found, np.array(expected), 1e-4)
