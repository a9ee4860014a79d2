"""More of `gradopt.numpy` and `gradopt.nn` (einsum, scans, rearrangements,
rounding, fmod, inverse trigonometry, power, activations, grouped and
transposed convolutions, pooling options): values against float64 NumPy
(always), derivatives against float64 JAX (with the `jax` extra) or central
differences of the NumPy references, at random points and at the special
ones (±0, ±1, ±inf, NaN, ties, empty axes).

Each table is traced once, all of its cases in one `gradopt.jit` (values,
gradients and forward derivatives together), and its JAX references are
one `jax.jit`: a trace or an XLA compile per case would cost ten times as
much, and the suite is CPU-bound."""

from __future__ import annotations

import functools
import math
import types
import zlib
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import central_difference, f32, import_jax

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
from gradopt import GradoptError

SPECIAL = [0.0, -0.0, 1.0, -1.0, 0.5, -0.5, 2.5, -2.5, 6.0, -3.0, math.inf, -math.inf]
NAN = [math.nan]


def generator(name: str, salt: int = 0) -> np.random.Generator:
    """A case's own random stream, so that its data are the same wherever
    they are made (in the gradopt table, in the JAX one)."""
    return np.random.default_rng(zlib.crc32(name.encode()) + salt)


def points(name: str, low: float, high: float) -> np.ndarray:
    """Ten random points in [low, high], then every special one."""
    random = generator(name).uniform(low, high, 10)
    return np.concatenate([random, SPECIAL, NAN]).astype(np.float32)


def weights(name: str, shape: tuple[int, ...]) -> np.ndarray:
    """The cotangent of a case: the gradient of `sum(f(x) · w)` is a general
    vector-Jacobian product."""
    return generator(name, 1).uniform(0.5, 1.5, shape).astype(np.float32)


Case = tuple[Callable[..., Any], list[np.ndarray], np.ndarray]


def traced_table(
    cases: dict[str, Case], forward: Callable[[str], bool] = lambda _: True
) -> dict[str, Any]:
    """For each case (f, args, w): f(*args), the gradients of sum(f · w) in
    every arg and, where `forward(name)`, the forward derivative along
    tangents equal to the args (else None); all cases in one `gradopt.jit`."""

    def everything(inputs: dict[str, tuple]) -> dict[str, Any]:
        result = {}
        for name, (args, w) in inputs.items():
            f = cases[name][0]
            grads = gradopt.grad(
                lambda *a, f=f, w=w: gnp.sum(f(*a) * w),
                argnums=tuple(range(len(args))),
            )(*args)
            tangent = gradopt.jvp(f, args, args)[1] if forward(name) else None
            result[name] = (f(*args), grads, tangent)
        return result

    inputs = {name: (tuple(args), w) for name, (_, args, w) in cases.items()}
    return gradopt.jit(everything)(inputs)


def jax_table(cases: Callable[[Any], dict[str, Case]]) -> dict[str, list[np.ndarray]]:
    """The float64 `jax.grad` of `sum(f(*args) · w)` for every case, from one
    `jax.jit`; a skip without the `jax` extra."""
    jax = import_jax()
    with jax.enable_x64(True):
        built = cases(jax)

        def gradients(inputs: dict[str, list]) -> dict[str, Any]:
            return {
                name: jax.grad(
                    lambda *a, f=f, w=w: jax.numpy.sum(f(*a) * w),
                    argnums=tuple(range(len(args))),
                )(*inputs[name])
                for name, (f, args, w) in built.items()
            }

        found = jax.jit(gradients)(
            {
                name: [a.astype(np.float64) for a in args]
                for name, (_, args, _) in built.items()
            }
        )
        return {name: [np.asarray(g) for g in grads] for name, grads in found.items()}


def adjoint_check(got: Any, name: str, args: list[np.ndarray], w: np.ndarray) -> None:
    """Forward against reverse mode, where the table has forward mode:
    <J t, w> = <t, Jᵀ w> for the tangents t = args of `traced_table`."""
    _, grads, tangent = got
    if tangent is None:
        return
    forward = np.sum(np.asarray(tangent, np.float64) * w)
    backward = sum(
        np.sum(np.asarray(g, np.float64) * a) for g, a in zip(grads, args, strict=True)
    )
    np.testing.assert_allclose(forward, backward, rtol=1e-4, atol=1e-5, err_msg=name)


def softplus64(x: np.ndarray) -> np.ndarray:
    return np.logaddexp(x, 0.0)


SELU = (1.6732632423543772848170429916717, 1.0507009873554804934193349852946)

