"""Gradients of a convolution and of multi-head attention through the
interpreter, beside the same computation written by hand in NumPy (issue 12,
item 6).

Usage: python bench/models.py [--repeats N] [--sizes example,large]

For each model and size, one call computes the loss and its gradients
(forward and backward):

- conv2d: `examples/conv2d.mlir` (NCHW input, 3x3 kernel, zero padding 1,
  stride 1 and stride 2, loss sum(out^2), gradients w.r.t. the input and the
  kernel), written as pad -> one strided slice per tap -> concat -> reshape ->
  dot; at `large` scale 8 images of 16 channels, 32x32, 32 output channels.
- attention: `examples/attention.mlir` (self-attention, batched dots, softmax
  with the detached row max, loss sum(y^2), gradients w.r.t. the four
  projection weights); at `large` scale 128 positions, model dim 256, 8 heads.

Sides: `Program.run` (gradopt's interpreter, inputs checked and copied, as a
user calls it), `numpy` (the same forward and the usual hand-written backward
in float32 NumPy: im2col for the convolution, softmax' for attention), and
`jax jit` (`jax.jit(jax.value_and_grad(...))`, CPU) when JAX is importable.
Calls alternate between the sides, each timed alone with the collector off;
the table gives the median time of a call and its ratio to `numpy`. The first
results of every side are compared (max abs difference of the loss and of the
gradients: the sides add in different orders, so not bit-identical).

Last, the cheap-gradient ratio of each program as bench/grad_size.py measures
it: `grad` ops other than differentiation ops after
`expand-gradient,canonicalize,cse,dce`, divided by those of the forward
program (SPEC §5.4: a program of `add`, `mul` and `dot` stays within 3; the
data-movement ops cost one op per share).

The programs at the example sizes are the examples' functions themselves
(`tests/test_examples_models.py` checks that, and the NumPy sides against
float64 references). Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import importlib.util
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from grad_size import sizes as gradient_size

from gradopt import Program

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CONV2D_EXAMPLE = EXAMPLES / "conv2d.mlir"
ATTENTION_EXAMPLE = EXAMPLES / "attention.mlir"

KERNEL = 3
PADDING = 1
LOG2E = 1.442695
CONV2D_SIZES = {
    "example": {"batch": 1, "channels": 2, "size": 5, "out_channels": 3},
    "large": {"batch": 8, "channels": 16, "size": 32, "out_channels": 32},
}
ATTENTION_SIZES = {
    "example": {"seq": 4, "dim": 8, "heads": 2},
    "large": {"seq": 128, "dim": 256, "heads": 8},
}
CONV2D_ENTRIES = {"main": 1, "stride2": 2}
"""The conv2d program's functions and their strides."""


# --- the programs ----------------------------------------------------------------


def _tensor(*dims: int) -> str:
    return f"tensor<{''.join(f'{d}x' for d in dims)}f32>"


