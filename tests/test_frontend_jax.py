"""`gradopt.from_jax`: values and gradients of functions of `jax.nn` and
`jax.numpy` against JAX's own (`jax.grad`), forward mode against `jax.jvp`,
and a located error for a primitive gradopt has no counterpart for. Skipped
without the `jax` extra."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from frontend_checks import f32, import_jax

import gradopt
from gradopt import GradoptError

jax = import_jax()
jnp = jax.numpy

W = f32(3, 4, low=0.5, high=1.5)


def weighted(f: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """A scalar loss from `f`: `sum(f(x) · W)`, so that the gradient is a
    general vector-Jacobian product."""
    return lambda x: jnp.sum(f(x) * W)


def total(*fs: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """The sum of several functions of the same shape: one case (and one XLA
    compile for the reference, which is most of this file's time) checks
    several functions at once."""
    return lambda x: sum(f(x) for f in fs)


FUNCTIONS: dict[str, Callable[[Any], Any]] = {
    "nn.relu relu6 hard_tanh": total(jax.nn.relu, jax.nn.relu6, jax.nn.hard_tanh),
    "nn.sigmoid log_sigmoid": total(jax.nn.sigmoid, jax.nn.log_sigmoid),
    "nn.softplus soft_sign squareplus": total(
        jax.nn.softplus, jax.nn.soft_sign, jax.nn.squareplus
    ),
    "nn.silu mish": total(jax.nn.silu, jax.nn.mish),
    "nn.gelu (tanh and erf)": total(
        jax.nn.gelu, lambda x: jax.nn.gelu(x, approximate=False)
    ),
    "nn.elu celu selu leaky_relu": total(
        jax.nn.elu, jax.nn.celu, jax.nn.selu, jax.nn.leaky_relu
    ),
    "nn.softmax log_softmax": total(
        jax.nn.softmax, lambda x: jax.nn.log_softmax(x, axis=0)
    ),
    "nn.logsumexp standardize": total(
        lambda x: jax.nn.logsumexp(x, axis=1, keepdims=True), jax.nn.standardize
    ),
    "nn.one_hot": lambda x: jax.nn.one_hot(jnp.array([0, 3, 1]), 4) * x,
    "numpy.tanh exp log sqrt reciprocal": total(
        jnp.tanh,
        jnp.exp,
        lambda x: jnp.log(x * x + 0.5),
        lambda x: jnp.sqrt(jnp.abs(x) + 0.1),
        lambda x: jnp.reciprocal(x * x + 1),
    ),
    "numpy.sin cos sinh cosh expm1 log1p": total(
        lambda x: jnp.sin(x) * jnp.cos(2 * x),
        lambda x: jnp.sinh(x) - jnp.cosh(x / 2),
        lambda x: jnp.expm1(x) + jnp.log1p(x * x),
    ),
    "numpy.power square sign abs": total(
        lambda x: x**3 - jnp.abs(x) ** 2.5 + jnp.square(x),
        lambda x: jnp.sign(x) * jnp.abs(x) ** 3,
        lambda x: jax.lax.integer_pow(x, 5),
    ),
    "numpy.where clip maximum minimum logaddexp": total(
        lambda x: jnp.where(x > 0, jnp.clip(x, 0.2, 0.8), x * x),
        lambda x: jnp.maximum(x, 0.3) + jnp.minimum(x, -0.2),
        lambda x: jnp.logaddexp(x, 2 * x),
    ),
    "numpy.mean var std max linalg.norm": total(
        lambda x: jnp.mean(x, 0) * jnp.var(x) + jnp.std(x, 1)[:, None],
        lambda x: jnp.max(x, axis=1, keepdims=True) * x,
        lambda x: jnp.linalg.norm(x, axis=1, keepdims=True),
    ),
    "numpy.matmul einsum tensordot outer": total(
        lambda x: x @ x.T @ x,
        lambda x: jnp.einsum("ij,kj->ik", x, x) @ x,
        lambda x: x @ jnp.tensordot(x, x, axes=((0,), (0,))),
        lambda x: jnp.outer(x.sum(1), x.sum(0)),
    ),
    "numpy.reshape transpose expand_dims squeeze broadcast_to": total(
        lambda x: (x.reshape(2, 6).T.reshape(4, 3).T) ** 2,
        lambda x: jnp.squeeze(jnp.expand_dims(x, 0) ** 2, 0),
        lambda x: jnp.broadcast_to(x.sum(0), (3, 4)) * x,
    ),
    "lax.stop_gradient rsqrt erf erfc": total(
        lambda x: jax.lax.stop_gradient(x) * x,
        lambda x: jax.lax.rsqrt(x * x + 1),
        lambda x: jax.lax.erf(x) + jax.scipy.special.erfc(x / 2),
    ),
}
"""Over 20 functions of `jax.nn` and `jax.numpy` (and a few of `jax.lax`)."""


@pytest.mark.parametrize("name", FUNCTIONS)
def test_value_and_gradient_agree_with_jax(name: str) -> None:
    loss = weighted(FUNCTIONS[name])
    x = f32(3, 4)
    x[np.abs(x) < 0.05] = 0.25  # no kinks exactly at a sample
    traced = gradopt.from_jax(loss, x)
    value, grad = jax.jit(jax.value_and_grad(loss))(x)  # one XLA compile
    np.testing.assert_allclose(gradopt.jit(traced)(x), value, rtol=2e-6, atol=1e-5)
    np.testing.assert_allclose(gradopt.grad(traced)(x), grad, rtol=2e-5, atol=2e-6)


def test_forward_mode_and_a_hessian_vector_product_agree_with_jax() -> None:
    def f(x: Any) -> Any:
        return jnp.sum(jnp.tanh(x @ x.T) * jax.nn.softplus(x).sum())

    x, v = f32(3, 4), f32(3, 4)
    traced = gradopt.from_jax(f, x)
    out, tangent = gradopt.jvp(traced, (x,), (v,))
    want_out, want_tangent = jax.jit(lambda x, v: jax.jvp(f, (x,), (v,)))(x, v)
    np.testing.assert_allclose(out, want_out, rtol=2e-6)
    np.testing.assert_allclose(tangent, want_tangent, rtol=2e-5)
    _, hvp = gradopt.jvp(gradopt.grad(traced), (x,), (v,))
    _, want_hvp = jax.jit(lambda x, v: jax.jvp(jax.grad(f), (x,), (v,)))(x, v)
    scale = np.abs(want_hvp).max()  # float32 sums of terms of this size
    np.testing.assert_allclose(hvp, want_hvp, rtol=1e-4, atol=2e-6 * scale)


def test_trees_in_and_out_and_other_signatures() -> None:
    def f(params: Any, x: Any) -> Any:
        hidden = jax.nn.relu(x @ params["w"] + params["b"])
        return {"loss": jnp.mean(hidden**2), "hidden": hidden}

    params = {"w": f32(4, 3), "b": f32(3)}
    x = f32(5, 4)
    traced = gradopt.from_jax(f, params, x)
    out = traced(params, x)
    want = jax.jit(f)(params, x)
    assert set(out) == {"loss", "hidden"}
    np.testing.assert_allclose(out["hidden"], want["hidden"], rtol=2e-6)
    g = gradopt.grad(lambda p, x: traced(p, x)["loss"])(params, x)
    want_g = jax.jit(jax.grad(lambda p, x: f(p, x)["loss"]))(params, x)
    for key in ("w", "b"):
        np.testing.assert_allclose(g[key], want_g[key], rtol=2e-5, atol=1e-7)
    other = f32(2, 4)  # a signature the examples did not have: a new jaxpr
    np.testing.assert_allclose(traced(params, other)["loss"], f(params, other)["loss"])


def test_python_numbers_jit_and_a_batched_free_dot_general() -> None:
    def f(x: Any, scale: Any) -> Any:
        return jnp.einsum("ij,jk->ik", x, x.T) * scale

    x = f32(3, 4)
    traced = gradopt.jit(gradopt.from_jax(f, x, 2.0))
    np.testing.assert_allclose(traced(x, 3.0), f(x, 3.0), rtol=2e-6)
    assert "grad.dot" in traced.lower(x, 3.0).as_text()


def test_an_unsupported_primitive_is_named_at_its_line() -> None:
    def f(x: Any) -> Any:
        return jax.scipy.special.digamma(x)  # digamma here

    line = next(
        i
        for i, text in enumerate(Path(__file__).read_text().splitlines(), 1)
        if text.endswith("# digamma here")
    )
    with pytest.raises(
        GradoptError, match="the JAX primitive 'digamma' has no gradopt"
    ) as e:
        gradopt.from_jax(f, f32(3))
    assert str(e.value).startswith(f"{__file__}:{line}:")


def test_a_float64_example_is_refused() -> None:
    with pytest.raises(GradoptError, match="not float64"):
        gradopt.from_jax(jnp.sin, np.ones(3))


def test_without_jax_from_jax_says_how_to_install_it(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "jax", None)
    with pytest.raises(GradoptError, match=r"pip install 'gradopt\[jax\]'"):
        gradopt.from_jax(lambda x: x, f32(2))