# name: (gradopt, float64 NumPy, JAX (given jax), low, high, special points
# at which the gradient matches JAX's)
UNARY: dict[str, tuple[Callable, Callable, Callable, float, float, list[float]]] = {
    "floor": (gnp.floor, np.floor, lambda j: j.numpy.floor, -4, 4, SPECIAL + NAN),
    "ceil": (gnp.ceil, np.ceil, lambda j: j.numpy.ceil, -4, 4, SPECIAL + NAN),
    "trunc": (gnp.trunc, np.trunc, lambda j: j.numpy.trunc, -4, 4, SPECIAL + NAN),
    "round": (gnp.round, np.round, lambda j: j.numpy.round, -4, 4, SPECIAL + NAN),
    "round 1": (
        lambda x: gnp.round(x, 1),
        lambda x: np.round(x, 1),
        lambda j: lambda x: j.numpy.round(x, 1),
        -4,
        4,
        SPECIAL,
    ),
    "arcsin": (gnp.arcsin, np.arcsin, lambda j: j.numpy.arcsin, -1, 1, SPECIAL + NAN),
    "arccos": (gnp.arccos, np.arccos, lambda j: j.numpy.arccos, -1, 1, SPECIAL + NAN),
    "arctan": (gnp.arctan, np.arctan, lambda j: j.numpy.arctan, -9, 9, SPECIAL + NAN),
    "arcsinh": (gnp.arcsinh, np.arcsinh, lambda j: j.numpy.arcsinh, -9, 9, SPECIAL),
    "arccosh": (
        gnp.arccosh,
        np.arccosh,
        lambda j: j.numpy.arccosh,
        1,
        9,
        [1.0, 2.5, 6.0, math.inf, math.nan],
    ),
    "arctanh": (gnp.arctanh, np.arctanh, lambda j: j.numpy.arctanh, -1, 1, SPECIAL),
    # at +NaN the derivative of abs is 1, JAX's -1 (tests/test_special_values.py)
    "abs": (gnp.abs, np.abs, lambda j: j.numpy.abs, -2, 2, SPECIAL),
    "x ** 1.7": (
        lambda x: x**1.7,
        lambda x: x**1.7,
        lambda j: lambda x: x**1.7,
        0,
        3,
        [0.0, -0.0, 1.0, 2.5, math.inf],
    ),
    "x ** 0.5": (
        lambda x: x**0.5,
        lambda x: np.where(x == -np.inf, np.inf, np.sqrt(x + 0.0)),
        lambda j: lambda x: x**0.5,
        0,
        3,
        [0.0, -0.0, 1.0, 2.5, math.inf, -math.inf],
    ),
    "x ** -1.5": (
        lambda x: x**-1.5,
        lambda x: x**-1.5,
        lambda j: lambda x: x**-1.5,
        0.1,
        3,
        [0.0, 1.0, 2.5, math.inf],
    ),
    "nn.relu": (
        gnn.relu,
        lambda x: np.maximum(x, 0),
        lambda j: j.nn.relu,
        -2,
        2,
        SPECIAL + NAN,
    ),
    "nn.relu6": (
        gnn.relu6,
        lambda x: np.minimum(np.maximum(x, 0), 6),
        lambda j: j.nn.relu6,
        -2,
        8,
        SPECIAL + NAN,
    ),
    "nn.hard_tanh": (
        gnn.hard_tanh,
        lambda x: np.clip(x, -1, 1),
        lambda j: j.nn.hard_tanh,
        -2,
        2,
        SPECIAL + NAN,
    ),
    "nn.hard_sigmoid": (
        gnn.hard_sigmoid,
        lambda x: np.clip(x + 3, 0, 6) / 6,
        lambda j: j.nn.hard_sigmoid,
        -4,
        4,
        SPECIAL + NAN,
    ),
    "nn.hard_swish": (
        gnn.hard_swish,
        lambda x: x * np.clip(x + 3, 0, 6) / 6,
        lambda j: j.nn.hard_swish,
        -4,
        4,
        [*SPECIAL[:-2], 3.0],
    ),
    "nn.mish": (
        gnn.mish,
        lambda x: x * np.tanh(softplus64(x)),
        lambda j: j.nn.mish,
        -4,
        4,
        [*SPECIAL[:-2], -math.inf],
    ),
    "nn.selu": (
        gnn.selu,
        lambda x: SELU[1] * np.where(x > 0, x, SELU[0] * np.expm1(np.minimum(x, 0))),
        lambda j: j.nn.selu,
        -4,
        4,
        SPECIAL,
    ),
    "nn.celu": (
        lambda x: gnn.celu(x, 0.5),
        lambda x: np.where(x > 0, x, 0.5 * np.expm1(np.minimum(x, 0) / 0.5)),
        lambda j: lambda x: j.nn.celu(x, 0.5),
        -4,
        4,
        SPECIAL,
    ),
    "nn.soft_sign": (
        gnn.soft_sign,
        lambda x: x / (np.abs(x) + 1),
        lambda j: j.nn.soft_sign,
        -4,
        4,
        SPECIAL,
    ),
}


def _chosen(special: list[float]) -> np.ndarray:
    """Which points of `points` a case compares: the random ones and the
    listed special ones (by their bits: -0.0 is not 0.0)."""
    listed = {np.float32(v).tobytes() for v in special}
    return np.array(
        [True] * 10 + [np.float32(v).tobytes() in listed for v in SPECIAL + NAN]
    )


