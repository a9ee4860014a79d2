"""IREE's compile flags compared on the steps of `bench/ahead_of_jax.py`, in
one process per step (issue 25, item 1: "compile flags chosen by
measurement").

For each step, the lowered program is compiled once per flag set (after
`DEVICE`; `gradopt` is the set gradopt chooses for the program, which for a
loop is `LOOP_COMPILE_FLAGS`, replaced here too by each other set, and
`gradopt in order` the same without reassociated float sums), each
build is loaded on the driver gradopt chooses for the step
(`iree_driver.driver_for`: `local-sync` for the small step) and called bare
(on buffer views made once, as `iree-benchmark-module` calls it; on
`local-task` from the waiting thread that `Program.run` hands its calls to,
`bench/iree_caller.py`), beside JAX's jitted step. The sides run
in blocks of `--block` calls, the blocks in turn `--rounds` times, as a
training loop calls one step, after 3 untimed ones (`small_step.call_times`);
each side's median, mean and 90th percentile in ms with their ratios to
JAX's, and each build's compile time.

    python bench/iree_flags.py [--steps large,attention,cnn,small] [--rounds 30]
                               [--block 20] [--flags host,host+tiling,...]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ahead_of_jax import bare, report, step
from iree.compiler import compile_str
from iree_call import DEVICE, FLAGS
from small_step import call_times

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy
from gradopt.runtime.iree_caller import call_waiting
from gradopt.runtime.iree_driver import driver_for, products_untiled

COMPARED = "gradopt,gradopt in order,host,host+tiling,host+tiling+mmt4d"
"""The flag sets of `bench/iree_call.py`, `gradopt`: the flags gradopt
compiles the step with (`gradopt.runtime.iree.compile_flags`), and
`gradopt in order`: those without `iree.REASSOCIATE`."""


def flag_set(name: str, chosen: tuple[str, ...]) -> tuple[str, ...]:
    """The flags named `name`, where `chosen` are gradopt's for the step."""
    if name == "gradopt":
        return chosen
    if name == "gradopt in order":
        return tuple(f for f in chosen if f != iree.REASSOCIATE)
    return DEVICE + FLAGS[name]


def measure(name: str, flag_sets: list[str], rounds: int, block: int) -> None:
    """Print each build's compile seconds and its calls' median, mean and
    90th percentile (`ahead_of_jax.report`)."""
    spec = step(name)
    program = Program(spec.text)
    lowered = iree.lower(program.module)
    driver = driver_for(program.module)
    data = [aligned_copy(a) for a in spec.data]
    sides: dict[str, Callable[[], object]] = {}
    compiled: dict[str, float] = {}
    chosen = iree.compile_flags(lowered, products_untiled(program.module))
    for flags in flag_sets:
        started = time.perf_counter()
        vmfb = compile_str(lowered, extra_args=list(flag_set(flags, chosen)))
        compiled[flags] = time.perf_counter() - started
        call = bare(iree.IreeModule(vmfb, driver), data)
        sides[flags] = (
            (lambda call=call: call_waiting(call)) if driver == "local-task" else call
        )
    sides["jax jit"] = spec.jax
    load = os.getloadavg()[0]
    times = call_times(sides, rounds, block, warmup=3)
    built = ", ".join(f"{flags} {took:.1f} s" for flags, took in compiled.items())
    print(
        f"{name} on {driver}: load {load:.1f} -> {os.getloadavg()[0]:.1f}, "
        f"compiled: {built}"
    )
    report(times)


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--steps", default="large,attention,cnn,small")
    arguments.add_argument("--rounds", type=int, default=30)
    arguments.add_argument("--block", type=int, default=20)
    arguments.add_argument("--flags", default=COMPARED)
    args = arguments.parse_args()
    for name in args.steps.split(","):
        measure(name, args.flags.split(","), args.rounds, args.block)


if __name__ == "__main__":
    main()
