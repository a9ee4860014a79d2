"""The activations of `jax.nn` beyond the classic ones: `relu6`,
`hard_tanh`, `hard_sigmoid`, `hard_swish`, `selu`, `celu` and
`soft_sign`, with JAX's values and derivatives at their kinks (a `where`
picks the side JAX's rule picks, never a tie split)."""

from __future__ import annotations

from gradopt.frontend import numpy as gnp
from gradopt.frontend.array import Array, ArrayLike
from gradopt.frontend.lax_numpy import floating


def positive_part(x: Array) -> Array:
    """`where(x > 0, x, 0)`, but NaN (without a derivative) for NaN."""
    nan_or_zero = gnp.where(gnp.isnan(x), gnp.stop_gradient(x), 0.0)
    return gnp.where(gnp.greater(x, 0.0), x, nan_or_zero)


def relu6(x: ArrayLike) -> Array:
    """`min(max(x, 0), 6)`; derivative 1 strictly between 0 and 6 only."""
    x = floating(x)
    return gnp.where(gnp.greater_equal(x, 6.0), 6.0, positive_part(x))


def hard_tanh(x: ArrayLike) -> Array:
    """x clipped to [-1, 1]; derivative 1 on the closed interval, as JAX."""
    x = floating(x)
    return gnp.where(gnp.greater(x, 1.0), 1.0, gnp.where(gnp.less(x, -1.0), -1.0, x))


def hard_sigmoid(x: ArrayLike) -> Array:
    """`relu6(x + 3) / 6`."""
    return gnp.multiply(relu6(gnp.add(floating(x), 3.0)), 1.0 / 6.0)


def hard_swish(x: ArrayLike) -> Array:
    """`x · hard_sigmoid(x)` (JAX's `hard_silu`)."""
    x = floating(x)
    return gnp.multiply(x, hard_sigmoid(x))


hard_silu = hard_swish


def celu(x: ArrayLike, alpha: float = 1.0) -> Array:
    """`x` above 0, `alpha · expm1(x / alpha)` below (of 0 where x > 0, so that
    the discarded branch never overflows)."""
    x = floating(x)
    positive = gnp.greater(x, 0.0)
    below = gnp.multiply(
        gnp.expm1(gnp.multiply(gnp.where(positive, 0.0, x), 1.0 / alpha)), alpha
    )
    return gnp.where(positive, x, below)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(x: ArrayLike) -> Array:
    """`scale · elu(x, alpha)` with the self-normalizing constants."""
    x = floating(x)
    positive = gnp.greater(x, 0.0)
    below = gnp.multiply(gnp.expm1(gnp.where(positive, 0.0, x)), _SELU_ALPHA)
    return gnp.multiply(gnp.where(positive, x, below), _SELU_SCALE)


def soft_sign(x: ArrayLike) -> Array:
    """`x / (|x| + 1)`."""
    x = floating(x)
    return gnp.true_divide(x, gnp.add(gnp.abs(x), 1.0))