FORWARD = {"round", "arcsin", "arctan", "arccosh", "abs", "x ** 1.7", "x ** -1.5"}
FORWARD |= {"nn.relu6", "nn.mish", "nn.selu"}
"""The cases whose forward mode is checked too (forward mode costs another
trace of the function; these cover each kind of composite)."""


@functools.cache
def _unary() -> dict[str, Any]:
    return traced_table(
        {
            name: (traced, [x := points(name, low, high)], weights(name, x.shape))
            for name, (traced, _, _, low, high, _) in UNARY.items()
        },
        FORWARD.__contains__,
    )


@pytest.mark.parametrize("name", UNARY)
def test_unary_values_against_numpy(name: str) -> None:
    _, reference, _, low, high, _ = UNARY[name]
    x = points(name, low, high)
    with np.errstate(all="ignore"):
        want = reference(x.astype(np.float64))
    np.testing.assert_allclose(
        _unary()[name][0], want, rtol=2e-6, atol=1e-7, equal_nan=True
    )


def _unary_jax_cases(jax: Any) -> dict[str, Case]:
    return {
        name: (of_jax(jax), [x := points(name, low, high)], weights(name, x.shape))
        for name, (_, _, of_jax, low, high, _) in UNARY.items()
    }


@functools.cache
def _unary_jax() -> dict[str, list[np.ndarray]]:
    return jax_table(_unary_jax_cases)


@pytest.mark.parametrize("name", UNARY)
def test_unary_derivatives_against_jax(name: str) -> None:
    """Reverse mode against `jax.grad` at the random points and the special
    ones listed; forward mode (along t = x) against the same derivative."""
    want = _unary_jax()[name][0]
    _, _, _, low, high, special = UNARY[name]
    x = points(name, low, high)
    w = weights(name, x.shape)
    _, (got,), tangent = _unary()[name]
    chosen = _chosen(special)
    np.testing.assert_allclose(
        got[chosen], want[chosen], rtol=1e-4, atol=1e-6, equal_nan=True
    )
    if tangent is None:
        return
    finite = chosen & np.isfinite(x) & np.isfinite(want)
    np.testing.assert_allclose(
        tangent[finite], want[finite] / w[finite] * x[finite], rtol=1e-4, atol=1e-6
    )


def test_rounding_and_abs_are_bit_exact_with_signed_zeros() -> None:
    x = np.array(
        [
            -0.0,
            0.0,
            -0.5,
            0.5,
            1.5,
            2.5,
            -2.5,
            -0.3,
            3e7,
            8388609.0,
            0.49999997,
            np.inf,
            -np.inf,
            np.nan,
        ],
        np.float32,
    )
    for name in ("floor", "ceil", "trunc", "round", "abs"):
        got, want = gradopt.jit(getattr(gnp, name))(x), getattr(np, name)(x)
        assert np.array_equal(got, want, equal_nan=True), name
        assert np.array_equal(np.signbit(got[:-1]), np.signbit(want[:-1])), name
    assert not np.signbit(gradopt.jit(gnp.abs)(np.float32(-0.0)))


def _grid() -> tuple[np.ndarray, np.ndarray]:
    values = [0.0, -0.0, 1.0, -1.0, 2.0, -2.0, 0.5, -0.5, 3.0, -3.0, 2.5, -2.5]
    values += [7.0, 1e-30, 1e30, math.inf, -math.inf, math.nan]
    a, b = np.meshgrid(np.float32(values), np.float32(values), indexing="ij")
    return a.ravel(), b.ravel()


def test_power_has_the_special_values_of_c() -> None:
    """x ** 0 = 1 (NaN too), 1 ** y = 1, 0 ** y, (-inf) ** y, negative bases
    with integral exponents, NaN otherwise: NumPy's float32 `power` (whose
    values are C's `powf`), up to its rounding elsewhere."""
    a, b = _grid()
    got = gradopt.jit(gnp.power)(a, b)
    with np.errstate(all="ignore"):
        want = np.power(a, b)
    np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)
    exact = np.isinf(want) | (want == 0) | (want == 1)
    assert np.array_equal(np.signbit(got[exact]), np.signbit(want[exact]))


BINARY: dict[str, tuple[Callable, Callable, Callable]] = {
    "arctan2": (gnp.arctan2, np.arctan2, lambda j: j.numpy.arctan2),
    "copysign": (gnp.copysign, np.copysign, lambda j: j.numpy.copysign),
    "fmod": (gnp.fmod, np.fmod, lambda j: j.numpy.fmod),
    "remainder": (gnp.remainder, np.remainder, lambda j: j.numpy.remainder),
    "power": (gnp.power, np.power, lambda j: j.numpy.power),
}


