"""Where the time of a jitted gradient's call goes (issue 25 items 4 and 7):
`jit(value_and_grad(loss))(params, x, y)` for the small step's MLP (64 -> 32
-> 10, batch 64, its four weights a tuple), called as a training loop calls
it, beside the pieces that call is made of, each timed alone and interleaved
call by call: matching the arguments against the last call's signature
(`Compiled.match`, what a call with the last signature does), flattening
them and looking their traced signature up (`Traced.compile` on a hit, what
any other call does), running the prepared program on the flat inputs
(what `Traced.__call__` calls), rebuilding the results' structure
(`TreeDef.unflatten`), and the plan alone (`Interpreter.call`); with
`--backend iree`, `jit(..., backend="iree")` and the compiled module's call
(`IreeModule.call`) in the place of the plan.
With JAX installed, JAX's jit of the same function after them, in rounds
of its own: JAX's worker threads go on spinning after its call returns, and
on 2 cores slowed the side called next from 220 to 570 us (load 12).
Medians of `--rounds` rounds (default 2000). With `--block N`, only the
jitted call and JAX's, each called N times in a row (as a training loop
calls one step), the blocks in turn: the pieces interleaved call by call
each run with the others' data in the caches, JAX's in rounds of its own
did not.

    python bench/jit_call.py [--rounds N] [--backend numpy|iree] [--block N]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from small_step import SHAPES, in_blocks, interleaved

import gradopt
import gradopt.numpy as gnp
from gradopt.frontend.tree import flatten


def loss(params: tuple[Any, ...], x: Any, y: Any) -> Any:
    """Softmax cross-entropy of a ReLU MLP, written as a NumPy user writes it."""
    w1, b1, w2, b2 = params
    hidden = gnp.maximum(x @ w1 + b1, 0.0)
    z = hidden @ w2 + b2
    shifted = z - gradopt.stop_gradient(gnp.max(z, axis=1, keepdims=True))
    logp = shifted - gnp.log(gnp.sum(gnp.exp(shifted), axis=1, keepdims=True))
    return -gnp.sum(y * logp) / x.shape[0]


def data() -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray]:
    batch, inputs, hidden, classes = SHAPES
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, inputs), np.float32)
    y = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    params = (
        rng.standard_normal((inputs, hidden), np.float32) * np.float32(0.1),
        np.zeros(hidden, np.float32),
        rng.standard_normal((hidden, classes), np.float32) * np.float32(0.1),
        np.zeros(classes, np.float32),
    )
    return params, x, y


def jax_side(
    params: tuple[np.ndarray, ...], x: np.ndarray, y: np.ndarray
) -> Any | None:
    """JAX's jit of the same `value_and_grad` on arrays already on the
    device, or None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def jax_loss(params: Any, x: Any, y: Any) -> Any:
        w1, b1, w2, b2 = params
        hidden = jnp.maximum(x @ w1 + b1, 0.0)
        z = hidden @ w2 + b2
        shifted = z - jax.lax.stop_gradient(z.max(axis=1, keepdims=True))
        logp = shifted - jnp.log(jnp.exp(shifted).sum(axis=1, keepdims=True))
        return -(y * logp).sum() / x.shape[0]

    step = jax.jit(jax.value_and_grad(jax_loss))
    on_device = jax.device_put((params, x, y))
    jax.block_until_ready(step(*on_device))
    return lambda: jax.block_until_ready(step(*on_device))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    parser.add_argument(
        "--backend",
        choices=("numpy", "iree"),
        default="numpy",
        help="iree: `jit(..., backend='iree')`; the plan's side is then the "
        "compiled module's call (`IreeModule.call`)",
    )
    parser.add_argument("--block", type=int, default=0)
    options = parser.parse_args()
    params, x, y = data()
    step = gradopt.jit(gradopt.value_and_grad(loss), backend=options.backend)
    step(params, x, y)
    compiled = step.compile((params, x, y), {})
    leaves = flatten(((params, x, y), {}))[0]
    program = compiled.program
    staged = getattr(program, "run_staged", None)
    if staged is not None:
        run = lambda: staged(leaves, options.backend)  # noqa: E731
    else:  # before the front end's own path: as `Traced.__call__` ran it
        run = lambda: program.run(args=leaves, backend=options.backend).results  # noqa: E731
    results = run()
    arguments = [np.asarray(leaf) for leaf in leaves]
    module = program.iree_module
    match = compiled.match
    assert match is not None, "the step's arguments are all float32 arrays"
    if options.block:
        sides = {"jit call": lambda: step(params, x, y)}
        if (jitted := jax_side(params, x, y)) is not None:
            sides["jax jit"] = jitted
        report(in_blocks(sides, options.rounds, options.block))
        return
    sides = {
        "jit call": lambda: step(params, x, y),
        "signature match": lambda: match(((params, x, y), {}), []),
        "signature lookup": lambda: step.compile((params, x, y), {}),
        "run the program": run,
        "unflatten": lambda: compiled.out_tree.unflatten(iter(results)),
        "plan alone": lambda: program.interpreter.call("main", arguments),
    }
    if module is not None:
        del sides["plan alone"]
        sides["IreeModule.call"] = lambda: module.call("main", arguments)
    medians = interleaved(sides, options.rounds)
    if (jitted := jax_side(params, x, y)) is not None:
        medians |= interleaved({"jax jit": jitted}, options.rounds)
    report(medians)


def report(medians: dict[str, float]) -> None:
    for name, median in medians.items():
        share = median / medians["jit call"]
        print(f"{name:18} {median * 1e6:8.1f} us  {share:5.2f} of the call")


if __name__ == "__main__":
    main()
