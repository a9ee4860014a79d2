"""Speed and memory of the interpreter against hand-written NumPy (issue 5, item 4).

Usage: python bench/interpreter_speed.py [--repeats N] [--only mlp,loop,scalar,memory]

Each part runs both sides in the same process, alternating between them so
that a disturbance (another process, a frequency change) hits both alike, and
reports medians (the MLP step in blocks of 8 calls a side, as a training loop
calls it, with the page faults of a call beside):

(a) mlp: one SGD step of the MLP of `examples/mlp_step.mlir` at batch 256,
    784 -> 512 -> 10 (the example's shapes scaled up), through
    `gradopt.Program.run` (inputs checked and copied, as a user calls it) and
    through the prepared plan alone (`Interpreter.call` on the slot arrays),
    and in place as planned without kept buffers (`in_place, new arrays`:
    each intermediate a new array, as before `gradopt.interpreter.pool`),
    against the same step written by hand in float32 NumPy (the usual
    `(softmax - y) / batch` backward, in place weight updates). Target <= 1.2.
    Both start from the same weights; the max abs difference of the loss and of
    the updated weights is printed (not bit-identical: NumPy uses exp/log and a
    different operation order).
(a') loop: the same step as a training loop runs it, each of hand-written
    NumPy, `Program.run` and `in_place` alone in a process of its own (the
    sides in turn, repeats // 8 processes a side, 300 steps each, each
    step's slots the last one's): in (a) the sides share one process, and
    the others' allocations decide which of a side's arrays fault.
(b) scalar: per-op time of two 10k-op graphs of `tensor<f32>` ops, a chain of
    `grad.add` and a graph cycling through mul, add (of a value from the cycle
    before), sin, max, neg, exp2, cmplt and where, against a Python loop
    calling the same NumPy functions on the same kind of values. Target <= 2.
(c) memory: tracemalloc peak of a 200-op chain of elementwise ops (mul, add,
    sin, max, neg, with splat constants and values from earlier in the chain)
    on a 1024x1024 f32 tensor, through `Program.run`, against the same NumPy
    calls in a plain function. Target <= 1.5.

The BLAS library and the kernel it picked are printed first: OPENBLAS_CORETYPE,
where set, changes the kernel, and must be the same on both sides (it is: one
process). Run it on an otherwise idle machine: with another process busy on a
core, OpenBLAS's two threads wait on each other and steps take 10-30x longer
(`OPENBLAS_NUM_THREADS=1` is then the fair choice). Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import platform
import random
import re
import resource
import statistics
import subprocess
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

import numpy as np

from gradopt import Program
from gradopt.interpreter import pool as kept_buffers

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "mlp_step.mlir"
EXAMPLE_SIZES = {"batch": 4, "inputs": 3, "hidden": 5, "classes": 2}
LEARNING_RATE = np.float32(0.1)


def minor_faults() -> int:
    """Page faults of this process so far that the kernel served from memory:
    each first touch of memory that the allocator got fresh from the system."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def timed(run: Callable[[], object]) -> float:
    """Seconds one call of `run` takes, with the collector off as in `timeit`."""
    return measured(run)[0]


def measured(run: Callable[[], object]) -> tuple[float, int]:
    """Seconds one call of `run` takes, with the collector off as in `timeit`,
    and the page faults it caused."""
    gc.collect()
    gc.disable()
    try:
        faults = minor_faults()
        started = time.perf_counter()
        run()
        return time.perf_counter() - started, minor_faults() - faults
    finally:
        gc.enable()


class Timing(NamedTuple):
    seconds: float
    """The median time of a call."""
    faults: float
    """Page faults a call caused, on average."""