def _binary_operands(name: str) -> list[np.ndarray]:
    """Random operands, with a zero exponent, a zero base (of a positive
    power), a unit base and a signed zero among them."""
    a = generator(name).uniform(0.5, 3.0, 12).astype(np.float32)
    b = generator(name, 2).uniform(-3.0, 3.0, 12).astype(np.float32)
    a[:3], b[:3] = [1.0, 0.0, -0.0], [0.0 if name == "power" else 0.7, 2.0, 1.5]
    return [a, b]


def _wide(name: str) -> list[np.ndarray]:
    """The operands of `_binary_operands`, then operands over the whole
    float32 range and every pair of special values."""
    scale = np.exp(generator(name, 3).uniform(-80, 80, (2, 200)))
    a, b = (generator(name, 4).standard_normal((2, 200)) * scale).astype(np.float32)
    (a0, b0), (a1, b1) = _binary_operands(name), _grid()
    return [np.concatenate([a0, a, a1]), np.concatenate([b0, b, b1])]


@functools.cache
def _binary() -> dict[str, Any]:
    cases: dict[str, Case] = {}
    for name, (traced, _, _) in BINARY.items():
        operands = _wide(name)
        cases[name] = (traced, operands, weights(name, operands[0].shape))
    return traced_table(cases)


@pytest.mark.parametrize("name", BINARY)
def test_binary_values_against_numpy(name: str) -> None:
    """At random points over the whole float32 range and at every pair of
    special values; fmod and remainder bit for bit (C's fmod is exact)."""
    _, reference, _ = BINARY[name]
    a, b = _wide(name)
    got = _binary()[name][0]
    with np.errstate(all="ignore"):  # float32 overflows and underflows here
        want = reference(a.astype(np.float64), b.astype(np.float64))
        want = want.astype(np.float32)
    np.testing.assert_allclose(got, want, rtol=2e-6, equal_nan=True)
    if name in ("fmod", "remainder"):
        with np.errstate(all="ignore"):
            assert np.array_equal(got, reference(a, b), equal_nan=True)


def _binary_jax_cases(jax: Any) -> dict[str, Case]:
    return {
        name: (of_jax(jax), ops, weights(name, _wide(name)[0].shape)[:12])
        for name, (_, _, of_jax) in BINARY.items()
        for ops in [_binary_operands(name)]
    }


@functools.cache
def _binary_jax() -> dict[str, list[np.ndarray]]:
    return jax_table(_binary_jax_cases)


@pytest.mark.parametrize("name", BINARY)
def test_binary_derivatives_against_jax(name: str) -> None:
    """At the random operands (the first 12; the rest of `_wide` is for the
    values): reverse mode against JAX, forward against reverse mode."""
    want = _binary_jax()[name]
    value, grads, tangent = _binary()[name]
    for mine, theirs in zip(grads, want, strict=True):
        np.testing.assert_allclose(mine[:12], theirs, rtol=1e-4, atol=1e-6)
    w = weights(name, _wide(name)[0].shape)[:12]
    head = (value[:12], [g[:12] for g in grads], tangent[:12])
    adjoint_check(head, name, _binary_operands(name), w)


def _numpy_extras() -> types.SimpleNamespace:
    """NumPy with `jax.lax`'s scans under gradopt's names (`reverse` too)."""

    def scan(ufunc: np.ufunc) -> Callable:
        def f(x: Any, axis: int = 0, reverse: bool = False) -> Any:
            if reverse:
                return np.flip(ufunc.accumulate(np.flip(x, axis), axis), axis)
            return ufunc.accumulate(x, axis)

        return f

    cumsum = scan(np.add)
    names = {n: getattr(np, n) for n in dir(np) if not n.startswith("_")}
    return types.SimpleNamespace(
        **{
            **names,
            "cummax": scan(np.maximum),
            "cummin": scan(np.minimum),
            "cumlogsumexp": scan(np.logaddexp),
            "cumsum": lambda x, axis=None, reverse=False: (
                np.cumsum(x, axis) if not reverse else cumsum(x, axis, True)
            ),
        }
    )


def _weighted_parts(m: Any, parts: list) -> Any:
    """The parts of a split, each scaled by its position, joined again."""
    return m.concatenate([p * (i + 1) for i, p in enumerate(parts)], axis=1)


