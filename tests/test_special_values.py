"""Signs of NaN and of zero where NumPy and JAX define them (README, Special
values): `abs` clears the sign bit (NaN too) and keeps JAX's derivative 1 at
±0; `copysign`, `maximum`, `minimum`, rounding and `sqrt` have NumPy's
bits; float `//` is `jnp.floor_divide`, bit for bit while the quotient is
below 2^22, with zero gradient; `sign(-0.0)` is JAX's -0.0 (NumPy: +0.0)."""

from __future__ import annotations

import importlib.util

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.numpy as gnp

NAN = np.float32(np.nan)
POINTS = np.array(
    [NAN, -NAN, 0.0, -0.0, 1.0, -1.0, 2.5, -2.5, 0.5, -7.0, np.inf, -np.inf],
    np.float32,
)


def _bits(x: np.ndarray) -> np.ndarray:
    return np.asarray(x, np.float32).view(np.int32)


def test_abs_clears_the_sign_bit_and_keeps_its_derivative() -> None:
    value = gradopt.jit(gnp.abs)(POINTS)
    assert (_bits(value) == _bits(np.abs(POINTS))).all()
    slope = gradopt.grad(lambda x: gnp.sum(gnp.abs(x)))(POINTS)
    #                           +NaN -NaN  +0   -0  1   -1  2.5 -2.5  .5  -7  inf -inf
    assert slope.tolist() == [1, -1, 1, 1, 1, -1, 1, -1, 1, -1, 1, -1]
    _, tangent = gradopt.jvp(gnp.abs, (POINTS,), (np.ones_like(POINTS),))
    assert tangent.tolist() == slope.tolist()


BINARY = ("copysign", "maximum", "minimum")
UNARY = ("round", "floor", "ceil", "trunc", "sqrt", "negative")


def test_numpy_bits_with_signed_zeros_and_nans() -> None:
    """The README's list of functions with NumPy's bits at ±0, ±inf and ±NaN
    (`clip` is `minimum(maximum(x, lo), hi)`)."""
    a, b = (m.ravel() for m in np.meshgrid(POINTS, POINTS, indexing="ij"))

    def f(a: np.ndarray, b: np.ndarray, x: np.ndarray, xp: object) -> list:
        pairs = [getattr(xp, name)(a, b) for name in BINARY]
        return pairs + [getattr(xp, name)(x) for name in UNARY]

    got = gradopt.jit(lambda a, b, x: f(a, b, x, gnp))(a, b, POINTS)
    with np.errstate(all="ignore"):
        want = f(a, b, POINTS, np)
    for name, g, w in zip(BINARY + UNARY, got, want, strict=True):
        assert (_bits(g) == _bits(w)).all(), name


def test_sign_bits() -> None:
    signs = gradopt.jit(gnp.sign)(POINTS)
    assert np.array_equal(signs, np.sign(POINTS), equal_nan=True)
    assert np.signbit(signs[3])  # sign(-0.0) is -0.0, as in JAX


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
def test_float_floor_divide_matches_jax() -> None:
    jax = import_jax()
    rng = np.random.default_rng(5)
    a, b = (m.ravel() for m in np.meshgrid(POINTS, POINTS, indexing="ij"))
    a = np.concatenate([a, rng.uniform(-100, 100, 300).astype(np.float32)])
    b = np.concatenate([b, rng.uniform(-10, 10, 300).astype(np.float32)])
    got = gradopt.jit(lambda a, b: (a // b, gnp.floor_divide(a, 3.0)))(a, b)
    want = jax.jit(lambda a, b: (a // b, jax.numpy.floor_divide(a, 3.0)))(a, b)
    for g, w in zip(got, want, strict=True):
        w = np.asarray(w)
        same = (_bits(g) == _bits(w)) | (np.isnan(g) & np.isnan(w))
        assert same.all(), (a[~same], b[~same], g[~same], w[~same])
    with np.errstate(all="ignore"):
        numpy = np.floor_divide(a, b)
    assert np.array_equal(got[0], numpy, equal_nan=True)  # NumPy, but for 0's sign
    slopes = gradopt.grad(lambda a, b: gnp.sum(a // b), argnums=(0, 1))(a, b)
    assert all(not s.any() for s in slopes)
