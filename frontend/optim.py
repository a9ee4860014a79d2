"""`gradopt.optim`: gradient transformations with optax's shape.

A `GradientTransformation` is a pair of pure functions, `init(params)` giving
the state and `update(updates, state, params)` giving the transformed updates
and the new state; `apply_updates(params, updates)` adds them. The formulas
are optax's, term for term, in float32. The functions work leaf by leaf on any
tree of parameters (`gradopt.tree_util`), with NumPy arrays outside a trace
and traced arrays inside one, so that a whole training step can be one
`gradopt.jit`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import numpy as np

from gradopt.frontend.array import FLOAT32, Array
from gradopt.frontend.tree_util import tree_leaves, tree_map

__all__ = [
    "AddDecayedWeightsState",
    "ClipByGlobalNormState",
    "EmptyState",
    "GradientTransformation",
    "ScaleByAdamState",
    "ScaleByRmsState",
    "TraceState",
    "adam",
    "adamw",
    "add_decayed_weights",
    "apply_updates",
    "chain",
    "clip_by_global_norm",
    "global_norm",
    "momentum",
    "rmsprop",
    "scale",
    "scale_by_adam",
    "scale_by_rms",
    "sgd",
    "trace",
]

Updates = Any
State = Any


class GradientTransformation(NamedTuple):
    init: Callable[[Any], State]
    update: Callable[[Updates, State, Any], tuple[Updates, State]]


class EmptyState(NamedTuple):
    pass


class TraceState(NamedTuple):
    trace: Any


class ScaleByAdamState(NamedTuple):
    count: Any
    mu: Any
    nu: Any


class ScaleByRmsState(NamedTuple):
    nu: Any


AddDecayedWeightsState = EmptyState
ClipByGlobalNormState = EmptyState


def _zeros_like(tree: Any, fill: float = 0.0) -> Any:
    return tree_map(lambda p: np.full(np.shape(p), fill, FLOAT32), tree)


def _float32(x: Any) -> Any:
    return x if isinstance(x, Array) else np.asarray(x, FLOAT32)


def _power(base: float, count: Any) -> Any:
    """`base ** count` in float32 for an int32 step count."""
    return np.power(np.float32(base), count.astype(FLOAT32))


def _increment(count: Any) -> Any:
    return count + np.int32(1)


def scale(step_size: float) -> GradientTransformation:
    """`step_size * g`."""

    def update(updates: Updates, state: State, params: Any = None) -> Any:
        return tree_map(lambda g: np.float32(step_size) * g, updates), state

    return GradientTransformation(lambda params: EmptyState(), update)


def trace(decay: float, nesterov: bool = False) -> GradientTransformation:
    """Momentum: `t = g + decay * t`, the update `t` (Nesterov: `g + decay * t`)."""

    def init(params: Any) -> TraceState:
        return TraceState(_zeros_like(params))

    def update(updates: Updates, state: TraceState, params: Any = None) -> Any:
        def step(g: Any, t: Any) -> Any:
            return g + np.float32(decay) * t

        new_trace = tree_map(step, updates, state.trace)
        updates = tree_map(step, updates, new_trace) if nesterov else new_trace
        return updates, TraceState(new_trace)

    return GradientTransformation(init, update)


def scale_by_adam(
    b1: float = 0.9, b2: float = 0.999, eps: float = 1e-8, eps_root: float = 0.0
) -> GradientTransformation:
    """Adam's moments with bias correction: `m̂ / (sqrt(v̂ + eps_root) + eps)`."""

    def init(params: Any) -> ScaleByAdamState:
        return ScaleByAdamState(
            np.zeros((), np.int32), _zeros_like(params), _zeros_like(params)
        )

    def update(updates: Updates, state: ScaleByAdamState, params: Any = None) -> Any:
        mu = tree_map(
            lambda g, t: np.float32(1 - b1) * g + np.float32(b1) * t,
            updates,
            state.mu,
        )
        nu = tree_map(
            lambda g, t: np.float32(1 - b2) * (g * g) + np.float32(b2) * t,
            updates,
            state.nu,
        )
        count = _increment(state.count)
        c1 = np.float32(1) - _power(b1, count)
        c2 = np.float32(1) - _power(b2, count)
        updates = tree_map(
            lambda m, v: (
                (m / c1) / (np.sqrt(v / c2 + np.float32(eps_root)) + np.float32(eps))
            ),
            mu,
            nu,
        )
        return updates, ScaleByAdamState(count, mu, nu)

    return GradientTransformation(init, update)