# name: (function of a NumPy-like namespace m, operand shapes)
ARRAYS: dict[str, tuple[Callable[[Any], Callable], list[tuple[int, ...]]]] = {
    "einsum ij,jk->ik": (
        lambda m: lambda a, b: m.einsum("ij,jk->ik", a, b),
        [(2, 3), (3, 4)],
    ),
    "einsum bij,bkj->bki": (
        lambda m: lambda a, b: m.einsum("bij,bkj->bki", a, b),
        [(2, 3, 4), (2, 5, 4)],
    ),
    "einsum ii->i and trace": (
        lambda m: lambda a: m.einsum("ii->i", a) + m.einsum("ii", a),
        [(3, 3)],
    ),
    "einsum implicit ...": (
        lambda m: lambda a, b: m.einsum("...ij,jk", a, b),
        [(2, 1, 3), (3, 4)],
    ),
    "einsum three operands": (
        lambda m: lambda a, b, c: m.einsum("abc,cd,db->a", a, b, c),
        [(2, 3, 4), (4, 5), (5, 3)],
    ),
    "einsum iij,j->ji": (
        lambda m: lambda a, b: m.einsum("iij,j->ji", a, b),
        [(3, 3, 2), (2,)],
    ),
    "cumsum axis 1": (lambda m: lambda x: m.cumsum(x, axis=1), [(3, 9)]),
    "cumsum flat": (lambda m: lambda x: m.cumsum(x), [(3, 4)]),
    "cumsum reverse": (lambda m: lambda x: m.cumsum(x, axis=0, reverse=True), [(5, 3)]),
    "cumprod with a zero": (
        lambda m: lambda x: m.cumprod(m.where(m.arange(7) == 3, 0.0, x), axis=1),
        [(2, 7)],
    ),
    "cummax": (lambda m: lambda x: m.cummax(x, axis=1), [(3, 6)]),
    "cummin reverse": (lambda m: lambda x: m.cummin(x, axis=0, reverse=True), [(6, 2)]),
    "cumlogsumexp": (lambda m: lambda x: m.cumlogsumexp(x, axis=1), [(2, 11)]),
    "prod with zeros and empty": (
        lambda m: (
            lambda x: m.concatenate(
                [
                    m.prod(m.where(m.arange(5) == 2, 0.0, x), axis=1),
                    m.prod(m.where(m.arange(5) % 2 == 0, 0.0, x), axis=1),
                    m.prod(x[:, :0], axis=1),
                    m.prod(x, axis=0),
                ]
            )
        ),
        [(5, 5)],
    ),
    "repeat": (lambda m: lambda x: m.repeat(x, 3, axis=1), [(2, 3)]),
    "repeat counts": (
        lambda m: lambda x: m.repeat(x, np.array([2, 0, 1]), axis=0),
        [(3, 2)],
    ),
    "repeat flat": (lambda m: lambda x: m.repeat(x, 2), [(2, 2)]),
    "tile": (lambda m: lambda x: m.tile(x, (2, 1, 3)), [(2, 3)]),
    "split": (lambda m: lambda x: _weighted_parts(m, m.split(x, 3, axis=1)), [(2, 6)]),
    "array_split": (
        lambda m: lambda x: _weighted_parts(m, m.array_split(x, 3, axis=1)),
        [(2, 7)],
    ),
    "split at indices": (
        lambda m: lambda x: _weighted_parts(m, m.split(x, [1, 4, 4], axis=1)),
        [(2, 6)],
    ),
    "roll": (lambda m: lambda x: m.roll(x, (2, -1), axis=(0, 1)), [(4, 3)]),
    "roll flat": (lambda m: lambda x: m.roll(x, 5), [(2, 3)]),
    "diagonal": (
        lambda m: (
            lambda x: m.concatenate(
                [
                    m.diagonal(x, 1, 1, 2),
                    m.diagonal(x, -1, 2, 1),
                    m.diagonal(x, 7, 1, 2),
                ],
                axis=-1,
            )
        ),
        [(2, 3, 4)],
    ),
    "diag both ways": (
        lambda m: lambda v, x: m.diag(v, -1) + m.diag(m.diag(x, 1), -1),
        [(4,), (4, 5)],
    ),
    "trace": (lambda m: lambda x: m.trace(x, 1) + m.trace(x, 0, 1, 2), [(3, 3, 3)]),
    "meshgrid": (
        lambda m: lambda a, b, c: m.stack(m.meshgrid(a, b, c)),
        [(2,), (3,), (4,)],
    ),
    "meshgrid ij": (
        lambda m: lambda a, b: m.stack(m.meshgrid(a, b, indexing="ij")),
        [(2,), (3,)],
    ),
    "pad reflect": (
        lambda m: lambda x: m.pad(x, ((2, 5), (1, 0)), mode="reflect"),
        [(3, 2)],
    ),
    "pad symmetric": (
        lambda m: lambda x: m.pad(x, ((4, 1), (0, 2)), mode="symmetric"),
        [(3, 2)],
    ),
    "pad edge": (lambda m: lambda x: m.pad(x, 2, mode="edge"), [(3, 2)]),
    "pad wrap": (lambda m: lambda x: m.pad(x, ((1, 7), (2, 2)), mode="wrap"), [(3, 2)]),
}


def _array_case(name: str) -> tuple[list[np.ndarray], np.ndarray]:
    build, shapes = ARRAYS[name]
    args = [generator(name).uniform(-2, 2, s).astype(np.float32) for s in shapes]
    return args, weights(name, np.shape(build(_numpy_extras())(*args)))


