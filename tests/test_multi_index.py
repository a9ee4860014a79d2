"""Several integer arrays in one index (NumPy's advanced indexing,
`frontend/selection.py`): `x[i, j]`, `x[i, :, j]`, `x[:, i, j]` with the
arrays broadcast together, mixed with ints, slices, `None` and `...`, where
the indexed dims land (in place when the advanced entries are adjacent, first
otherwise, an int among arrays counting as one), `x.at[i, j]` updates, and
`take_along_axis`; values bit for bit against NumPy, gradients against
float64 JAX (skipped without the `jax` extra). Each group is one trace."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.numpy as gnp
from gradopt import GradoptError

RNG = np.random.default_rng(23)
X = RNG.standard_normal((3, 4, 5)).astype(np.float32)
X[0, 1, 2] = -0.0
IA = np.array([2, -3, 0], np.int32)  # axis 0, a negative one
JA = np.array([[1], [-1]], np.int32)  # broadcasts with IA to (2, 3)
KA = np.array([4, 0, 4], np.int32)  # axis 2, repeated

# keys from three index arrays (traced or static), as NumPy reads them
KEYS: dict[str, Callable[[Any, Any, Any], Any]] = {
    "x[i, j]": lambda i, j, k: (i, j),
    "x[i, j, k]": lambda i, j, k: (i, j, k),
    "x[i, :, k]": lambda i, j, k: (i, slice(None), k),
    "x[:, j, k]": lambda i, j, k: (slice(None), j, k),
    "x[0, :, k] (int among arrays)": lambda i, j, k: (0, slice(None), k),
    "x[:, 1, k] (adjacent)": lambda i, j, k: (slice(None), 1, k),
    "x[i, 2] (adjacent)": lambda i, j, k: (i, 2),
    "x[i, ..., k]": lambda i, j, k: (i, Ellipsis, k),
    "x[..., j, k]": lambda i, j, k: (Ellipsis, j, k),
    "x[None, i, 1:, k]": lambda i, j, k: (None, i, slice(1, None), k),
    "x[i, None, j]": lambda i, j, k: (i, None, j),
    "x[::-1, j, ::2]": lambda i, j, k: (slice(None, None, -1), j, slice(None, None, 2)),
    "x[1:, j, k]": lambda i, j, k: (slice(1, None), j, k),
    "x[i[:, None], :, k]": lambda i, j, k: (i[:, None], slice(None), k),
    "x[i, j[:0]]": lambda i, j, k: (i[:1], j[:0]),
}


def _static_keys(i: Any, j: Any, k: Any) -> list[Any]:
    return [make(i, j, k) for make in KEYS.values()]


def test_values_match_numpy_traced_and_static() -> None:
    """Traced index arrays and static ones (NumPy arrays, lists) give NumPy's
    shapes and bits."""
    names = list(KEYS)

    def f(x: Any, i: Any, j: Any, k: Any) -> Any:
        static = [x[key] for key in _static_keys(IA, JA, KA.tolist())]
        return [x[key] for key in _static_keys(i, j, k)], static

    traced, static = gradopt.jit(f)(X, IA, JA, KA)
    for name, key, got, fixed in zip(
        names, _static_keys(IA, JA, KA.tolist()), traced, static, strict=True
    ):
        want = X[key]
        assert got.shape == want.shape, name
        assert got.tobytes() == want.tobytes(), name
        assert fixed.tobytes() == want.tobytes(), name


def _at_reference(how: str, key: Any, v: np.ndarray) -> np.ndarray:
    y = X.copy()
    if how == "set":
        y[key] = v  # the last of repeated positions wins
    elif how == "add":
        np.add.at(y, key, v)
    else:
        np.multiply.at(y, key, v)
    return y


AT_KEYS = ["x[i, j]", "x[i, :, k]", "x[0, :, k] (int among arrays)", "x[..., j, k]"]


def test_at_updates_match_numpy() -> None:
    """`x.at[i, j].set/add/multiply/get` with repeated positions: `add` and
    `multiply` apply each occurrence in order, `set` keeps the last; static
    indices and traced ones (multiply only static, as for one array)."""
    cases = [(name, KEYS[name](IA, JA, KA)) for name in AT_KEYS]
    values = {
        n: RNG.standard_normal(X[key].shape).astype(np.float32) for n, key in cases
    }

    def f(x: Any, i: Any, j: Any, k: Any) -> Any:
        out = []
        for name, key in cases:
            traced_key = KEYS[name](i, j, k)
            v = values[name]
            out += [
                x.at[key].set(v),
                x.at[key].add(v),
                x.at[key].multiply(v),
                x.at[traced_key].set(v),
                x.at[traced_key].add(v),
                x.at[traced_key].get(),
            ]
        return out

    got = iter(gradopt.jit(f)(X, IA, JA, KA))
    for name, key in cases:
        v = values[name]
        for how in ("set", "add", "multiply", "set", "add"):
            assert next(got).tobytes() == _at_reference(how, key, v).tobytes(), (
                name,
                how,
            )
        assert next(got).tobytes() == X[key].tobytes(), name


def test_take_along_axis_matches_numpy() -> None:
    """Every axis, negative indices, indices broadcast against the array."""
    idx = [
        RNG.integers(-3, 3, (2, 1, 5)),
        RNG.integers(-4, 4, (1, 6, 5)),
        RNG.integers(-5, 5, (3, 4, 2)),
        RNG.integers(-5, 5, (1, 1, 3)),
    ]
    axes = [0, 1, -1, 2]

    def f(x: Any) -> Any:
        return [
            gnp.take_along_axis(x, i, axis=a) for i, a in zip(idx, axes, strict=True)
        ] + [gnp.take_along_axis(x, np.array([7, -60, 0]), axis=None)]

    got = gradopt.jit(f)(X)
    wants = [np.take_along_axis(X, i, axis=a) for i, a in zip(idx, axes, strict=True)]
    wants.append(np.take_along_axis(X, np.array([7, -60 % 60, 0]), axis=None))
    for value, want in zip(got, wants, strict=True):
        assert value.tobytes() == want.tobytes()


def test_index_errors_are_located() -> None:
    located = r"test_multi_index.py:\d+:\d+: error: shape mismatch: indexing arrays"
    with pytest.raises(GradoptError, match=located):
        gradopt.jit(lambda x: x[np.array([0, 1]), np.array([0, 1, 2])])(X)
    with pytest.raises(GradoptError, match="index 5 is out of bounds for axis 2"):
        gradopt.jit(lambda x: x[0, np.array([0]), np.array([5])])(X)
    with pytest.raises(GradoptError, match="too many indices"):
        gradopt.jit(lambda x: x[IA, JA, KA, np.array([0])])(X)


def test_gradients_scatter_back() -> None:
    """The gradient of a weighted sum over every key is the weights added at
    the selected positions (repeated positions add up): `np.add.at`."""
    weights = [RNG.standard_normal(X[make(IA, JA, KA)].shape) for make in KEYS.values()]

    def loss(x: Any, i: Any, j: Any, k: Any) -> Any:
        return sum(
            gnp.sum(x[make(i, j, k)] * w.astype(np.float32))
            for make, w in zip(KEYS.values(), weights, strict=True)
        )

    want = np.zeros(X.shape)
    for make, w in zip(KEYS.values(), weights, strict=True):
        np.add.at(want, make(IA, JA, KA), w)
    got = gradopt.grad(loss)(X, IA, JA, KA)
    np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-6)


@pytest.mark.skipif(importlib.util.find_spec("jax") is None, reason="needs jax")
def test_gradients_match_float64_jax() -> None:
    """Gradients through `x[i, :, k]`, `x[0, :, k]` and `.at[i, :, k].set/add`
    (distinct positions: JAX leaves repeated `set` positions unspecified)
    against JAX in float64."""
    jax = import_jax()
    distinct = (np.array([0, 2], np.int32), slice(None), np.array([1, 3], np.int32))
    v = RNG.standard_normal(X[distinct].shape)
    w = RNG.standard_normal(X[IA, :, KA].shape)

    def loss(x: Any, xp: Any) -> Any:
        updated = x.at[distinct].set(x[distinct] * 3.0)
        added = x.at[distinct].add(v.astype(x.dtype) * x[distinct])
        picked = x[IA, :, KA] * w.astype(x.dtype) + x[0, :, KA] ** 2
        return xp.sum(updated * updated) + xp.sum(added * x) + xp.sum(picked)

    got = gradopt.grad(lambda x: loss(x, gnp))(X)
    with jax.enable_x64(True):
        want = jax.jit(jax.grad(lambda x: loss(x, jax.numpy)))(X.astype(np.float64))
    np.testing.assert_allclose(got, np.asarray(want), rtol=2e-5, atol=2e-5)


def test_vmap_of_several_traced_indices_equals_a_loop() -> None:
    """Per-example index arrays: one gather (and one scatter_add) over every
    example's rows, with each example's own bits."""
    x = RNG.standard_normal((4, 3, 2, 5)).astype(np.float32)
    i = RNG.integers(0, 3, (4, 2)).astype(np.int32)
    j = RNG.integers(-5, 5, (4, 2)).astype(np.int32)
    got, added = gradopt.vmap(lambda x, i, j: (x[i, :, j], x.at[i, 1:, j].add(1.0)))(
        x, i, j
    )
    for n in range(4):
        assert got[n].tobytes() == x[n][i[n], :, j[n]].tobytes()
        want = x[n].copy()
        np.add.at(want, (i[n], slice(1, None), j[n]), np.float32(1.0))
        assert added[n].tobytes() == want.tobytes()
