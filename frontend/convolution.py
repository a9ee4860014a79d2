"""Convolution and pooling over any number of spatial dims (PyTorch's
channels-first layout: N, C, then the spatial dims), for `gradopt.nn`'s
`conv1d`/`conv2d`/`conv3d` and the 1-, 2- and 3-D pools, and for `from_jax`'s
`conv_general_dilated`.

The windows of the input are one strided `grad.slice` per kernel position,
joined by `grad.concat`; a convolution is then one matrix product of the
windows (batched over the groups), a pool one reduction. The 2-D case is the
graph `conv2d` and the pools have always made, op for op.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence

import numpy as np

from gradopt.frontend import lax
from gradopt.frontend import numpy as gnp
from gradopt.frontend.array import Array, ArrayLike
from gradopt.frontend.lax_numpy import asarray, floating
from gradopt.frontend.trace import error

LAYOUTS = {1: ("NCW", "KW"), 2: ("NCHW", "KH, KW"), 3: ("NCDHW", "KD, KH, KW")}
"""The input layout and the kernel dims' names, by the number of spatial dims."""

Sizes = int | Sequence[int]


def sizes(value: Sizes, count: int, what: str) -> tuple[int, ...]:
    """`value` for each of `count` spatial dims (an int is repeated)."""
    values = (value,) * count if isinstance(value, int) else tuple(value)
    if len(values) != count or any(not isinstance(v, int | np.integer) for v in values):
        several = "a pair of ints" if count == 2 else f"{count} ints"
        raise error(f"{what} must be an int or {several}, got {value!r}")
    return tuple(int(v) for v in values)


def windows(
    x: Array,
    kernel: tuple[int, ...],
    stride: tuple[int, ...],
    padding: tuple[int, ...],
    dilation: tuple[int, ...],
    fill: float,
    what: str,
    extra: tuple[int, ...] | None = None,
) -> Array:
    """The (N, C, prod(kernel), *out) windows of a channels-first input: one
    strided `grad.slice` per kernel position (row-major) of the input padded
    by `padding` (`fill`), joined by `grad.concat`. `extra` pads the high
    ends further (pooling's `ceil_mode`)."""
    count = len(kernel)
    extra = extra or (0,) * count
    if x.ndim != count + 2:
        layout = LAYOUTS.get(count, ("N, C, spatial",))[0]
        raise error(
            f"{what}: the input must be {layout} ({count + 2}-D), got shape {x.shape}"
        )
    n, c, *space = x.shape
    if min(stride) < 1 or min(dilation) < 1 or min(padding) < 0:
        raise error(f"{what}: stride and dilation must be ≥ 1 and padding ≥ 0")
    out = [
        (size + 2 * p + e - d * (k - 1) - 1) // s + 1
        for size, k, s, p, d, e in zip(
            space, kernel, stride, padding, dilation, extra, strict=True
        )
    ]
    if min(out) < 1:
        raise error(
            f"{what}: a kernel of {kernel} (dilation {dilation}) does not fit the "
            f"input of {'x'.join(map(str, space))} padded by {padding}"
        )
    if any(padding) or any(extra):
        low = [0, 0, *padding]
        high = [0, 0, *(p + e for p, e in zip(padding, extra, strict=True))]
        x = lax.pad(x, low, high, [0] * x.ndim, fill)
    parts = []
    for position in itertools.product(*(range(k) for k in kernel)):
        first = [p * d for p, d in zip(position, dilation, strict=True)]
        start = [0, 0, *first]
        limit = [
            n,
            c,
            *(f + (o - 1) * s + 1 for f, o, s in zip(first, out, stride, strict=True)),
        ]
        part = x
        if (
            start != [0] * x.ndim
            or limit != list(x.shape)
            or any(s != 1 for s in stride)
        ):
            part = lax.slice(x, start, limit, [1, 1, *stride])
        parts.append(gnp.reshape(part, (n, c, 1, *out)))
    return lax.concatenate(parts, 2)


