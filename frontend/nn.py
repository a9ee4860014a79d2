"""`gradopt.nn`: activations, normalization and convolution, composed from
`gradopt.numpy` in their numerically stable forms.

The names and signatures are JAX's (`jax.nn`) for the activations and
PyTorch's (`torch.nn.functional`, NCHW) for `conv2d`, the pools and
`layer_norm`. Every function whose naive formula overflows is written so that
the value and the gradient stay finite for any finite input: `sigmoid` and
`softplus` use `exp(-|x|)`, which is at most 1; `logsumexp`, `softmax` and
`log_softmax` subtract a `stop_gradient`ed maximum (their gradient does not
depend on it, and a detached maximum sends no share through `reduce max`).
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from numpy.typing import DTypeLike

from gradopt.frontend import lax
from gradopt.frontend import numpy as gnp
from gradopt.frontend.activations import (
    celu,
    hard_sigmoid,
    hard_silu,
    hard_swish,
    hard_tanh,
    positive_part,
    relu6,
    selu,
    soft_sign,
)
from gradopt.frontend.array import FLOAT32, Array, ArrayLike, Axis, canonical_dtype
from gradopt.frontend.lax_numpy import asarray, floating, normalize_axes
from gradopt.frontend.limits import check_size
from gradopt.frontend.trace import error
from gradopt.frontend.ufuncs import stop_gradient

__all__ = [
    "avg_pool2d", "celu", "conv2d", "conv_transpose2d", "elu", "gelu",
    "hard_sigmoid", "hard_silu", "hard_swish", "hard_tanh", "layer_norm",
    "leaky_relu", "log_sigmoid", "log_softmax", "logsumexp", "max_pool2d",
    "mish", "one_hot", "relu", "relu6", "selu", "sigmoid", "silu",
    "soft_sign", "softmax", "softplus", "swish",
]  # fmt: skip


def relu(x: ArrayLike) -> Array:
    """`max(x, 0)` as `where(x > 0, x, 0)`: the derivative at 0 is 0, as in
    JAX and PyTorch (not a tie split); NaN stays NaN, with derivative 0."""
    return positive_part(floating(x))


def _minus_abs(x: Array) -> tuple[Array, Array]:
    """`x ≥ 0` and `-|x|`, the latter as a `where` on the former rather than
    by `abs`: at 0, `abs` has the (tie) derivative 0, but a formula split at 0
    needs the derivative of the side it takes there."""
    positive = gnp.greater_equal(x, 0.0)
    return positive, gnp.where(positive, gnp.negative(x), x)


def sigmoid(x: ArrayLike) -> Array:
    """`1 / (1 + e^-x)` for x ≥ 0 and `e^x / (1 + e^x)` below, both from
    `z = exp(-|x|) ≤ 1`."""
    positive, minus_abs = _minus_abs(floating(x))
    z = gnp.exp(minus_abs)
    r = gnp.reciprocal(gnp.add(z, 1.0))
    return gnp.where(positive, r, gnp.multiply(z, r))


def softplus(x: ArrayLike) -> Array:
    """`log(1 + e^x)` as `max(x, 0) + log1p(exp(-|x|))`, both terms split at
    0 on the same side."""
    x = floating(x)
    positive, minus_abs = _minus_abs(x)
    tail = gnp.log1p(gnp.exp(minus_abs))
    return gnp.add(gnp.where(positive, x, 0.0), tail)


def log_sigmoid(x: ArrayLike) -> Array:
    return gnp.negative(softplus(gnp.negative(floating(x))))


def silu(x: ArrayLike) -> Array:
    x = floating(x)
    return gnp.multiply(x, sigmoid(x))


swish = silu


def gelu(x: ArrayLike, approximate: bool = True) -> Array:
    """As `jax.nn.gelu`: the tanh approximation by default, else with `erf`."""
    x = floating(x)
    if approximate:
        inner = gnp.multiply(
            gnp.add(x, gnp.multiply(gnp.power(x, 3), 0.044715)), 0.7978845608028654
        )
        return gnp.multiply(gnp.multiply(x, 0.5), gnp.add(gnp.tanh(inner), 1.0))
    cdf = gnp.add(gnp.erf(gnp.multiply(x, 0.7071067811865476)), 1.0)
    return gnp.multiply(gnp.multiply(x, 0.5), cdf)


def mish(x: ArrayLike) -> Array:
    """`x · tanh(softplus(x))`."""
    x = floating(x)
    return gnp.multiply(x, gnp.tanh(softplus(x)))


def leaky_relu(x: ArrayLike, negative_slope: float = 0.01) -> Array:
    x = floating(x)
    return gnp.where(gnp.greater_equal(x, 0.0), x, gnp.multiply(x, negative_slope))


def elu(x: ArrayLike, alpha: float = 1.0) -> Array:
    """`x` above 0, `alpha · expm1(x)` below, with `expm1` of 0 where x > 0
    so that the discarded branch never overflows."""
    x = floating(x)
    positive = gnp.greater(x, 0.0)
    below = gnp.multiply(gnp.expm1(gnp.where(positive, 0.0, x)), alpha)
    return gnp.where(positive, x, below)


def _shifted(x: Array, axis: Axis) -> tuple[Array, Array]:
    """`x - m` and `m`, for the detached maximum `m` along `axis` (kept dims),
    with a non-finite maximum (a row of -inf) replaced by 0."""
    top = stop_gradient(gnp.max(x, axis, keepdims=True))
    top = gnp.where(gnp.isfinite(top), top, 0.0)
    return gnp.subtract(x, top), top


def logsumexp(x: ArrayLike, axis: Axis = None, keepdims: bool = False) -> Array:
    x = floating(x)
    shifted, top = _shifted(x, axis)
    total = gnp.sum(gnp.exp(shifted), axis, keepdims=True)
    result = gnp.add(gnp.log(total), top)
    return result if keepdims else gnp.squeeze(result, normalize_axes(axis, x.ndim))


def softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    e = gnp.exp(_shifted(floating(x), axis)[0])
    return gnp.true_divide(e, gnp.sum(e, axis, keepdims=True))


def log_softmax(x: ArrayLike, axis: Axis = -1) -> Array:
    shifted = _shifted(floating(x), axis)[0]
    return gnp.subtract(
        shifted, gnp.log(gnp.sum(gnp.exp(shifted), axis, keepdims=True))
    )


def one_hot(x: ArrayLike, num_classes: int, dtype: DTypeLike = FLOAT32) -> Array:
    """`x[..., None] == arange(num_classes)` as `dtype`: a label out of range
    gives a row of zeros, as in JAX."""
    labels = asarray(x)
    if labels.dtype == FLOAT32:
        raise error("one_hot: labels must be integers, got float32")
    check_size("one_hot", (*labels.shape, num_classes), canonical_dtype(dtype))
    classes = gnp.arange(num_classes)
    hits = gnp.equal(gnp.expand_dims(labels, -1), classes)
    return gnp.astype(hits, canonical_dtype(dtype))


def layer_norm(
    x: ArrayLike,
    weight: ArrayLike | None = None,
    bias: ArrayLike | None = None,
    eps: float = 1e-5,
    axis: Axis = -1,
) -> Array:
    """`(x - mean) / sqrt(var + eps) · weight + bias` over `axis` (the last
    by default; a tuple normalizes over several)."""
    x = floating(x)
    centered = gnp.subtract(x, gnp.mean(x, axis, keepdims=True))
    variance = gnp.mean(gnp.square(centered), axis, keepdims=True)
    result = gnp.multiply(centered, gnp.rsqrt(gnp.add(variance, eps)))
    if weight is not None:
        result = gnp.multiply(result, weight)
    return result if bias is None else gnp.add(result, bias)


def _pair(value: int | Sequence[int], what: str) -> tuple[int, int]:
    pair = (value, value) if isinstance(value, int) else tuple(value)
    if len(pair) != 2 or any(not isinstance(v, int | np.integer) for v in pair):
        raise error(f"{what} must be an int or a pair of ints, got {value!r}")
    return int(pair[0]), int(pair[1])


def _windows(
    x: Array,
    kernel: tuple[int, int],
    stride: tuple[int, int],
    padding: tuple[int, int],
    dilation: tuple[int, int],
    fill: float,
    what: str,
    extra: tuple[int, int] = (0, 0),
) -> Array:
    """The (N, C, KH·KW, OH, OW) windows of an NCHW input: one strided
    `grad.slice` per kernel position of the padded input, joined by
    `grad.concat`. `extra` pads the bottom and right further (pooling's
    `ceil_mode`)."""
    if x.ndim != 4:
        raise error(f"{what}: the input must be NCHW (4-D), got shape {x.shape}")
    n, c, h, w = x.shape
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise error(f"{what}: stride and dilation must be ≥ 1 and padding ≥ 0")
    sizes = [
        (size + 2 * p + e - d * (k - 1) - 1) // s + 1
        for size, k, s, p, d, e in zip(
            (h, w), kernel, stride, padding, dilation, extra, strict=True
        )
    ]
    if min(sizes) < 1:
        raise error(
            f"{what}: a kernel of {kernel} (dilation {dilation}) does not fit the "
            f"input of {h}x{w} padded by {padding}"
        )
    oh, ow = sizes
    if any(padding) or any(extra):
        low = [0, 0, *padding]
        high = [0, 0, *(p + e for p, e in zip(padding, extra, strict=True))]
        x = lax.pad(x, low, high, [0, 0, 0, 0], fill)
    parts = []
    for i in range(kernel[0]):
        for j in range(kernel[1]):
            top, left = i * dilation[0], j * dilation[1]
            start = [0, 0, top, left]
            limit = [
                n,
                c,
                top + (oh - 1) * stride[0] + 1,
                left + (ow - 1) * stride[1] + 1,
            ]
            part = x
            if start != [0, 0, 0, 0] or limit != list(x.shape) or stride != (1, 1):
                part = lax.slice(x, start, limit, [1, 1, *stride])
            parts.append(gnp.reshape(part, (n, c, 1, oh, ow)))
    return lax.concatenate(parts, 2)


def conv2d(
    x: ArrayLike,
    weight: ArrayLike,
    bias: ArrayLike | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    groups: int = 1,
) -> Array:
    """A 2-D convolution (cross-correlation, as in PyTorch) of an NCHW input
    by an (O, C / groups, KH, KW) weight, as one matrix product of the
    windows (batched over the groups; `groups = C` is depthwise)."""
    x, w = floating(x), floating(weight)
    if w.ndim != 4:
        raise error(f"conv2d: the weight must be (O, C, KH, KW), got shape {w.shape}")
    o, c, kh, kw = w.shape
    if groups < 1 or o % groups:
        raise error(f"conv2d: {o} output channels do not split into {groups} groups")
    if x.ndim == 4 and x.shape[1] != c * groups:
        raise error(
            f"conv2d: the input has {x.shape[1]} channels, the weight expects "
            f"{c * groups}" + (f" ({groups} groups of {c})" if groups > 1 else "")
        )
    windows = _windows(
        x,
        (kh, kw),
        _pair(stride, "stride"),
        _pair(padding, "padding"),
        _pair(dilation, "dilation"),
        0.0,
        "conv2d",
    )
    n, _, _, oh, ow = windows.shape
    if groups == 1:
        columns = gnp.transpose(windows, (0, 3, 4, 1, 2))
        columns = gnp.reshape(columns, (n * oh * ow, -1))
        product = gnp.matmul(columns, gnp.transpose(gnp.reshape(w, (o, -1))))
        result = gnp.transpose(gnp.reshape(product, (n, oh, ow, o)), (0, 3, 1, 2))
    else:
        g = groups
        grouped = gnp.reshape(windows, (n, g, c, kh * kw, oh, ow))
        columns = gnp.transpose(grouped, (1, 0, 4, 5, 2, 3))
        columns = gnp.reshape(columns, (g, n * oh * ow, c * kh * kw))
        kernels = gnp.transpose(gnp.reshape(w, (g, o // g, -1)), (0, 2, 1))
        product = gnp.reshape(lax.dot(columns, kernels), (g, n, oh, ow, o // g))
        result = gnp.transpose(product, (1, 0, 4, 2, 3))
        result = gnp.reshape(result, (n, o, oh, ow))
    if bias is None:
        return result
    return gnp.add(result, gnp.reshape(bias, (1, o, 1, 1)))


def conv_transpose2d(
    x: ArrayLike,
    weight: ArrayLike,
    bias: ArrayLike | None = None,
    stride: int | Sequence[int] = 1,
    padding: int | Sequence[int] = 0,
    output_padding: int | Sequence[int] = 0,
    groups: int = 1,
    dilation: int | Sequence[int] = 1,
) -> Array:
    """PyTorch's `conv_transpose2d` (the gradient of `conv2d` in its input)
    with a (C, O / groups, KH, KW) weight: the input spread by `stride - 1`
    zeros (interior padding), padded by `dilation · (k - 1) - padding` (cut
    where negative) and `output_padding`, convolved with the flipped kernel."""
    x, w = floating(x), floating(weight)
    if x.ndim != 4 or w.ndim != 4:
        raise error(
            "conv_transpose2d: the input must be NCHW and the weight "
            f"(C, O, KH, KW), got shapes {x.shape} and {w.shape}"
        )
    c, o_per_group, kh, kw = w.shape
    if groups < 1 or c % groups or x.shape[1] != c:
        raise error(
            f"conv_transpose2d: the input has {x.shape[1]} channels, the weight "
            f"{c} in {groups} groups"
        )
    steps, pads = _pair(stride, "stride"), _pair(padding, "padding")
    extra, dilated = (
        _pair(output_padding, "output_padding"),
        _pair(dilation, "dilation"),
    )
    if min(steps) < 1 or min(dilated) < 1 or min(pads) < 0:
        raise error("conv_transpose2d: stride and dilation must be ≥ 1, padding ≥ 0")
    if any(
        e < 0 or e >= max(s, d) for e, s, d in zip(extra, steps, dilated, strict=True)
    ):
        raise error(
            "conv_transpose2d: output_padding must be smaller than stride or dilation"
        )
    edges = [d * (k - 1) - p for d, k, p in zip(dilated, (kh, kw), pads, strict=True)]
    low = [max(e, 0) for e in edges]
    high = [max(e + q, 0) for e, q in zip(edges, extra, strict=True)]
    spread = lax.pad(
        x, [0, 0, *low], [0, 0, *high], [0, 0, steps[0] - 1, steps[1] - 1], 0.0
    )
    cut = [max(-e, 0) for e in edges]
    cut_high = [max(-(e + q), 0) for e, q in zip(edges, extra, strict=True)]
    if any(cut) or any(cut_high):
        limit = [
            *spread.shape[:2],
            *(n - k for n, k in zip(spread.shape[2:], cut_high, strict=True)),
        ]
        if min(limit[2:]) - max(cut) < 1:
            raise error("conv_transpose2d: the padding leaves no output")
        spread = lax.slice(spread, [0, 0, *cut], limit, [1, 1, 1, 1])
    g = groups
    kernels = gnp.reshape(w, (g, c // g, o_per_group, kh, kw))
    kernels = gnp.transpose(kernels, (0, 2, 1, 3, 4))
    kernels = gnp.flip(gnp.reshape(kernels, (g * o_per_group, c // g, kh, kw)), (2, 3))
    return conv2d(spread, kernels, bias, 1, 0, dilated, groups)


def _pool(
    x: ArrayLike,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None,
    padding: int | Sequence[int],
    dilation: int | Sequence[int],
    ceil_mode: bool,
    fill: float,
    what: str,
) -> tuple[Array, list[int]]:
    """The windows, and the ceil-mode extra padding: PyTorch's output size
    rounds up, but a window must start within the input or its left padding."""
    kernel = _pair(kernel_size, "kernel_size")
    steps = kernel if stride is None else _pair(stride, "stride")
    pads, dilated = _pair(padding, "padding"), _pair(dilation, "dilation")
    x = floating(x)
    extra = [0, 0]
    if ceil_mode and x.ndim == 4 and min(steps) >= 1:
        for i, (size, k, s, p, d) in enumerate(
            zip(x.shape[2:], kernel, steps, pads, dilated, strict=True)
        ):
            span = size + 2 * p - d * (k - 1) - 1
            out = -(-span // s) + 1
            if (out - 1) * s >= size + p:
                out -= 1
            extra[i] = max(0, (out - 1) * s - span)
    windows = _windows(
        x, kernel, steps, pads, dilated, fill, what, (extra[0], extra[1])
    )
    return windows, extra


def max_pool2d(
    x: ArrayLike,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    dilation: int | Sequence[int] = 1,
    ceil_mode: bool = False,
) -> Array:
    """The maximum of each window (stride = kernel size by default), with
    PyTorch's `dilation` and `ceil_mode`; padding is the lowest float32, so
    that it never wins; ties split the gradient."""
    lowest = float(np.finfo(np.float32).min)
    windows = _pool(
        x, kernel_size, stride, padding, dilation, ceil_mode, lowest, "max_pool2d"
    )[0]
    return gnp.max(windows, 2)


def avg_pool2d(
    x: ArrayLike,
    kernel_size: int | Sequence[int],
    stride: int | Sequence[int] | None = None,
    padding: int | Sequence[int] = 0,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> Array:
    """The mean of each window, as PyTorch's: by default zero padding counts
    (but not the extra windows of `ceil_mode`); `count_include_pad=False`
    divides by the input entries in the window only."""
    windows, extra = _pool(
        x, kernel_size, stride, padding, 1, ceil_mode, 0.0, "avg_pool2d"
    )
    if count_include_pad and not any(extra):
        return gnp.mean(windows, 2)
    kernel, pads = _pair(kernel_size, "kernel_size"), _pair(padding, "padding")
    steps = kernel if stride is None else _pair(stride, "stride")
    counts = []
    for size, out, k, s, p in zip(
        asarray(x).shape[2:], windows.shape[3:], kernel, steps, pads, strict=True
    ):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, size + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        counts.append(end - start)
    divisor = np.outer(counts[0], counts[1]).astype(np.float32)
    return gnp.true_divide(gnp.sum(windows, 2), divisor)
