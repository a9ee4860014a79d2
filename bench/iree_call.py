"""What `Program.run(backend="iree")` adds to the compiled function (issue 25,
item 1; target: <= 1.1x the bare function on the large step), and which
compile flags and runtime driver suit the MLP steps.

For each step (large: batch 256, 784 -> 512 -> 10; small: batch 64,
64 -> 32 -> 10) and each set of compile flags, in one process, the sides
called in turn round after round (so that a busy minute of the shared
machine slows all alike), medians reported with their ratio to `bare`:

- bare: the VM function invoked on buffer views made once beforehand, as
  `iree-benchmark-module` calls it (no conversion, results left in IREE);
- copying: IREE's own Python call on NumPy arrays, with every result copied
  to a new NumPy array (gradopt's call path before issue 25);
- module call: `IreeModule.call` on 64-byte aligned arrays (read in place,
  results mapped);
- run: `Program.run(slots=..., backend="iree")` on the same arrays;
- run unaligned: the same on NumPy's own (16-byte aligned) arrays, which
  `Program.run` copies once to align them.

    python bench/iree_call.py [--rounds 50] [--steps large,small]
                              [--flags host,host+tiling] [--driver local-task]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import EXAMPLE, mlp_data, mlp_program
from small_step import interleaved

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy

STEPS = {"large": (256, 784, 512, 10), "small": (64, 64, 32, 10)}
DEVICE = (
    "--iree-hal-target-device=local",
    "--iree-hal-local-target-device-backends=llvm-cpu",
)
HOST = "--iree-llvmcpu-target-cpu=host"
TILING = "--iree-opt-data-tiling=true"
UKERNELS = "--iree-llvmcpu-enable-ukernels=all"
MMT4D = "--iree-llvmcpu-enable-ukernels=mmt4d"
FLAGS = {
    "host": (HOST,),
    "host+tiling": (HOST, TILING),
    "host+tiling+ukernels": (HOST, TILING, UKERNELS),
    "host+tiling+mmt4d": (HOST, TILING, MMT4D),
    "generic cpu": ("--iree-llvmcpu-target-cpu=generic",),
}
"""The flags compared, after `DEVICE` (gradopt's are `host+tiling+mmt4d`)."""


def bare_call(module: iree.IreeModule, arrays: list[np.ndarray]) -> Callable[[], Any]:
    """The compiled function alone, on buffer views made once."""
    runtime: Any = module.runtime
    function: Any = module.functions["main"]
    views = [
        module.device.allocator.allocate_buffer_copy(
            memory_type=runtime.MemoryType.DEVICE_LOCAL,
            allowed_usage=runtime.BufferUsage.DEFAULT,
            device=module.device,
            buffer=a,
            element_type=runtime.HalElementType.FLOAT_32,
        )
        for a in arrays
    ]
    results = len(arrays) + 1

    def call() -> Any:
        arguments = runtime.VmVariantList(len(views))
        for view in views:
            arguments.push_ref(view)
        outputs = runtime.VmVariantList(results)
        function._vm_context.invoke(function._vm_function, arguments, outputs)
        return outputs

    return call


def measure(
    step: str, flags: str, driver: str, rounds: int
) -> tuple[float, dict[str, float]]:
    """Compile seconds and the median seconds of each side."""
    shapes = STEPS[step]
    program = Program(mlp_program(*shapes), str(EXAMPLE))
    iree.COMPILE_FLAGS = DEVICE + FLAGS[flags]
    started = time.perf_counter()
    vmfb = iree.compile_text(iree.lower(program.module))
    compiled = time.perf_counter() - started
    module = program.iree_module = iree.IreeModule(vmfb, driver)
    function: Any = module.functions["main"]
    plain = mlp_data(*shapes)
    aligned = [aligned_copy(a) for a in plain]
    sides: dict[str, Callable[[], object]] = {
        "bare": bare_call(module, plain),
        "copying": lambda: [np.array(o.to_host()) for o in function(*plain)],
        "module call": lambda: module.call("main", aligned),
        "run": lambda: program.run(slots=aligned, backend="iree"),
        "run unaligned": lambda: program.run(slots=plain, backend="iree"),
    }
    for side in sides.values():
        side()
    gc.disable()
    try:
        return compiled, interleaved(sides, rounds)
    finally:
        gc.enable()


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--rounds", type=int, default=50)
    arguments.add_argument("--steps", default="large,small")
    arguments.add_argument("--flags", default=",".join(FLAGS))
    arguments.add_argument("--driver", default=iree.DRIVER)
    args = arguments.parse_args()
    print(f"load before: {os.getloadavg()[0]:.1f}; driver {args.driver}")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        for step in args.steps.split(","):
            for flags in args.flags.split(","):
                compiled, medians = measure(step, flags, args.driver, args.rounds)
                bare = medians["bare"]
                print(f"{step} step, flags {flags}: compile {compiled:.1f} s")
                for name, took in medians.items():
                    print(f"    {name:14} {took * 1e3:8.3f} ms {took / bare:6.2f}")
    print(f"load after: {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