def conv2d_function(
    name: str, batch: int, channels: int, size: int, out_channels: int, stride: int
) -> str:
    """One function of `examples/conv2d.mlir` at other sizes: (x, w) -> (loss,
    out, d loss/d x, d loss/d w). With more than one image the patch matrix
    has one column per image and output position ([channel-tap, image, y, x]),
    so the taps are permuted before and the output after the dot."""
    n, c, h, o, k, p, s = batch, channels, size, out_channels, KERNEL, PADDING, stride
    hp = h + 2 * p
    ho = (hp - k) // s + 1
    rows, cols = k * k * c, n * ho * ho
    x, w, xp = _tensor(n, c, h, h), _tensor(o, c, k, k), _tensor(n, c, hp, hp)
    tap, cat = _tensor(n, c, ho, ho), _tensor(n, rows, ho, ho)
    patches, wt, wm = _tensor(rows, cols), _tensor(o, k, k, c), _tensor(o, rows)
    y, out = _tensor(o, cols), _tensor(n, o, ho, ho)
    taps = [f"%t{i}{j}" for i in range(k) for j in range(k)]
    where = "x + j" if s == 1 else f"{s} x + j"
    at = "y + i" if s == 1 else f"{s} y + i"
    lines = [
        f"func.func @{name}(%x: {x}, %w: {w}) -> (tensor<f32>, {out}, {x}, {w}) {{",
        f"  // zero padding of {p} around each image (H and W only)",
        f"  %xp = grad.pad %x low [0, 0, {p}, {p}] high [0, 0, {p}, {p}] "
        f"interior [0, 0, 0, 0] value 0.0 : {x} to {xp}",
        f"  // tap (i, j) at every output position (y, x): xp[:, :, {at}, {where}]",
    ]
    for t, (i, j) in zip(
        taps, [(i, j) for i in range(k) for j in range(k)], strict=True
    ):
        lines.append(
            f"  {t} = grad.slice %xp [0, 0, {i}, {j}] "
            f"[{n}, {c}, {i + (ho - 1) * s + 1}, {j + (ho - 1) * s + 1}] "
            f"[1, 1, {s}, {s}] : {xp} to {tap}"
        )
    lines.append(
        f"  // patches: row (3 i + j) * {c} + channel, one column per output position"
    )
    lines.append(
        f"  %cat = grad.concat {', '.join(taps)} [1] : "
        f"{', '.join([tap] * len(taps))} to {cat}"
    )
    if n == 1:
        lines.append(f"  %patches = grad.reshape %cat : {cat} to {patches}")
    else:
        moved = _tensor(rows, n, ho, ho)
        lines.append(f"  %catp = grad.permute %cat [1, 0, 2, 3] : {cat} to {moved}")
        lines.append(f"  %patches = grad.reshape %catp : {moved} to {patches}")
    lines += [
        "  // the kernel as a matrix with the same row order: "
        f"w[o, c, i, j] at (o, (3 i + j) * {c} + c)",
        f"  %wt = grad.permute %w [0, 2, 3, 1] : {w} to {wt}",
        f"  %wm = grad.reshape %wt : {wt} to {wm}",
        f"  %y = grad.dot %wm, %patches : {wm}, {patches} to {y}",
    ]
    if n == 1:
        lines.append(f"  %out = grad.reshape %y : {y} to {out}")
    else:
        split = _tensor(o, n, ho, ho)
        lines.append(f"  %ys = grad.reshape %y : {y} to {split}")
        lines.append(f"  %out = grad.permute %ys [1, 0, 2, 3] : {split} to {out}")
    lines += [
        "  // loss = sum(out^2)",
        f"  %sq = grad.mul %out, %out : {out}",
        f"  %loss = grad.reduce add %sq [0, 1, 2, 3] : {out} to tensor<f32>",
        f"  %gx, %gw = grad.gradient %loss wrt %x, %w : tensor<f32>, {x}, {w}",
        f"  func.return %loss, %out, %gx, %gw : tensor<f32>, {out}, {x}, {w}",
        "}",
    ]
    return "\n".join(lines)


def conv2d_program(batch: int, channels: int, size: int, out_channels: int) -> str:
    """The functions of `examples/conv2d.mlir` (@main: stride 1, @stride2)."""
    return "\n\n".join(
        conv2d_function(name, batch, channels, size, out_channels, stride)
        for name, stride in CONV2D_ENTRIES.items()
    )


