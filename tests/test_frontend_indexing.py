"""Indexing and sorting in the front end (SPEC §9, `frontend/selection.py`):
values against NumPy, gradients and tangents against JAX in float64 (skipped
without the `jax` extra), the special cases (repeated indices, ties, NaN,
empty index arrays, negative and out-of-range indices), and the O(1) trace
of `arange` and `one_hot` through `grad.iota`."""

from __future__ import annotations

import importlib.util
import tracemalloc
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import central_difference, import_jax

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt import GradoptError

X = np.array(
    [[0.5, -1.0, 2.0, 2.0], [3.0, 0.25, -0.0, 0.0], [-2.0, 1.5, 1.5, -3.0]],
    np.float32,
)
IDX = np.array([2, 0, -1, 0], np.int32)
IDX2 = np.array([[1, -4], [3, 3]], np.int32)

# name: (gradopt function, NumPy reference); each takes x and the two indices
CASES: dict[str, tuple[Callable[..., Any], Callable[..., Any]]] = {
    "x[idx]": (lambda x, i, j: x[i[:3]], lambda x, i, j: x[i[:3]]),
    "x[:, idx2]": (lambda x, i, j: x[:, j], lambda x, i, j: x[:, j]),
    "x[1:, idx2] basic and advanced": (
        lambda x, i, j: x[1:, None, j],
        lambda x, i, j: x[1:, None, j],
    ),
    "x[static list]": (lambda x, i, j: x[[0, -1, 0]], lambda x, i, j: x[[0, -1, 0]]),
    "x[..., static]": (
        lambda x, i, j: x[..., np.array([3, 1])],
        lambda x, i, j: x[..., np.array([3, 1])],
    ),
    "take flat": (
        lambda x, i, j: gnp.take(x, j),
        lambda x, i, j: np.take(x, np.where(j < 0, j + x.size, j)),
    ),
    "take axis 1 clip": (
        lambda x, i, j: gnp.take(x, np.array([-9, 9, 1, -1]), axis=1, mode="clip"),
        lambda x, i, j: np.take(x, [-9, 9, 1, -1], axis=1, mode="clip"),
    ),
    "take traced clip": (
        lambda x, i, j: gnp.take(x, j * 3, axis=0, mode="clip"),
        lambda x, i, j: np.take(x, j * 3, axis=0, mode="clip"),
    ),
    "take axis 1 wrap": (
        lambda x, i, j: gnp.take(x, i + 5, axis=1, mode="wrap"),
        lambda x, i, j: np.take(x, i + 5, axis=1, mode="wrap"),
    ),
    "take_along_axis 1": (
        lambda x, i, j: gnp.take_along_axis(x, gnp.argsort(x, axis=1), axis=1),
        lambda x, i, j: np.take_along_axis(x, np.argsort(x, 1, kind="stable"), 1),
    ),
    "take_along_axis 0 broadcast": (
        lambda x, i, j: gnp.take_along_axis(x, np.array([[2], [0]]), axis=0),
        lambda x, i, j: np.take_along_axis(x, np.array([[2], [0]]), axis=0),
    ),
    "sort axis 0": (
        lambda x, i, j: gnp.sort(x, axis=0),
        lambda x, i, j: np.sort(x, axis=0, kind="stable"),
    ),
    "sort None": (
        lambda x, i, j: gnp.sort(x, axis=None),
        lambda x, i, j: np.sort(x, None, kind="stable"),
    ),
    "tril -1": (lambda x, i, j: gnp.tril(x, -1), lambda x, i, j: np.tril(x, -1)),
    "triu 1": (lambda x, i, j: gnp.triu(x, 1), lambda x, i, j: np.triu(x, 1)),
    "at add repeated": (
        lambda x, i, j: x.at[i].add(10.0),
        lambda x, i, j: _add_at(x, i, 10.0),
    ),
    "at set repeated, last wins": (
        lambda x, i, j: x.at[:, i].set(np.arange(4.0, dtype=np.float32)),
        lambda x, i, j: _set_at(x, i),
    ),
    "at set traced index": (
        lambda x, i, j: x.at[1, j].set(-0.0),
        lambda x, i, j: _set_row(x, 1, j, -0.0),
    ),
    "at multiply repeated": (
        lambda x, i, j: x.at[0, [1, 1, 2]].multiply(np.float32([3.0, 5.0, 0.5])),
        lambda x, i, j: _multiply_row(x, 0, [1, 1, 2], [3.0, 5.0, 0.5]),
    ),
    "at get": (lambda x, i, j: x.at[:, j].get(), lambda x, i, j: x[:, j]),
}


