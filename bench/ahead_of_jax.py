"""Training steps on IREE through `Program.run` against JAX jit (issue 25,
item 2; targets: large MLP step <= 0.8x JAX, small step, CNN and attention
<= 1.0x).

Steps: `large` (MLP SGD step, batch 256, 784 -> 512 -> 10), `small` (batch
64, 64 -> 32 -> 10), `cnn` (the stride-1 convolution of `bench/models.py` at
its large size: 8 images of 16 channels, 32x32, 32 output channels; the
program also holds the stride-2 function, compiled but not run, and returns
the convolution's output besides the loss and gradients JAX returns) and
`attention` (128 positions, model dim 256, 8 heads), all float32.

For each step the program is compiled once (with gradopt's flags, or those
named by `--flags`) and loaded once per runtime driver; then, in one process,
the sides are called in turn round after round (a busy minute of the shared
machine slows all alike), and each side's median, mean and 90th percentile
are printed with the median's and the mean's ratio to JAX's:

- jax jit: `jax.jit(jax.value_and_grad(...))` on arrays already on the
  device, `block_until_ready`;
- run DRIVER: `Program.run(..., backend="iree")` on 64-byte aligned arrays
  (read in place, as a training loop feeds back the results of the last
  step, which IREE allocated aligned);
- bare DRIVER: the compiled function invoked on buffer views made once, as
  `iree-benchmark-module` calls it: what is left when the call path costs
  nothing;
- with `--unpacked`, run DRIVER unpacked, bare DRIVER unpacked: for a
  program that gradopt packs (a small one, `gradopt.runtime.iree_packing`),
  the same compiled without packing, as it was called before.

The load average (`os.getloadavg`) is printed before and after each step.
Each side is called `--block` times back to back (20 by default, as a
training loop calls one step) after `--warmup` untimed calls (3), the
blocks in turn `--rounds` times (`call_times`); `--block 1 --warmup 0`
calls the sides in turn call by call, which measured JAX's steps 1.2-1.7x
slower than in blocks (its worker threads and IREE's disturb the side
called next: bench/RESULTS.md).

    python bench/ahead_of_jax.py [--rounds 30] [--steps large,small,cnn,attention]
                                 [--drivers local-task,local-sync] [--flags host]
                                 [--unpacked] [--block N] [--warmup N]
    python bench/ahead_of_jax.py --call-path --rounds 2000
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
from typing import Any, NamedTuple

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import EXAMPLE, jax_step, mlp_data, mlp_program
from iree_call import DEVICE, FLAGS, bare_call
from models import (
    ATTENTION_SIZES,
    CONV2D_SIZES,
    attention_data,
    attention_program,
    conv2d_data,
    conv2d_program,
    jax_attention,
    jax_conv2d,
)
from small_step import call_times, interleaved

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy
from gradopt.runtime.iree_driver import driver_for, products_untiled

MLP_SHAPES = {"large": (256, 784, 512, 10), "small": (64, 64, 32, 10)}
GRADOPT = iree.COMPILE_FLAGS[len(DEVICE) :]
"""gradopt's flags for a program without loops, after `DEVICE`."""
FLAG_SETS = {
    **FLAGS,
    "O3": (*GRADOPT, "--iree-opt-level=O3"),
    "transposes": (
        *GRADOPT,
        "--iree-opt-aggressively-propagate-transposes=true",
        "--iree-opt-outer-dim-concat=true",
    ),
}
"""The flag sets of `bench/iree_call.py` and, for the data movement of the CNN
and attention steps, gradopt's with IREE's fusion-minded options."""


class Step(NamedTuple):
    """A step's program, its inputs (as slots or as arguments) and JAX's side."""

    text: str
    data: list[np.ndarray]
    slots: bool
    jax: Callable[[], object]


def _on_device(function: Callable[..., Any], data: list[np.ndarray]) -> Callable:
    import jax

    arrays = [jax.device_put(a) for a in data]
    jax.block_until_ready(function(*arrays))
    return lambda: jax.block_until_ready(function(*arrays))


