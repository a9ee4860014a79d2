"""The MLP training step on IREE, beside the interpreter and NumPy (issue 7).

Usage: python bench/iree_mlp.py [--repeats N] [--shapes BATCH,IN,HIDDEN,CLASSES]
                               [--driver local-task|local-sync]

One SGD step of `examples/mlp_step.mlir` scaled to batch 256, 784 -> 512 -> 10
(the program, data and hand-written NumPy step of `interpreter_speed.py`), in
one process, medians reported. Each side runs its repeats in a block of its
own: interleaved, the thread pools of OpenBLAS, IREE and XLA, each as large as
the machine, were seen to slow the next side down twentyfold.

- numpy: the step written by hand in float32 NumPy;
- interpreter: `Program.run` with gradopt's NumPy interpreter;
- iree: `Program.run(..., backend="iree")`, inputs checked and copied and
  results copied back to NumPy, as a user calls it;
- iree call: the compiled module's function alone on the same arrays;
- jax jit: the NumPy step written in `jax.numpy` with `jax.grad` and
  `jax.jit`, on the CPU, when JAX is installed.

Also printed: the time to lower and compile the program (with an empty
compile cache) and to load it from the cache, and how far IREE's loss and
updated weights are from the interpreter's.
"""

from __future__ import annotations

import argparse
import os
import statistics
import tempfile
import time
from collections.abc import Callable

import numpy as np
from interpreter_speed import (
    EXAMPLE,
    describe_machine,
    jax_step,
    mlp_data,
    mlp_program,
    numpy_step,
    timed,
)

from gradopt import Program
from gradopt.runtime.iree import DRIVER, IreeModule, compile_text, lower


def blockwise(runs: dict[str, Callable[[], object]], repeats: int) -> dict[str, float]:
    """The median time of each of `runs`, each called `repeats` times in a row
    after one warm-up call."""
    medians = {}
    for name, run in runs.items():
        run()
        medians[name] = statistics.median(timed(run) for _ in range(repeats))
    return medians


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--shapes", default="256,784,512,10")
    parser.add_argument("--driver", default=DRIVER, help="IREE's runtime driver")
    options = parser.parse_args()
    shapes = tuple(int(s) for s in options.shapes.split(","))
    describe_machine()
    program = Program(mlp_program(*shapes), str(EXAMPLE))

    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        started = time.perf_counter()
        compile_text(lower(program.module))
        compiled = time.perf_counter() - started
        started = time.perf_counter()
        vmfb = compile_text(lower(program.module))
        cached = time.perf_counter() - started
    program.iree_module = IreeModule(vmfb, options.driver)

    ours = program.run(slots=mlp_data(*shapes))
    theirs = program.run(slots=mlp_data(*shapes), backend="iree")
    loss_diff = abs(float(ours.results[0]) - float(theirs.results[0]))
    weight_diff = max(
        float(np.max(np.abs(a - b)))
        for a, b in zip(ours.slots[2:], theirs.slots[2:], strict=True)
    )

    numpy_slots = mlp_data(*shapes)
    slots = mlp_data(*shapes)
    call_slots = mlp_data(*shapes)
    runs: dict[str, Callable[[], object]] = {
        "numpy": lambda: numpy_step(*numpy_slots),
        "interpreter": lambda: program.run(slots=slots),
        "iree": lambda: program.run(slots=slots, backend="iree"),
        "iree call": lambda: program.iree_module.call("main", call_slots),
    }
    medians = blockwise(runs, options.repeats)
    # JAX only now: loaded, its runtime slowed the IREE rows down twofold
    jax_run = jax_step(shapes)
    if jax_run is not None:
        medians |= blockwise({"jax jit": jax_run}, options.repeats)

    batch, inputs, hidden, classes = shapes
    print(
        f"MLP SGD step, batch {batch}, {inputs} -> {hidden} -> {classes}, f32; "
        f"IREE llvm-cpu (host CPU), driver {options.driver}"
    )
    print(
        f"    lower + compile {compiled:.2f} s; lower + read the cache {cached:.3f} s"
    )
    print(
        f"    IREE vs interpreter: loss {loss_diff:.2e}, updated weights "
        f"{weight_diff:.2e} max abs diff"
    )
    if jax_run is None:
        print("    (jax is not installed: no jax jit row)")
    numpy_time = medians["numpy"]
    print(f"    {'':12} {'ms/step':>9} {'/ numpy':>8}   (median of {options.repeats})")
    for name, seconds in medians.items():
        print(f"    {name:12} {seconds * 1e3:9.2f} {seconds / numpy_time:8.2f}")


if __name__ == "__main__":
    main()
