"""Integer and bool values under the transforms, as JAX treats them: `jvp`
takes a float0 tangent for an int32 or bool primal and gives one for such an
output, `vjp` gives float0 cotangents to integer primals, `grad` refuses an
integer argument unless `allow_int=True` (float0 zeros), and `jit` passes
float0 arrays through. Checked with plain asserts, then against JAX itself
(skipped without the `jax` extra)."""

from __future__ import annotations

import inspect
from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError

X = np.array([0.5, -1.5, 2.0], np.float32)
N = np.array([3, -1, 2], np.int32)
B = np.array([True, False, True])


def mixed(x: Any, n: Any, b: Any) -> Any:
    """Float, int and bool outputs of float, int and bool inputs."""
    return x * n, n * 2, n > 1, gnp.where(b, x * x, -x)


def line_of(marker: str) -> int:
    lines = inspect.getsource(inspect.getmodule(line_of)).splitlines()  # type: ignore[arg-type]
    return next(i for i, text in enumerate(lines, 1) if text.endswith(marker))


def raises_at(marker: str, match: str) -> Any:
    return pytest.raises(
        GradoptError, match=f"^{__file__}:{line_of(marker)}:\\d+: error: .*{match}"
    )


def test_jvp_takes_and_gives_float0_for_integer_values() -> None:
    dx = np.array([1.0, 2.0, -1.0], np.float32)
    tangents = (dx, np.zeros(3, gnp.float0), np.zeros(3, gnp.float0))
    out, t = gradopt.jvp(mixed, (X, N, B), tangents)
    np.testing.assert_array_equal(out[1], N * 2)
    np.testing.assert_array_equal(t[0], dx * N)
    np.testing.assert_array_equal(t[3], np.where(B, 2 * X * dx, -dx))
    for tangent in t[1:3]:
        assert tangent.dtype == gnp.float0 and tangent.shape == (3,)
    # a Python int primal, and a jvp traced inside jit
    _, (ts,) = gradopt.jvp(lambda k: (k * 2.5,), (4,), (np.zeros((), gnp.float0),))
    assert ts.dtype == np.float32 and ts == 0.0
    inner = gradopt.jit(
        lambda x, n, b: gradopt.jvp(mixed, (x, n, b), (x, *tangents[1:]))
    )
    _, t2 = inner(X, N, B)
    assert t2[1].dtype == gnp.float0 and t2[2].shape == (3,)
    np.testing.assert_array_equal(t2[0], X * N)


def test_jit_passes_float0_arrays_through() -> None:
    f = gradopt.jit(lambda x, z: (x + 1, z, np.zeros((2, 1), gnp.float0)))
    y, z, w = f(X, np.zeros(4, gnp.float0))
    np.testing.assert_array_equal(y, X + 1)
    assert (z.dtype, z.shape, w.dtype, w.shape) == (
        gnp.float0,
        (4,),
        gnp.float0,
        (2, 1),
    )
    (kept,) = f.compile((X, np.zeros(4, gnp.float0)), {}).module.ops
    assert len(kept.body.block.args) == 1  # the float0 array is no argument


def test_a_tangent_that_does_not_fit_its_primal_is_an_error() -> None:
    f0 = np.zeros(3, gnp.float0)
    with raises_at("# int tangent", "tangent of int32 data of shape .* float0 zeros"):
        gradopt.jvp(mixed, (X, N, B), (X, N, f0))  # int tangent
    with raises_at(
        "# float tangent", "tangent of float32 data .* for a primal of bool"
    ):
        gradopt.jvp(mixed, (X, N, B), (X, f0, X))  # float tangent
    with raises_at("# float0 tangent", "dtype float0 for a float32 value"):
        gradopt.jvp(mixed, (X, N, B), (f0, f0, f0))  # float0 tangent
    with raises_at("# short float0", r"a float0 array of shape \(2,\) for a primal"):
        gradopt.jvp(mixed, (X, N, B), (X, f0[:2], f0))  # short float0


def test_grad_and_vjp_of_integer_arguments() -> None:
    def loss(x: Any, n: Any) -> Any:
        return gnp.sum(x * n)

    with raises_at("# int argnum", "argument 1 holds int32 data: .*allow_int=True"):
        gradopt.grad(loss, argnums=(0, 1))(X, N)  # int argnum
    gx, gn = gradopt.grad(loss, argnums=(0, 1), allow_int=True)(X, N)
    np.testing.assert_array_equal(gx, N.astype(np.float32))
    assert gn.dtype == gnp.float0 and gn.shape == (3,)
    value, (_, gn) = gradopt.value_and_grad(loss, (0, 1), allow_int=True)(X, N)
    assert value == np.sum(X * N) and gn.dtype == gnp.float0
    _, pullback = gradopt.vjp(mixed, X, N, B)
    f0 = np.zeros(3, gnp.float0)
    for ignored in (f0, N):  # an integer output's cotangent counts for nothing
        cx, cn, cb = pullback((np.ones(3, np.float32), ignored, f0, X))
        np.testing.assert_array_equal(cx, N + np.where(B, 2 * X * X, -X))
        assert cn.dtype == cb.dtype == gnp.float0
    with raises_at("# float0 cotangent", "cotangent of dtype float0 for a float32"):
        pullback((f0, f0, f0, X))  # float0 cotangent


def test_integer_values_as_jax_treats_them() -> None:
    jax = import_jax()
    assert gnp.float0 == jax.dtypes.float0
    jnp = jax.numpy

    def reference(x: Any, n: Any, b: Any) -> Any:
        return x * n, n * 2, n > 1, jnp.where(b, x * x, -x)

    dx = np.array([1.0, 2.0, -1.0], np.float32)
    f0 = np.zeros(3, jax.dtypes.float0)  # JAX's own float0 arrays are taken
    _, ours = gradopt.jvp(mixed, (X, N, B), (dx, f0, f0))
    _, theirs = jax.jvp(reference, (X, N, B), (dx, f0, f0))
    for a, b in zip(ours, theirs, strict=True):
        assert a.dtype == b.dtype and a.shape == b.shape
        if a.dtype == np.float32:
            np.testing.assert_allclose(a, b, rtol=1e-6)
    for bad in ((dx, N, f0), (dx, f0, dx), (f0, f0, f0)):  # refused by both
        with pytest.raises(TypeError):
            jax.jvp(reference, (X, N, B), bad)
        with pytest.raises(GradoptError):
            gradopt.jvp(mixed, (X, N, B), bad)

    def loss(x: Any, n: Any) -> Any:
        return (x * n).sum()

    with pytest.raises(TypeError):
        jax.grad(loss, argnums=1)(X, N)
    theirs = jax.grad(loss, argnums=(0, 1), allow_int=True)(X, N)
    ours = gradopt.grad(loss, argnums=(0, 1), allow_int=True)(X, N)
    np.testing.assert_allclose(ours[0], theirs[0])
    assert ours[1].dtype == theirs[1].dtype and ours[1].shape == theirs[1].shape
    ct = (dx, f0, f0, X)
    ours = gradopt.vjp(mixed, X, N, B)[1](ct)
    theirs = jax.vjp(reference, X, N, B)[1](ct)
    np.testing.assert_allclose(ours[0], theirs[0], rtol=1e-6)
    assert [c.dtype for c in ours[1:]] == [c.dtype for c in theirs[1:]]