def step(name: str) -> Step:
    """The step `name` with its data, JAX's side compiled and run once."""
    if name in MLP_SHAPES:
        shapes = MLP_SHAPES[name]
        jitted = jax_step(shapes)
        assert jitted is not None, "this benchmark needs JAX"
        return Step(mlp_program(*shapes), mlp_data(*shapes), True, jitted)
    if name == "cnn":
        shapes = CONV2D_SIZES["large"]
        data = conv2d_data(**shapes)
        return Step(
            conv2d_program(**shapes), data, False, _on_device(jax_conv2d(1), data)
        )
    if name == "attention":
        shapes = ATTENTION_SIZES["large"]
        data = attention_data(**shapes)
        jitted = jax_attention(shapes["heads"])
        return Step(attention_program(**shapes), data, False, _on_device(jitted, data))
    raise SystemExit(f"unknown step {name!r}: expected large, small, cnn, attention")


def packed_bare_call(module: iree.IreeModule, arrays: list[np.ndarray]) -> Callable:
    """`bare_call` for a module whose `@main` is packed: its wrapper invoked
    on views of the packed inputs made once."""
    packing = module.packings["main"]
    runtime: Any = module.runtime
    places, inputs = module._packed_inputs(packing)
    packing.pack(arrays, places)
    function = module._function(packing.function)
    vm_context: Any = module.context.vm_context
    results = len(packing.result_groups)

    def call() -> Any:
        outputs = runtime.VmVariantList(results)
        vm_context.invoke(function, inputs, outputs)
        return outputs

    return call


def bare(module: iree.IreeModule, arrays: list[np.ndarray]) -> Callable:
    """The compiled `@main` alone, packed or not, on buffers made once."""
    if "main" in module.packings:
        return packed_bare_call(module, arrays)
    return bare_call(module, arrays)


def measure(
    name: str,
    drivers: list[str],
    rounds: int,
    unpacked_too: bool = False,
    block: int = 1,
    warmup: int = 0,
) -> tuple[float, str, float, dict[str, np.ndarray]]:
    """Compile seconds, the driver gradopt chooses, the largest relative
    difference of the loss from JAX's, and the seconds of each call of each
    side (`call_times`).
    With `unpacked_too`, a program that gradopt packs
    (`gradopt.runtime.iree_packing`) is also run unpacked (`run D unpacked`,
    `bare D unpacked`: the call path before packing, on the same driver)."""
    spec = step(name)
    module = Program(spec.text, str(EXAMPLE)).module
    chosen = driver_for(module)
    flags = iree.compile_flags(iree.lower(module), products_untiled(module))
    print(f"{name}: flags {' '.join(flags[len(DEVICE) :])}")
    started = time.perf_counter()
    iree.load(module, drivers[0])  # the others hit the cache
    compiled = time.perf_counter() - started
    aligned = [aligned_copy(a) for a in spec.data]
    sides: dict[str, Callable[[], object]] = {"jax jit": spec.jax}
    difference = 0.0
    unpacked: bytes | None = None
    for driver in drivers:
        program = Program(spec.text)
        loaded = program.iree_module = iree.load(program.module, driver)
        variants = [("", program, loaded)]
        if loaded.packings and unpacked_too:
            unpacked = unpacked or iree.compile_text(
                iree.lower(program.module),
                untiled=products_untiled(program.module),
            )
            plain = Program(spec.text)
            plain.iree_module = iree.IreeModule(unpacked, driver)
            variants.append((" unpacked", plain, plain.iree_module))
        for suffix, which, compiled_module in variants:

            def run(program: Program = which) -> Any:
                if spec.slots:
                    return program.run(slots=aligned, backend="iree")
                return program.run(args=aligned, backend="iree")

            loss = float(run().results[0])
            theirs = spec.jax()
            reference = float(np.asarray(theirs[0]))  # type: ignore[index]
            difference = max(difference, abs(loss - reference) / abs(reference))
            sides[f"run {driver}{suffix}"] = run
            sides[f"bare {driver}{suffix}"] = bare(compiled_module, aligned)
    for side in sides.values():
        side()
    gc.disable()
    try:
        return compiled, chosen, difference, call_times(sides, rounds, block, warmup)
    finally:
        gc.enable()


