"""`gradopt.optim` against optax's update formulas, written here in float64
from optax's documentation: 100 steps of each optimizer on a fixed sequence
of gradients stay within float32 rounding of the float64 trajectory, eagerly
and inside one `gradopt.jit`."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest

import gradopt
import gradopt.optim as optim
from gradopt.tree_util import tree_leaves, tree_map, tree_structure

STEPS = 100
Params = dict[str, np.ndarray]


def gradients(seed: int = 0) -> list[Params]:
    rng = np.random.default_rng(seed)
    return [
        {
            "w": rng.normal(0, 1, (3, 2)).astype(np.float32),
            "b": rng.normal(0, 0.1, 2).astype(np.float32),
        }
        for _ in range(STEPS)
    ]


def start() -> Params:
    return {
        "w": np.linspace(-1, 1, 6, dtype=np.float32).reshape(3, 2),
        "b": np.array([0.5, -0.25], np.float32),
    }


Reference = Callable[[dict[str, np.ndarray], list[Params]], list[dict]]


def reference(update: Callable[[int, str, np.ndarray, np.ndarray, dict], np.ndarray]):
    """The float64 trajectory of `update(t, key, g, p, state) -> delta`."""

    def run(params: Params, grads: list[Params]) -> list[dict[str, np.ndarray]]:
        p = {k: v.astype(np.float64) for k, v in params.items()}
        state: dict[str, Any] = {}
        out = []
        for t, g in enumerate(grads, start=1):
            g64 = {k: v.astype(np.float64) for k, v in g.items()}
            deltas = {k: update(t, k, g64[k], p[k], state) for k in p}
            p = {k: p[k] + deltas[k] for k in p}
            out.append(p)
        return out

    return run


def sgd_ref(lr: float, mu: float | None = None, nesterov: bool = False):
    def update(t: int, k: str, g: np.ndarray, p: np.ndarray, s: dict) -> np.ndarray:
        if mu is None:
            return -lr * g
        trace = g + mu * s.get(k, 0.0)
        s[k] = trace
        return -lr * (g + mu * trace if nesterov else trace)

    return reference(update)


def adam_ref(lr: float, b1=0.9, b2=0.999, eps=1e-8, wd: float | None = None):
    def update(t: int, k: str, g: np.ndarray, p: np.ndarray, s: dict) -> np.ndarray:
        m = s[k, "m"] = (1 - b1) * g + b1 * s.get((k, "m"), 0.0)
        v = s[k, "v"] = (1 - b2) * g * g + b2 * s.get((k, "v"), 0.0)
        u = (m / (1 - b1**t)) / (np.sqrt(v / (1 - b2**t)) + eps)
        if wd is not None:
            u = u + wd * p
        return -lr * u

    return reference(update)


def rmsprop_ref(lr: float, decay=0.9, eps=1e-8, mu: float | None = None):
    def update(t: int, k: str, g: np.ndarray, p: np.ndarray, s: dict) -> np.ndarray:
        v = s[k, "v"] = (1 - decay) * g * g + decay * s.get((k, "v"), 0.0)
        u = -lr * g / np.sqrt(v + eps)
        if mu is not None:
            u = s[k, "t"] = u + mu * s.get((k, "t"), 0.0)
        return u

    return reference(update)


def clipped_sgd_ref(lr: float, max_norm: float):
    """optax.chain(clip_by_global_norm(max_norm), sgd(lr)): the norm is over
    every leaf of the step's gradient."""

    def run(params: Params, grads: list[Params]) -> list[dict[str, np.ndarray]]:
        p = {k: v.astype(np.float64) for k, v in params.items()}
        out = []
        for g in grads:
            g64 = {k: v.astype(np.float64) for k, v in g.items()}
            norm = np.sqrt(sum(np.sum(v * v) for v in g64.values()))
            factor = 1.0 if norm < max_norm else max_norm / norm
            p = {k: p[k] - lr * factor * g64[k] for k in p}
            out.append(p)
        return out

    return run


CASES: dict[str, tuple[optim.GradientTransformation, Reference]] = {
    "sgd": (optim.sgd(0.1), sgd_ref(0.1)),
    "momentum": (optim.momentum(0.05, 0.9), sgd_ref(0.05, 0.9)),
    "nesterov": (optim.momentum(0.05, 0.9, nesterov=True), sgd_ref(0.05, 0.9, True)),
    "adam": (optim.adam(0.01), adam_ref(0.01)),
    "adamw": (optim.adamw(0.01, weight_decay=0.1), adam_ref(0.01, wd=0.1)),
    "rmsprop": (optim.rmsprop(0.01), rmsprop_ref(0.01)),
    "rmsprop_momentum": (optim.rmsprop(0.01, momentum=0.5), rmsprop_ref(0.01, mu=0.5)),
    "clip": (
        optim.chain(optim.clip_by_global_norm(1.5), optim.sgd(0.1)),
        clipped_sgd_ref(0.1, 1.5),
    ),
}


def close(ours: Params, theirs: dict[str, np.ndarray]) -> None:
    for k in theirs:
        assert ours[k].dtype == np.float32
        np.testing.assert_allclose(ours[k], theirs[k], rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", sorted(CASES))
def test_trajectory_equals_optax_formulas(name: str) -> None:
    transform, expected = CASES[name]
    grads = gradients()
    params = start()
    state = transform.init(params)
    for g, want in zip(grads, expected(start(), grads), strict=True):
        updates, state = transform.update(g, state, params)
        params = optim.apply_updates(params, updates)
        close(params, want)


@pytest.mark.parametrize("name", ["nesterov", "adamw", "clip"])
def test_jitted_step_follows_the_same_trajectory(name: str) -> None:
    transform, expected = CASES[name]

    def step(params: Any, state: Any, g: Any) -> Any:
        updates, state = transform.update(g, state, params)
        return optim.apply_updates(params, updates), state

    jitted = gradopt.jit(step)
    grads = gradients(1)[:20]
    params, state = start(), transform.init(start())
    for g, want in zip(grads, expected(start(), grads), strict=True):
        params, state = jitted(params, state, g)
        close(params, want)


def test_global_norm_and_clipping_below_the_norm_is_the_identity() -> None:
    g = {"a": np.array([3.0], np.float32), "b": np.array([[4.0]], np.float32)}
    assert optim.global_norm(g) == np.float32(5.0)
    same, _ = optim.clip_by_global_norm(6.0).update(g, optim.EmptyState())
    equal = tree_map(lambda x, y: bool((x == y).all()), same, g)
    assert equal == {"a": True, "b": True}
    half, _ = optim.clip_by_global_norm(2.5).update(g, optim.EmptyState())
    assert [float(x.item()) for x in tree_leaves(half)] == [1.5, 2.0]


def test_tree_util_over_nested_structures() -> None:
    tree = {"b": (1, [2, None]), "a": 3}
    assert tree_leaves(tree) == [3, 1, 2]
    assert tree_map(lambda x, y: x + y, tree, tree) == {"b": (2, [4, None]), "a": 6}
    assert tree_structure(tree) == tree_structure({"a": 0, "b": (0, [0, None])})
    with pytest.raises(gradopt.GradoptError, match="one structure"):
        tree_map(lambda x, y: x, tree, {"a": 1})
