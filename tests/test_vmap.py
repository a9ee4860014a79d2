"""`vmap`, `jacfwd`, `jacrev` and `hessian`: a batched function equals the
loop of its calls, the two Jacobians agree with each other and with the
closed forms, and the transforms nest inside and around `grad` and `jit`.

The properties draw few examples by default (`GRADOPT_PROPERTY_EXAMPLES`
sets the number, as in `test_properties.py`); each compiles a module."""

from __future__ import annotations

import os
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt import GradoptError

EXAMPLES = max(1, int(os.environ.get("GRADOPT_PROPERTY_EXAMPLES", "50")) // 16)

PROPERTY = settings(
    max_examples=EXAMPLES,
    deadline=None,
    derandomize=not os.environ.get("GRADOPT_PROPERTY_RANDOM"),
    database=None,
    suppress_health_check=[HealthCheck.too_slow],
)

M = np.linspace(-1, 1, 12, dtype=np.float32).reshape(3, 4)


def _ops(x: Any) -> Any:
    """Every shape op and some elementwise ones, on a (3, 4) example."""
    y = gnp.concatenate([x[:, ::2], gnp.flip(x, 1)[1:, :2].reshape(2, 2).T], axis=0)
    z = gnp.pad(y, ((1, 0), (0, 1))) + gnp.where(y > 0, y, -2.0 * y).max()
    counts = (x > 0).astype(np.int32) * 3 // 2
    return gnp.sum(z * z, axis=0), counts.T, gnn.softmax(x, axis=-1) @ M.T


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "matmul by a constant": lambda x: gnp.tanh(x @ M.T),
    "constant times a batch": lambda x: M.T @ x,
    "batched matmul": lambda x: x @ x.T,
    "shape ops": _ops,
}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
@PROPERTY
@given(
    size=st.integers(1, 4),
    axis=st.integers(0, 2),
    seed=st.integers(0, 2**16),
)
def test_vmap_equals_a_loop_of_calls(
    name: str, size: int, axis: int, seed: int
) -> None:
    f = FUNCTIONS[name]
    examples = np.random.default_rng(seed).normal(size=(size, 3, 4)).astype(np.float32)
    batch = np.moveaxis(examples, 0, axis)
    got = gradopt.vmap(f, in_axes=axis)(batch)
    calls = [gradopt.jit(f)(e) for e in examples]
    got_leaves = got if isinstance(got, tuple) else (got,)
    call_leaves = [c if isinstance(c, tuple) else (c,) for c in calls]
    for k, g in enumerate(got_leaves):
        w = np.stack([c[k] for c in call_leaves])
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_allclose(g, w, rtol=1e-6, atol=1e-6)


def test_in_axes_out_axes_keywords_and_nesting() -> None:
    a, b = np.arange(3, dtype=np.float32), np.arange(4, dtype=np.float32)
    outer = gradopt.vmap(gradopt.vmap(lambda x, y: x * y, (None, 0)), (0, None))
    np.testing.assert_array_equal(outer(a, b), np.outer(a, b))
    x = np.arange(6, dtype=np.float32).reshape(2, 3)

    def f(x: Any, w: Any, *, s: Any) -> Any:
        return {"sum": (x * w).sum() + s, "same": w}

    out = gradopt.vmap(f, in_axes=(1, None), out_axes={"sum": 0, "same": None})(
        x, np.float32(2.0), s=np.ones(3, np.float32)
    )
    np.testing.assert_array_equal(out["sum"], 2 * x.sum(axis=0) + 1)
    assert out["same"] == 2.0
    moved = gradopt.vmap(lambda r: r * 2.0, in_axes=0, out_axes=1)(x)
    np.testing.assert_array_equal(moved, 2 * x.T)
    # traced once for the whole batch: one product for seven examples
    text = gradopt.vmap(FUNCTIONS["batched matmul"]).lower(
        np.ones((7, 3, 4), np.float32)
    )
    assert text.as_text().count("grad.dot") == 1


def test_vmap_inside_and_around_grad_and_jit() -> None:
    rng = np.random.default_rng(1)
    w = rng.normal(size=(4, 2)).astype(np.float32)
    xs = rng.normal(size=(5, 4)).astype(np.float32)

    def loss(w: Any, x: Any) -> Any:
        return gnp.sum(gnp.tanh(x @ w) ** 2)

    per_example = gradopt.jit(gradopt.vmap(gradopt.grad(loss), (None, 0)))(w, xs)
    loop = np.stack([gradopt.grad(loss)(w, x) for x in xs])
    np.testing.assert_allclose(per_example, loop, rtol=1e-6, atol=1e-7)
    total = gradopt.grad(lambda w: gradopt.vmap(loss, (None, 0))(w, xs).sum())(w)
    np.testing.assert_allclose(total, loop.sum(axis=0), rtol=1e-5, atol=1e-6)
    inner_jit = gradopt.vmap(gradopt.jit(loss), (None, 0))(w, xs)
    np.testing.assert_allclose(inner_jit, [loss_value(w, x) for x in xs], rtol=1e-6)


def loss_value(w: np.ndarray, x: np.ndarray) -> float:
    return float(np.sum(np.tanh(x @ w) ** 2))


@PROPERTY
@given(seed=st.integers(0, 2**16), n=st.integers(1, 4))
def test_jacrev_equals_jacfwd(seed: int, n: int) -> None:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=n).astype(np.float32)
    a = rng.normal(size=(n, 3)).astype(np.float32)

    def f(x: Any) -> Any:
        return gnp.sin(x @ a) * gnp.sum(x * x), gnp.exp(x)

    forward, reverse = gradopt.jacfwd(f)(x), gradopt.jacrev(f)(x)
    for fw, rv, shape in zip(forward, reverse, [(3, n), (n, n)], strict=True):
        assert fw.shape == rv.shape == shape
        np.testing.assert_allclose(fw, rv, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(forward[1], np.diag(np.exp(x)), rtol=1e-6)


def test_hessian_and_jacobians_of_several_arguments() -> None:
    x = np.array([0.5, -1.0, 2.0], np.float32)
    hess = gradopt.hessian(lambda x: gnp.sum(gnp.sin(x) * x))(x)
    want = np.diag(2 * np.cos(x) - x * np.sin(x))
    np.testing.assert_allclose(hess, want, rtol=1e-5, atol=1e-6)
    y = np.array([[1.0, 2.0]], np.float32)
    jx, jy = gradopt.jacrev(lambda x, y: x[:2] * y[0], argnums=(0, 1))(x, y)
    assert jx.shape == (2, 3) and jy.shape == (2, 1, 2)
    np.testing.assert_array_equal(jx, [[1, 0, 0], [0, 2, 0]])
    np.testing.assert_array_equal(jy[:, 0, :], np.diag(x[:2]))


def test_mistakes_are_located_errors() -> None:
    with pytest.raises(GradoptError, match="one size, got 2, 3"):
        gradopt.vmap(lambda a, b: a + b)(np.ones(2, np.float32), np.ones(3, np.float32))
    with pytest.raises(
        GradoptError, match="out_axes is None for an output that is batched"
    ):
        gradopt.vmap(lambda a: a * 2.0, out_axes=None)(np.ones(2, np.float32))
    with pytest.raises(GradoptError, match="in_axes has 1 entries for 2 arguments"):
        ones = np.ones(2, np.float32)
        gradopt.vmap(lambda a, b: a, in_axes=(0,))(ones, ones)
    with pytest.raises(GradoptError, match="float32"):
        gradopt.jacrev(lambda n: n * 2)(np.ones(2, np.int32))
