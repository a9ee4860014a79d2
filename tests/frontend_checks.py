"""Checks shared by the front-end tests: values against a NumPy reference, and
gradients against float64 central differences of that reference (never of
gradopt itself, so that a wrong gradient rule and a wrong composite both show).
"""

from __future__ import annotations

import os
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gradopt
import gradopt.numpy as gnp

_STREAM: dict[str, Any] = {"test": None, "rng": None}


def rng() -> np.random.Generator:
    """A random stream of the running test's own, seeded by its name, so that
    its data do not depend on which tests ran before it."""
    test = os.environ.get("PYTEST_CURRENT_TEST", "").rsplit(" ", 1)[0]
    if test != _STREAM["test"]:
        _STREAM.update(test=test, rng=np.random.default_rng(zlib.crc32(test.encode())))
    return _STREAM["rng"]


def f32(*shape: int, low: float = -2.0, high: float = 2.0) -> np.ndarray:
    return rng().uniform(low, high, shape).astype(np.float32)


def central_difference(
    f: Callable[..., Any], args: list[np.ndarray], argnum: int, h: float = 1e-6
) -> np.ndarray:
    """d f / d args[argnum] in float64, one element at a time."""
    x = args[argnum].astype(np.float64)
    grad = np.zeros_like(x)
    for index in np.ndindex(x.shape):
        plus, minus = x.copy(), x.copy()
        plus[index] += h
        minus[index] -= h
        up = [*args[:argnum], plus, *args[argnum + 1 :]]
        down = [*args[:argnum], minus, *args[argnum + 1 :]]
        grad[index] = (float(f(*up)) - float(f(*down))) / (2 * h)
    return grad


def check_value(
    traced: Callable[..., Any],
    reference: Callable[..., Any],
    *args: np.ndarray,
    rtol: float = 2e-6,
    atol: float = 1e-6,
) -> np.ndarray:
    """`traced` under `jit` against `reference` in float64."""
    got = gradopt.jit(traced)(*args)
    want = reference(
        *(a.astype(np.float64) if a.dtype == np.float32 else a for a in args)
    )
    want = np.asarray(want)
    assert np.shape(got) == want.shape, (np.shape(got), want.shape)
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got


def check_grad(
    traced: Callable[..., Any],
    reference: Callable[..., Any],
    *args: np.ndarray,
    argnum: int = 0,
    rtol: float = 1e-4,
    atol: float = 1e-5,
) -> np.ndarray:
    """The gradient of `sum(traced(*args) · w)` for a fixed random `w` (a
    general vector-Jacobian product) against central differences of the
    float64 reference."""
    shape = np.shape(reference(*(a.astype(np.float64) for a in args)))
    w = rng().uniform(0.5, 1.5, shape)

    def loss(*a: Any) -> Any:
        return gnp.sum(traced(*a) * w.astype(np.float32))

    got = gradopt.grad(loss, argnums=argnum)(*args)
    want = central_difference(
        lambda *a: np.sum(reference(*a) * w),
        [a.astype(np.float64) for a in args],
        argnum,
    )
    np.testing.assert_allclose(got, want, rtol=rtol, atol=atol)
    return got


def import_jax() -> Any:
    """`jax`, or a skip without the `jax` extra. The JAX references cost an XLA
    compile each, and a test never needs optimized XLA code: compile quickly
    (unless the caller chose flags)."""
    os.environ.setdefault(
        "XLA_FLAGS",
        "--xla_backend_optimization_level=0 --xla_llvm_disable_expensive_passes=true",
    )
    return pytest.importorskip("jax")