def report(times: dict[str, np.ndarray]) -> None:
    """Each side's median, mean and 90th percentile in ms, and its median
    and mean against JAX's: a call path whose slow calls are rare but long
    (IREE's threads on a small machine, bench/RESULTS.md) shows in the mean,
    which is what a training loop waits for, and not in the median."""
    print(f"    {'':27} {'median':>9} {'mean':>9} {'p90':>9}   vs jax: median  mean")
    jax = times["jax jit"]
    for side, took in times.items():
        median, mean = np.median(took), took.mean()
        print(
            f"    {side:27} {median * 1e3:9.3f} {mean * 1e3:9.3f} "
            f"{np.percentile(took, 90) * 1e3:9.3f}   "
            f"{median / np.median(jax):13.2f} {mean / jax.mean():5.2f}"
        )


def call_path(rounds: int) -> dict[str, float]:
    """The pieces of the small step's call on `local-sync`, packed and
    unpacked, median seconds: what `IreeModule.call` and `Program.run` add
    to the bare call."""
    spec = step("small")
    program = Program(spec.text)
    module = program.iree_module = iree.load(program.module, "local-sync")
    plain = Program(spec.text)
    unpacked = plain.iree_module = iree.IreeModule(
        iree.compile_text(
            iree.lower(plain.module), untiled=products_untiled(plain.module)
        ),
        "local-sync",
    )
    aligned = [aligned_copy(a) for a in spec.data]
    packing = module.packings["main"]
    places, inputs = module._packed_inputs(packing)
    results = [
        np.empty(size, dtype)
        for dtype, size in zip(packing.result_groups, packing.result_sizes, strict=True)
    ]
    outputs = unpacked._invoke("main", aligned)
    sides: dict[str, Callable[[], object]] = {
        "bare": packed_bare_call(module, aligned),
        "pack the inputs": lambda: packing.pack(aligned, places),
        "unpack the results": lambda: packing.unpack(aligned, results),
        "IreeModule.call": lambda: module.call("main", aligned),
        "Program.run": lambda: program.run(slots=aligned, backend="iree"),
        "bare unpacked": bare_call(unpacked, aligned),
        "import the inputs": lambda: [unpacked._view(a) for a in aligned],
        "import and invoke": lambda: unpacked._invoke("main", aligned),
        "map the results": lambda: [unpacked._host(o, aligned) for o in outputs],
        "call unpacked": lambda: unpacked.call("main", aligned),
        "run unpacked": lambda: plain.run(slots=aligned, backend="iree"),
    }
    del inputs
    for side in sides.values():
        side()
    gc.disable()
    try:
        return interleaved(sides, rounds)
    finally:
        gc.enable()


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--rounds", type=int, default=20)
    arguments.add_argument("--steps", default="large,small,cnn,attention")
    arguments.add_argument("--drivers", default="local-task,local-sync")
    arguments.add_argument(
        "--flags",
        choices=FLAG_SETS,
        help="compile with one of `FLAG_SETS` (default: gradopt's)",
    )
    arguments.add_argument(
        "--block",
        type=int,
        default=20,
        help="call each side this many times back to back (see `call_times`)",
    )
    arguments.add_argument(
        "--warmup",
        type=int,
        default=3,
        help="untimed calls before each block (see `call_times`)",
    )
    arguments.add_argument(
        "--unpacked",
        action="store_true",
        help="also run a packed program unpacked (see `measure`)",
    )
    arguments.add_argument(
        "--call-path",
        action="store_true",
        help="time the pieces of the small step's call instead (see `call_path`)",
    )
    args = arguments.parse_args()
    if args.call_path:
        for side, took in call_path(args.rounds).items():
            print(f"    {side:20} {took * 1e6:8.1f} us")
        return
    import jax

    jax.config.update("jax_platforms", "cpu")
    if args.flags:  # for every program, looping or not
        iree.COMPILE_FLAGS = iree.LOOP_COMPILE_FLAGS = DEVICE + FLAG_SETS[args.flags]
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        for name in args.steps.split(","):
            before = os.getloadavg()[0]
            compiled, chosen, difference, times = measure(
                name,
                args.drivers.split(","),
                args.rounds,
                args.unpacked,
                args.block,
                args.warmup,
            )
            after = os.getloadavg()[0]
            print(
                f"{name}: compile {compiled:.1f} s, gradopt's driver {chosen}, "
                f"loss vs jax {difference:.1e} (relative), "
                f"load {before:.1f} -> {after:.1f}, {args.rounds} rounds"
            )
            report(times)


if __name__ == "__main__":
    main()