def attention_program(seq: int, dim: int, heads: int) -> str:
    """The function of `examples/attention.mlir` at other sizes."""
    s, d, h = seq, dim, heads
    dh = d // h
    x, w, s3 = _tensor(s, d), _tensor(d, d), _tensor(s, h, dh)
    hsd, hds, hss, hs = (
        _tensor(h, s, dh),
        _tensor(h, dh, s),
        _tensor(h, s, s),
        _tensor(h, s),
    )
    scale = 1.0 / float(np.sqrt(dh))
    lines = [
        f"func.func @main(%x: {x}, %wq: {w}, %wk: {w}, %wv: {w}, %wo: {w}) -> "
        f"(tensor<f32>, {w}, {w}, {w}, {w}) {{",
        "  // projections, split into heads: q and v as [head, position, feature],",
        "  // k as [head, feature, position]",
        f"  %q = grad.dot %x, %wq : {x}, {w} to {x}",
        f"  %q3 = grad.reshape %q : {x} to {s3}",
        f"  %qh = grad.permute %q3 [1, 0, 2] : {s3} to {hsd}",
        f"  %k = grad.dot %x, %wk : {x}, {w} to {x}",
        f"  %k3 = grad.reshape %k : {x} to {s3}",
        f"  %kh = grad.permute %k3 [1, 2, 0] : {s3} to {hds}",
        f"  %v = grad.dot %x, %wv : {x}, {w} to {x}",
        f"  %v3 = grad.reshape %v : {x} to {s3}",
        f"  %vh = grad.permute %v3 [1, 0, 2] : {s3} to {hsd}",
        f"  // scores q k^T / sqrt({dh}), one matrix per head",
        f"  %qk = grad.dot %qh, %kh : {hsd}, {hds} to {hss}",
        f"  %scale = grad.const {scale!r} : {hss}",
        f"  %scores = grad.mul %qk, %scale : {hss}",
        "  // softmax over the last dim; the row max is detached (the softmax does",
        "  // not depend on it), e = 2^((s - max) log2 e)",
        f"  %m = grad.reduce max %scores [2] : {hss} to {hs}",
        f"  %md = grad.detach %m : {hs}",
        f"  %mb = grad.broadcast %md [0, 1] : {hs} to {hss}",
        f"  %nm = grad.neg %mb : {hss}",
        f"  %shifted = grad.add %scores, %nm : {hss}",
        f"  %log2e = grad.const {LOG2E} : {hss}",
        f"  %s2 = grad.mul %shifted, %log2e : {hss}",
        f"  %e = grad.exp2 %s2 : {hss}",
        f"  %sum = grad.reduce add %e [2] : {hss} to {hs}",
        f"  %r = grad.recip %sum : {hs}",
        f"  %rb = grad.broadcast %r [0, 1] : {hs} to {hss}",
        f"  %p = grad.mul %e, %rb : {hss}",
        "  // weighted values, heads joined back to [position, feature], "
        "output projection",
        f"  %ah = grad.dot %p, %vh : {hss}, {hsd} to {hsd}",
        f"  %a3 = grad.permute %ah [1, 0, 2] : {hsd} to {s3}",
        f"  %a = grad.reshape %a3 : {s3} to {x}",
        f"  %y = grad.dot %a, %wo : {x}, {w} to {x}",
        "  // loss = sum(y^2)",
        f"  %yy = grad.mul %y, %y : {x}",
        f"  %loss = grad.reduce add %yy [0, 1] : {x} to tensor<f32>",
        "  %gq, %gk, %gv, %go = grad.gradient %loss wrt %wq, %wk, %wv, %wo",
        f"      : tensor<f32>, {w}, {w}, {w}, {w}",
        f"  func.return %loss, %gq, %gk, %gv, %go : tensor<f32>, {w}, {w}, {w}, {w}",
        "}",
    ]
    return "\n".join(lines)


def example_functions(path: Path) -> str:
    """An example's text from its first function on (the header comment off)."""
    text = path.read_text()
    return text[text.index("func.func") :].rstrip("\n")


# --- data and the hand-written NumPy sides -----------------------------------------


def conv2d_data(
    batch: int, channels: int, size: int, out_channels: int, seed: int = 0
) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((batch, channels, size, size), np.float32)
    fan_in = channels * KERNEL * KERNEL
    w = rng.standard_normal(
        (out_channels, channels, KERNEL, KERNEL), np.float32
    ) / np.float32(np.sqrt(fan_in))
    return [x, w]