def side_by_side(
    runs: dict[str, Callable[[], object]], repeats: int, block: int = 1
) -> dict[str, Timing]:
    """The median time of `repeats` calls of each of `runs`.

    The calls go in rounds: in each, every run is called `block + 1` times in a
    row and all but the first call are timed; each round takes the runs in
    another order (shuffled, the same each time the script runs). A block is
    what a training loop does (the same step again, with the memory allocator
    in the state the step itself left it in), and the rounds spread a
    disturbance (another process, a frequency change, the caches a run before
    it left cold) over all runs alike."""
    names = list(runs)
    times: dict[str, list[float]] = {name: [] for name in runs}
    faults = dict.fromkeys(runs, 0)
    rounds = -(-repeats // block)
    order = random.Random(0)
    for _ in range(rounds):
        order.shuffle(names)
        for name in names:
            runs[name]()
            for _ in range(block):
                seconds, count = measured(runs[name])
                times[name].append(seconds)
                faults[name] += count
    return {
        name: Timing(statistics.median(values), faults[name] / len(values))
        for name, values in times.items()
    }


# --- (a) MLP training step ----------------------------------------------------


def mlp_program(batch: int, inputs: int, hidden: int, classes: int) -> str:
    """`examples/mlp_step.mlir` with its shapes scaled: every dimension in a
    tensor or memref type is one of the example's four distinct sizes, which
    are replaced, and the mean's factor -1/batch is set to match."""
    text = EXAMPLE.read_text()
    sizes = dict(
        zip(EXAMPLE_SIZES.values(), (batch, inputs, hidden, classes), strict=True)
    )

    def scaled(match: re.Match[str]) -> str:
        dims = match.group(2).split("x")
        dims[:-1] = [str(sizes[int(d)]) for d in dims[:-1]]
        return f"{match.group(1)}<{'x'.join(dims)}>"

    text = re.sub(r"\b(tensor|memref)<([0-9x]*[a-z0-9]+)>", scaled, text)
    text, count = re.subn(
        r"(%scale = grad\.const )\S+", rf"\g<1>{-1.0 / batch!r}", text
    )
    assert count == 1, "examples/mlp_step.mlir has no %scale constant"
    return text


def mlp_data(batch: int, inputs: int, hidden: int, classes: int) -> list[np.ndarray]:
    """Slots of the MLP step: x, one-hot y, w1, b1, w2, b2, all float32."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((batch, inputs), np.float32)
    y = np.eye(classes, dtype=np.float32)[rng.integers(0, classes, batch)]
    w1 = rng.standard_normal((inputs, hidden), np.float32) / np.float32(np.sqrt(inputs))
    b1 = rng.standard_normal(hidden, np.float32) * np.float32(0.1)
    w2 = rng.standard_normal((hidden, classes), np.float32) / np.float32(
        np.sqrt(hidden)
    )
    b2 = rng.standard_normal(classes, np.float32) * np.float32(0.1)
    return [x, y, w1, b1, w2, b2]


def numpy_step(
    x: np.ndarray,
    y: np.ndarray,
    w1: np.ndarray,
    b1: np.ndarray,
    w2: np.ndarray,
    b2: np.ndarray,
) -> np.float32:
    """The MLP step as one writes it in NumPy: the loss, and the weights updated
    in place."""
    batch = np.float32(x.shape[0])
    pre = x @ w1 + b1
    hidden = np.maximum(pre, np.float32(0))
    z = hidden @ w2 + b2
    shifted = z - z.max(axis=1, keepdims=True)
    e = np.exp(shifted)
    total = e.sum(axis=1, keepdims=True)
    logp = shifted - np.log(total)
    loss = -(y * logp).sum() / batch
    dz = (e / total - y) / batch
    dhidden = dz @ w2.T
    dpre = dhidden * (pre > 0)  # ten times faster than np.where on random signs
    w2 -= LEARNING_RATE * (hidden.T @ dz)
    b2 -= LEARNING_RATE * dz.sum(axis=0)
    w1 -= LEARNING_RATE * (x.T @ dpre)
    b1 -= LEARNING_RATE * dpre.sum(axis=0)
    return loss


def jax_step(shapes: tuple[int, int, int, int]) -> Callable[[], object] | None:
    """The MLP step in `jax.numpy` (`jax.value_and_grad`, `jax.jit`) on the data
    of `mlp_data(*shapes)`, compiled and run once, or None without JAX."""
    try:
        import jax
        import jax.numpy as jnp
    except ImportError:
        return None

    def loss(w1, b1, w2, b2, x, y):
        hidden = jnp.maximum(x @ w1 + b1, 0)
        z = hidden @ w2 + b2
        s = z - jax.lax.stop_gradient(z.max(axis=1, keepdims=True))
        logp = s - jnp.log(jnp.exp(s).sum(axis=1, keepdims=True))
        return -(y * logp).sum() / x.shape[0]

    @jax.jit
    def step(w1, b1, w2, b2, x, y):
        value, grads = jax.value_and_grad(loss, argnums=(0, 1, 2, 3))(
            w1, b1, w2, b2, x, y
        )
        weights = (w1, b1, w2, b2)
        return value, [w - LEARNING_RATE * g for w, g in zip(weights, grads)]  # noqa: B905

    # on the device once, as a JAX training loop keeps its arrays
    x, y, w1, b1, w2, b2 = (jax.device_put(a) for a in mlp_data(*shapes))
    jax.block_until_ready(step(w1, b1, w2, b2, x, y))
    return lambda: jax.block_until_ready(step(w1, b1, w2, b2, x, y))


def bench_mlp(repeats: int) -> None:
    shapes = (256, 784, 512, 10)
    assert mlp_program(*EXAMPLE_SIZES.values()) == EXAMPLE.read_text()
    started = time.perf_counter()
    program = Program(mlp_program(*shapes), str(EXAMPLE))
    program.interpreter.prepare("main")
    prepared = time.perf_counter() - started
    ops = sum(len(plan.steps) for plan in program.interpreter.plans.values())

    # the same first step on both sides
    ours = program.run(slots=mlp_data(*shapes))
    theirs = mlp_data(*shapes)
    loss = numpy_step(*theirs)
    loss_diff = abs(float(ours.results[0]) - float(loss))
    weight_diff = max(
        float(np.max(np.abs(a - b)))
        for a, b in zip(ours.slots[2:], theirs[2:], strict=True)
    )
    update = max(
        float(np.max(np.abs(a - b)))
        for a, b in zip(theirs[2:], mlp_data(*shapes)[2:], strict=True)
    )

    slots = mlp_data(*shapes)
    in_place = list(mlp_data(*shapes))
    plan_slots = mlp_data(*shapes)
    numpy_slots = mlp_data(*shapes)
    unpooled_slots = list(mlp_data(*shapes))
    kept_buffers.ENABLED = False  # planned as before the plans kept buffers
    try:
        unpooled = Program(mlp_program(*shapes), str(EXAMPLE))
        unpooled.run(slots=unpooled_slots, in_place=True)
    finally:
        kept_buffers.ENABLED = True
    sides = {
        "numpy": lambda: numpy_step(*numpy_slots),
        "Program.run": lambda: program.run(slots=slots),
        "in_place": lambda: program.run(slots=in_place, in_place=True),
        "plan only": lambda: program.interpreter.call("main", plan_slots),
        "in_place, new arrays": lambda: unpooled.run(
            slots=unpooled_slots, in_place=True
        ),
    }
    if (jitted := jax_step(shapes)) is not None:  # last: see bench/RESULTS.md
        sides["jax jit"] = jitted
    medians = side_by_side(sides, repeats, block=8)
    print(f"(a) MLP SGD step, batch 256, 784 -> 512 -> 10, f32 ({ops} steps)")
    print(f"    prepared (parse, verify, expand, plan) in {prepared:.2f} s")
    print(f"    loss {float(loss):.6f}; max abs diff: loss {loss_diff:.2e},")
    print(f"    updated weights {weight_diff:.2e} (largest update {update:.2e})")
    numpy_time = medians["numpy"].seconds
    print(
        f"    {'':20} {'ms/step':>9} {'ratio':>7} {'faults':>7}   "
        f"(median of {-(-repeats // 8) * 8}, in blocks of 8)"
    )
    for name, (seconds, faults) in medians.items():
        ratio = seconds / numpy_time
        print(f"    {name:20} {seconds * 1e3:9.2f} {ratio:7.2f} {faults:7.0f}")
    print("    target: Program.run / numpy <= 1.0 (issue 15)")


LOOP_SIDES = ("numpy", "Program.run", "in_place")
"""The sides of the MLP step that `--only loop` runs each in a process of its
own."""


def loop_side(name: str, calls: int) -> None:
    """Side `name` of the large MLP step called `calls` times as a training
    loop calls it, alone in this process: each step's slots are the last
    step's (its result's, or the same arrays in place), after 20 steps not
    timed. Prints its median and mean ms and page faults a step as JSON."""
    shapes = (256, 784, 512, 10)
    slots = mlp_data(*shapes)
    if name == "numpy":

        def step(slots: list[np.ndarray]) -> list[np.ndarray]:
            numpy_step(*slots)
            return slots

    else:
        program = Program(mlp_program(*shapes), str(EXAMPLE))
        in_place = name == "in_place"

        def step(slots: list[np.ndarray]) -> list[np.ndarray]:
            return program.run(slots=slots, in_place=in_place).slots

    for _ in range(20):
        slots = step(slots)
    times = []
    faults = minor_faults()
    for _ in range(calls):
        started = time.perf_counter()
        slots = step(slots)
        times.append(time.perf_counter() - started)
    faults = (minor_faults() - faults) / calls
    print(json.dumps([statistics.median(times), statistics.fmean(times), faults]))


def bench_loop(rounds: int, calls: int = 300) -> None:
    """`loop_side` of each of `LOOP_SIDES` in a process of its own, the sides in
    turn `rounds` times: the memory allocator in the state the step alone
    leaves it in, where in one process with the other sides (`bench_mlp`)
    the others' allocations decide which of its arrays fault."""
    found: dict[str, list[list[float]]] = {name: [] for name in LOOP_SIDES}
    for _ in range(rounds):
        for name in LOOP_SIDES:
            command = [sys.executable, __file__, "--loop-side", name, str(calls)]
            output = subprocess.run(command, capture_output=True, text=True, check=True)
            found[name].append(json.loads(output.stdout.splitlines()[-1]))
    numpy_time = statistics.median(median for median, _, _ in found["numpy"])
    print(
        f"(a') MLP SGD step, batch 256, 784 -> 512 -> 10, each side alone in a "
        f"training loop ({calls} steps, {rounds} processes a side)"
    )
    print(f"    {'':20} {'ms/step':>9} {'ratio':>7} {'mean':>7} {'faults':>7}")
    for name, runs in found.items():
        median = statistics.median(m for m, _, _ in runs)
        mean = statistics.median(m for _, m, _ in runs)
        faults = statistics.median(f for _, _, f in runs)
        print(
            f"    {name:20} {median * 1e3:9.2f} {median / numpy_time:7.2f} "
            f"{mean * 1e3:7.2f} {faults:7.0f}"
        )


