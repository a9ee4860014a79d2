"""`custom_vjp`, `custom_jvp` and `from_jax` of JAX's custom rules: the rule
the user gives is what gets differentiated (SPEC §3.7), in both modes, also
when it is deliberately not the primal's derivative."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError


@gradopt.custom_vjp
def clip_gradient(lo: Any, hi: Any, x: Any) -> Any:
    return x


def _clip_fwd(lo: Any, hi: Any, x: Any) -> Any:
    return x, (lo, hi)


def _clip_bwd(residuals: Any, g: Any) -> Any:
    lo, hi = residuals
    return (None, None, gnp.clip(g, lo, hi))


clip_gradient.defvjp(_clip_fwd, _clip_bwd)


@gradopt.custom_jvp
def log1pexp(x: Any) -> Any:
    return gnp.log(1.0 + gnp.exp(x))


@log1pexp.defjvp
def _log1pexp_jvp(primals: Any, tangents: Any) -> Any:
    (x,), (t,) = primals, tangents
    return log1pexp(x), (1 - 1 / (1 + gnp.exp(x))) * t


@gradopt.custom_jvp
def twice_sin(x: Any) -> Any:
    """sin, whose rule says its derivative is 2 (not cos)."""
    return gnp.sin(x)


@twice_sin.defjvp
def _twice_sin_jvp(primals: Any, tangents: Any) -> Any:
    return twice_sin(primals[0]), 2.0 * tangents[0]


def test_custom_vjp_clips_the_gradient_and_refuses_forward_mode() -> None:
    weights = np.array([10.0, -3.0, 0.5], np.float32)

    def loss(x: Any) -> Any:
        return gnp.sum(clip_gradient(-1.0, 1.0, x) * weights)

    x = np.array([2.0, -3.0, 0.05], np.float32)
    assert clip_gradient(-1.0, 1.0, np.float32(3.0)) == 3.0  # eager: the primal
    np.testing.assert_array_equal(gradopt.grad(loss)(x), [1.0, -1.0, 0.5])
    with pytest.raises(GradoptError, match=r"'grad\.custom' has no jvp"):
        gradopt.jvp(loss, (x,), (x,))


def test_custom_jvp_is_honoured_in_both_modes_and_transposed_for_reverse() -> None:
    x = np.array([100.0, 3.0, -2.0], np.float32)
    sigmoid = 1 / (1 + np.exp(-x.astype(np.float64)))
    grads = gradopt.grad(lambda x: gnp.sum(log1pexp(x)))(x)
    np.testing.assert_allclose(grads, sigmoid, rtol=1e-6)  # 1.0 at 100, not NaN
    _, tangent = gradopt.jvp(log1pexp, (x,), (np.ones(3, np.float32),))
    np.testing.assert_allclose(tangent, sigmoid, rtol=1e-6)
    rng = np.random.default_rng(0)
    for _ in range(3):
        y, t = rng.normal(size=(2, 4)).astype(np.float32)
        np.testing.assert_array_equal(
            gradopt.grad(lambda y: gnp.sum(twice_sin(y)))(y), np.full(4, 2.0)
        )
        np.testing.assert_array_equal(gradopt.jvp(twice_sin, (y,), (t,))[1], 2 * t)


def test_a_derivative_of_a_custom_derivative() -> None:
    """The rule's ops are copied into the derivative, so they can be
    differentiated again: log1pexp'' = s(1 - s)."""
    x = np.array([0.5, -1.0], np.float32)
    second = gradopt.grad(
        lambda x: gnp.sum(gradopt.grad(lambda y: gnp.sum(log1pexp(y)))(x))
    )
    s = 1 / (1 + np.exp(-x.astype(np.float64)))
    np.testing.assert_allclose(second(x), s * (1 - s), rtol=1e-5)


def test_custom_functions_under_vmap_and_the_jacobians() -> None:
    """Batched, a custom op calls batched copies of its functions."""
    xs = np.array([[0.5, -1.0], [2.0, 3.0]], np.float32)
    np.testing.assert_allclose(
        gradopt.vmap(log1pexp)(xs), np.log1p(np.exp(xs.astype(np.float64))), rtol=1e-6
    )
    per_row = gradopt.vmap(gradopt.grad(lambda x: gnp.sum(twice_sin(x))))(xs)
    np.testing.assert_array_equal(per_row, np.full((2, 2), 2.0))
    np.testing.assert_array_equal(gradopt.jacrev(twice_sin)(xs[0]), 2 * np.eye(2))
    np.testing.assert_array_equal(gradopt.jacfwd(twice_sin)(xs[0]), 2 * np.eye(2))


def test_trees_several_results_and_integer_operands() -> None:
    @gradopt.custom_vjp
    def scaled(params: Any, n: Any) -> Any:
        return params["a"] * params["b"], params["b"] + n

    def fwd(params: Any, n: Any) -> Any:
        return scaled(params, n), params

    def bwd(params: Any, cts: Any) -> Any:
        g_prod, g_sum = cts
        return ({"a": 3.0 * g_prod, "b": g_sum}, None)

    scaled.defvjp(fwd, bwd)

    def loss(params: Any) -> Any:
        prod, total = scaled(params, np.int32(2))
        return gnp.sum(prod) + 2.0 * gnp.sum(total)

    params = {"a": np.ones(3, np.float32), "b": np.full(3, 5.0, np.float32)}
    grads = gradopt.grad(loss)(params)
    np.testing.assert_array_equal(grads["a"], np.full(3, 3.0))
    np.testing.assert_array_equal(grads["b"], np.full(3, 2.0))


def test_mistakes_in_rules_are_located_errors() -> None:
    @gradopt.custom_vjp
    def f(x: Any) -> Any:
        return x * 2.0

    with pytest.raises(GradoptError, match="call defvjp"):
        gradopt.grad(lambda x: gnp.sum(f(x)))(np.ones(2, np.float32))
    f.defvjp(lambda x: (f(x), None), lambda res, g: (g, g))
    with pytest.raises(GradoptError, match="tuple of 1 cotangents"):
        gradopt.grad(lambda x: gnp.sum(f(x)))(np.ones(2, np.float32))


def test_from_jax_honours_custom_jvp_and_custom_vjp_rules() -> None:
    jax = import_jax()
    jnp = jax.numpy

    x = np.array([-1.0, 0.0, 2.0], np.float32)
    relu = gradopt.from_jax(lambda x: jax.nn.relu(x).sum(), x)
    np.testing.assert_array_equal(gradopt.grad(relu)(x), [0.0, 0.0, 1.0])
    np.testing.assert_array_equal(
        gradopt.jvp(relu, (x,), (np.ones(3, np.float32),))[1], 1.0
    )

    @jax.custom_jvp
    def jlog1pexp(x: Any) -> Any:
        return jnp.log(1.0 + jnp.exp(x))

    @jlog1pexp.defjvp
    def jlog1pexp_jvp(primals: Any, tangents: Any) -> Any:
        (x,), (t,) = primals, tangents
        return jlog1pexp(x), (1 - 1 / (1 + jnp.exp(x))) * t

    big = np.float32(100.0)
    assert gradopt.grad(gradopt.from_jax(jlog1pexp, big))(big) == 1.0

    @jax.custom_vjp
    def jclip(lo: Any, hi: Any, x: Any) -> Any:
        return x

    jclip.defvjp(
        lambda lo, hi, x: (x, (lo, hi)),
        lambda res, g: (None, None, jnp.clip(g, *res)),
    )

    def clipped(x: Any) -> Any:
        return jclip(-1.0, 1.0, x) * 10.0

    two = np.float32(2.0)  # JAX's gradient: clip(10, -1, 1) = 1
    assert gradopt.grad(gradopt.from_jax(clipped, two))(two) == 1.0
