"""Which thread waits for IREE's workers on `local-task` (issue 25, items 1
and 2): the calling thread, as IREE's own tools and bindings wait, or the
waiting thread of the lowest priority that gradopt hands the call to
(`gradopt.runtime.iree_caller`).

For each step of `bench/ahead_of_jax.py` run on `local-task` (`large`,
`cnn`, `attention`), the program is compiled once with gradopt's flags and
loaded once; then, in one process, in blocks of `--block` calls after
`--warmup` untimed ones, the blocks in turn `--rounds` times
(`small_step.call_times`):

- calling thread: the compiled function on buffer views made once, invoked
  on the calling thread (as `iree-benchmark-module` calls it);
- waiting thread: the same invoked through `iree_caller.call_waiting`;
- Program.run: `Program.run(backend="iree")`, which waits on that thread;
- jax jit, as in `bench/ahead_of_jax.py`.

Each side's median, mean and 90th percentile (`ahead_of_jax.report`): the
calling thread's slow calls show in its mean and 90th percentile.

    python bench/iree_caller.py [--steps large,cnn,attention] [--rounds 15]
                                [--block 20] [--warmup 3]
"""

from __future__ import annotations

import argparse
import gc
import os
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from ahead_of_jax import bare, report, step
from small_step import call_times

from gradopt import Program
from gradopt.runtime import iree
from gradopt.runtime.buffers import aligned_copy
from gradopt.runtime.iree_caller import call_waiting


def measure(name: str, rounds: int, block: int, warmup: int) -> None:
    spec = step(name)
    program = Program(spec.text)
    module = program.iree_module = iree.load(program.module, "local-task")
    data = [aligned_copy(a) for a in spec.data]
    inputs = {"slots" if spec.slots else "args": data}
    on_this_thread = bare(module, data)
    sides: dict[str, Callable[[], object]] = {
        "calling thread": on_this_thread,
        "waiting thread": lambda: call_waiting(on_this_thread),
        "Program.run": lambda: program.run(**inputs, backend="iree"),
        "jax jit": spec.jax,
    }
    for side in sides.values():
        side()
    gc.disable()
    try:
        times = call_times(sides, rounds, block, warmup)
    finally:
        gc.enable()
    print(f"{name}: {rounds} rounds of {block} calls, load {os.getloadavg()[0]:.1f}")
    report(times)


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--steps", default="large,cnn,attention")
    arguments.add_argument("--rounds", type=int, default=15)
    arguments.add_argument("--block", type=int, default=20)
    arguments.add_argument("--warmup", type=int, default=3)
    args = arguments.parse_args()
    import jax

    jax.config.update("jax_platforms", "cpu")
    with tempfile.TemporaryDirectory() as cache:
        os.environ["GRADOPT_CACHE_DIR"] = cache
        for name in args.steps.split(","):
            measure(name, args.rounds, args.block, args.warmup)


if __name__ == "__main__":
    main()
