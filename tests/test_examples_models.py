"""The model examples against float64 NumPy references.

`examples/conv2d.mlir` (2-D convolution, stride 1 and 2) is checked against
explicit loops over the output positions, its loss, output and both gradients;
`examples/attention.mlir` (multi-head self-attention) against a forward and a
hand-written backward pass in float64, which is itself checked by central
finite differences. Nothing here uses gradopt's rules: only `gradopt.run`.
The commands in the examples' headers are run too, and `bench/models.py`'s
programs and NumPy sides are checked against the examples and the references.
"""

from __future__ import annotations

import importlib.util
import json
import re
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

import gradopt

ROOT = Path(__file__).resolve().parent.parent
CONV2D = ROOT / "examples" / "conv2d.mlir"
ATTENTION = ROOT / "examples" / "attention.mlir"
STRIDES = {"main": 1, "stride2": 2}


def assert_close(actual: Sequence[np.ndarray], expected: Sequence[np.ndarray]) -> None:
    """f32 results within float32 tolerance of the float64 reference: 2e-4
    relative, plus 2e-5 of the largest magnitude of the result (as in
    test_properties.py)."""
    assert len(actual) == len(expected)
    for i, (a, b) in enumerate(zip(actual, expected, strict=True)):
        a, b = np.asarray(a, np.float64), np.asarray(b, np.float64)
        assert a.shape == b.shape, f"result {i}: shape {a.shape}, expected {b.shape}"
        scale = max(1.0, float(np.max(np.abs(b), initial=0.0)))
        bad = ~(np.abs(a - b) <= 2e-4 * np.abs(b) + 2e-5 * scale)
        assert not bad.any(), f"result {i}: gradopt {a}, float64 reference {b}"


# --- conv2d -------------------------------------------------------------------


def conv2d_reference(
    x: np.ndarray, w: np.ndarray, stride: int, padding: int = 1
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray]:
    """sum(out^2), out, d/dx and d/dw of a zero-padded NCHW convolution (OIHW
    kernel), by explicit loops over the output positions in float64."""
    x, w = x.astype(np.float64), w.astype(np.float64)
    n, c, h, width = x.shape
    o, _, k, _ = w.shape
    xp = np.zeros((n, c, h + 2 * padding, width + 2 * padding))
    xp[:, :, padding : padding + h, padding : padding + width] = x
    ho = (h + 2 * padding - k) // stride + 1
    wo = (width + 2 * padding - k) // stride + 1
    out = np.zeros((n, o, ho, wo))
    for b in range(n):
        for oc in range(o):
            for y in range(ho):
                for xx in range(wo):
                    total = 0.0
                    for cc in range(c):
                        for i in range(k):
                            for j in range(k):
                                total += (
                                    w[oc, cc, i, j]
                                    * xp[b, cc, y * stride + i, xx * stride + j]
                                )
                    out[b, oc, y, xx] = total
    loss = float((out * out).sum())
    dout = 2 * out
    dxp, dw = np.zeros_like(xp), np.zeros_like(w)
    for b in range(n):
        for oc in range(o):
            for y in range(ho):
                for xx in range(wo):
                    for cc in range(c):
                        for i in range(k):
                            for j in range(k):
                                at = (b, cc, y * stride + i, xx * stride + j)
                                dw[oc, cc, i, j] += dout[b, oc, y, xx] * xp[at]
                                dxp[at] += dout[b, oc, y, xx] * w[oc, cc, i, j]
    dx = dxp[:, :, padding : padding + h, padding : padding + width]
    return loss, out, dx, dw


def conv2d_inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((1, 2, 5, 5)).astype(np.float32)
    w = (rng.standard_normal((3, 2, 3, 3)) * 0.5).astype(np.float32)
    return [x, w]


