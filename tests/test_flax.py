"""flax models through `from_jax` (the optional `flax` extra; skipped
without it): a CNN (`nn.Conv`, `nn.max_pool`, `nn.avg_pool`, `nn.Dense`,
relu) and a transformer block (`nn.MultiHeadDotProductAttention`,
`nn.LayerNorm`, `nn.Dense`, gelu) convert with `from_jax(model.apply)` and
train with `gradopt.optim.adam`, every step's loss equal to that of the same
training in JAX with optax's adam, to float32 rounding."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
from frontend_checks import import_jax

import gradopt
import gradopt.nn as gnn
import gradopt.numpy as gnp
import gradopt.optim as optim

jax = import_jax()
flax_linen = pytest.importorskip("flax.linen")
optax = pytest.importorskip("optax")
jnp = jax.numpy


class CNN(flax_linen.Module):
    @flax_linen.compact
    def __call__(self, x: Any) -> Any:
        x = flax_linen.relu(flax_linen.Conv(4, (3, 3), padding="SAME")(x))
        x = flax_linen.max_pool(x, (2, 2), strides=(2, 2))
        x = flax_linen.relu(flax_linen.Conv(6, (3, 3), padding="VALID")(x))
        x = flax_linen.avg_pool(x, (2, 2), strides=(1, 1))
        return flax_linen.Dense(3)(x.reshape((x.shape[0], -1)))


class Block(flax_linen.Module):
    @flax_linen.compact
    def __call__(self, x: Any) -> Any:
        h = flax_linen.LayerNorm()(x)
        x = x + flax_linen.MultiHeadDotProductAttention(num_heads=2, qkv_features=4)(
            h, h
        )
        h = flax_linen.gelu(flax_linen.Dense(8)(flax_linen.LayerNorm()(x)))
        return flax_linen.Dense(3)((x + flax_linen.Dense(4)(h)).mean(axis=1))


def _train(model: Any, x: np.ndarray, steps: int = 3) -> None:
    rng = np.random.default_rng(0)
    y = np.eye(3, dtype=np.float32)[rng.integers(0, 3, x.shape[0])]
    params = jax.tree_util.tree_map(np.asarray, model.init(jax.random.PRNGKey(0), x))
    apply = gradopt.from_jax(model.apply, params, x)
    ours, theirs = optim.adam(1e-2), optax.adam(1e-2)

    @gradopt.jit
    def step(p: Any, state: Any) -> Any:
        def loss(p: Any) -> Any:
            return -gnp.mean(gnp.sum(y * gnn.log_softmax(apply(p, x)), -1))

        value, grads = gradopt.value_and_grad(loss)(p)
        updates, state = ours.update(grads, state, p)
        return optim.apply_updates(p, updates), state, value

    @jax.jit
    def reference(p: Any, state: Any) -> Any:
        def loss(p: Any) -> Any:
            return -jnp.mean(jnp.sum(y * jax.nn.log_softmax(model.apply(p, x)), -1))

        value, grads = jax.value_and_grad(loss)(p)
        updates, state = theirs.update(grads, state, p)
        return optax.apply_updates(p, updates), state, value

    mine, state = params, ours.init(params)
    jax_params, jax_state = params, theirs.init(params)
    losses = []
    for _ in range(steps):
        mine, state, value = step(mine, state)
        jax_params, jax_state, jax_value = reference(jax_params, jax_state)
        losses.append((float(value), float(jax_value)))
    got, want = np.array(losses).T
    np.testing.assert_allclose(got, want, rtol=2e-6)
    assert got[-1] < got[0]  # it trains


def test_flax_cnn_trains_as_in_jax() -> None:
    x = np.random.default_rng(1).standard_normal((2, 8, 8, 1)).astype(np.float32)
    _train(CNN(), x)


def test_flax_transformer_block_trains_as_in_jax() -> None:
    x = np.random.default_rng(2).standard_normal((2, 3, 4)).astype(np.float32)
    _train(Block(), x)
