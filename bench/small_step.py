"""The small training step of issue 15 (64 -> 32 -> 10 MLP, batch 64): the
interpreter (copying and in-place slots, and `gradopt.run` on the program's
text, which prepares it on its first call only) beside hand-written NumPy and, when
installed, JAX jit, interleaved call by call; medians of 300 rounds. With
`--profile`, where the interpreter's time goes instead: the plan's steps
by op and result type, each kernel timed alone (the timer's own cost, about
0.1 us a call, included), and what `Program.run` adds to the plan. With
`--every-step`, also the plan and `Program.run in_place` of the program
planned without leaving out the steps NumPy does implicitly
(`gradopt.interpreter.implicit`), so that both are measured in one run.
With `--floor`, also the plan and `Program.run in_place` of the same step at
batch 2, 3 -> 4 -> 5 (`TINY`): the same 59 NumPy calls on arrays of a few
elements, what the interpreter's calls cost with next to nothing to compute.
`--block N` calls each side N times in a row (as a training loop does)
instead of in turn call by call.

    python bench/small_step.py [--profile | --every-step | --floor]
                               [--rounds N] [--block N]
"""

from __future__ import annotations

import sys
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))
from interpreter_speed import jax_step, mlp_data, mlp_program, numpy_step

import gradopt
from gradopt import Program
from gradopt.interpreter import Plan, implicit

SHAPES = (64, 64, 32, 10)
TINY = (2, 3, 4, 5)


def call_times(
    sides: dict[str, Callable[[], object]],
    rounds: int,
    block: int = 1,
    warmup: int = 0,
) -> dict[str, np.ndarray]:
    """The seconds of every call of each side: each side called `block`
    times back to back (as a training loop calls one step), after `warmup`
    calls that are not timed, the sides' blocks in turn `rounds` times (so
    that a slower minute of the machine slows all alike). Interleaved call
    by call (`block` 1), JAX's time depends on what runs between its calls:
    its worker threads park, and the side after it shares the cores with
    their spinning (bench/RESULTS.md); in blocks, the first calls of a
    block still pay for the threads of the side before it."""
    times: dict[str, list[float]] = {name: [] for name in sides}
    for _ in range(rounds):
        for name, side in sides.items():
            for _ in range(warmup):
                side()
            for _ in range(block):
                started = time.perf_counter()
                side()
                times[name].append(time.perf_counter() - started)
    return {name: np.array(t) for name, t in times.items()}


def medians(times: dict[str, np.ndarray]) -> dict[str, float]:
    return {name: float(np.median(t)) for name, t in times.items()}


def interleaved(
    sides: dict[str, Callable[[], object]], rounds: int
) -> dict[str, float]:
    """The median seconds of each side, the sides called in turn `rounds`
    times."""
    return medians(call_times(sides, rounds))


def in_blocks(
    sides: dict[str, Callable[[], object]], rounds: int, block: int
) -> dict[str, float]:
    """The median seconds of each side, called in blocks (`call_times`)."""
    return medians(call_times(sides, rounds, block))


def plan_profile(
    program: Program, arguments: list[object], rounds: int, entry: str = "main"
) -> None:
    """Per kind of step (op and result type, and a `linalg.generic`'s body
    ops): its calls a run and the median over `rounds` runs of the planned
    `entry` (on copies of `arguments`) of its kernels' time in a run."""
    plan = program.interpreter.plans[entry]
    spent: dict[str, float] = defaultdict(float)
    calls: dict[str, int] = defaultdict(int)

    def timed(kernel: Callable[..., object], kind: str) -> Callable[..., object]:
        def run(*args: object, **kwargs: object) -> object:
            started = time.perf_counter()
            value = kernel(*args, **kwargs)
            spent[kind] += time.perf_counter() - started
            calls[kind] += 1
            return value

        return run

    steps = []
    for step in plan.steps:
        kind = step.op.name
        if step.op.results:
            kind += f" {step.op.results[0].type}"
        if step.op.name == "linalg.generic":
            body = [op.name.split(".")[-1] for op in step.op.regions[0].ops]
            kind += f" ({', '.join(body[:-1])})"
        steps.append(step._replace(kernel=timed(step.kernel, kind)))
    timed_plan = Plan(
        tuple(steps),
        plan.inputs,
        plan.size,
        plan.outputs,
        plan.constants,
        plan.dropped,
    )
    runs: dict[str, list[float]] = defaultdict(list)
    with np.errstate(all="ignore"):
        for _ in range(rounds):
            spent.clear()
            timed_plan.run([np.copy(a) for a in arguments])
            for kind, seconds in spent.items():
                runs[kind].append(seconds)
    medians = {kind: float(np.median(times)) for kind, times in runs.items()}
    ran = sum(calls.values()) // rounds
    print(f"{len(plan.steps)} steps, {ran} run ({len(plan.constants)} literals):")
    for kind in sorted(medians, key=medians.__getitem__, reverse=True):
        print(f"  {medians[kind] * 1e6:7.2f} us  x{calls[kind] // rounds:<3} {kind}")
    print(f"  {sum(medians.values()) * 1e6:7.2f} us  in kernels (sum of the medians)")