# --- (b) scalar graphs ----------------------------------------------------------

_SCALAR = "tensor<f32>"
_CYCLE = [
    "%t{i} = grad.mul %x{i}, %half : tensor<f32>",
    "%u{i} = grad.add %t{i}, %x{p} : tensor<f32>",
    "%v{i} = grad.sin %u{i} : tensor<f32>",
    "%w{i} = grad.max %v{i}, %low : tensor<f32>",
    "%n{i} = grad.neg %w{i} : tensor<f32>",
    "%e{i} = grad.exp2 %n{i} : tensor<f32>",
    "%c{i} = grad.cmplt %e{i}, %one : tensor<f32>",
    "%x{j} = grad.where %c{i}, %e{i}, %n{i} : tensor<f32>",
]


def scalar_graph(ops: int) -> str:
    """`ops` scalar ops (a multiple of 8), the cycle `_CYCLE` repeated."""
    lines = [
        "func.func @main(%x0: tensor<f32>) -> tensor<f32> {",
        "  %half = grad.const 0.5 : tensor<f32>",
        "  %low = grad.const -0.25 : tensor<f32>",
        "  %one = grad.const 1.0 : tensor<f32>",
        "  %x_1 = grad.const 0.125 : tensor<f32>",
    ]
    cycles = ops // len(_CYCLE)
    for i in range(cycles):
        previous = f"{i - 1}" if i else "_1"
        for line in _CYCLE:
            lines.append("  " + line.format(i=i, p=previous, j=i + 1))
    lines += [f"  func.return %x{cycles} : tensor<f32>", "}"]
    return "\n".join(lines)