def conv(
    x: ArrayLike,
    weight: ArrayLike,
    bias: ArrayLike | None,
    stride: Sizes,
    padding: Sizes,
    dilation: Sizes,
    groups: int,
    count: int,
    what: str,
) -> Array:
    """A convolution (cross-correlation, as in PyTorch) over `count` spatial
    dims of a channels-first input by an (O, C / groups, *kernel) weight, as
    one matrix product of the windows (batched over the groups; `groups = C`
    is depthwise)."""
    x, w = floating(x), floating(weight)
    if w.ndim != count + 2:
        raise error(
            f"{what}: the weight must be (O, C, {LAYOUTS[count][1]}), got shape "
            f"{w.shape}"
        )
    o, c, *kernel = w.shape
    if groups < 1 or o % groups:
        raise error(f"{what}: {o} output channels do not split into {groups} groups")
    if x.ndim == count + 2 and x.shape[1] != c * groups:
        raise error(
            f"{what}: the input has {x.shape[1]} channels, the weight expects "
            f"{c * groups}" + (f" ({groups} groups of {c})" if groups > 1 else "")
        )
    patches = windows(
        x,
        tuple(kernel),
        sizes(stride, count, "stride"),
        sizes(padding, count, "padding"),
        sizes(dilation, count, "dilation"),
        0.0,
        what,
    )
    n, out = patches.shape[0], patches.shape[3:]
    spatial = list(range(3, 3 + count))
    if groups == 1:
        columns = gnp.transpose(patches, (0, *spatial, 1, 2))
        columns = gnp.reshape(columns, (n * math.prod(out), -1))
        product = gnp.matmul(columns, gnp.transpose(gnp.reshape(w, (o, -1))))
        result = gnp.reshape(product, (n, *out, o))
        result = gnp.transpose(result, (0, count + 1, *range(1, count + 1)))
    else:
        g = groups
        grouped = gnp.reshape(patches, (n, g, c, math.prod(kernel), *out))
        columns = gnp.transpose(grouped, (1, 0, *(d + 1 for d in spatial), 2, 3))
        columns = gnp.reshape(columns, (g, n * math.prod(out), c * math.prod(kernel)))
        kernels = gnp.transpose(gnp.reshape(w, (g, o // g, -1)), (0, 2, 1))
        product = gnp.reshape(lax.dot(columns, kernels), (g, n, *out, o // g))
        result = gnp.transpose(product, (1, 0, count + 2, *range(2, count + 2)))
        result = gnp.reshape(result, (n, o, *out))
    if bias is None:
        return result
    return gnp.add(result, gnp.reshape(bias, (1, o, *[1] * count)))


def pool_windows(
    x: ArrayLike,
    kernel_size: Sizes,
    stride: Sizes | None,
    padding: Sizes,
    dilation: Sizes,
    ceil_mode: bool,
    fill: float,
    count: int,
    what: str,
) -> tuple[Array, list[int]]:
    """The windows, and the ceil-mode extra padding: PyTorch's output size
    rounds up, but a window must start within the input or its low padding."""
    kernel = sizes(kernel_size, count, "kernel_size")
    steps = kernel if stride is None else sizes(stride, count, "stride")
    pads, dilated = sizes(padding, count, "padding"), sizes(dilation, count, "dilation")
    x = floating(x)
    extra = [0] * count
    if ceil_mode and x.ndim == count + 2 and min(steps) >= 1:
        for i, (size, k, s, p, d) in enumerate(
            zip(x.shape[2:], kernel, steps, pads, dilated, strict=True)
        ):
            span = size + 2 * p - d * (k - 1) - 1
            out = -(-span // s) + 1
            if (out - 1) * s >= size + p:
                out -= 1
            extra[i] = max(0, (out - 1) * s - span)
    patches = windows(x, kernel, steps, pads, dilated, fill, what, tuple(extra))
    return patches, extra


def max_pool(
    x: ArrayLike,
    kernel_size: Sizes,
    stride: Sizes | None,
    padding: Sizes,
    dilation: Sizes,
    ceil_mode: bool,
    count: int,
    what: str,
) -> Array:
    """The maximum of each window; padding is the lowest float32, so that it
    never wins; ties split the gradient."""
    lowest = float(np.finfo(np.float32).min)
    patches = pool_windows(
        x, kernel_size, stride, padding, dilation, ceil_mode, lowest, count, what
    )[0]
    return gnp.max(patches, 2)


def avg_pool(
    x: ArrayLike,
    kernel_size: Sizes,
    stride: Sizes | None,
    padding: Sizes,
    ceil_mode: bool,
    count_include_pad: bool,
    count: int,
    what: str,
) -> Array:
    """The mean of each window, as PyTorch's: by default zero padding counts
    (but not the extra windows of `ceil_mode`); `count_include_pad=False`
    divides by the input entries in the window only."""
    patches, extra = pool_windows(
        x, kernel_size, stride, padding, 1, ceil_mode, 0.0, count, what
    )
    if count_include_pad and not any(extra):
        return gnp.mean(patches, 2)
    kernel, pads = (
        sizes(kernel_size, count, "kernel_size"),
        sizes(padding, count, "padding"),
    )
    steps = kernel if stride is None else sizes(stride, count, "stride")
    counts = []
    for size, out, k, s, p in zip(
        asarray(x).shape[2:], patches.shape[3:], kernel, steps, pads, strict=True
    ):
        start = np.arange(out) * s - p
        end = np.minimum(start + k, size + p)
        if not count_include_pad:
            start, end = np.maximum(start, 0), np.minimum(end, size)
        counts.append(end - start)
    divisor = counts[0]
    for more in counts[1:]:
        divisor = np.multiply.outer(divisor, more)
    return gnp.true_divide(gnp.sum(patches, 2), divisor.astype(np.float32))


def _named(function: Callable[..., Array], name: str, doc: str) -> None:
    function.__name__ = function.__qualname__ = name
    function.__doc__ = doc


def convolution(count: int) -> Callable[..., Array]:
    """PyTorch's `conv{count}d`, with its signature."""
    name = f"conv{count}d"

    def convolve(
        x: ArrayLike,
        weight: ArrayLike,
        bias: ArrayLike | None = None,
        stride: Sizes = 1,
        padding: Sizes = 0,
        dilation: Sizes = 1,
        groups: int = 1,
    ) -> Array:
        return conv(x, weight, bias, stride, padding, dilation, groups, count, name)

    layout, kernel = LAYOUTS[count]
    _named(convolve, name, f"PyTorch's `{name}`: an {layout} input, an "
                           f"(O, C / groups, {kernel}) weight.")  # fmt: skip
    return convolve


def max_pooling(count: int) -> Callable[..., Array]:
    """PyTorch's `max_pool{count}d`, with its signature."""
    name = f"max_pool{count}d"

    def pool(
        x: ArrayLike,
        kernel_size: Sizes,
        stride: Sizes | None = None,
        padding: Sizes = 0,
        dilation: Sizes = 1,
        ceil_mode: bool = False,
    ) -> Array:
        return max_pool(
            x, kernel_size, stride, padding, dilation, ceil_mode, count, name
        )

    _named(pool, name, f"PyTorch's `{name}` of an {LAYOUTS[count][0]} input.")
    return pool


def average_pooling(count: int) -> Callable[..., Array]:
    """PyTorch's `avg_pool{count}d`, with its signature."""
    name = f"avg_pool{count}d"

    def pool(
        x: ArrayLike,
        kernel_size: Sizes,
        stride: Sizes | None = None,
        padding: Sizes = 0,
        ceil_mode: bool = False,
        count_include_pad: bool = True,
    ) -> Array:
        return avg_pool(
            x, kernel_size, stride, padding, ceil_mode, count_include_pad, count, name
        )

    _named(pool, name, f"PyTorch's `{name}` of an {LAYOUTS[count][0]} input.")
    return pool


conv1d, conv3d = convolution(1), convolution(3)
max_pool1d, max_pool3d = max_pooling(1), max_pooling(3)
avg_pool1d, avg_pool3d = average_pooling(1), average_pooling(3)
