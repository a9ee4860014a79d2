"""The small training step of issue 15 (64 -> 32 -> 10 MLP, batch 64): the
interpreter (copying and in-place slots) beside hand-written NumPy and, when
installed, JAX jit, interleaved call by call; medians of 300 rounds.

    python bench/small_step.py
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import mlp_data, mlp_program, numpy_step

from gradopt import Program

SHAPES = (64, 64, 32, 10)
LEARNING_RATE = 0.1


def jax_step() -> Callable[[], object] | None:
    """The same step in `jax.numpy`, jitted, or None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss(w1, b1, w2, b2, x, y):
        hidden = jnp.maximum(x @ w1 + b1, 0)
        z = hidden @ w2 + b2
        s = z - jax.lax.stop_gradient(z.max(axis=1, keepdims=True))
        logp = s - jnp.log(jnp.exp(s).sum(axis=1, keepdims=True))
        return -(y * logp).sum() / x.shape[0]

    @jax.jit
    def step(w1, b1, w2, b2, x, y):
        value, grads = jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(
            w1, b1, w2, b2, x, y
        )
        weights = (w1, b1, w2, b2)
        return value, [w - LEARNING_RATE * g for w, g in zip(weights, grads)]  # noqa: B905

    x, y, w1, b1, w2, b2 = mlp_data(*SHAPES)
    jax.block_until_ready(step(w1, b1, w2, b2, x, y))
    return lambda: jax.block_until_ready(step(w1, b1, w2, b2, x, y))


def main() -> None:
    program = Program(mlp_program(*SHAPES))
    copied, in_place, by_hand = (mlp_data(*SHAPES) for _ in range(3))
    sides: dict[str, Callable[[], object]] = {
        "numpy": lambda: numpy_step(*by_hand),
        "Program.run": lambda: program.run(slots=copied),
        "Program.run in_place": lambda: program.run(slots=in_place, in_place=True),
    }
    if (jitted := jax_step()) is not None:
        sides["jax jit"] = jitted
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(300):
        for name, side in sides.items():
            started = time.perf_counter()
            side()
            times[name].append(time.perf_counter() - started)
    medians = {name: float(np.median(t)) for name, t in times.items()}
    for name, median in medians.items():
        line = (
            f"{name:22} {median * 1e6:8.1f} us  {median / medians['numpy']:5.2f}x numpy"
        )
        if "jax jit" in medians:
            line += f"  {median / medians['jax jit']:5.2f}x jax"
        print(line)


if __name__ == "__main__":
    main()
