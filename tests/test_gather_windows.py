"""`gather-windows` (the im2col of a convolution or a pool gathered by one
`linalg.generic` in the lowering for IREE): every window concat gradopt's
convolutions and pools make is matched, the gathered program gives the
interpreter's bits, and a small conv net's loss and gradients on IREE match
the interpreter's. The IREE test skips without the `iree` extra; the
patterns themselves are in `lit-tests/lowering/gather_windows.mlir`."""

from __future__ import annotations

import functools
import importlib.util
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from xdsl.dialects.builtin import ModuleOp

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt.dialect import ops as grad
from gradopt.dialect.context import make_context
from gradopt.passes.gather_windows import GatherWindowsPass

HAVE_IREE = importlib.util.find_spec("iree") is not None and all(
    importlib.util.find_spec(m) for m in ("iree.compiler", "iree.runtime")
)
EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "conv2d.mlir"

RNG = np.random.default_rng(7)
X = RNG.standard_normal((2, 4, 7, 6)).astype(np.float32)
W1 = (RNG.standard_normal((6, 4, 3, 3)) / 6).astype(np.float32)
W2 = (RNG.standard_normal((4, 3, 2, 3)) / 4).astype(np.float32)  # groups of 2
X1 = RNG.standard_normal((2, 3, 9)).astype(np.float32)
K1 = RNG.standard_normal((4, 3, 3)).astype(np.float32)


def _net(x: Any, w1: Any, w2: Any, x1: Any, k1: Any) -> Any:
    """Convolutions with padding, strides, dilation and groups, and pools."""
    h = gnn.relu(gnn.conv2d(x, w1, None, stride=1, padding=1))
    h = gnn.conv2d(h, w2, None, (2, 1), padding=(1, 2), dilation=(1, 2), groups=2)
    pooled = gnn.max_pool2d(h, 2, 1) + gnn.avg_pool2d(h, 2, 1, 1)[:, :, 1:-1, 1:-1]
    line = gnn.max_pool1d(gnn.conv1d(x1, k1, None, stride=2, padding=1, dilation=2), 2)
    return gnp.sum(pooled * pooled) + gnp.sum(line)


@functools.cache
def net() -> gradopt.Program:
    """The expanded program of `_net`'s value and gradients."""
    step = gradopt.jit(gradopt.value_and_grad(_net, argnums=(0, 1, 2, 3, 4)))
    return step.compile((X, W1, W2, X1, K1), {}).program


def _concats(module: ModuleOp) -> int:
    return sum(isinstance(op, grad.ConcatOp) for op in module.walk())


def _gathered(module: ModuleOp) -> ModuleOp:
    gathered = module.clone()
    GatherWindowsPass().apply(make_context(), gathered)
    return gathered


def test_every_window_concat_is_gathered_with_the_same_bits() -> None:
    """The traced net (2 convolutions, 3 pools, a 1-D convolution and the
    gradients' concats of slices of a cotangent, which are not windows) and
    the example's im2col at both strides."""
    program = net()
    gathered = _gathered(program.module)
    windows = 6
    assert _concats(program.module) - _concats(gathered) == windows
    args = [X, W1, W2, X1, K1]
    expected = program.run(args=args).results
    found = gradopt.Program(gathered).run(args=args).results
    for a, b in zip(found, expected, strict=True):
        assert np.array_equal(np.asarray(a), np.asarray(b))
    example = gradopt.Program(EXAMPLE.read_text(), str(EXAMPLE))
    assert _concats(_gathered(example.module)) == 0
    x = RNG.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = RNG.standard_normal((3, 2, 3, 3)).astype(np.float32)
    for entry in ("main", "stride2"):
        expected = example.run(args=[x, w], entry=entry).results
        found = (
            gradopt.Program(_gathered(example.module))
            .run(args=[x, w], entry=entry)
            .results
        )
        for a, b in zip(found, expected, strict=True):
            assert np.array_equal(np.asarray(a), np.asarray(b))


def _small_net(x: Any, w: Any) -> Any:
    """A convolution with padding, a stride and a dilation, and a ReLU."""
    out = gnn.relu(gnn.conv2d(x, w, None, stride=(2, 1), padding=1, dilation=(1, 2)))
    return gnp.sum(out * out)


@pytest.mark.skipif(not HAVE_IREE, reason="needs the iree extra")
def test_a_conv_net_on_iree_matches_the_interpreter() -> None:
    """Loss and gradients, float32 rounding of reordered sums apart; the
    lowered program holds no concat (the gradients' concats of slices are
    gone with the windows' slices) and compiles without tiled layouts."""
    from gradopt.runtime import iree

    step = gradopt.jit(gradopt.value_and_grad(_small_net, argnums=(0, 1)))
    program = step.compile((X, W1), {}).program
    lowered = iree.lower(program.module)
    assert "tensor.concat" not in lowered
    assert iree.compile_flags(lowered) == iree.LOOP_COMPILE_FLAGS
    on_iree = program.run(args=[X, W1], backend="iree").results
    expected = program.run(args=[X, W1]).results
    for found, value in zip(on_iree, expected, strict=True):
        np.testing.assert_allclose(found, value, rtol=2e-5, atol=1e-5)