def attention_data(seq: int, dim: int, heads: int, seed: int = 0) -> list[np.ndarray]:
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((seq, dim), np.float32)
    scale = np.float32(1 / np.sqrt(dim))
    return [x] + [rng.standard_normal((dim, dim), np.float32) * scale for _ in range(4)]


def numpy_conv2d(
    x: np.ndarray, w: np.ndarray, stride: int
) -> tuple[np.float32, np.ndarray, np.ndarray, np.ndarray]:
    """Loss sum(out^2), out, and the gradients w.r.t. x and w, as one writes
    them in NumPy: im2col (the same patch layout as the program), one matmul
    forward, two backward, col2im by adding the taps back."""
    n, c, h, width = x.shape
    o, _, k, _ = w.shape
    p = PADDING
    xp = np.pad(x, ((0, 0), (0, 0), (p, p), (p, p)))
    ho = (h + 2 * p - k) // stride + 1
    wo = (width + 2 * p - k) // stride + 1
    reach_h, reach_w = (ho - 1) * stride + 1, (wo - 1) * stride + 1
    cols = np.empty((k, k, c, n, ho, wo), np.float32)
    for i in range(k):
        for j in range(k):
            tap = xp[:, :, i : i + reach_h : stride, j : j + reach_w : stride]
            cols[i, j] = tap.transpose(1, 0, 2, 3)
    patches = cols.reshape(k * k * c, n * ho * wo)
    wm = np.ascontiguousarray(w.transpose(0, 2, 3, 1)).reshape(o, k * k * c)
    y = wm @ patches
    out = y.reshape(o, n, ho, wo).transpose(1, 0, 2, 3)
    loss = np.float32((y * y).sum())
    dy = np.float32(2) * y
    dw = (dy @ patches.T).reshape(o, k, k, c).transpose(0, 3, 1, 2)
    dcols = (wm.T @ dy).reshape(k, k, c, n, ho, wo)
    dxp = np.zeros_like(xp)
    for i in range(k):
        for j in range(k):
            dxp[:, :, i : i + reach_h : stride, j : j + reach_w : stride] += dcols[
                i, j
            ].transpose(1, 0, 2, 3)
    return loss, out, dxp[:, :, p : p + h, p : p + width], dw