def _add_at(x: np.ndarray, i: np.ndarray, v: float) -> np.ndarray:
    y = x.copy()
    np.add.at(y, i, v)
    return y


def _set_at(x: np.ndarray, i: np.ndarray) -> np.ndarray:
    y = x.copy()
    y[:, i] = np.arange(4.0)  # NumPy: the last of a repeated index wins
    return y


def _set_row(x: np.ndarray, row: int, j: np.ndarray, v: float) -> np.ndarray:
    y = x.copy()
    y[row, j] = v
    return y


def _multiply_row(x: np.ndarray, row: int, at: list[int], v: list[float]) -> np.ndarray:
    y = x.copy()
    np.multiply.at(y[row], at, np.asarray(v, y.dtype))
    return y


def test_values_match_numpy() -> None:
    """All cases in one traced function (one trace, one run)."""
    names = list(CASES)
    traced = gradopt.jit(lambda x, i, j: [CASES[n][0](x, i, j) for n in names])
    got = traced(X, IDX, IDX2)
    for name, value in zip(names, got, strict=True):
        want = CASES[name][1](X, IDX, IDX2)
        assert value.shape == np.shape(want), name
        assert value.tobytes() == np.asarray(want, value.dtype).tobytes(), name


def test_sorting_special_values() -> None:
    """Stable ties, -0.0 and +0.0 equal, NaN last (first when descending, as
    JAX), argmax/argmin with keepdims, top_k largest first."""
    nan = np.float32("nan")
    v = np.array([[2.0, nan, -0.0, 0.0, 2.0, -np.inf]], np.float32)

    def f(v: Any) -> Any:
        values, indices = gnp.top_k(v, 3)
        return (
            gnp.argsort(v),
            gnp.argsort(v, descending=True),
            gnp.sort(v),
            values,
            indices,
            gnp.argmax(v, axis=1, keepdims=True),
            v.argmin(keepdims=True),
            gnp.argsort(np.array([True, False, True])),
        )

    asc, desc, ordered, values, indices, amax, amin, bools = gradopt.jit(f)(v)
    assert asc.tolist() == [[5, 2, 3, 0, 4, 1]]
    assert desc.tolist() == [[1, 0, 4, 2, 3, 5]]
    assert ordered.tobytes() == np.sort(v, kind="stable").tobytes()
    assert indices.tolist() == [[1, 0, 4]]
    assert values[0, 1:].tolist() == [2.0, 2.0] and np.isnan(values[0, 0])
    assert amax.tolist() == [[1]] and amax.dtype == np.int32
    assert amin.shape == (1, 1) and amin.tolist() == [[1]]
    assert bools.tolist() == [1, 0, 2]


def test_empty_index_arrays() -> None:
    def f(x: Any) -> Any:
        empty = np.zeros(0, np.int32)
        return x[:, empty], gnp.take(x, empty), x.at[empty].add(1.0)

    a, b, c = gradopt.jit(f)(X)
    assert a.shape == (3, 0) and b.shape == (0,)
    assert c.tobytes() == X.tobytes()