@functools.cache
def _arrays() -> dict[str, Any]:
    """Forward mode for the scans, products and einsums (composites of
    arithmetic); the rearrangements only move entries."""
    return traced_table(
        {name: (build(gnp), *_array_case(name)) for name, (build, _) in ARRAYS.items()},
        lambda name: name.startswith(("cum", "prod", "einsum")),
    )


@pytest.mark.parametrize("name", ARRAYS)
def test_array_functions_against_numpy(name: str) -> None:
    """Values against NumPy; gradients against central differences of the
    float64 NumPy function (the functions are linear or smooth at these
    points); forward mode against reverse mode."""
    reference = ARRAYS[name][0](_numpy_extras())
    args, w = _array_case(name)
    got = _arrays()[name]
    wide = [a.astype(np.float64) for a in args]
    want = reference(*wide)
    assert np.shape(got[0]) == np.shape(want)
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)
    for i, grad in enumerate(got[1]):
        expected = central_difference(lambda *a: np.sum(reference(*a) * w), wide, i)
        np.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-5)
    adjoint_check(got, name, args, w)


def test_prod_is_a_product_tree_right_at_zeros() -> None:
    """The gradient of a product with one zero is the product of the others,
    and `reduce mul` (which has no gradient rule) is not emitted."""
    x = np.array([2.0, 0.0, 3.0, -1.0, 0.5], np.float32)
    assert gradopt.grad(gnp.prod)(x).tolist() == [0.0, -3.0, 0.0, 0.0, 0.0]
    text = gradopt.jit(gnp.prod).lower(np.ones(1000, np.float32)).as_text()
    assert "reduce mul" not in text and "grad.mul" in text
    assert text.count("grad.mul") == 10  # ⌈log2 1000⌉ levels


def test_scans_trace_log_depth() -> None:
    """A scan of 1024 entries is 10 steps of a slice, a pad and an add."""
    text = gradopt.jit(gnp.cumsum).lower(np.ones(1024, np.float32)).as_text()
    assert text.count("grad.add") == 10 and text.count("grad.pad") == 10


def test_cumulative_functions_at_special_values() -> None:
    x = np.array(
        [[1.0, -np.inf, 2.0, np.inf, 0.0], [-np.inf, -np.inf, 1.0, np.nan, 3.0]]
    )
    x = x.astype(np.float32)
    with np.errstate(all="ignore"):
        np.testing.assert_allclose(
            gradopt.jit(lambda x: gnp.cumlogsumexp(x, 1))(x),
            np.logaddexp.accumulate(x.astype(np.float64), 1),
            rtol=1e-7,
        )
        np.testing.assert_array_equal(
            gradopt.jit(lambda x: gnp.cumsum(x, 1))(x), np.cumsum(x, 1)
        )
    np.testing.assert_array_equal(
        gradopt.jit(lambda x: gnp.cummax(x, 1))(x), np.maximum.accumulate(x, 1)
    )
    assert gradopt.jit(lambda x: gnp.cumsum(x[:, :0], 1))(x).shape == (2, 0)


def test_array_methods_are_numpys() -> None:
    """`Array.trace` is NumPy's method (the trace the array belongs to is
    `owner`), as are `diagonal`, `cumsum`, `cumprod`, `repeat` and `round`."""
    x = f32(3, 3)
    got = gradopt.jit(
        lambda x: (
            x.trace(),
            x.diagonal(1),
            x.cumsum(0),
            x.cumprod(1),
            x.repeat(2, 0),
            x.round(),
            np.trace(x),
        )
    )(x)
    want = (x.trace(), x.diagonal(1), x.cumsum(0), x.cumprod(1), x.repeat(2, 0))
    want += (x.round(), np.trace(x))
    for g, v in zip(got, want, strict=True):
        np.testing.assert_allclose(g, v, rtol=1e-6)


def test_relu_has_derivative_zero_at_zero() -> None:
    x = np.array([-1.0, -0.0, 0.0, 2.0], np.float32)
    assert gradopt.grad(lambda x: gnp.sum(gnn.relu(x)))(x).tolist() == [0, 0, 0, 1]
    assert gradopt.grad(lambda x: gnp.sum(gnp.abs(x)))(x).tolist() == [-1, 1, 1, 1]