def scalar_loop(ops: int) -> Callable[[np.ndarray], object]:
    """The graph of `scalar_graph` as a Python loop of the same NumPy calls on
    the same kinds of value (0-d float32 arrays, then NumPy scalars)."""
    half, low, one, start = (np.array(v, np.float32) for v in (0.5, -0.25, 1.0, 0.125))
    multiply, add, sin, maximum = np.multiply, np.add, np.sin, np.maximum
    negative, exp2, less, where = np.negative, np.exp2, np.less, np.where
    cycles = ops // len(_CYCLE)

    def loop(x: np.ndarray) -> object:
        previous = start
        for _ in range(cycles):
            t = multiply(x, half)
            u = add(t, previous)
            v = sin(u)
            w = maximum(v, low)
            n = negative(w)
            e = exp2(n)
            c = less(e, one)
            previous, x = x, where(c, e, n)
        return x

    return loop


def add_chain(ops: int) -> str:
    lines = [
        "func.func @main(%x0: tensor<f32>) -> tensor<f32> {",
        "  %one = grad.const 1.0 : tensor<f32>",
    ]
    lines += [f"  %x{i + 1} = grad.add %x{i}, %one : tensor<f32>" for i in range(ops)]
    lines += [f"  func.return %x{ops} : tensor<f32>", "}"]
    return "\n".join(lines)