def test_index_errors_are_located() -> None:
    """A static index out of range fails at trace time, naming the line; a
    traced one at run time (no clamping, unlike JAX), naming the op."""
    with pytest.raises(GradoptError, match="index 3 is out of bounds for axis 0"):
        gradopt.jit(lambda x: x[[0, 3]])(X)
    with pytest.raises(GradoptError, match="boolean index arrays are not supported"):
        gradopt.jit(lambda x: x[np.array([True, False, True])])(X)
    with pytest.raises(GradoptError, match="could not be broadcast together"):
        gradopt.jit(lambda x: x[[0, 1], [1, 2, 3]])(X)
    with pytest.raises(GradoptError) as raised:
        gradopt.jit(lambda x, i: x[i])(X, np.array([1, 7], np.int32))
    assert "'grad.gather' index 7 is out of range for axis 0 of size 3" in str(
        raised.value
    )
    assert "test_frontend_indexing.py" in str(raised.value)
    with pytest.raises(GradoptError, match="do not fit int32 indices"):
        gradopt.jit(lambda: gnp.zeros((2**16, 2**15 + 1), bool).at[0, 0].set(True))()


def test_arange_and_one_hot_trace_in_constant_memory() -> None:
    """`arange(10**7)` and `one_hot(x, 10**6)` trace in constant memory:
    through `grad.iota` the trace holds the type only, not the data. A size
    no run can hold is a located error before anything is made."""

    def f(labels: Any) -> Any:
        return gnp.arange(10**7) + 1, gnn.one_hot(labels, 10**6)

    traced = gradopt.jit(f)
    tracemalloc.start()
    try:
        text = traced.lower(np.zeros(2, np.int32)).as_text()
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 4 * 2**20, peak
    assert "grad.iota [0] : tensor<10000000xi32>" in text
    assert "dense<" not in text
    with pytest.raises(GradoptError, match="larger than this machine's memory"):
        gradopt.jit(lambda: gnp.arange(2**40, dtype=np.float32))()
    small = gradopt.jit(lambda: (gnp.arange(3, 12, 4), gnp.arange(0.5, 2.0, 0.5)))()
    assert small[0].tolist() == [3, 7, 11] and small[0].dtype == np.int32
    assert small[1].tobytes() == np.arange(0.5, 2.0, 0.5, dtype=np.float32).tobytes()


# differentiable cases: (gradopt function, float64 NumPy reference) of x
DIFFERENTIABLE: dict[str, tuple[Callable[[Any], Any], Callable[[Any], Any]]] = {
    "x[idx]": (lambda x: x[IDX[:3]], lambda x: x[IDX[:3]]),
    "x[:, idx2]": (lambda x: x[:, IDX2], lambda x: x[:, IDX2]),
    "take_along_axis": (
        lambda x: gnp.take_along_axis(x, np.array([[2], [0]]), axis=0),
        lambda x: np.take_along_axis(x, np.array([[2], [0]]), axis=0),
    ),
    "sort": (lambda x: gnp.sort(x, axis=1), lambda x: np.sort(x, axis=1)),
    "sort descending": (
        lambda x: gnp.sort(x, axis=0, descending=True),
        lambda x: -np.sort(-x, axis=0),
    ),
    "top_k": (lambda x: gnp.top_k(x, 2)[0], lambda x: -np.sort(-x, axis=1)[:, :2]),
    "tril": (lambda x: gnp.tril(x, 1), lambda x: np.tril(x, 1)),
    "at add": (
        lambda x: x.at[IDX].add(x[0] * 2.0),
        lambda x: _add_at(x, IDX, x[0] * 2.0),
    ),
    "at set": (
        lambda x: x.at[:, 1].set(x[:, 0] * 3.0),
        lambda x: _set_column(x, 1, x[:, 0] * 3.0),
    ),
    "at multiply": (
        lambda x: x.at[0, [1, 1]].multiply(x[1, 1]),
        lambda x: _multiply_row(x, 0, [1, 1], [x[1, 1], x[1, 1]]),
    ),
}


def _set_column(x: np.ndarray, column: int, v: np.ndarray) -> np.ndarray:
    y = x.copy()
    y[:, column] = v
    return y