def test_conv2d_reference_is_the_gradient() -> None:
    """The loop backward against central differences of the loop forward, at
    an inner, a corner and an edge element of x and at three taps of w."""
    x, w = (a.astype(np.float64) for a in conv2d_inputs(7))
    points = {
        0: [(0, 1, 2, 3), (0, 0, 0, 0), (0, 1, 4, 2)],
        1: [(2, 1, 0, 2), (0, 0, 1, 1), (1, 1, 2, 0)],
    }
    for stride in STRIDES.values():
        _, _, dx, dw = conv2d_reference(x, w, stride)
        for which, gradient in ((0, dx), (1, dw)):
            for index in points[which]:
                plus, minus = [x, w], [x, w]
                step = np.zeros_like(plus[which])
                step[index] = 1e-4
                plus[which], minus[which] = plus[which] + step, minus[which] - step
                difference = (
                    conv2d_reference(*plus, stride)[0]
                    - conv2d_reference(*minus, stride)[0]
                ) / 2e-4
                assert abs(difference - gradient[index]) <= 1e-6 * max(
                    1.0, abs(difference)
                )


@pytest.mark.parametrize("entry", list(STRIDES))
@pytest.mark.parametrize("seed", [0, 1])
def test_conv2d_matches_explicit_loops(entry: str, seed: int) -> None:
    x, w = conv2d_inputs(seed)
    loss, out, dx, dw = gradopt.run(
        CONV2D.read_text(), args=[x, w], entry=entry
    ).results
    reference = conv2d_reference(x, w, STRIDES[entry])
    assert out.shape == ((1, 3, 5, 5) if entry == "main" else (1, 3, 3, 3))
    assert_close([loss, out, dx, dw], [np.float64(reference[0]), *reference[1:]])


def header_arguments(path: Path) -> list[np.ndarray]:
    """The `--arg N='[...]'` lists of an example's header, as float32 arrays."""
    header = path.read_text().split("func.func")[0]
    found = re.findall(r"--arg (\d)='(\[[^']*\])'", header)
    assert [int(i) for i, _ in found] == list(range(len(found))) and found
    return [np.array(json.loads(values), np.float32) for _, values in found]


def test_conv2d_header_command() -> None:
    """The header's inputs are multiples of 1/4 and 1/8, so every value is a
    multiple of 1/32 and exact in float32: the loss is exactly the one the
    header gives, and so are the gradients."""
    xs, ws = header_arguments(CONV2D)
    x, w = xs.reshape(1, 2, 5, 5), ws.reshape(3, 2, 3, 3)
    header = CONV2D.read_text().split("func.func")[0]
    stated = [float(v) for v in re.findall(r"dense<([0-9.]+)>", header)]
    assert len(stated) == 2
    for (entry, stride), value in zip(STRIDES.items(), stated, strict=True):
        loss, out, dx, dw = gradopt.run(
            CONV2D.read_text(), args=[x, w], entry=entry
        ).results
        reference = conv2d_reference(x, w, stride)
        assert str(np.float32(loss)) == str(np.float32(value))
        assert float(loss) == reference[0]
        for got, expected in zip((out, dx, dw), reference[1:], strict=True):
            assert np.array_equal(np.asarray(got, np.float64), expected)


# --- attention ----------------------------------------------------------------


