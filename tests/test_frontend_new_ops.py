"""The front-end features built on the ops of the "slice, pad, reverse, concat,
batched dot" issue: indexing with ints and slices, `pad`, `concatenate`,
`stack`, `flip`, batched `matmul`, `conv2d`, the pools, and the matching JAX
primitives. Skipped while the dialect has no `SliceOp`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
from frontend_checks import check_grad, check_value, f32, import_jax

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp

INDEXING = [
    lambda x: x[1],
    lambda x: x[-1, 2],
    lambda x: x[:, 1:3],
    lambda x: x[::2, ::-1],
    lambda x: x[1:, -2::-2, None],
    lambda x: x[..., 1],
    lambda x: x[None, 0, ..., ::3],
    lambda x: x[5:],
    lambda x: x[3:0:-1, :0],
    lambda x: x[-100:100, 1:-1],
    lambda x: x[2::-5, ::-1],
]


@pytest.mark.parametrize("index", INDEXING)
def test_indexing_value_and_gradient(index: Callable[[Any], Any]) -> None:
    x = f32(4, 5, 3)
    check_value(index, index, x)
    check_grad(index, index, x)


def test_iterating_over_an_array_indexes_its_first_axis() -> None:
    x = f32(3, 2)
    rows = gradopt.jit(lambda x: [r * 2 for r in x])(x)
    np.testing.assert_array_equal(np.stack(rows), x * 2)


SHAPES = [
    (lambda x: gnp.pad(x, 1), lambda x: np.pad(x, 1)),
    (
        lambda x: gnp.pad(x, ((0, 1), (2, 0), (1, 1))),
        lambda x: np.pad(x, ((0, 1), (2, 0), (1, 1))),
    ),
    (
        lambda x: gnp.pad(x, (1, 2), constant_values=-1.5),
        lambda x: np.pad(x, (1, 2), constant_values=-1.5),
    ),
    (
        lambda x: gnp.concatenate([x, 2 * x], axis=1),
        lambda x: np.concatenate([x, 2 * x], axis=1),
    ),
    (lambda x: gnp.concatenate([x, x[:1]]), lambda x: np.concatenate([x, x[:1]])),
    (
        lambda x: gnp.concatenate([x, x], axis=None),
        lambda x: np.concatenate([x, x], axis=None),
    ),
    (lambda x: gnp.stack([x, -x], axis=-1), lambda x: np.stack([x, -x], axis=-1)),
    (lambda x: gnp.stack([x[0], x[1]]), lambda x: np.stack([x[0], x[1]])),
    (
        lambda x: gnp.array([x[0, 0, 0], x[1, 1, 1]]),
        lambda x: np.array([x[0, 0, 0], x[1, 1, 1]]),
    ),
    (lambda x: gnp.flip(x), np.flip),
    (lambda x: gnp.flip(x, axis=1), lambda x: np.flip(x, axis=1)),
    (lambda x: gnp.flip(x, (0, 2)), lambda x: np.flip(x, (0, 2))),
]


@pytest.mark.parametrize(("traced", "reference"), SHAPES)
def test_pad_concatenate_stack_flip(
    traced: Callable[[Any], Any], reference: Callable[[Any], Any]
) -> None:
    x = f32(4, 5, 3)
    check_value(traced, reference, x)
    check_grad(traced, reference, x)


def test_concatenate_promotes_and_checks_shapes() -> None:
    got = gradopt.jit(lambda a, b: gnp.concatenate([a, b]))(
        np.array([1, 2], np.int32), np.array([0.5], np.float32)
    )
    assert got.dtype == np.float32 and got.tolist() == [1.0, 2.0, 0.5]
    with pytest.raises(gradopt.GradoptError, match="cannot concatenate shapes"):
        gradopt.jit(lambda a: gnp.concatenate([a, a.T]))(f32(2, 3))


def test_matmul_with_batch_dims_on_both_sides() -> None:
    for lhs, rhs in (
        ((2, 3, 4), (2, 4, 5)),
        ((3, 1, 2, 4), (2, 4, 3)),
        ((2, 1, 3, 4), (5, 4, 2)),
    ):
        a, b = f32(*lhs), f32(*rhs)
        check_value(gnp.matmul, np.matmul, a, b, rtol=3e-6)
        check_grad(gnp.matmul, np.matmul, a, b, argnum=0)
        check_grad(gnp.matmul, np.matmul, a, b, argnum=1)


def conv2d_reference(
    x: np.ndarray,
    w: np.ndarray,
    b: np.ndarray | None,
    stride: int,
    padding: int,
    dilation: int,
) -> np.ndarray:
    """A direct loop over output positions, in float64."""
    x = np.pad(x, ((0, 0), (0, 0), (padding, padding), (padding, padding)))
    n, _, h, width = x.shape
    o, _, kh, kw = w.shape
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (width - dilation * (kw - 1) - 1) // stride + 1
    out = np.zeros((n, o, oh, ow))
    for i in range(oh):
        for j in range(ow):
            rows = i * stride + dilation * np.arange(kh)
            cols = j * stride + dilation * np.arange(kw)
            window = x[:, :, rows][:, :, :, cols]
            out[:, :, i, j] = np.einsum("nchw,ochw->no", window, w)
    return out if b is None else out + b[None, :, None, None]


@pytest.mark.parametrize(
    ("stride", "padding", "dilation"), [(1, 0, 1), (2, 1, 1), (1, 2, 2), (3, 0, 1)]
)
def test_conv2d_value_and_gradients(stride: int, padding: int, dilation: int) -> None:
    x, w, b = f32(2, 2, 6, 5), f32(3, 2, 3, 2), f32(3)

    def traced(x: Any, w: Any, b: Any) -> Any:
        return gnn.conv2d(x, w, b, stride=stride, padding=padding, dilation=dilation)

    def reference(x: Any, w: Any, b: Any) -> Any:
        return conv2d_reference(x, w, b, stride, padding, dilation)

    check_value(traced, reference, x, w, b, rtol=3e-6, atol=3e-6)
    for argnum in range(3):
        check_grad(traced, reference, x, w, b, argnum=argnum, rtol=2e-4, atol=2e-5)


def pool_reference(
    x: np.ndarray, k: int, stride: int, padding: int, kind: str
) -> np.ndarray:
    fill = -np.inf if kind == "max" else 0.0
    x = np.pad(
        x,
        ((0, 0), (0, 0), (padding, padding), (padding, padding)),
        constant_values=fill,
    )
    n, c, h, w = x.shape
    oh, ow = (h - k) // stride + 1, (w - k) // stride + 1
    out = np.zeros((n, c, oh, ow))
    for i in range(oh):
        for j in range(ow):
            window = x[:, :, i * stride : i * stride + k, j * stride : j * stride + k]
            out[:, :, i, j] = (
                window.max((2, 3)) if kind == "max" else window.mean((2, 3))
            )
    return out


@pytest.mark.parametrize(
    ("k", "stride", "padding"), [(2, None, 0), (3, 2, 1), (2, 1, 0)]
)
@pytest.mark.parametrize("kind", ["max", "avg"])
def test_pools_value_and_gradient(
    k: int, stride: int | None, padding: int, kind: str
) -> None:
    x = f32(2, 2, 6, 5)
    pool = gnn.max_pool2d if kind == "max" else gnn.avg_pool2d

    def traced(x: Any) -> Any:
        return pool(x, k, stride, padding)

    def reference(x: Any) -> Any:
        return pool_reference(x, k, stride or k, padding, kind)

    check_value(traced, reference, x, rtol=3e-6)
    check_grad(traced, reference, x, rtol=2e-4, atol=2e-5)


def test_a_conv_net_trains_a_step() -> None:
    x, w = f32(2, 1, 6, 6), f32(3, 1, 3, 3)
    dense = f32(12, 2)
    y = np.eye(2, dtype=np.float32)

    def loss(w: Any, dense: Any) -> Any:
        hidden = gnn.max_pool2d(gnn.relu(gnn.conv2d(x, w, padding=1)), 3)
        logits = hidden.reshape(2, -1) @ dense
        return -gnp.mean(gnp.sum(y * gnn.log_softmax(logits), axis=-1))

    value, (gw, gd) = gradopt.value_and_grad(loss, argnums=(0, 1))(w, dense)
    after = gradopt.jit(loss)(w - 1e-3 * gw, dense - 1e-3 * gd)
    assert after < value


def test_the_jax_primitives_of_the_new_ops() -> None:
    jax = import_jax()
    jnp = jax.numpy

    def f(x: Any, y: Any) -> Any:
        parts = jnp.split(x, [1, 3], axis=1)
        padded = jnp.pad(x, ((1, 0), (0, 2)))
        cropped = jax.lax.pad(x, 0.0, ((-1, 1, 1), (0, -2, 0)))
        batched = jnp.einsum("bij,bjk->bik", y, jnp.swapaxes(y, 1, 2))
        return (
            jnp.sum(jnp.concatenate(parts[::-1], axis=1) * x[::-1, 1:].sum())
            + jnp.sum(padded**2)
            + jnp.sum(cropped)
            + jnp.sum(jnp.flip(x, 0) * x)
            + jnp.sum(batched)
            + jnp.sum(x[1, ::2])
        )

    x, y = f32(3, 4), f32(2, 3, 4)
    traced = gradopt.from_jax(f, x, y)
    value, grads = jax.jit(jax.value_and_grad(f, argnums=(0, 1)))(x, y)
    np.testing.assert_allclose(traced(x, y), value, rtol=2e-6)
    got = gradopt.grad(traced, argnums=(0, 1))(x, y)
    for g, want in zip(got, grads, strict=True):
        np.testing.assert_allclose(g, want, rtol=2e-5, atol=1e-6)
