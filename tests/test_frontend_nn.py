"""`gradopt.nn`: values against float64 NumPy, gradients against central
differences, and the stable forms finite (and right) at x = ±100."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import check_grad, check_value, f32

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp


def sigmoid(x: np.ndarray) -> np.ndarray:
    return np.where(x >= 0, 1 / (1 + np.exp(-np.abs(x))), np.exp(x) / (1 + np.exp(x)))


def softplus(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x, 0)


def logsumexp(x: np.ndarray, axis: Any = None, keepdims: bool = False) -> np.ndarray:
    top = np.max(x, axis=axis, keepdims=True)
    result = np.log(np.sum(np.exp(x - top), axis=axis, keepdims=True)) + top
    return result if keepdims else np.squeeze(result, axis=axis)


def softmax(x: np.ndarray, axis: int = -1) -> np.ndarray:
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


erf = np.vectorize(math.erf)

ACTIVATIONS: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "relu": (gnn.relu, lambda x: np.maximum(x, 0)),
    "sigmoid": (gnn.sigmoid, sigmoid),
    "softplus": (gnn.softplus, softplus),
    "log_sigmoid": (gnn.log_sigmoid, lambda x: -softplus(-x)),
    "silu": (gnn.silu, lambda x: x * sigmoid(x)),
    "gelu tanh": (
        gnn.gelu,
        lambda x: 0.5 * x * (1 + np.tanh(0.7978845608028654 * (x + 0.044715 * x**3))),
    ),
    "gelu erf": (
        lambda x: gnn.gelu(x, approximate=False),
        lambda x: 0.5 * x * (1 + erf(x / np.sqrt(2))),
    ),
    "leaky_relu": (
        lambda x: gnn.leaky_relu(x, 0.1),
        lambda x: np.where(x >= 0, x, 0.1 * x),
    ),
    "elu": (lambda x: gnn.elu(x, 0.5), lambda x: np.where(x > 0, x, 0.5 * np.expm1(x))),
    "softmax": (gnn.softmax, softmax),
    "softmax axis 0": (lambda x: gnn.softmax(x, axis=0), lambda x: softmax(x, 0)),
    "log_softmax": (gnn.log_softmax, lambda x: np.log(softmax(x))),
    "logsumexp": (gnn.logsumexp, logsumexp),
    "logsumexp axis": (
        lambda x: gnn.logsumexp(x, axis=1),
        lambda x: logsumexp(x, axis=1),
    ),
    "logsumexp axes keepdims": (
        lambda x: gnn.logsumexp(x, axis=(0, 1), keepdims=True),
        lambda x: logsumexp(x, axis=(0, 1), keepdims=True),
    ),
    "layer_norm": (
        gnn.layer_norm,
        lambda x: (
            (x - x.mean(-1, keepdims=True)) / np.sqrt(x.var(-1, keepdims=True) + 1e-5)
        ),
    ),
}


@pytest.mark.parametrize("name", ACTIVATIONS)
def test_value_and_gradient(name: str) -> None:
    traced, reference = ACTIVATIONS[name]
    x = f32(3, 5, low=-4, high=4)
    x[np.abs(x) < 0.05] = 0.3  # no kinks within the difference step
    check_value(traced, reference, x, rtol=3e-6, atol=2e-6)
    check_grad(traced, reference, x, rtol=2e-4, atol=2e-5)


def test_layer_norm_with_weight_bias_and_several_axes() -> None:
    x, w, b = f32(2, 3, 4), f32(3, 4), f32(4)

    def reference(x: Any, w: Any, b: Any) -> Any:
        mean = x.mean((1, 2), keepdims=True)
        var = x.var((1, 2), keepdims=True)
        return (x - mean) / np.sqrt(var + 1e-3) * w + b

    def traced(x: Any, w: Any, b: Any) -> Any:
        return gnn.layer_norm(x, w, b, eps=1e-3, axis=(1, 2))

    check_value(traced, reference, x, w, b, rtol=3e-6, atol=2e-6)
    for argnum in range(3):
        check_grad(traced, reference, x, w, b, argnum=argnum, rtol=2e-4, atol=2e-5)


def test_one_hot() -> None:
    labels = np.array([[0, 2], [3, 1]], np.int32)
    got = gradopt.jit(lambda y: gnn.one_hot(y, 3))(labels)
    assert got.dtype == np.float32 and got.shape == (2, 2, 3)
    np.testing.assert_array_equal(
        got, (labels[..., None] == np.arange(3)).astype(float)
    )
    ints = gradopt.jit(lambda y: gnn.one_hot(y, 4, dtype=np.int32))(labels[0])
    assert ints.dtype == np.int32 and ints.tolist() == [[1, 0, 0, 0], [0, 0, 1, 0]]


EXTREMES = np.array([-100.0, -30.0, -1.0, 0.0, 1.0, 30.0, 100.0], np.float32)
STABLE: dict[
    str, tuple[Callable[[Any], Any], Callable[[Any], Any], Callable[[Any], Any]]
] = {
    # name: (gradopt, float64 value, float64 derivative)
    "sigmoid": (gnn.sigmoid, sigmoid, lambda x: sigmoid(x) * sigmoid(-x)),
    "tanh": (gnp.tanh, np.tanh, lambda x: 1 / np.cosh(x) ** 2),
    "softplus": (gnn.softplus, softplus, sigmoid),
    "log_sigmoid": (gnn.log_sigmoid, lambda x: -softplus(-x), lambda x: sigmoid(-x)),
    "silu": (
        gnn.silu,
        lambda x: x * sigmoid(x),
        lambda x: sigmoid(x) * (1 + x * sigmoid(-x)),
    ),
    "elu": (
        gnn.elu,
        lambda x: np.where(x > 0, x, np.expm1(np.minimum(x, 0))),
        lambda x: np.where(x > 0, 1, np.exp(np.minimum(x, 0))),
    ),
    "logaddexp with 0": (lambda x: gnp.logaddexp(x, 0.0), softplus, sigmoid),
}


@pytest.mark.parametrize("name", STABLE)
def test_finite_and_right_at_plus_minus_100(name: str) -> None:
    traced, value, derivative = STABLE[name]
    got = gradopt.jit(traced)(EXTREMES)
    grad = gradopt.grad(lambda x: gnp.sum(traced(x)))(EXTREMES)
    assert np.all(np.isfinite(got)) and np.all(np.isfinite(grad))
    x = EXTREMES.astype(np.float64)
    np.testing.assert_allclose(got, value(x), rtol=1e-6, atol=1e-7)
    # tanh is the float32 rational of XLA, clamped where tanh rounds to ±1
    np.testing.assert_allclose(grad, derivative(x), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("axis", [None, 0, 1])
def test_logsumexp_softmax_log_softmax_at_plus_minus_100(axis: int | None) -> None:
    x = np.array([[-100.0, 100.0, 99.0], [-100.0, -100.0, -99.0]], np.float32)
    x64 = x.astype(np.float64)
    values = gradopt.jit(lambda x: gnn.logsumexp(x, axis))(x)
    np.testing.assert_allclose(values, logsumexp(x64, axis), rtol=1e-7)
    grad = gradopt.grad(lambda x: gnp.sum(gnn.logsumexp(x, axis)))(x)
    np.testing.assert_allclose(
        grad,
        softmax(x64, axis if axis is not None else None)
        if axis is not None
        else np.exp(x64 - logsumexp(x64)),
        rtol=1e-5,
        atol=1e-30,
    )
    if axis is None:
        return
    w = np.array([[1.0, 2.0, 3.0], [-1.0, 0.5, 2.0]], np.float32)
    for traced, reference in (
        (gnn.softmax, softmax),
        (gnn.log_softmax, lambda x, axis: np.log(softmax(x, axis))),
    ):
        got = gradopt.jit(lambda x, traced=traced: traced(x, axis))(x)
        assert np.all(np.isfinite(got))
        np.testing.assert_allclose(got, reference(x64, axis), rtol=1e-6, atol=1e-30)
        g = gradopt.grad(lambda x, traced=traced: gnp.sum(traced(x, axis) * w))(x)
        assert np.all(np.isfinite(g))


def test_logsumexp_of_a_row_of_minus_infinity_is_minus_infinity() -> None:
    x = np.array([[-np.inf, -np.inf], [0.0, -np.inf]], np.float32)
    got = gradopt.jit(lambda x: gnn.logsumexp(x, axis=1))(x)
    assert got.tolist() == [-np.inf, 0.0]


def test_the_naive_sigmoid_gradient_is_nan_at_100_and_the_stable_one_is_not() -> None:
    """What the stable forms are for: `recip(1 + exp2(-x·log2e))` overflows."""
    naive = gradopt.grad(lambda x: gnp.sum(1 / (1 + gnp.exp(-x))))(EXTREMES)
    assert np.isnan(naive[0])
    assert np.isfinite(gradopt.grad(lambda x: gnp.sum(gnn.sigmoid(x)))(EXTREMES)).all()