def scale_by_rms(
    decay: float = 0.9, eps: float = 1e-8, initial_scale: float = 0.0
) -> GradientTransformation:
    """RMSProp's scaling: `v = (1 - decay) g² + decay v`, the update
    `g / sqrt(v + eps)` (optax puts eps inside the root)."""

    def init(params: Any) -> ScaleByRmsState:
        return ScaleByRmsState(_zeros_like(params, initial_scale))

    def update(updates: Updates, state: ScaleByRmsState, params: Any = None) -> Any:
        nu = tree_map(
            lambda g, t: np.float32(1 - decay) * (g * g) + np.float32(decay) * t,
            updates,
            state.nu,
        )
        updates = tree_map(
            lambda g, v: g * (np.float32(1) / np.sqrt(v + np.float32(eps))),
            updates,
            nu,
        )
        return updates, ScaleByRmsState(nu)

    return GradientTransformation(init, update)


def add_decayed_weights(weight_decay: float = 0.0) -> GradientTransformation:
    """`g + weight_decay * params` (decoupled weight decay, AdamW)."""

    def update(updates: Updates, state: State, params: Any = None) -> Any:
        if params is None:
            raise ValueError("add_decayed_weights needs the params in update()")
        updates = tree_map(
            lambda g, p: g + np.float32(weight_decay) * p, updates, params
        )
        return updates, state

    return GradientTransformation(lambda params: EmptyState(), update)


def global_norm(updates: Updates) -> Any:
    """The 2-norm of all leaves together, as `optax.global_norm`."""
    total = None
    for leaf in tree_leaves(updates):
        term = np.sum(leaf * leaf)
        total = term if total is None else total + term
    return np.sqrt(_float32(0.0 if total is None else total))


def clip_by_global_norm(max_norm: float) -> GradientTransformation:
    """Scales every leaf by `max_norm / norm` when the global norm exceeds
    `max_norm` (a chainable transform, as `optax.clip_by_global_norm`)."""

    def update(updates: Updates, state: State, params: Any = None) -> Any:
        norm = global_norm(updates)
        small = norm < np.float32(max_norm)
        updates = tree_map(
            lambda t: np.where(small, t, (t / norm) * np.float32(max_norm)), updates
        )
        return updates, state

    return GradientTransformation(lambda params: EmptyState(), update)


def chain(*transforms: GradientTransformation) -> GradientTransformation:
    """The transforms applied in turn; the state is the tuple of theirs."""

    def init(params: Any) -> tuple[State, ...]:
        return tuple(t.init(params) for t in transforms)

    def update(updates: Updates, state: tuple[State, ...], params: Any = None) -> Any:
        states = []
        for transform, inner in zip(transforms, state, strict=True):
            updates, inner = transform.update(updates, inner, params)
            states.append(inner)
        return updates, tuple(states)

    return GradientTransformation(init, update)


def sgd(
    learning_rate: float, momentum: float | None = None, nesterov: bool = False
) -> GradientTransformation:
    """`p - lr * g`, with heavy-ball or Nesterov momentum if given."""
    steps = [] if momentum is None else [trace(momentum, nesterov)]
    return chain(*steps, scale(-learning_rate))


def momentum(
    learning_rate: float, beta: float = 0.9, nesterov: bool = False
) -> GradientTransformation:
    """SGD with momentum `beta` (`sgd(learning_rate, beta, nesterov)`)."""
    return sgd(learning_rate, beta, nesterov)


def adam(
    learning_rate: float,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
) -> GradientTransformation:
    return chain(scale_by_adam(b1, b2, eps, eps_root), scale(-learning_rate))


def adamw(
    learning_rate: float,
    b1: float = 0.9,
    b2: float = 0.999,
    eps: float = 1e-8,
    eps_root: float = 0.0,
    weight_decay: float = 1e-4,
) -> GradientTransformation:
    """Adam with decoupled weight decay: the decay is added after the scaling."""
    return chain(
        scale_by_adam(b1, b2, eps, eps_root),
        add_decayed_weights(weight_decay),
        scale(-learning_rate),
    )


def rmsprop(
    learning_rate: float,
    decay: float = 0.9,
    eps: float = 1e-8,
    initial_scale: float = 0.0,
    momentum: float | None = None,
    nesterov: bool = False,
) -> GradientTransformation:
    steps = [scale_by_rms(decay, eps, initial_scale), scale(-learning_rate)]
    if momentum is not None:
        steps.append(trace(momentum, nesterov))
    return chain(*steps)


def apply_updates(params: Any, updates: Updates) -> Any:
    """`params + updates`, leaf by leaf, in the parameters' dtype."""
    return tree_map(
        lambda p, u: (
            (p + u).astype(p.dtype)
            if isinstance(p, Array)
            else np.asarray(p + u, np.asarray(p).dtype)
        ),
        params,
        updates,
    )