def profile(program: Program, rounds: int = 500) -> None:
    """`plan_profile` of the small step, then the plan against what
    `Program.run` adds to it."""
    slots = list(mlp_data(*SHAPES))
    program.run(slots=slots, in_place=True)  # planned
    plan_profile(program, slots, rounds)
    medians = interleaved(
        {
            "plan": lambda: program.interpreter.call("main", slots),
            "Program.run in_place": lambda: program.run(slots=slots, in_place=True),
            "Program.run": lambda: program.run(slots=slots),
        },
        rounds=1000,
    )
    print("; ".join(f"{name} {t * 1e6:.1f} us" for name, t in medians.items()))


def main() -> None:
    program = Program(mlp_program(*SHAPES))
    if "--profile" in sys.argv[1:]:
        profile(program)
        return
    text = mlp_program(*SHAPES)
    copied, in_place, by_hand, again = (mlp_data(*SHAPES) for _ in range(4))
    sides: dict[str, Callable[[], object]] = {
        "numpy": lambda: numpy_step(*by_hand),
        "Program.run": lambda: program.run(slots=copied),
        "Program.run in_place": lambda: program.run(slots=in_place, in_place=True),
        "gradopt.run(text)": lambda: gradopt.run(text, slots=again),
    }
    if "--every-step" in sys.argv[1:]:
        planned, unplanned = (mlp_data(*SHAPES) for _ in range(2))
        program.run(slots=planned, in_place=True)  # planned
        every = Program(text)
        implicit.ENABLED = False
        try:
            every.run(slots=unplanned, in_place=True)  # planned
        finally:
            implicit.ENABLED = True
        sides["plan"] = lambda: program.interpreter.call("main", planned)
        sides["plan, every step"] = lambda: every.interpreter.call("main", unplanned)
        sides["in_place, every step"] = lambda: every.run(
            slots=unplanned, in_place=True
        )
    if "--floor" in sys.argv[1:]:
        tiny, tiny_slots = Program(mlp_program(*TINY)), mlp_data(*TINY)
        tiny.run(slots=tiny_slots, in_place=True)  # planned
        sides["plan, tiny"] = lambda: tiny.interpreter.call("main", tiny_slots)
        sides["in_place, tiny"] = lambda: tiny.run(slots=tiny_slots, in_place=True)
    if (jitted := jax_step(SHAPES)) is not None:
        sides["jax jit"] = jitted
    arguments = sys.argv[1:]
    rounds = (
        int(arguments[arguments.index("--rounds") + 1])
        if "--rounds" in arguments
        else 300
    )
    block = (
        int(arguments[arguments.index("--block") + 1]) if "--block" in arguments else 1
    )
    medians = (
        interleaved(sides, rounds=rounds)
        if block == 1
        else in_blocks(sides, rounds, block)
    )
    for name, median in medians.items():
        line = (
            f"{name:22} {median * 1e6:8.1f} us  {median / medians['numpy']:5.2f}x numpy"
        )
        if "jax jit" in medians:
            line += f"  {median / medians['jax jit']:5.2f}x jax"
        print(line)


if __name__ == "__main__":
    main()
