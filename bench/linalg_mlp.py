"""The MLP step written in linalg (as IREE prints it) beside the same step in
`grad` ops, through the interpreter and through IREE (issue 21: within 1.2x).

Usage: python bench/linalg_mlp.py [--repeats N] [--rounds N] [--backends numpy,iree]
                                  [--update program|numpy]
       python bench/linalg_mlp.py --profile   (the linalg step's plan, op by op)
(needs the `jax` and `iree` extras)

- grad: `examples/mlp_step.mlir` at batch 256, 784 -> 512 -> 10 (the program
  of `interpreter_speed.py`): loss, one `grad.gradient` of the four weights,
  and the SGD update, all in the program;
- linalg: the same loss written in `jax.numpy`, lowered by JAX to StableHLO
  and by `iree-compile --compile-to=input` to linalg on tensors (a
  `util.func`), its gradient appended by `gradopt.differentiate_module` and
  expanded by gradopt into more linalg; the SGD update in the program too,
  as IREE prints a JAX step's (one elementwise `linalg.generic` a weight,
  `w + g * -0.1` as the grad program computes it), or with `--update numpy`
  as four NumPy expressions after the call.

Both run through `Program.run` with the same data. Each side runs its
repeats in a block of its own, and the blocks alternate for `--rounds`
rounds (interleaved calls let one side's thread pools slow the other down);
the medians over all rounds and their ratio are printed, with how far the
two sides' losses and updated weights are apart. Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import re
import statistics
from collections.abc import Callable
from typing import Any

import numpy as np
from interpreter_speed import (
    EXAMPLE,
    LEARNING_RATE,
    describe_machine,
    mlp_data,
    mlp_program,
    timed,
)
from small_step import plan_profile

import gradopt
from gradopt.runtime.buffers import aligned_copy

SHAPES = (256, 784, 512, 10)


def jax_loss(w1: Any, b1: Any, w2: Any, b2: Any, x: Any, y: Any) -> Any:
    """The loss of `examples/mlp_step.mlir` in `jax.numpy`."""
    import jax
    import jax.numpy as jnp

    hidden = jnp.maximum(x @ w1 + b1, 0)
    z = hidden @ w2 + b2
    s = z - jax.lax.stop_gradient(z.max(axis=1, keepdims=True))
    logp = s - jnp.log(jnp.exp(s).sum(axis=1, keepdims=True))
    return -(y * logp).sum() / x.shape[0]


def linalg_program(data: list[np.ndarray]) -> gradopt.Program:
    """The loss as IREE's input conversion prints it, differentiated with
    respect to the four weights by gradopt."""
    import jax
    from iree.compiler.tools import compile_str

    x, y, w1, b1, w2, b2 = data
    stablehlo = jax.jit(jax_loss).lower(w1, b1, w2, b2, x, y).as_text()
    ir = compile_str(
        stablehlo, input_type="stablehlo", extra_args=["--compile-to=input"]
    )
    text = ir.decode() if isinstance(ir, bytes) else str(ir)
    return gradopt.Program(gradopt.differentiate_module(text, wrt=[0, 1, 2, 3]))


def with_sgd_update(program: gradopt.Program) -> gradopt.Program:
    """`program` (the loss and the four weights' gradients) returning the
    loss and the updated weights instead: `w + g * -LEARNING_RATE`, one
    elementwise `linalg.generic` a weight, as the grad program updates."""
    text = str(program.module)
    ret = re.search(r"util\.return (%\S+), (.*) : (tensor<f32>), (.*)\n", text)
    assert ret is not None
    loss, grads, loss_type, types = ret.groups()
    lines = [f"%lr = arith.constant {-float(LEARNING_RATE)!r} : f32"]
    new = []
    for k, (g, t) in enumerate(zip(grads.split(", "), types.split(", "), strict=True)):
        rank = t.count("x")
        dims = ", ".join(f"d{i}" for i in range(rank))
        identity = f"affine_map<({dims}) -> ({dims})>"
        parallel = ", ".join(['"parallel"'] * rank)
        lines += [
            f"%e{k} = tensor.empty() : {t}",
            f"%new{k} = linalg.generic {{indexing_maps = [{identity}, {identity}, "
            f"{identity}], iterator_types = [{parallel}]}}"
            f" ins(%arg{k}, {g} : {t}, {t}) outs(%e{k} : {t}) {{",
            f"^bb0(%w{k}: f32, %g{k}: f32, %o{k}: f32):",
            f"  %m{k} = arith.mulf %g{k}, %lr : f32",
            f"  %n{k} = arith.addf %w{k}, %m{k} : f32",
            f"  linalg.yield %n{k} : f32",
            f"}} -> {t}",
        ]
        new.append(f"%new{k}")
    lines.append(f"util.return {loss}, {', '.join(new)} : {loss_type}, {types}")
    return gradopt.Program(text.replace(ret.group(0), "\n".join(lines) + "\n"))


def steps(
    backend: str, update: str = "program"
) -> dict[str, Callable[[], list[np.ndarray]]]:
    """Each side's step on `backend`: the loss and the updated weights, the
    linalg side's update in its program or (`update="numpy"`) after it."""
    data = mlp_data(*SHAPES)
    if backend == "iree":  # as a training loop feeds IREE's results back
        data = [aligned_copy(a) for a in data]
    x, y, *weights = data
    grad_program = gradopt.Program(mlp_program(*SHAPES), str(EXAMPLE))
    linalg = linalg_program(data)
    stepped = with_sgd_update(linalg)

    def grad_step() -> list[np.ndarray]:
        done = grad_program.run(slots=data, backend=backend)
        return [done.results[0], *done.slots[2:]]

    def linalg_step() -> list[np.ndarray]:
        if update == "program":
            return stepped.run(args=[*weights, x, y], backend=backend).results
        loss, *grads = linalg.run(args=[*weights, x, y], backend=backend).results
        updated = (w - LEARNING_RATE * g for w, g in zip(weights, grads, strict=True))
        return [loss, *updated]

    return {"grad": grad_step, "linalg": linalg_step}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backends", default="numpy,iree")
    parser.add_argument("--update", choices=["program", "numpy"], default="program")
    parser.add_argument("--profile", action="store_true")
    options = parser.parse_args()
    describe_machine()
    if options.profile:
        x, y, *weights = data = mlp_data(*SHAPES)
        program = linalg_program(data)
        arguments: list[object] = [*weights, x, y]
        program.run(args=arguments)  # planned
        plan_profile(program, arguments, options.repeats)
        return
    for backend in options.backends.split(","):
        sides = steps(backend, options.update)
        values = {name: step() for name, step in sides.items()}
        times: dict[str, list[float]] = {name: [] for name in sides}
        for _ in range(options.rounds):
            for name, run in sides.items():
                run()  # warm-up: the first call of a block
                times[name] += [timed(run) for _ in range(options.repeats)]
        medians = {name: statistics.median(t) for name, t in times.items()}
        apart = max(
            float(np.max(np.abs(a - b)) / max(float(np.max(np.abs(a))), 1e-30))
            for a, b in zip(values["grad"], values["linalg"], strict=True)
        )
        print(
            f"{backend}: grad {medians['grad'] * 1e3:.2f} ms, "
            f"linalg {medians['linalg'] * 1e3:.2f} ms, "
            f"ratio linalg/grad {medians['linalg'] / medians['grad']:.2f} "
            f"(medians of {options.rounds} x {options.repeats}); "
            f"largest relative difference of the results {apart:.1e}"
        )


if __name__ == "__main__":
    main()