def add_loop(ops: int) -> Callable[[np.ndarray], object]:
    one, add = np.array(1.0, np.float32), np.add

    def loop(x: np.ndarray) -> object:
        for _ in range(ops):
            x = add(x, one)
        return x

    return loop


def bench_scalar(repeats: int, ops: int = 10_000) -> None:
    print(f"(b) {ops} scalar ops (tensor<f32>), per op, median of {repeats}")
    print(f"    {'graph':22} {'interpreter':>12} {'numpy loop':>11} {'ratio':>6}")
    x0 = np.array(0.75, np.float32)
    graphs = {
        "add chain": (add_chain(ops), add_loop(ops)),
        "mul/add/sin/max/...": (scalar_graph(ops), scalar_loop(ops)),
    }
    for name, (text, loop) in graphs.items():
        interpreter = Program(text).interpreter
        interpreter.prepare("main")
        ours = interpreter.call("main", [x0])[0]
        assert np.float32(ours).tobytes() == np.float32(loop(x0)).tobytes()
        medians = side_by_side(
            {
                "ours": lambda i=interpreter: i.call("main", [x0]),
                "numpy": lambda f=loop: f(x0),
            },
            repeats,
        )
        ours, theirs = medians["ours"].seconds, medians["numpy"].seconds
        print(
            f"    {name:22} {ours / ops * 1e6:9.3f} us "
            f"{theirs / ops * 1e6:8.3f} us {ours / theirs:6.2f}"
        )
    print("    target: ratio <= 2")


# --- (c) peak memory --------------------------------------------------------------

_CHAIN = [
    "grad.mul {p}, %half",
    "grad.sin {p}",
    "grad.add {p}, {q}",
    "grad.max {p}, %low",
    "grad.neg {p}",
]


def memory_chain(ops: int, shape: tuple[int, ...]) -> str:
    """`ops` elementwise ops, each on the op before, the add also on the value
    three ops back (so that some values live past the next op)."""
    type = f"tensor<{'x'.join(map(str, shape))}xf32>"
    lines = [
        f"func.func @main(%v0: {type}) -> {type} {{",
        f"  %half = grad.const 0.5 : {type}",
        f"  %low = grad.const -0.25 : {type}",
    ]
    for i in range(1, ops + 1):
        line = _CHAIN[i % len(_CHAIN)].format(p=f"%v{i - 1}", q=f"%v{max(i - 3, 0)}")
        lines.append(f"  %v{i} = {line} : {type}")
    lines += [f"  func.return %v{ops} : {type}", "}"]
    return "\n".join(lines)


