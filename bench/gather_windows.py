"""The CNN step of `bench/ahead_of_jax.py` on IREE with and without
`gather-windows`, in one process (issue 25, item 2).

Usage: python bench/gather_windows.py [--rounds 40] [--drivers local-task,local-sync]
                                      [--flags tiled,untiled]

The step (the stride-1 function of `bench/models.py` at its large size) is
lowered twice, by `gradopt.runtime.iree.lower` as it is (`gathered`: the
im2col concat gathered by one `linalg.generic`) and with the pass switched
off (`concat`: pad, nine strided slices, concat), compiled with each flag set
(`tiled`: `COMPILE_FLAGS`, IREE's data tiling and microkernels; `untiled`:
`LOOP_COMPILE_FLAGS`, the host CPU alone), loaded on each driver, and called
bare (on buffer views made once) round after round beside JAX's jitted step;
medians and their ratio to JAX.
For each build it prints the dispatches IREE makes (`--compile-to=stream`:
`stream.cmd.dispatch` ops, and the `slow_memcpy` and `transpose` ones among
them). The machine's load average is printed before and after.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from iree_call import bare_call
from models import CONV2D_SIZES, conv2d_data, conv2d_function, jax_conv2d
from small_step import interleaved

from gradopt import Program
from gradopt.passes import gather_windows
from gradopt.runtime import iree

FLAG_SETS = {"tiled": iree.COMPILE_FLAGS, "untiled": iree.LOOP_COMPILE_FLAGS}
"""gradopt's flags for most programs (data tiling and microkernels) and for
those with loops or gathered windows (the host CPU alone)."""


def lowered(program: Program, gather: bool) -> str:
    """The step lowered for IREE, with or without `gather-windows`."""
    if gather:
        return iree.lower(program.module)
    apply = gather_windows.GatherWindowsPass.apply
    gather_windows.GatherWindowsPass.apply = lambda *_: None  # type: ignore[method-assign]
    try:
        return iree.lower(program.module)
    finally:
        gather_windows.GatherWindowsPass.apply = apply  # type: ignore[method-assign]


def dispatches(text: str, flags: tuple[str, ...]) -> str:
    """The dispatches of `text` compiled with `flags`, counted by kind."""
    from iree import compiler

    stream = compiler.compile_str(text, extra_args=[*flags, "--compile-to=stream"])
    names = re.findall(r"stream\.cmd\.dispatch @[\w$]+::@([\w$]+)", stream.decode())
    copies = sum("slow_memcpy" in n for n in names)
    transposes = sum("transpose" in n for n in names)
    return f"{len(names)} dispatches ({copies} strided copies, {transposes} transposes)"


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    arguments.add_argument("--rounds", type=int, default=40)
    arguments.add_argument("--drivers", default="local-task,local-sync")
    arguments.add_argument("--flags", default="tiled,untiled")
    args = arguments.parse_args()
    import jax

    jax.config.update("jax_platforms", "cpu")
    shapes = CONV2D_SIZES["large"]
    data = conv2d_data(**shapes)
    program = Program(conv2d_function("main", **shapes, stride=1))
    expected = program.run(args=data).results
    arrays = [jax.device_put(a) for a in data]
    jitted = jax_conv2d(1)
    jax.block_until_ready(jitted(*arrays))
    sides: dict[str, Callable[[], object]] = {
        "jax jit": lambda: jax.block_until_ready(jitted(*arrays))
    }
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        for gather in (False, True):
            text = lowered(program, gather)
            for flags in args.flags.split(","):
                iree.compile_flags = lambda _, untiled=False, chosen=FLAG_SETS[flags]: (
                    chosen
                )
                name = f"{'gathered' if gather else 'concat'} {flags}"
                vmfb = iree.compile_text(text)
                print(f"{name}: {dispatches(text, FLAG_SETS[flags])}", flush=True)
                for driver in args.drivers.split(","):
                    module = iree.IreeModule(vmfb, driver)
                    found = module.call("main", data)
                    for a, b in zip(found, expected, strict=True):
                        np.testing.assert_allclose(a, b, rtol=1e-4, atol=1e-3)
                    sides[f"{name} {driver}"] = bare_call(module, data)
    before = os.getloadavg()[0]
    medians = interleaved(sides, args.rounds)
    after = os.getloadavg()[0]
    print(f"bare calls, medians of {args.rounds}, load {before:.1f} -> {after:.1f}")
    for side, took in medians.items():
        ratio = took / medians["jax jit"]
        print(f"    {side:36} {took * 1e3:9.3f} ms {ratio:6.2f}x jax")


if __name__ == "__main__":
    main()
