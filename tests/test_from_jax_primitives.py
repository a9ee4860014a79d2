"""`gradopt.from_jax` on JAX's structured primitives (scans, sorting, dynamic
slices, gathers and scatters, convolutions, windowed reductions, rounding,
inverse trigonometry): value, gradient and forward-mode derivative of each
against float64 JAX of the same function. Skipped without the `jax` extra."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import f32, import_jax

import gradopt

jax = import_jax()
jnp, lax = jax.numpy, jax.lax

IDX = np.array([2, -1, 0, 2], np.int32)
"""A repeated and a negative index."""


def _traced_start(x: Any) -> Any:
    """A start index computed from the data (3 for the samples below)."""
    return jnp.argmax(x[0] * 0.0 + jnp.arange(6.0) * (jnp.arange(6) < 4))


def _conv(x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=(2, 1),
        padding=((1, 2), (0, -1)),
        lhs_dilation=(1, 2),
        rhs_dilation=(2, 1),
        dimension_numbers=("NHWC", "HWIO", "NCHW"),
        feature_group_count=2,
    )


def _conv1d(x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(
        x, w, (1,), "SAME", dimension_numbers=("NCH", "OIH", "NHC")
    )


def _conv3d(x: Any, w: Any) -> Any:
    return lax.conv_general_dilated(
        x,
        w,
        window_strides=(1, 2, 1),
        padding=((1, 0), (0, 1), (1, 1)),
        lhs_dilation=(2, 1, 1),
        rhs_dilation=(1, 1, 2),
        dimension_numbers=("NDHWC", "DHWIO", "NCDHW"),
        feature_group_count=2,
    )


CASES: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]]]] = {
    "rem floor ceil round": (
        lambda x: (
            lax.rem(x, 0.7)
            + x * (jnp.floor(x) + jnp.ceil(2 * x) + jnp.round(3 * x))
            + x * lax.round(x + 0.5, lax.RoundingMethod.AWAY_FROM_ZERO)
        ),
        [(4, 6)],
    ),
    "atan2 asin acos atan": (
        lambda x, y: (
            jnp.arctan2(x, y) + jnp.arcsin(x / 3) + jnp.arccos(y / 3) + jnp.arctan(x)
        ),
        [(4, 6), (4, 6)],
    ),
    "asinh acosh atanh clamp": (
        lambda x: (
            jnp.arcsinh(x)
            + jnp.arccosh(jnp.abs(x) + 1.5)
            + jnp.arctanh(x / 3)
            + lax.clamp(-0.5, x, 0.7)
        ),
        [(4, 6)],
    ),
    "iota argmax argmin": (
        lambda x: (
            x * lax.broadcasted_iota(jnp.float32, (4, 6), 1)
            + x * jnp.argmax(x, 1)[:, None]
            - x * jnp.argmin(x, 0)
        ),
        [(4, 6)],
    ),
    "cumsum cumprod cummax cummin cumlogsumexp": (
        lambda x: (
            jnp.cumsum(x, 1)
            + jnp.cumprod(x, 0)
            + lax.cummax(x, 1, reverse=True)
            + lax.cummin(x, 0)
            + lax.cumlogsumexp(x, 1, reverse=True)
        ),
        [(4, 6)],
    ),
    "sort argsort take_along_axis top_k": (
        lambda x: (
            jnp.sort(x, 1)
            + jnp.take_along_axis(x, jnp.argsort(x * x, 0), 0)
            + jnp.tile(lax.top_k(x.T, 2)[0].T, (2, 1))
            + lax.top_k(x, 6)[1]
        ),
        [(4, 6)],
    ),
    "dynamic_slice dynamic_update_slice (static, clamped, traced)": (
        lambda x: (
            jnp.tile(lax.dynamic_slice(x, (1, 4), (2, 3)), (2, 2))
            + jnp.tile(lax.dynamic_slice(x, (0, _traced_start(x)), (2, 3)), (2, 2))
            + lax.dynamic_update_slice(x, x[:2, :3] ** 2, (3, 1))
            + lax.dynamic_update_slice(x, x[1:, 1:3] ** 3, (-1, _traced_start(x)))
        ),
        [(4, 6)],
    ),
    "gather: x[idx] x[:, idx] take": (
        lambda x: (
            x[IDX][:, :4]
            + x[:, IDX]
            + jnp.take(x, IDX, axis=1)
            + x[IDX.reshape(2, 2)].reshape(4, 6)[:, :4]
        ),
        [(4, 6)],
    ),
    "scatter-add scatter: x.at[idx].add/set, dropped": (
        lambda x: (
            x.at[IDX].add(x**2)
            + x.at[:, IDX].set(x[:, :4] * 3)
            + x.at[jnp.array([1, 9])].add(x[:2] * 5)
        ),
        [(4, 6)],
    ),
    "gather of slices: x[1:, idx], x[idx, 1:3], filled and clamped": (
        lambda x: jnp.concatenate(
            [
                x[1:, IDX].ravel(),
                x[IDX, 1:3].ravel(),
                x[:, jnp.array([[0, 3], [1, 1]]), ::2].ravel(),
                x.at[jnp.array([1, 5]), 1:3].get(mode="fill", fill_value=-1.0).ravel(),
                x.at[jnp.array([1, -5]), 2:].get(mode="clip").ravel(),
                jax.vmap(lambda r, i: lax.dynamic_slice(r, (i, 1), (2, 3)))(
                    x, jnp.array([0, 3, 2, 1])
                ).ravel(),
            ]
        ),
        [(4, 6, 5)],
    ),
    "scatter of windows: x.at[idx, 1:3], dropped, clipped, vmapped": (
        lambda x: (
            x.at[IDX[:3], 1:3].add(x[:3, :2] * 3.0)
            + x.at[jnp.array([0, 5]), 2:].multiply(jnp.arange(8.0).reshape(2, 4) - 3)
            + x.at[jnp.array([1, -9]), 2:].set(x[2:, 1:5], mode="clip")
            + jax.vmap(lambda r, i: lax.dynamic_update_slice(r, r[:2] * r[:2], (i,)))(
                x, jnp.array([0, 5, 2, 3])
            )
        ),
        [(4, 6)],
    ),
    "scatter-mul: x.at[idx].multiply, repeated and dropped": (
        lambda x: (
            x.at[IDX].multiply(jnp.arange(24.0).reshape(4, 6) * 0.25 - 2.0)
            + x.at[:, jnp.array([1, 9, 1])].multiply(1.5)
        ),
        [(4, 6)],
    ),
    "gather scatter of several indices: x[i, j], x[i, :, k], x.at[i, j]": (
        lambda x: jnp.concatenate(
            [
                x[IDX[:3], IDX[1:, None]].ravel(),
                x[:, IDX[:2] % 4, jnp.array([4, 0])].ravel(),
                x.at[IDX[:3], :, jnp.array([4, 0, 9])]
                .get(mode="fill", fill_value=2.0)
                .ravel(),
                x.at[IDX[:3], IDX[1:, None]].add(x[0, :3] * 3).ravel(),
                x.at[IDX[:3], :, jnp.array([4, 0, 9])].set(x[0, :, :3].T).ravel(),
            ]
        ),
        [(3, 4, 5)],
    ),
    "gather scatter at traced scalars, rank 3, window dilation": (
        lambda x: (
            x[jnp.argmax(x[0, 0])]
            + x.at[:, jnp.argmax(x[0, 0]) - 1].add(x[:, 0] * 2)[1]
            + jnp.take_along_axis(x, jnp.argsort(x, 1), 1)[2]
            + lax.reduce_window(
                x, 0.0, lax.add, (3, 1, 2), (1, 1, 1), "SAME", (1, 1, 1), (1, 2, 2)
            )[0]
        ),
        [(3, 4, 5)],
    ),
    "conv_general_dilated NHWC groups dilations, 1-d": (
        lambda x, w, v, k: _conv(x, w).sum() * 0.1 + _conv1d(v, k),
        [(2, 7, 5, 4), (3, 2, 2, 6), (2, 3, 8), (4, 3, 3)],
    ),
    "conv_general_dilated 3-d, groups, dilations, padding": (
        _conv3d,
        [(2, 3, 4, 5, 4), (2, 2, 2, 2, 4)],
    ),
    "reduce_window max sum min": (
        lambda x: (
            lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2), (1, 2, 1), "SAME")
            + lax.reduce_window(x, 0.0, lax.add, (1, 2, 2), (1, 2, 1), "SAME")
            + lax.reduce_window(
                x, jnp.inf, lax.min, (1, 2, 1), (1, 2, 1), ((0, 0), (1, 0), (0, 0))
            )
        ),
        [(3, 5, 4)],
    ),
}


@pytest.mark.parametrize("name", CASES)
def test_value_and_gradient_agree_with_float64_jax(name: str) -> None:
    f, shapes = CASES[name]
    args = [f32(*shape) for shape in shapes]
    weight = f32(*jax.eval_shape(f, *args).shape, low=0.5, high=1.5)

    def loss(*xs: Any) -> Any:
        return jnp.sum(f(*xs) * weight)

    traced = gradopt.from_jax(loss, *args)
    argnums = tuple(range(len(args)))
    value, grads = gradopt.value_and_grad(traced, argnums)(*args)
    with jax.enable_x64(True):
        wide = [a.astype(np.float64) for a in args]
        want, want_grads = jax.jit(jax.value_and_grad(loss, argnums))(*wide)
    np.testing.assert_allclose(value, want, rtol=1e-5, atol=1e-4)
    for got, expected in zip(grads, want_grads, strict=True):
        np.testing.assert_allclose(got, expected, rtol=1e-4, atol=1e-4)
    tangents = [f32(*shape) for shape in shapes]
    _, tangent = gradopt.jvp(traced, tuple(args), tuple(tangents))
    expected = sum(np.vdot(g, t) for g, t in zip(want_grads, tangents, strict=True))
    np.testing.assert_allclose(tangent, expected, rtol=1e-4, atol=1e-4)


def test_rounding_and_rem_at_special_values_agree_with_jax() -> None:
    """Equal values and signs of zero (NaN's sign bit is the hardware's)."""

    def f(x: Any) -> Any:
        away = lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO)
        return jnp.stack([jnp.floor(x), jnp.ceil(x), jnp.round(x), away, x % 0.75])

    special = [np.inf, -np.inf, np.nan]
    x = np.array([-2.5, -0.5, -0.3, -0.0, 0.0, 0.5, 1.5, 2.5, *special], np.float32)
    x = np.append(x, np.float32([0.49999997, 8388609.0]))
    got, want = np.asarray(gradopt.from_jax(f, x)(x)), np.asarray(jax.jit(f)(x))
    np.testing.assert_array_equal(got, want)
    numbers = ~np.isnan(want)
    np.testing.assert_array_equal(np.signbit(got)[numbers], np.signbit(want)[numbers])


def test_iota_is_one_op() -> None:
    def f(x: Any) -> Any:
        return x * lax.broadcasted_iota(jnp.float32, (300, 400), 0)

    text = gradopt.jit(gradopt.from_jax(f, f32(300, 400))).lower(f32(300, 400))
    assert "grad.iota" in text.as_text()
    assert "dense<" not in text.as_text()


def test_out_of_range_gather_fills_or_clamps_as_jax() -> None:
    def f(x: Any) -> Any:
        index = jnp.array([5, 1, -7])
        return jnp.stack(
            [jnp.take(x, index, axis=1), jnp.take(x, index, axis=1, mode="clip")]
        )

    x = f32(2, 4)
    np.testing.assert_array_equal(gradopt.from_jax(f, x)(x), f(x))


def test_a_small_cnn_trains_with_jax_gradients() -> None:
    """A flax-free CNN (`conv_general_dilated`, `reduce_window` max pooling, a
    dense layer, `take_along_axis` of the labels): a few SGD steps on
    gradopt's gradient, each step's gradient equal to float64 JAX's."""

    def loss(params: Any, x: Any, y: Any) -> Any:
        h = lax.conv_general_dilated(
            x, params["w"], (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
        )
        h = jax.nn.relu(h + params["b"])
        h = lax.reduce_window(h, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
        logits = h.reshape(h.shape[0], -1) @ params["dense"]
        picked = jnp.take_along_axis(jax.nn.log_softmax(logits), y[:, None], 1)
        return -jnp.mean(picked)

    params = {"w": f32(3, 3, 1, 4), "b": f32(4), "dense": f32(64, 3) * 0.1}
    x, y = f32(6, 8, 8, 1), np.array([0, 1, 2, 0, 1, 2], np.int32)
    step = gradopt.value_and_grad(gradopt.from_jax(loss, params, x, y))
    reference = jax.jit(jax.value_and_grad(loss))
    losses = []
    for _ in range(4):
        value, grads = step(params, x, y)
        with jax.enable_x64(True):
            wide = {k: v.astype(np.float64) for k, v in params.items()}
            want, want_grads = reference(wide, x.astype(np.float64), y)
        np.testing.assert_allclose(value, want, rtol=1e-5)
        for k in params:
            np.testing.assert_allclose(grads[k], want_grads[k], rtol=1e-4, atol=1e-5)
        losses.append(float(value))
        params = {k: v - 0.5 * np.asarray(grads[k]) for k, v in params.items()}
    assert losses[-1] < losses[0]
