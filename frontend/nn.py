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
from gradopt.frontend.convolution import (
    avg_pool,
    avg_pool1d,
    avg_pool3d,
    conv,
    conv1d,
    conv3d,
    max_pool,
    max_pool1d,
    max_pool3d,
    sizes,
)
from gradopt.frontend.lax_numpy import asarray, floating, normalize_axes
from gradopt.frontend.limits import check_size
from gradopt.frontend.trace import error
from gradopt.frontend.ufuncs import stop_gradient

__all__ = [
    "avg_pool1d",
    "avg_pool2d",
    "avg_pool3d",
    "celu",
    "conv1d",
    "conv2d",
    "conv3d",
    "conv_transpose2d",
    "elu",
    "gelu",
    "hard_sigmoid",
    "hard_silu",
    "hard_swish",
    "hard_tanh",
    "layer_norm",
    "leaky_relu",
    "log_sigmoid",
    "log_softmax",
    "logsumexp",
    "max_pool1d",
    "max_pool2d",
    "max_pool3d",
    "mish",
    "one_hot",
    "relu",
    "relu6",
    "selu",
    "sigmoid",
    "silu",
    "soft_sign",
    "softmax",
    "softplus",
    "swish",
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
    first, second = sizes(value, 2, what)
    return first, second


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
    return conv(x, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


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
    return max_pool(
        x, kernel_size, stride, padding, dilation, ceil_mode, 2, "max_pool2d"
    )


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
    return avg_pool(
        x, kernel_size, stride, padding, ceil_mode, count_include_pad, 2, "avg_pool2d"
    )
