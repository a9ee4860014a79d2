"""`backend="auto"` against "numpy" and "iree" on the MLP step (issue 25, item 3).

Usage: python bench/auto_backend.py [--repeats N] [--shapes B,I,H,C]...

For each step (default: the large one, batch 256, 784 -> 512 -> 10, and the
small one, batch 64, 64 -> 32 -> 10, of `interpreter_speed.py`), in one
process, each backend on a `Program` of its own, prepared beforehand, and with
an empty IREE cache of its own (so that "iree" and "auto" really compile),
"numpy" first, then "auto" until it switches, then "iree" (whose runtime
threads are then not yet there during the first calls of the others):

- first call: the time of the first `Program.run` (for "iree", the compile
  included; for "auto", the interpreter's run and starting the compile);
- switch: for "auto", the time from the first call until a call is answered
  by IREE (calls go on back to back meanwhile, as a training loop makes them),
  and how many calls the interpreter answered until then;
- while compiling: for "auto", the median of those calls (the compile
  competes with them for the cores, and lowering the program for the GIL);
- steady: the median of `--repeats` calls once every backend is warm, the
  sides called in turn;
- then the first call of "numpy" and "auto" again on `--firsts` fresh
  `Program`s each, in turn, medians (the first calls above are one each).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import EXAMPLE, describe_machine, mlp_data, mlp_program

from gradopt import Program

BACKENDS = ("numpy", "iree", "auto")


def first_call(
    program: Program, backend: str, cache: str, slots: list[np.ndarray]
) -> float:
    """Seconds of the first run of `program` on `backend`, compiling into the
    empty cache `cache`."""
    os.environ["GRADOPT_CACHE_DIR"] = cache
    started = time.perf_counter()
    program.run(slots=slots, backend=backend)
    return time.perf_counter() - started


def until_switch(
    program: Program, started: float, slots: list[np.ndarray]
) -> tuple[float, int, list[float]]:
    """Seconds from `started` until "auto" answers on IREE, the calls the
    interpreter answered meanwhile, and their times."""
    times = []
    while True:
        begun = time.perf_counter()
        result = program.run(slots=slots, backend="auto")
        if result.backend == "iree":
            return begun - started, len(times), times
        times.append(time.perf_counter() - begun)


def fresh_firsts(
    text: str, slots: list[np.ndarray], count: int, cache: str
) -> dict[str, float]:
    """The median first call of "numpy" and of "auto" on `count` fresh
    `Program`s each, in turn; each "auto" program's compile (a hit in the
    cache `cache`, after the first) is waited for before the next."""
    times: dict[str, list[float]] = {"numpy": [], "auto": []}
    for _ in range(count):
        for backend, spent in times.items():
            program = Program(text, str(EXAMPLE))
            spent.append(first_call(program, backend, cache, slots))
            if backend == "auto":
                program.ready()
    return {backend: statistics.median(spent) for backend, spent in times.items()}


def bench(shapes: tuple[int, int, int, int], repeats: int, firsts_count: int) -> None:
    slots = mlp_data(*shapes)
    programs = {b: Program(mlp_program(*shapes), str(EXAMPLE)) for b in BACKENDS}
    with tempfile.TemporaryDirectory() as root:
        firsts = {"numpy": first_call(programs["numpy"], "numpy", root, slots)}
        started = time.perf_counter()
        auto = programs["auto"]
        firsts["auto"] = first_call(auto, "auto", os.path.join(root, "a"), slots)
        switch, calls, during = until_switch(auto, started, slots)
        iree = os.path.join(root, "i")
        firsts["iree"] = first_call(programs["iree"], "iree", iree, slots)
        fresh = fresh_firsts(mlp_program(*shapes), slots, firsts_count, root)
    steady: dict[str, list[float]] = {b: [] for b in BACKENDS}
    for _ in range(repeats):
        for backend, program in programs.items():
            begun = time.perf_counter()
            result = program.run(slots=slots, backend=backend)
            steady[backend].append(time.perf_counter() - begun)
            assert result.backend == ("numpy" if backend == "numpy" else "iree")
    print(f"\nstep {'x'.join(map(str, shapes))}, load {os.getloadavg()[0]:.1f}")
    print(
        "| backend | first call ms | switch s | calls before | while compiling ms |"
        " steady ms |"
    )
    print("|---|---:|---:|---:|---:|---:|")
    for backend in BACKENDS:
        auto = backend == "auto"
        print(
            f"| {backend} | {firsts[backend] * 1e3:.1f} "
            f"| {f'{switch:.2f}' if auto else ''} | {calls if auto else ''} "
            f"| {f'{statistics.median(during) * 1e3:.2f}' if auto and during else ''} "
            f"| {statistics.median(steady[backend]) * 1e3:.3f} |"
        )
    print(
        f"first call on {firsts_count} fresh programs, medians: "
        + ", ".join(f"{b} {t * 1e3:.1f} ms" for b, t in fresh.items())
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--firsts", type=int, default=5)
    parser.add_argument(
        "--shapes", action="append", help="B,I,H,C (default: large and small)"
    )
    options = parser.parse_args()
    describe_machine()
    for shapes in options.shapes or ["256,784,512,10", "64,64,32,10"]:
        batch, inputs, hidden, classes = (int(s) for s in shapes.split(","))
        bench((batch, inputs, hidden, classes), options.repeats, options.firsts)


if __name__ == "__main__":
    main()
