"""`gradopt.numpy`: every operation's value against NumPy, and the gradient of
every differentiable one against float64 central differences."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import check_grad, check_value, f32

import gradopt
import gradopt.numpy as gnp

erf64 = np.vectorize(math.erf)

# name: (gradopt function, float64 reference, input low, input high)
UNARY: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any], float, float]] = {
    "negative": (gnp.negative, np.negative, -2, 2),
    "unary minus": (lambda x: -x, np.negative, -2, 2),
    "square": (gnp.square, np.square, -2, 2),
    "exp": (gnp.exp, np.exp, -3, 3),
    "exp2": (gnp.exp2, np.exp2, -3, 3),
    "expm1": (gnp.expm1, np.expm1, -2, 2),
    "log": (gnp.log, np.log, 0.1, 4),
    "log2": (gnp.log2, np.log2, 0.1, 4),
    "log10": (gnp.log10, np.log10, 0.1, 4),
    "log1p": (gnp.log1p, np.log1p, -0.9, 3),
    "sqrt": (gnp.sqrt, np.sqrt, 0.1, 4),
    "rsqrt": (gnp.rsqrt, lambda x: 1 / np.sqrt(x), 0.2, 4),
    "reciprocal": (gnp.reciprocal, np.reciprocal, 0.3, 3),
    "sin": (gnp.sin, np.sin, -4, 4),
    "cos": (gnp.cos, np.cos, -4, 4),
    "tan": (gnp.tan, np.tan, -1.2, 1.2),
    "tanh": (gnp.tanh, np.tanh, -5, 5),
    "sinh": (gnp.sinh, np.sinh, -3, 3),
    "cosh": (gnp.cosh, np.cosh, -3, 3),
    "abs": (gnp.abs, np.abs, -2, 2),
    "erf": (gnp.erf, erf64, -3, 3),
    "x ** 2": (lambda x: x**2, lambda x: x**2, -2, 2),
    "x ** 3": (lambda x: x**3, lambda x: x**3, -2, 2),
    "x ** -2": (lambda x: x**-2, lambda x: x**-2.0, 0.5, 2),
    "x ** 0.5": (lambda x: x**0.5, np.sqrt, 0.2, 3),
    "x ** 1.7": (lambda x: x**1.7, lambda x: x**1.7, 0.2, 3),
    "2 ** x": (lambda x: 2**x, lambda x: 2**x, -2, 2),
    "x / 3": (lambda x: x / 3, lambda x: x / 3, -2, 2),
    "1 / x": (lambda x: 1 / x, lambda x: 1 / x, 0.5, 2),
    "x - 1": (lambda x: x - 1, lambda x: x - 1, -2, 2),
    "1 - x": (lambda x: 1 - x, lambda x: 1 - x, -2, 2),
}


@pytest.mark.parametrize("name", UNARY)
def test_unary_value_and_gradient(name: str) -> None:
    traced, reference, low, high = UNARY[name]
    x = f32(3, 4, low=low, high=high)
    check_value(traced, reference, x, rtol=3e-6)
    check_grad(traced, reference, x)


BINARY: dict[str, tuple[Callable[[Any, Any], Any], Callable[[Any, Any], Any]]] = {
    "add": (gnp.add, np.add),
    "subtract": (gnp.subtract, np.subtract),
    "multiply": (gnp.multiply, np.multiply),
    "divide": (gnp.divide, np.divide),
    "maximum": (gnp.maximum, np.maximum),
    "minimum": (gnp.minimum, np.minimum),
    "power": (gnp.power, np.power),
    "logaddexp": (gnp.logaddexp, np.logaddexp),
    "matmul": (lambda a, b: a @ b.T, lambda a, b: a @ b.T),
}


@pytest.mark.parametrize("name", BINARY)
def test_binary_value_and_gradients(name: str) -> None:
    traced, reference = BINARY[name]
    a, b = f32(3, 4, low=0.5, high=2), f32(3, 4, low=0.5, high=2)
    check_value(traced, reference, a, b, rtol=3e-6)
    check_grad(traced, reference, a, b, argnum=0)
    check_grad(traced, reference, a, b, argnum=1)


@pytest.mark.parametrize(
    ("traced", "reference"),
    [
        (lambda x: gnp.where(x > 0, x, -2 * x), lambda x: np.where(x > 0, x, -2 * x)),
        (lambda x: gnp.clip(x, -0.5, 1.0), lambda x: np.clip(x, -0.5, 1.0)),
        (lambda x: x.clip(None, 0.3), lambda x: np.clip(x, None, 0.3)),
        (lambda x: gnp.sign(x) * x, lambda x: np.abs(x)),
        (lambda x: gnp.sum(x), np.sum),
        (lambda x: gnp.sum(x, axis=0), lambda x: np.sum(x, axis=0)),
        (
            lambda x: x.sum(axis=(0, 2), keepdims=True),
            lambda x: x.sum((0, 2), None, None, True),
        ),
        (lambda x: gnp.mean(x, axis=-1), lambda x: np.mean(x, axis=-1)),
        (lambda x: x.max(axis=1), lambda x: x.max(axis=1)),
        (lambda x: gnp.min(x, axis=(1, 2)), lambda x: np.min(x, axis=(1, 2))),
        (lambda x: gnp.amax(x, keepdims=True), lambda x: np.amax(x, keepdims=True)),
        (lambda x: gnp.var(x, axis=1), lambda x: np.var(x, axis=1)),
        (lambda x: x.std(axis=0, ddof=1), lambda x: np.std(x, axis=0, ddof=1)),
        (lambda x: gnp.reshape(x, (4, -1)), lambda x: np.reshape(x, (4, -1))),
        (lambda x: x.reshape(2, 12), lambda x: x.reshape(2, 12)),
        (lambda x: x.T, lambda x: x.T),
        (lambda x: gnp.transpose(x, (1, 2, 0)), lambda x: np.transpose(x, (1, 2, 0))),
        (lambda x: x.transpose(2, 0, 1), lambda x: x.transpose(2, 0, 1)),
        (lambda x: gnp.swapaxes(x, 0, 2), lambda x: np.swapaxes(x, 0, 2)),
        (lambda x: gnp.moveaxis(x, 0, -1), lambda x: np.moveaxis(x, 0, -1)),
        (lambda x: gnp.expand_dims(x, (0, 2)), lambda x: np.expand_dims(x, (0, 2))),
        (lambda x: gnp.squeeze(x[None, :, None]), lambda x: x),
        (lambda x: x[..., None, :], lambda x: x[..., None, :]),
        (lambda x: x[None][0], lambda x: x),
        (lambda x: x[:, :, ::1][...], lambda x: x),
        (lambda x: gnp.ravel(x), np.ravel),
        (
            lambda x: gnp.broadcast_to(x[:, :, None], (2, 3, 5, 4)),
            lambda x: np.broadcast_to(x[:, :, None], (2, 3, 5, 4)),
        ),
    ],
)
def test_array_function_value_and_gradient(
    traced: Callable[[Any], Any], reference: Callable[[Any], Any]
) -> None:
    x = f32(2, 3, 4)
    check_value(traced, reference, x, rtol=3e-6, atol=2e-6)
    check_grad(traced, reference, x)


PRODUCTS = [
    (gnp.matmul, np.matmul, (3, 4), (4, 2)),
    (gnp.matmul, np.matmul, (4,), (4, 2)),
    (gnp.matmul, np.matmul, (3, 4), (4,)),
    (gnp.matmul, np.matmul, (4,), (4,)),
    (gnp.matmul, np.matmul, (2, 3, 4), (4, 2)),
    (gnp.matmul, np.matmul, (3, 4), (2, 4, 5)),
    (gnp.matmul, np.matmul, (4,), (2, 4, 5)),
    (gnp.matmul, np.matmul, (1, 3, 4), (2, 1, 4, 5)),
    (lambda a, b: a @ b, np.matmul, (2, 3), (3, 2)),
    (lambda a, b: a.T @ b, lambda a, b: a.T @ b, (3, 2), (3, 2)),
    (gnp.dot, np.dot, (3, 4), (4, 2)),
    (gnp.dot, np.dot, (2, 4), (3, 4, 5)),
    (gnp.dot, np.dot, (2, 3), ()),
    (gnp.outer, np.outer, (3,), (2, 2)),
    (gnp.inner, np.inner, (2, 4), (3, 4)),
    (gnp.inner, np.inner, (2, 4), (4,)),
]


@pytest.mark.parametrize(("traced", "reference", "lhs", "rhs"), PRODUCTS)
def test_products_value_and_gradients(
    traced: Callable[[Any, Any], Any],
    reference: Callable[[Any, Any], Any],
    lhs: tuple[int, ...],
    rhs: tuple[int, ...],
) -> None:
    a, b = f32(*lhs), f32(*rhs)
    check_value(traced, reference, a, b, rtol=3e-6, atol=2e-6)
    check_grad(traced, reference, a, b, argnum=0)
    check_grad(traced, reference, a, b, argnum=1)


def test_matmul_with_batch_dims_on_one_side_needs_no_batched_dot() -> None:
    c, a = f32(3, 4), f32(2, 3, 4, 5)
    text = gradopt.jit(lambda c, a: c @ a).lower(c, a).as_text()
    assert text.count("grad.dot") == 1 and "tensor<3x4xf32>, tensor<4x30xf32>" in text
    text = gradopt.jit(lambda a, c: a @ c).lower(f32(2, 5, 3), c).as_text()
    assert text.count("grad.dot") == 1 and "tensor<10x3xf32>, tensor<3x4xf32>" in text


def test_integer_and_bool_operations_follow_numpy() -> None:
    a = np.array([[-7, -3, 0, 4, 9]], np.int32)
    b = np.array([[2], [-3]], np.int32)

    def f(a: Any, b: Any) -> Any:
        return (
            a // b,
            a % b,
            a + b,
            a * b,
            a - b,
            -a,
            a & b,
            a | b,
            a ^ b,
            ~a,
            a < b,
            a <= b,
            a > b,
            a >= b,
            a == b,
            a != b,
            gnp.maximum(a, b),
            gnp.minimum(a, b),
            gnp.abs(a),
            a.max(),
            a.min(axis=1),
            a.sum(),
            a / 2,
            a * 1.5,
            a + True,
            gnp.sign(a),
            a**2,
        )

    def reference(a: Any, b: Any) -> Any:
        return (
            a // b,
            a % b,
            a + b,
            a * b,
            a - b,
            -a,
            a & b,
            a | b,
            a ^ b,
            ~a,
            a < b,
            a <= b,
            a > b,
            a >= b,
            a == b,
            a != b,
            np.maximum(a, b),
            np.minimum(a, b),
            np.abs(a),
            a.max(),
            a.min(axis=1),
            a.sum(),
            a / 2,
            a * 1.5,
            a + True,
            np.sign(a),
            a**2,
        )

    for got, want in zip(gradopt.jit(f)(a, b), reference(a, b), strict=True):
        assert np.shape(got) == np.shape(want)
        np.testing.assert_array_equal(got, want)
        kind = {"b": np.bool_, "i": np.int32, "f": np.float32}[
            np.asarray(want).dtype.kind
        ]
        assert np.asarray(got).dtype == kind


def test_bool_logic_reductions_and_indices() -> None:
    x = np.array([[0.5, np.nan, -1.0], [2.0, 2.0, -np.inf]], np.float32)
    p = np.array([[True, False, True], [False, False, True]])

    def f(x: Any, p: Any) -> Any:
        return (
            gnp.isnan(x),
            gnp.isinf(x),
            gnp.isfinite(x),
            gnp.logical_not(p),
            gnp.logical_and(p, x > 0),
            gnp.logical_or(p, x > 0),
            p ^ (x > 0),
            ~p,
            p.any(axis=1),
            p.all(axis=0),
            gnp.any(x > 1),
            gnp.all(p),
            p.sum(),
            gnp.argmax(x, axis=1),
            gnp.argmin(x),
            gnp.argmax(p, axis=0),
            gnp.prod(x, axis=1),
            p + p,
            p * p,
            p.max(axis=1),
        )

    def reference(x: Any, p: Any) -> Any:
        return (
            np.isnan(x),
            np.isinf(x),
            np.isfinite(x),
            np.logical_not(p),
            np.logical_and(p, x > 0),
            np.logical_or(p, x > 0),
            p ^ (x > 0),
            ~p,
            p.any(axis=1),
            p.all(axis=0),
            np.any(x > 1),
            np.all(p),
            p.sum(),
            np.argmax(x, axis=1),
            np.argmin(x),
            np.argmax(p, axis=0),
            np.prod(x, axis=1),
            p + p,
            p * p,
            p.max(axis=1),
        )

    with np.errstate(invalid="ignore"):
        for got, want in zip(gradopt.jit(f)(x, p), reference(x, p), strict=True):
            np.testing.assert_array_equal(got, want)


def test_nan_propagates_through_maximum_minimum_and_comparisons() -> None:
    x = np.array([np.nan, 1.0, -1.0], np.float32)
    got = gradopt.jit(lambda x: (gnp.maximum(x, 0), gnp.minimum(x, 0), x <= 0, x >= 0))(
        x
    )
    want = (np.maximum(x, 0), np.minimum(x, 0), x <= 0, x >= 0)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_array_equal(g, w)


def test_array_creation() -> None:
    def f() -> Any:
        return (
            gnp.zeros((2, 3)),
            gnp.ones(4, gnp.int32),
            gnp.full((2,), 7.5),
            gnp.zeros_like(np.ones((2, 2), np.int32)),
            gnp.ones_like(np.zeros(3, np.float32)),
            gnp.full_like(np.zeros(2, np.float32), 3),
            gnp.arange(5),
            gnp.arange(1.0, 2.0, 0.25),
            gnp.arange(2, 11, 3),
            gnp.eye(3),
            gnp.eye(2, 3, 1),
            gnp.identity(2),
            gnp.linspace(0, 1, 5),
            gnp.array([[1, 2], [3, 4]]),
            gnp.asarray([1.5, 2.5]),
            gnp.array([True, False]),
            gnp.array(np.arange(3, dtype=np.int32), dtype=gnp.float32),
        )

    want = (
        np.zeros((2, 3)),
        np.ones(4, np.int32),
        np.full((2,), 7.5),
        np.zeros((2, 2), np.int32),
        np.ones(3),
        np.full(2, 3.0),
        np.arange(5),
        np.arange(1.0, 2.0, 0.25),
        np.arange(2, 11, 3),
        np.eye(3),
        np.eye(2, 3, 1),
        np.identity(2),
        np.linspace(0, 1, 5),
        np.array([[1, 2], [3, 4]]),
        np.array([1.5, 2.5]),
        np.array([True, False]),
        np.arange(3.0),
    )
    for got, expected in zip(gradopt.jit(f)(), want, strict=True):
        np.testing.assert_array_equal(got, expected)
        assert got.dtype in (np.float32, np.int32, np.bool_)


def test_expm1_and_log1p_are_accurate_near_zero() -> None:
    x = np.array([1e-8, -3e-7, 1e-5, 0.0, 0.3, -0.49], np.float32)
    got = gradopt.jit(lambda x: (gnp.expm1(x), gnp.log1p(x)))(x)
    x64 = x.astype(np.float64)
    np.testing.assert_allclose(got[0], np.expm1(x64), rtol=4e-7, atol=0)
    np.testing.assert_allclose(got[1], np.log1p(x64), rtol=4e-7, atol=0)
    grads = gradopt.grad(lambda x: gnp.sum(gnp.expm1(x) + gnp.log1p(x)))(x)
    np.testing.assert_allclose(grads, np.exp(x64) + 1 / (1 + x64), rtol=1e-6)


def test_tanh_and_erf_are_within_a_few_ulp_everywhere() -> None:
    x = np.linspace(-10, 10, 4001, dtype=np.float32)
    tanh, erf = gradopt.jit(lambda x: (gnp.tanh(x), gnp.erf(x)))(x)
    np.testing.assert_allclose(
        tanh, np.tanh(x.astype(np.float64)), rtol=4e-7, atol=1e-7
    )
    np.testing.assert_allclose(erf, erf64(x.astype(np.float64)), rtol=0, atol=4e-7)
    small = np.array([1e-6, -2e-5, 3e-4, 1e-3], np.float32)
    got = gradopt.jit(gnp.tanh)(small)
    np.testing.assert_allclose(got, np.tanh(small.astype(np.float64)), rtol=2e-7)


def test_exp_and_log_over_their_range() -> None:
    x = np.linspace(-80, 80, 1601, dtype=np.float32)
    np.testing.assert_allclose(
        gradopt.jit(gnp.exp)(x), np.exp(x.astype(np.float64)), rtol=8e-6
    )
    y = np.geomspace(1e-30, 1e30, 601).astype(np.float32)
    np.testing.assert_allclose(
        gradopt.jit(gnp.log)(y), np.log(y.astype(np.float64)), rtol=2e-7, atol=1e-6
    )