def test_gradients_and_tangents_match_float64_differences() -> None:
    """The gradient of `sum(f(x) · c)` summed over the cases (one trace) and
    the jvp along a random tangent, against central differences of the
    float64 references at a point without ties."""
    rng = np.random.default_rng(7)
    x = (rng.permutation(12).reshape(3, 4) - 5.5).astype(np.float32)
    t = rng.standard_normal((3, 4)).astype(np.float32)
    names = list(DIFFERENTIABLE)
    cts = [
        rng.standard_normal(np.shape(DIFFERENTIABLE[n][1](x.astype(np.float64))))
        for n in names
    ]

    def loss(x: Any) -> Any:
        return sum(
            (DIFFERENTIABLE[n][0](x) * c.astype(np.float32)).sum()
            for n, c in zip(names, cts, strict=True)
        )

    def reference(x: np.ndarray) -> float:
        return sum(
            float((DIFFERENTIABLE[n][1](x) * c).sum())
            for n, c in zip(names, cts, strict=True)
        )

    want = central_difference(reference, [x], 0, h=1e-3)
    np.testing.assert_allclose(gradopt.grad(loss)(x), want, rtol=1e-5, atol=1e-4)
    _, tangent = gradopt.jvp(loss, (x,), (t,))
    np.testing.assert_allclose(tangent, (want * t).sum(), rtol=1e-4, atol=1e-4)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
def test_sorting_agrees_with_jax() -> None:
    """JAX's order and gradient routing where the two could differ: equal
    elements (stable, descending too), NaN placement, top_k's ties."""
    jax = import_jax()
    jnp = jax.numpy
    v = np.array([[2.0, np.nan, -1.0, 2.0, 0.5]], np.float32)
    c = np.array([[1.0, 2.0, 4.0, 8.0, 16.0]], np.float32)

    def jax_f(v: Any) -> Any:
        values, indices = jax.lax.top_k(v, 3)
        return jnp.argsort(v, descending=True), jnp.sort(v * 1.0) * c, values, indices

    def ours(v: Any) -> Any:
        values, indices = gnp.top_k(v, 3)
        return gnp.argsort(v, descending=True), gnp.sort(v * 1.0) * c, values, indices

    want = jax.jit(jax_f)(v)
    got = gradopt.jit(ours)(v)
    for w, g in zip(want, got, strict=True):
        np.testing.assert_array_equal(np.asarray(w), g)
    jax_grad = jax.jit(jax.grad(lambda v: jnp.sum(jax_f(v)[1])))(v)
    np.testing.assert_array_equal(gradopt.grad(lambda v: ours(v)[1].sum())(v), jax_grad)


def test_at_multiply_with_a_traced_repeated_index() -> None:
    """One multiply per round of repeated positions, the rounds counted at
    run time: the bits of NumPy's `multiply.at` and of the same index given
    statically, and the gradient in both arguments' positions."""
    i = np.array([1, 3, 1, 1, -1], np.int32)
    v = np.float32([3.0, -0.0, 5.0, 0.5, np.nan])
    traced = gradopt.jit(lambda x, i: x.at[0, i].multiply(v))
    want = X.copy()
    np.multiply.at(want[0], i, v)
    assert traced(X, i).tobytes() == want.tobytes()
    static = gradopt.jit(lambda x: x.at[0, [1, 3, 1, 1, -1]].multiply(v))(X)
    assert static.tobytes() == want.tobytes()

    def loss(x: Any, i: Any) -> Any:
        return (x.at[0, i].multiply(x[1]) * X).sum()

    def reference(x: np.ndarray) -> float:
        y = x.copy()
        np.multiply.at(y[0], i[:4], x[1])
        return float((y * X).sum())

    x = (np.arange(12).reshape(3, 4) * 0.25 - 1.0).astype(np.float32)
    got = gradopt.grad(loss)(x, i[:4])
    want_grad = central_difference(reference, [x], 0, h=1e-3)
    np.testing.assert_allclose(got, want_grad, rtol=1e-5, atol=1e-4)
