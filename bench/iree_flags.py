"""IREE's compile flags compared on the steps of `bench/ahead_of_jax.py`, in
one process per step (issue 25, item 1: "compile flags chosen by
measurement").

For each step, the lowered program is compiled once per flag set (after
`DEVICE`; `gradopt` is the set gradopt chooses for the program, which for a
loop is `LOOP_COMPILE_FLAGS`, replaced here too by each other set), each
build is loaded on `local-task` and called bare (on buffer views made once,
as `iree-benchmark-module` calls it), beside JAX's jitted step. The sides run
in blocks of `--block` calls, the blocks in turn `--rounds` times, as a
training loop calls one step (`small_step.in_blocks`); medians in ms with
their ratio to JAX, and each build's compile time.

    python bench/iree_flags.py [--steps large,attention,cnn,small] [--rounds 30]
                               [--block 20] [--flags host,host+tiling,...]
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ahead_of_jax import bare, step
from iree_call import DEVICE, FLAGS
from small_step import in_blocks

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy

COMPARED = "gradopt,host,host+tiling,host+tiling+ukernels,host+tiling+mmt4d"
"""The flag sets of `bench/iree_call.py`, and `gradopt`: the flags gradopt
compiles the step with (`gradopt.runtime.iree.compile_flags`)."""


def measure(name: str, flag_sets: list[str], rounds: int, block: int) -> None:
    """Print each build's compile seconds and the medians of the step's sides."""
    spec = step(name)
    lowered = iree.lower(Program(spec.text).module)
    data = [aligned_copy(a) for a in spec.data]
    sides: dict[str, Callable[[], object]] = {}
    compiled: dict[str, float] = {}
    chosen = iree.compile_flags(lowered)
    for flags in flag_sets:
        iree.COMPILE_FLAGS = iree.LOOP_COMPILE_FLAGS = (
            chosen if flags == "gradopt" else DEVICE + FLAGS[flags]
        )
        started = time.perf_counter()
        vmfb = iree.compile_text(lowered)
        compiled[flags] = time.perf_counter() - started
        sides[flags] = bare(iree.IreeModule(vmfb, "local-task"), data)
    sides["jax jit"] = spec.jax
    load = os.getloadavg()[0]
    medians = in_blocks(sides, rounds, block)
    jax = medians["jax jit"]
    print(f"{name}: load {load:.1f} -> {os.getloadavg()[0]:.1f}, medians")
    for side, took in medians.items():
        line = f"    {side:22} {took * 1e3:8.3f} ms {took / jax:5.2f}x jax"
        print(line + (f"  compile {compiled[side]:.1f} s" if side in compiled else ""))


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--steps", default="large,attention,cnn,small")
    arguments.add_argument("--rounds", type=int, default=30)
    arguments.add_argument("--block", type=int, default=20)
    arguments.add_argument("--flags", default=COMPARED)
    args = arguments.parse_args()
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        for name in args.steps.split(","):
            measure(name, args.flags.split(","), args.rounds, args.block)


if __name__ == "__main__":
    main()