def numpy_attention(
    x: np.ndarray,
    wq: np.ndarray,
    wk: np.ndarray,
    wv: np.ndarray,
    wo: np.ndarray,
    heads: int,
) -> tuple[np.float32, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Loss sum(y^2) of self-attention and its gradients w.r.t. the four
    weights, forward and backward by hand in float32 NumPy (batched over the
    heads with matmul, softmax' as p * (dp - sum(dp * p)))."""
    s, d = x.shape
    dh = d // heads
    scale = np.float32(1 / np.sqrt(dh))
    q, k, v = x @ wq, x @ wk, x @ wv
    qh = q.reshape(s, heads, dh).transpose(1, 0, 2)
    kh = k.reshape(s, heads, dh).transpose(1, 2, 0)
    vh = v.reshape(s, heads, dh).transpose(1, 0, 2)
    scores = (qh @ kh) * scale
    e = np.exp(scores - scores.max(axis=2, keepdims=True))
    prob = e / e.sum(axis=2, keepdims=True)
    ah = prob @ vh
    a = ah.transpose(1, 0, 2).reshape(s, d)
    y = a @ wo
    loss = np.float32((y * y).sum())
    dy = np.float32(2) * y
    dwo = a.T @ dy
    dah = (dy @ wo.T).reshape(s, heads, dh).transpose(1, 0, 2)
    dprob = dah @ vh.transpose(0, 2, 1)
    dvh = prob.transpose(0, 2, 1) @ dah
    dscores = prob * (dprob - (dprob * prob).sum(axis=2, keepdims=True)) * scale
    dqh = dscores @ kh.transpose(0, 2, 1)
    dkh = qh.transpose(0, 2, 1) @ dscores
    dq = dqh.transpose(1, 0, 2).reshape(s, d)
    dk = dkh.transpose(2, 0, 1).reshape(s, d)
    dv = dvh.transpose(1, 0, 2).reshape(s, d)
    return loss, x.T @ dq, x.T @ dk, x.T @ dv, dwo


# --- JAX (optional) -------------------------------------------------------------


def jax_conv2d(stride: int) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    def loss(x: Any, w: Any) -> Any:
        out = lax.conv_general_dilated(
            x,
            w,
            (stride, stride),
            ((PADDING, PADDING), (PADDING, PADDING)),
            dimension_numbers=("NCHW", "OIHW", "NCHW"),
        )
        return jnp.sum(out * out)

    return jax.jit(jax.value_and_grad(loss, argnums=(0, 1)))


def jax_attention(heads: int) -> Callable[..., Any]:
    import jax
    import jax.numpy as jnp
    from jax import lax

    def loss(x: Any, wq: Any, wk: Any, wv: Any, wo: Any) -> Any:
        s, d = x.shape
        dh = d // heads
        qh = (x @ wq).reshape(s, heads, dh).transpose(1, 0, 2)
        kh = (x @ wk).reshape(s, heads, dh).transpose(1, 2, 0)
        vh = (x @ wv).reshape(s, heads, dh).transpose(1, 0, 2)
        scores = (qh @ kh) / jnp.sqrt(jnp.float32(dh))
        shifted = scores - lax.stop_gradient(scores.max(axis=2, keepdims=True))
        e = jnp.exp(shifted)
        prob = e / e.sum(axis=2, keepdims=True)
        a = (prob @ vh).transpose(1, 0, 2).reshape(s, d)
        y = a @ wo
        return jnp.sum(y * y)

    return jax.jit(jax.value_and_grad(loss, argnums=(1, 2, 3, 4)))


# --- measuring ----------------------------------------------------------------


def timed(run: Callable[[], object]) -> float:
    """Seconds one call of `run` takes, with the collector off as in `timeit`."""
    gc.collect()
    gc.disable()
    try:
        started = time.perf_counter()
        run()
        return time.perf_counter() - started
    finally:
        gc.enable()


def side_by_side(
    runs: dict[str, Callable[[], object]], repeats: int
) -> dict[str, float]:
    """The median time of `repeats` calls of each of `runs`, after one warm-up
    call each; the calls go round the sides, starting one side later each round,
    so that a disturbance hits all sides alike."""
    names = list(runs)
    for run in runs.values():
        run()
    times: dict[str, list[float]] = {name: [] for name in names}
    for round in range(repeats):
        for name in names[round % len(names) :] + names[: round % len(names)]:
            times[name].append(timed(runs[name]))
    return {name: statistics.median(values) for name, values in times.items()}


def max_difference(ours: Sequence[Any], theirs: Sequence[Any]) -> float:
    """The largest absolute difference between matching results."""
    return max(
        float(np.max(np.abs(np.asarray(a, np.float64) - np.asarray(b, np.float64))))
        for a, b in zip(ours, theirs, strict=True)
    )


def report(
    title: str,
    program: Program,
    entry: str,
    data: list[np.ndarray],
    numpy_side: Callable[[], Sequence[Any]],
    jax_side: Callable[[], Sequence[Any]] | None,
    compared: Callable[[Sequence[Any]], Sequence[Any]],
    repeats: int,
) -> None:
    """Time the sides, print their medians, ratios and differences."""
    ours = program.run(args=data, entry=entry).results
    runs: dict[str, Callable[[], object]] = {
        "numpy": numpy_side,
        "Program.run": lambda: program.run(args=data, entry=entry),
    }
    differences = {
        "Program.run": max_difference(compared(ours), compared(numpy_side()))
    }
    if jax_side is not None:
        runs["jax jit"] = lambda: [
            np.asarray(v) for v in jax_side()
        ]  # includes the copy back to NumPy, as Program.run does
        differences["jax jit"] = max_difference(
            compared(jax_side()), compared(numpy_side())
        )
    medians = side_by_side(runs, repeats)
    print(f"{title} (median of {repeats} calls)")
    print(f"    {'side':12} {'ms/call':>9} {'/ numpy':>8} {'max abs diff':>13}")
    for name, seconds in medians.items():
        ratio = seconds / medians["numpy"]
        diff = f"{differences[name]:13.2e}" if name in differences else f"{'':13}"
        print(f"    {name:12} {seconds * 1e3:9.3f} {ratio:8.2f} {diff}")


def bench_conv2d(size: str, repeats: int, has_jax: bool) -> list[tuple[str, str]]:
    shapes = CONV2D_SIZES[size]
    text = conv2d_program(**shapes)
    if size == "example":
        assert text == example_functions(CONV2D_EXAMPLE), "conv2d.mlir changed"
    program = Program(text, str(CONV2D_EXAMPLE))
    data = conv2d_data(**shapes)
    described = (
        f"{shapes['batch']}x{shapes['channels']}x{shapes['size']}x{shapes['size']}"
        f", {shapes['out_channels']} output channels"
    )
    sized: list[tuple[str, str]] = []
    for entry, stride in CONV2D_ENTRIES.items():
        jax_side = None
        if has_jax:
            jitted = jax_conv2d(stride)
            jax_side = lambda f=jitted: (lambda v, g: (v, *g))(*f(*data))  # noqa: E731
        report(
            f"conv2d {described}, stride {stride}, {size} size",
            program,
            entry,
            data,
            lambda s=stride: numpy_conv2d(*data, s),
            jax_side,
            # loss, d/dx, d/dw (the program also returns the output)
            lambda r: [r[0], r[-2], r[-1]] if len(r) == 4 else list(r),
            repeats,
        )
        function = conv2d_function(entry, **shapes, stride=stride)
        sized.append((f"conv2d stride {stride}, {size}", function))
    return sized


def bench_attention(size: str, repeats: int, has_jax: bool) -> list[tuple[str, str]]:
    shapes = ATTENTION_SIZES[size]
    text = attention_program(**shapes)
    if size == "example":
        assert text == example_functions(ATTENTION_EXAMPLE), "attention.mlir changed"
    program = Program(text, str(ATTENTION_EXAMPLE))
    data = attention_data(**shapes)
    jax_side = None
    if has_jax:
        jitted = jax_attention(shapes["heads"])
        jax_side = lambda: (lambda v, g: (v, *g))(*jitted(*data))  # noqa: E731
    report(
        f"attention, {shapes['seq']} positions, dim {shapes['dim']}, "
        f"{shapes['heads']} heads, {size} size",
        program,
        "main",
        data,
        lambda: numpy_attention(*data, shapes["heads"]),
        jax_side,
        list,
        repeats,
    )
    return [(f"attention, {size}", text)]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--sizes", default="example,large")
    options = parser.parse_args()
    has_jax = importlib.util.find_spec("jax") is not None
    if has_jax:
        import jax

        jax.config.update("jax_platforms", "cpu")
    programs: list[tuple[str, str]] = []
    for size in options.sizes.split(","):
        programs += bench_conv2d(size, options.repeats, has_jax)
        programs += bench_attention(size, options.repeats, has_jax)
    if not has_jax:
        print("(jax is not installed: no jax jit side)")
    print()
    print("cheap-gradient ratio: ops after expand-gradient,canonicalize,cse,dce")
    print(f"    {'program':28} {'forward':>8} {'after':>8} {'ratio':>6}")
    for name, text in programs:
        forward, after = gradient_size(text)
        print(f"    {name:28} {forward:>8} {after:>8} {after / forward:>6.2f}")


if __name__ == "__main__":
    main()