def memory_numpy(ops: int) -> Callable[[np.ndarray], np.ndarray]:
    """The chain as one writes it in NumPy: scalar constants, and no value kept
    longer than needed."""
    half, low = np.float32(0.5), np.float32(-0.25)

    def chain(x: np.ndarray) -> np.ndarray:
        value = saved = x
        for i in range(1, ops + 1):
            kind = i % len(_CHAIN)
            if kind == 0:
                value = np.multiply(value, half)
            elif kind == 1:
                value = np.sin(value)
            elif kind == 2:
                value = np.add(value, saved)
            elif kind == 3:
                value = np.maximum(value, low)
            else:
                value = saved = np.negative(value)
        return value

    return chain


def peak(run: Callable[[], object]) -> int:
    """Bytes that `run` allocates at most at one time beyond what was live
    before it (tracemalloc sees NumPy's array buffers)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        result = run()
        del result
        return tracemalloc.get_traced_memory()[1] - base
    finally:
        tracemalloc.stop()


def bench_memory(repeats: int, ops: int = 200, size: int = 1024) -> None:
    shape = (size, size)
    program = Program(memory_chain(ops, shape))
    program.interpreter.prepare("main")
    x = np.random.default_rng(1).standard_normal(shape, np.float32)
    numpy_chain = memory_numpy(ops)
    assert program.run(args=[x]).results[0].tobytes() == numpy_chain(x).tobytes()
    runs = {
        "numpy": lambda: numpy_chain(x),
        "Program.run": lambda: program.run(args=[x]),
        "plan only": lambda: program.interpreter.call("main", [x]),
    }
    peaks = {name: [peak(run) for _ in range(repeats)] for name, run in runs.items()}
    medians = side_by_side(runs, repeats)
    array = x.nbytes
    print(f"(c) {ops} elementwise ops on {size}x{size} f32 ({array >> 20} MiB a value)")
    print(f"    {'':12} {'peak MiB':>9} {'arrays':>7} {'ratio':>6} {'ms/run':>8}")
    numpy_peak = statistics.median(peaks["numpy"])
    for name, values in peaks.items():
        value = statistics.median(values)
        print(
            f"    {name:12} {value / 2**20:9.1f} {value / array:7.2f} "
            f"{value / numpy_peak:6.2f} {medians[name].seconds * 1e3:8.1f}"
        )
    print("    target: Program.run / numpy <= 1.5 (peak beyond the input)")


# --- machine ---------------------------------------------------------------------


def describe_machine() -> None:
    cpu = "?"
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    from importlib.metadata import version

    import xdsl  # noqa: F401

    print(
        f"python {platform.python_version()}, numpy {np.__version__}, "
        f"xdsl {version('xdsl')}, {os.cpu_count()} cpus ({cpu})"
    )
    print(
        f"OPENBLAS_CORETYPE={os.environ.get('OPENBLAS_CORETYPE', '(unset)')} "
        f"OPENBLAS_L2_SIZE={os.environ.get('OPENBLAS_L2_SIZE', '(unset)')}",
        end="",
    )
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        print(" (install threadpoolctl to see the BLAS kernel)")
        return
    for pool in threadpool_info():
        if pool.get("user_api") == "blas":
            print(
                f"; BLAS {pool['internal_api']} {pool['version']}, "
                f"{pool['num_threads']} threads, kernel {pool['architecture']}",
                end="",
            )
    print()
    print(f"load average: {' '.join(f'{v:.2f}' for v in os.getloadavg())}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=41)
    parser.add_argument("--only", default="mlp,loop,scalar,memory")
    parser.add_argument("--loop-side", nargs=2, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.loop_side is not None:
        loop_side(options.loop_side[0], int(options.loop_side[1]))
        return
    parts = options.only.split(",")
    describe_machine()
    if "mlp" in parts:
        bench_mlp(options.repeats)
    if "loop" in parts:
        bench_loop(max(3, options.repeats // 8))
    if "scalar" in parts:
        bench_scalar(options.repeats)
    if "memory" in parts:
        bench_memory(max(3, options.repeats // 4))


if __name__ == "__main__":
    main()