def torch_pool(
    x: np.ndarray,
    kind: str,
    k: int,
    s: int,
    p: int,
    d: int = 1,
    ceil_mode: bool = False,
    count_include_pad: bool = True,
) -> np.ndarray:
    """PyTorch's 2-D max and average pooling, written out window by window."""
    h, w = x.shape[2:]

    def size(n: int) -> int:
        span = n + 2 * p - d * (k - 1) - 1
        out = (-(-span // s) if ceil_mode else span // s) + 1
        return out - 1 if ceil_mode and (out - 1) * s >= n + p else out

    out = np.zeros((*x.shape[:2], size(h), size(w)))
    for i in range(out.shape[2]):
        for j in range(out.shape[3]):
            top, left = i * s - p, j * s - p
            if kind == "max":
                rows = [top + a * d for a in range(k) if 0 <= top + a * d < h]
                cols = [left + b * d for b in range(k) if 0 <= left + b * d < w]
                out[:, :, i, j] = x[:, :, rows][:, :, :, cols].max(axis=(2, 3))
                continue
            bottom, right = min(top + k, h + p), min(left + k, w + p)
            count = (bottom - top) * (right - left)
            t, lft, b, r = max(top, 0), max(left, 0), min(bottom, h), min(right, w)
            if not count_include_pad:
                count = (b - t) * (r - lft)
            out[:, :, i, j] = x[:, :, t:b, lft:r].sum(axis=(2, 3)) / count
    return out


POOLS: dict[str, tuple[str, dict[str, Any]]] = {
    "max dilated": ("max", dict(k=3, s=1, p=1, d=2)),
    "max ceil_mode": ("max", dict(k=2, s=2, p=1, d=2, ceil_mode=True)),
    "avg ceil_mode": ("avg", dict(k=3, s=2, p=1, ceil_mode=True)),
    "avg without padding counted": (
        "avg",
        dict(k=3, s=2, p=1, count_include_pad=False),
    ),
    "avg both": ("avg", dict(k=2, s=2, p=1, ceil_mode=True, count_include_pad=False)),
}


ERRORS: dict[str, tuple[Callable, str]] = {
    "einsum": (lambda x: gnp.einsum("ij,jk", x), "2 operand subscripts for 1 operands"),
    "einsum sizes": (
        lambda x: gnp.einsum("ij,ij->", x, x.T),
        "label 'i' has sizes 3 and 4",
    ),
    "split": (lambda x: gnp.split(x, 5), "3 entries do not split into 5"),
    "pad": (lambda x: gnp.pad(x[:0], 1, mode="reflect"), "pad: "),
    "groups": (
        lambda x: gnn.conv2d(x[None, None], gnp.ones((2, 1, 1, 1)), groups=2),
        "channels",
    ),
    "fmod": (lambda x: gnp.fmod(x.astype(np.int32), 2), "fmod of integers"),
}


def _pair(v: int | tuple[int, int]) -> tuple[int, int]:
    return (v, v) if isinstance(v, int) else v


def numpy_conv(
    x: np.ndarray,
    w: np.ndarray,
    stride: Any = 1,
    padding: Any = 0,
    dilation: Any = 1,
    groups: int = 1,
) -> np.ndarray:
    """Grouped cross-correlation, one kernel position at a time."""
    (s0, s1), (p0, p1), (d0, d1) = _pair(stride), _pair(padding), _pair(dilation)
    x = np.pad(x, ((0, 0), (0, 0), (p0, p0), (p1, p1)))
    o, c, kh, kw = w.shape
    oh = (x.shape[2] - d0 * (kh - 1) - 1) // s0 + 1
    ow = (x.shape[3] - d1 * (kw - 1) - 1) // s1 + 1
    out = np.zeros((x.shape[0], o, oh, ow))
    per = o // groups
    for i in range(kh):
        for j in range(kw):
            patch = x[
                :,
                :,
                i * d0 : i * d0 + (oh - 1) * s0 + 1 : s0,
                j * d1 : j * d1 + (ow - 1) * s1 + 1 : s1,
            ]
            for g in range(groups):
                out[:, g * per : (g + 1) * per] += np.einsum(
                    "nchw,oc->nohw",
                    patch[:, g * c : (g + 1) * c],
                    w[g * per : (g + 1) * per, :, i, j],
                )
    return out


def numpy_conv_transpose(
    y: np.ndarray,
    w: np.ndarray,
    stride: Any = 1,
    padding: Any = 0,
    output_padding: Any = 0,
    groups: int = 1,
    dilation: Any = 1,
) -> np.ndarray:
    """PyTorch's definition: each input entry scatters its kernel (times the
    entry) into the output, which is then cut by the padding."""
    (s0, s1), (p0, p1), (d0, d1) = _pair(stride), _pair(padding), _pair(dilation)
    (e0, e1) = _pair(output_padding)
    n, c, h, wd = y.shape
    _, per, kh, kw = w.shape
    ins = c // groups
    full = np.zeros(
        (n, per * groups, (h - 1) * s0 + d0 * (kh - 1) + 1 + e0,
         (wd - 1) * s1 + d1 * (kw - 1) + 1 + e1)
    )  # fmt: skip
    for i in range(kh):
        for j in range(kw):
            for g in range(groups):
                full[
                    :,
                    g * per : (g + 1) * per,
                    i * d0 : i * d0 + (h - 1) * s0 + 1 : s0,
                    j * d1 : j * d1 + (wd - 1) * s1 + 1 : s1,
                ] += np.einsum(
                    "nchw,co->nohw",
                    y[:, g * ins : (g + 1) * ins],
                    w[g * ins : (g + 1) * ins, :, i, j],
                )
    return full[:, :, p0 : full.shape[2] - p0, p1 : full.shape[3] - p1]


# name: (gradopt, float64 NumPy reference, operand shapes)
NN: dict[str, tuple[Callable, Callable, list[tuple[int, ...]]]] = {
    "conv2d groups": (
        lambda x, w: gnn.conv2d(x, w, padding=1, groups=2),
        lambda x, w: numpy_conv(x, w, padding=1, groups=2),
        [(1, 4, 5, 4), (4, 2, 3, 2)],
    ),
    "conv2d depthwise strided dilated": (
        lambda x, w: gnn.conv2d(x, w, stride=2, padding=2, dilation=2, groups=4),
        lambda x, w: numpy_conv(x, w, stride=2, padding=2, dilation=2, groups=4),
        [(1, 4, 6, 5), (8, 1, 3, 2)],
    ),
    "conv_transpose2d": (
        gnn.conv_transpose2d,
        numpy_conv_transpose,
        [(1, 4, 3, 3), (4, 3, 3, 2)],
    ),
    "conv_transpose2d strided output_padding": (
        lambda y, w: gnn.conv_transpose2d(y, w, stride=2, padding=1, output_padding=1),
        lambda y, w: numpy_conv_transpose(y, w, 2, 1, 1),
        [(1, 4, 3, 3), (4, 3, 3, 2)],
    ),
    "conv_transpose2d grouped dilated cut": (
        lambda y, w: gnn.conv_transpose2d(
            y, w, stride=3, padding=(4, 0), output_padding=(1, 0), groups=2, dilation=2
        ),
        lambda y, w: numpy_conv_transpose(y, w, 3, (4, 0), (1, 0), 2, 2),
        [(1, 4, 3, 3), (4, 1, 3, 2)],
    ),
    **{
        f"{kind}_pool2d {label}": (
            (
                lambda x, o=o: gnn.max_pool2d(
                    x, o["k"], o["s"], o["p"], o.get("d", 1), o.get("ceil_mode", False)
                )
            )
            if kind == "max"
            else (
                lambda x, o=o: gnn.avg_pool2d(
                    x,
                    o["k"],
                    o["s"],
                    o["p"],
                    o.get("ceil_mode", False),
                    o.get("count_include_pad", True),
                )
            ),
            lambda x, kind=kind, o=o: torch_pool(x, kind, **o),
            [(1, 2, 6, 5)],
        )
        for label, (kind, o) in POOLS.items()
    },
}


@functools.cache
def _nn() -> dict[str, Any]:
    return traced_table(
        {name: (traced, *_nn_case(name)) for name, (traced, _, _) in NN.items()}
    )


def _nn_case(name: str) -> tuple[list[np.ndarray], np.ndarray]:
    _, reference, shapes = NN[name]
    args = [generator(name).uniform(-1, 1, s).astype(np.float32) for s in shapes]
    return args, weights(name, reference(*args).shape)


@pytest.mark.parametrize("name", NN)
def test_convolution_and_pooling_against_numpy(name: str) -> None:
    """Values against float64 NumPy references written from PyTorch's
    definitions, gradients against their central differences, forward mode
    against reverse mode."""
    reference = NN[name][1]
    args, w = _nn_case(name)
    got = _nn()[name]
    wide = [a.astype(np.float64) for a in args]
    want = reference(*wide)
    assert np.shape(got[0]) == want.shape
    np.testing.assert_allclose(got[0], want, rtol=1e-5, atol=1e-6)
    for i, grad in enumerate(got[1]):
        expected = central_difference(lambda *a: np.sum(reference(*a) * w), wide, i)
        np.testing.assert_allclose(grad, expected, rtol=1e-4, atol=1e-5)
    adjoint_check(got, name, args, w)


@pytest.mark.parametrize("name", ERRORS)
def test_mistakes_are_located_errors(name: str) -> None:
    mistake, message = ERRORS[name]
    with pytest.raises(
        GradoptError, match=f"^{__file__}:\\d+:\\d+: error: .*{message}"
    ):
        gradopt.jit(mistake)(f32(3, 4))


def test_second_derivatives_of_the_composites() -> None:
    """The composites differentiate twice (the exact parts are detached, the
    derivative is carried by ops that have rules): power, arctan2, fmod."""

    def second(x: Any) -> Any:
        return [
            gradopt.grad(gradopt.grad(f))(x)
            for f in (
                lambda x: x**1.7,
                lambda x: gnp.arctan2(x, 1.5),
                lambda x: gnp.fmod(x * x, 1.5),
            )
        ]

    got = gradopt.jit(second)(np.float32(0.7))
    want = [1.7 * 0.7 * 0.7**-0.3, -2 * 0.7 * 1.5 / (0.7**2 + 1.5**2) ** 2, 2.0]
    np.testing.assert_allclose(got, want, rtol=1e-4)  # a polynomial's 2nd derivative
