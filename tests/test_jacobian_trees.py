"""`jacfwd`, `jacrev` and `hessian` of functions of trees (JAX's nesting: the
output's structure outside, the differentiated arguments' inside), with
`has_aux` and `argnums` tuples; `grad`/`value_and_grad`/`jvp` with `has_aux`; and
`custom_vjp`/`custom_jvp` with `nondiff_argnums` (a function fixed at trace
time, an array passed through without a derivative). Against JAX in
float64 (skipped without the `jax` extra); each side is one trace."""

from __future__ import annotations

import functools
from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError

RNG = np.random.default_rng(3)
PARAMS = {
    "w": RNG.standard_normal((3, 2)).astype(np.float32),
    "b": RNG.standard_normal(2).astype(np.float32),
}
X = RNG.standard_normal((2, 3)).astype(np.float32)


def model(xp: Any) -> Any:
    def f(p: Any, x: Any) -> Any:
        h = xp.tanh(x @ p["w"] + p["b"])
        return {"h": h, "s": (xp.sum(h * h), h[0])}, xp.sum(x * x)

    return f


TRANSFORMS = [("jacfwd", (0, 1)), ("jacrev", (0, 1)), ("jacfwd", 0)]


def _all(api: Any, xp: Any) -> Any:
    f = model(xp)

    def run(p: Any, x: Any) -> Any:
        out = [
            getattr(api, name)(f, argnums=argnums, has_aux=True)(p, x)
            for name, argnums in TRANSFORMS
        ]

        def scalar(p: Any, x: Any) -> Any:
            out, aux = f(p, x)
            return out["s"][0], aux

        out.append(api.hessian(scalar, has_aux=True)(p, x))
        out.append(api.value_and_grad(scalar, argnums=(0, 1), has_aux=True)(p, x))
        out.append(api.jvp(lambda p: f(p, x), (p,), (p,), has_aux=True))
        return out

    return run


def _same(got: Any, want: Any, jax: Any) -> None:
    got_leaves, got_tree = jax.tree_util.tree_flatten(got)
    want_leaves, want_tree = jax.tree_util.tree_flatten(want)
    assert got_tree == want_tree
    for g, w in zip(got_leaves, want_leaves, strict=True):
        assert np.shape(g) == np.shape(w)
        np.testing.assert_allclose(g, np.asarray(w), rtol=2e-4, atol=2e-5)


def test_jacobians_of_trees_match_float64_jax() -> None:
    jax = import_jax()
    got = gradopt.jit(_all(gradopt, gnp))(PARAMS, X)
    with jax.enable_x64(True):
        p64 = {k: v.astype(np.float64) for k, v in PARAMS.items()}
        want = jax.jit(_all(jax, jax.numpy))(p64, X.astype(np.float64))
    _same(got, want, jax)


def test_jacobian_mistakes_are_located() -> None:
    located = r"test_jacobian_trees.py:\d+:\d+: error: jacrev: the differentiated"
    with pytest.raises(GradoptError, match=located):
        gradopt.jacrev(lambda x, i: x * i, argnums=(0, 1))(X, np.int32(2))
    with pytest.raises(
        GradoptError, match="has_aux=True: the function must return a pair"
    ):
        gradopt.jacfwd(lambda x: x, has_aux=True)(X)


def _custom(api: Any, xp: Any) -> Any:
    @functools.partial(api.custom_vjp, nondiff_argnums=(0, 2))
    def apply(f: Any, x: Any, scale: Any) -> Any:
        return f(x) * scale

    def fwd(f: Any, x: Any, scale: Any) -> Any:
        return apply(f, x, scale), x

    def bwd(f: Any, scale: Any, x: Any, g: Any) -> Any:
        return (g * 3.0 * f(x) * scale,)  # deliberately not the derivative

    apply.defvjp(fwd, bwd)

    @functools.partial(api.custom_jvp, nondiff_argnums=(1,))
    def power(x: Any, k: Any, y: Any) -> Any:
        return x**k * y

    @power.defjvp
    def power_jvp(k: Any, primals: Any, tangents: Any) -> Any:
        (x, y), (tx, ty) = primals, tangents
        return power(x, k, y), 2.0 * k * x ** (k - 1) * y * tx + x**k * ty

    def loss(x: Any, y: Any) -> Any:
        return xp.sum(apply(xp.sin, x, 0.5) * y) + xp.sum(power(x, 3, y))

    def run(x: Any, y: Any) -> Any:
        grads = api.grad(loss, argnums=(0, 1))(x, y)
        tangent = api.jvp(lambda x: power(x, 2, y), (x,), (y,))[1]
        return grads, tangent, apply(xp.cos, x, 2.0)

    return run


def test_custom_rules_with_nondiff_argnums_match_float64_jax() -> None:
    jax = import_jax()
    x, y = RNG.standard_normal((2, 5)).astype(np.float32)
    got = gradopt.jit(_custom(gradopt, gnp))(x, y)
    with jax.enable_x64(True):
        want = jax.jit(_custom(jax, jax.numpy))(x.astype(np.float64), y.astype(float))
    _same(got, want, jax)


def test_nondiff_arrays_and_eager_calls() -> None:
    """An array among `nondiff_argnums` (which JAX refuses in `custom_vjp`) is
    an operand without a cotangent; outside a trace, the function and a
    static argument are one `jit`."""

    @functools.partial(gradopt.custom_vjp, nondiff_argnums=(0, 2))
    def apply(f: Any, x: Any, scale: Any) -> Any:
        return f(x) * scale

    apply.defvjp(lambda f, x, s: (apply(f, x, s), s), lambda f, s, r, g: (g * r,))
    x, y = RNG.standard_normal((2, 5)).astype(np.float32)
    np.testing.assert_allclose(apply(gnp.cos, x, y), np.cos(x) * y, rtol=1e-6)
    grads = gradopt.grad(lambda x, y: gnp.sum(apply(gnp.sin, x, y)), (0, 1))(x, y)
    np.testing.assert_array_equal(grads[0], y)
    np.testing.assert_array_equal(grads[1], np.zeros(5))
