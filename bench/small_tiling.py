"""Small programs on IREE's calling thread, compiled with and without tiled
layouts: whether `gradopt.runtime.iree_driver.products_untiled` chooses the
faster build (issue 25, items 1 and 2: "compile flags chosen by
measurement").

On one thread, packing a product's operands into IREE's tiled layout can
cost more than it saves. Each program below runs on `local-sync` (it is
small: `iree_driver.driver_for`); it is compiled with `COMPILE_FLAGS`
(tiled) and with `LOOP_COMPILE_FLAGS` (untiled), both builds are loaded on
`local-sync` and called bare (on buffer views made once, as
`iree-benchmark-module` calls a function), in blocks of `--block` calls,
the blocks in turn `--rounds` times, after 3 untimed calls
(`small_step.call_times`). Printed per program: its largest product, each
build's median in ms, untiled/tiled, the build gradopt chooses and whether
it is the faster one.

    python bench/small_tiling.py [--rounds 15] [--block 20]
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ahead_of_jax import bare
from interpreter_speed import mlp_data, mlp_program
from iree.compiler import compile_str
from models import attention_data, attention_program
from small_step import call_times

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy
from gradopt.runtime.iree_driver import driver_for, products_untiled
from gradopt.runtime.threads import largest_product

PROGRAMS: dict[str, tuple[Callable[[], str], Callable[[], list[np.ndarray]]]] = {
    **{
        f"mlp {b}, {i} -> {h} -> {c}": (
            lambda s=(b, i, h, c): mlp_program(*s),
            lambda s=(b, i, h, c): mlp_data(*s),
        )
        for b, i, h, c in [
            (64, 64, 32, 10),
            (64, 128, 64, 10),
            (128, 256, 64, 10),
            (64, 784, 128, 10),
        ]
    },
    **{
        f"attention {s}, {d}, {h} heads": (
            lambda z=(s, d, h): attention_program(*z),
            lambda z=(s, d, h): attention_data(*z),
        )
        for s, d, h in [(32, 64, 4), (64, 64, 4), (64, 128, 4), (128, 64, 4)]
    },
}
"""Small MLP steps (batch, inputs -> hidden -> classes) and attention steps
(positions, model dim, heads), all on `local-sync`."""


def measure(name: str, rounds: int, block: int) -> None:
    text, data = PROGRAMS[name]
    program = Program(text())
    module = program.module
    assert driver_for(module) == "local-sync", f"{name} is not small"
    lowered = iree.lower(module)
    arrays = [aligned_copy(a) for a in data()]
    builds = {"tiled": iree.COMPILE_FLAGS, "untiled": iree.LOOP_COMPILE_FLAGS}
    sides = {
        build: bare(
            iree.IreeModule(compile_str(lowered, extra_args=list(flags)), "local-sync"),
            arrays,
        )
        for build, flags in builds.items()
    }
    times = call_times(sides, rounds, block, warmup=3)
    tiled, untiled = (float(np.median(times[b])) * 1e3 for b in builds)
    chosen = "untiled" if products_untiled(module) else "tiled"
    faster = "untiled" if untiled < tiled else "tiled"
    print(
        f"{name:28} {largest_product(module) / 1e6:6.2f} M {tiled:8.3f} "
        f"{untiled:8.3f} {untiled / tiled:6.2f}   {chosen:8} "
        f"{'yes' if chosen == faster else 'no'}"
    )


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--rounds", type=int, default=15)
    arguments.add_argument("--block", type=int, default=20)
    args = arguments.parse_args()
    print(
        f"{'program':28} {'largest':>8} {'tiled':>8} {'untiled':>8} {'ratio':>6}   "
        "gradopt  faster"
    )
    for name in PROGRAMS:
        measure(name, args.rounds, args.block)


if __name__ == "__main__":
    main()