def attention_reference(
    x: np.ndarray,
    wq: np.ndarray,
    wk: np.ndarray,
    wv: np.ndarray,
    wo: np.ndarray,
    heads: int = 2,
) -> tuple[float, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """sum(y^2) of multi-head self-attention, y = concat_h(softmax(q_h k_h^T /
    sqrt(d_h)) v_h) wo, and its gradients w.r.t. wq, wk, wv, wo: forward and
    backward by hand in float64, one head (a block of columns) at a time."""
    x, wq, wk, wv, wo = (a.astype(np.float64) for a in (x, wq, wk, wv, wo))
    s, d = x.shape
    dh = d // heads
    scale = 1 / np.sqrt(dh)
    q, k, v = x @ wq, x @ wk, x @ wv
    blocks = [slice(h * dh, (h + 1) * dh) for h in range(heads)]
    a = np.zeros((s, d))
    probabilities = []
    for b in blocks:
        scores = q[:, b] @ k[:, b].T * scale
        e = np.exp(scores - scores.max(axis=1, keepdims=True))
        p = e / e.sum(axis=1, keepdims=True)
        a[:, b] = p @ v[:, b]
        probabilities.append(p)
    y = a @ wo
    loss = float((y * y).sum())
    dy = 2 * y
    dwo = a.T @ dy
    da = dy @ wo.T
    dq, dk, dv = np.zeros_like(q), np.zeros_like(k), np.zeros_like(v)
    for b, p in zip(blocks, probabilities, strict=True):
        dp = da[:, b] @ v[:, b].T
        dv[:, b] = p.T @ da[:, b]
        dscores = p * (dp - (dp * p).sum(axis=1, keepdims=True)) * scale
        dq[:, b] = dscores @ k[:, b]
        dk[:, b] = dscores.T @ q[:, b]
    return loss, x.T @ dq, x.T @ dk, x.T @ dv, dwo


def attention_inputs(seed: int) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((4, 8)).astype(np.float32)
    return [x] + [
        (rng.standard_normal((8, 8)) * 0.5).astype(np.float32) for _ in range(4)
    ]


def test_attention_reference_is_the_gradient() -> None:
    """The hand-written backward against central differences, every weight."""
    inputs = [a.astype(np.float64) for a in attention_inputs(5)]
    _, *gradients = attention_reference(*inputs)
    for which, gradient in enumerate(gradients, start=1):
        difference = np.zeros_like(gradient)
        for index in np.ndindex(*gradient.shape):
            plus, minus = list(inputs), list(inputs)
            step = np.zeros_like(gradient)
            step[index] = 1e-5
            plus[which], minus[which] = inputs[which] + step, inputs[which] - step
            difference[index] = (
                attention_reference(*plus)[0] - attention_reference(*minus)[0]
            ) / 2e-5
        assert np.allclose(difference, gradient, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_attention_matches_a_float64_reference(seed: int) -> None:
    inputs = attention_inputs(seed)
    results = gradopt.run(ATTENTION.read_text(), args=inputs).results
    loss, *reference = attention_reference(*inputs)
    assert_close(results, [np.float64(loss), *reference])


def test_attention_header_command(tmp_path: Path) -> None:
    """The header's Python line writes the inputs as .npy files; run on them,
    the loss is the one the header gives (to 6 digits)."""
    header = ATTENTION.read_text().split("func.func")[0]
    (script,) = re.findall(r'python -c "([^"]*)"', header)
    subprocess.run([sys.executable, "-c", script], cwd=tmp_path, check=True)
    names = re.findall(r"--arg \d=(\w+)\.npy", header)
    assert names == ["x", "wq", "wk", "wv", "wo"]
    inputs = [np.load(tmp_path / f"{name}.npy") for name in names]
    results = gradopt.run(ATTENTION.read_text(), args=inputs).results
    loss, *reference = attention_reference(*inputs)
    assert_close(results, [np.float64(loss), *reference])
    (stated,) = re.findall(r"result 0, is ([0-9.]+)", header)
    assert f"{float(results[0]):.6g}" == stated


# --- bench/models.py ----------------------------------------------------------


@pytest.fixture(scope="module")
def models() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "models", ROOT / "bench" / "models.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_programs_are_the_examples_at_their_sizes(models: ModuleType) -> None:
    assert models.conv2d_program(**models.CONV2D_SIZES["example"]) == (
        models.example_functions(CONV2D)
    )
    assert models.attention_program(**models.ATTENTION_SIZES["example"]) == (
        models.example_functions(ATTENTION)
    )


@pytest.mark.parametrize("stride", [1, 2])
def test_bench_numpy_conv2d_is_the_reference(models: ModuleType, stride: int) -> None:
    """The hand-written float32 side of the bench, with several images."""
    shapes = {"batch": 2, "channels": 3, "size": 6, "out_channels": 4}
    x, w = models.conv2d_data(**shapes)
    reference = conv2d_reference(x, w, stride)
    assert_close(
        models.numpy_conv2d(x, w, stride), [np.float64(reference[0]), *reference[1:]]
    )


def test_bench_numpy_attention_is_the_reference(models: ModuleType) -> None:
    """With as many positions as features per head would hide a transpose:
    6 positions, 3 heads of 4."""
    data = models.attention_data(seq=6, dim=12, heads=3)
    loss, *reference = attention_reference(*data, heads=3)
    assert_close(models.numpy_attention(*data, 3), [np.float64(loss), *reference])


def test_bench_programs_at_other_sizes(models: ModuleType) -> None:
    """The bench's programs with several images (the patch matrix permuted)
    and with fewer features per head than positions, against the references."""
    shapes = {"batch": 2, "channels": 3, "size": 6, "out_channels": 4}
    text = models.conv2d_program(**shapes)
    x, w = models.conv2d_data(**shapes)
    for entry, stride in STRIDES.items():
        loss, out, dx, dw = gradopt.run(text, args=[x, w], entry=entry).results
        reference = conv2d_reference(x, w, stride)
        assert_close([loss, out, dx, dw], [np.float64(reference[0]), *reference[1:]])
    data = models.attention_data(seq=6, dim=12, heads=3)
    results = gradopt.run(models.attention_program(seq=6, dim=12, heads=3), args=data)
    loss, *reference = attention_reference(*data, heads=3)
    assert_close(results.results, [np.float64(loss), *reference])


def test_bench_gradient_size(models: ModuleType) -> None:
    """The bench measures the forward program as bench/grad_size.py does (every
    `grad` op but the differentiation ops: 18 for a convolution, pad, 9
    slices, concat, 3 reshapes, permute, dot, mul, reduce; 30 for attention,
    its 2 constants included), and the expanded graph adds to it."""
    for text, forward_ops in (
        (models.conv2d_function("main", 1, 2, 5, 3, 1), 18),
        (models.conv2d_function("main", 1, 2, 5, 3, 2), 18),
        (models.attention_program(4, 8, 2), 30),
    ):
        forward, after = models.gradient_size(text)
        assert forward == forward_ops
        assert after > forward


TRAIN_LOOP = ROOT / "examples" / "train_loop.mlir"


def _sgd_reference(arrays: dict[str, np.ndarray], epochs: int) -> tuple[float, float]:
    """examples/train_loop.mlir in float64 NumPy, with the softmax
    cross-entropy's gradient written by hand: the last batch's loss and the
    test accuracy."""
    w = {k: arrays[k].astype(np.float64) for k in ("w0", "b0", "w1", "b1")}
    x, y = arrays["x_train"].astype(np.float64), arrays["y_train"]
    loss = 0.0
    for _ in range(epochs):
        for k in range(22):
            xb, yb = x[k * 64 : (k + 1) * 64], y[k * 64 : (k + 1) * 64]
            pre = xb @ w["w0"] + w["b0"]
            hidden = np.maximum(pre, 0)
            z = hidden @ w["w1"] + w["b1"]
            s = z - z.max(axis=1, keepdims=True)
            logp = s - np.log(np.exp(s).sum(axis=1, keepdims=True))
            loss = float(-(yb * logp).sum() / 64)
            dz = (np.exp(logp) - yb) / 64
            dhidden = dz @ w["w1"].T * (pre > 0)
            grads = {
                "w1": hidden.T @ dz,
                "b1": dz.sum(0),
                "w0": xb.T @ dhidden,
                "b0": dhidden.sum(0),
            }
            w = {k: w[k] - 0.1 * grads[k] for k in w}
    hidden = np.maximum(arrays["x_test"] @ w["w0"] + w["b0"], 0)
    z = hidden @ w["w1"] + w["b1"]
    right = z.argmax(axis=1) == arrays["y_test"].argmax(axis=1)
    return loss, float(right.mean())


def test_training_loop_in_ir_matches_sgd_in_numpy(tmp_path: Path) -> None:
    """examples/train_loop.mlir on the Python example's exported synthetic
    data: two epochs of 22 SGD steps, each gradient taken in the loop body
    through a call, against the same SGD in float64."""
    spec = importlib.util.spec_from_file_location(
        "train_mlp", ROOT / "examples" / "train_mlp.py"
    )
    assert spec is not None and spec.loader is not None
    train_mlp = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(train_mlp)
    train_mlp.main(["--data", "synthetic", "--export", str(tmp_path)])
    names = ["x_train", "y_train", "x_test", "y_test", "w0", "b0", "w1", "b1"]
    arrays = {n: np.load(tmp_path / f"{n}.npy") for n in names}
    args = [arrays[n] for n in names] + [np.int32(2)]
    loss, accuracy = gradopt.run(TRAIN_LOOP.read_text(), args=args).results
    want_loss, want_accuracy = _sgd_reference(arrays, 2)
    assert abs(float(loss) - want_loss) <= 1e-3 * max(1.0, want_loss)
    assert float(accuracy) == pytest.approx(want_accuracy, abs=1 / 360)
    assert want_accuracy > 0.9
