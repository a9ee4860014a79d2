# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""A tanh RNN of N steps, 16 wide, written in IR as one `scf.for` (issue 22):
the gradient of the final state's squared norm with respect to the initial
state, the weights and the inputs, by `grad.gradient ... control_flow` (a
recording loop and a reverse loop, SPEC §11), run by the NumPy interpreter.
Prints the preparation time (parse, verify, expand, plan, first run) and the
steady-state time of a call (median of the rounds, every program and loop
timed in turn in each round), per iteration, beside hand-written NumPy loops
of the same steps: the forward loop, and the forward loop keeping its states
followed by the backward loop (the floor: no recomputation, no cache
copies). The interpreter's overhead per iteration is its time less NumPy's,
over N. With `--cpu`, the times are the process's CPU time rather than the
wall clock: on a loaded machine, what the wall clock of an idle one shows
(NumPy's calls run on this thread; a 16-wide matmul starts no BLAS thread).

With `--iree`, it shows instead that IREE keeps the expanded loops as loops:
the gradient compiled for 100 steps and for N has as many dispatch sites and
conditional branches in its stream IR (needs the `iree` extra).

    python bench/loop_rnn.py [N] [ROUNDS] [--cpu | --iree]
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from gradopt import Program

WIDTH = 16

PROGRAM = """
func.func @main(%h0: tensor<1x{w}xf32>, %xs: tensor<{n}x{w}xf32>, %w: tensor<{w}x{w}xf32>) -> ({results}) {{
  %lo = arith.constant 0 : index
  %hi = arith.constant {n} : index
  %one = arith.constant 1 : index
  %h = scf.for %i = %lo to %hi step %one iter_args(%c = %h0) -> (tensor<1x{w}xf32>) {{
    %x = tensor.extract_slice %xs[%i, 0] [1, {w}] [1, 1] : tensor<{n}x{w}xf32> to tensor<1x{w}xf32>
    %wc = grad.dot %c, %w : tensor<1x{w}xf32>, tensor<{w}x{w}xf32> to tensor<1x{w}xf32>
    %s = grad.add %wc, %x : tensor<1x{w}xf32>
    %t = math.tanh %s : tensor<1x{w}xf32>
    scf.yield %t : tensor<1x{w}xf32>
  }}
  {tail}
}}
"""

FORWARD_TAIL = "func.return %h : tensor<1x{w}xf32>"
GRADIENT_TAIL = """%sq = grad.mul %h, %h : tensor<1x{w}xf32>
  %l = grad.reduce add %sq [0, 1] : tensor<1x{w}xf32> to tensor<f32>
  %g0, %gx, %gw = grad.gradient %l wrt %h0, %xs, %w control_flow : tensor<f32>, tensor<1x{w}xf32>, tensor<{n}x{w}xf32>, tensor<{w}x{w}xf32>
  func.return %g0, %gx, %gw : tensor<1x{w}xf32>, tensor<{n}x{w}xf32>, tensor<{w}x{w}xf32>"""
STATE_TAIL = """%sq = grad.mul %h, %h : tensor<1x{w}xf32>
  %l = grad.reduce add %sq [0, 1] : tensor<1x{w}xf32> to tensor<f32>
  %g0, %gw = grad.gradient %l wrt %h0, %w control_flow : tensor<f32>, tensor<1x{w}xf32>, tensor<{w}x{w}xf32>
  func.return %g0, %gw : tensor<1x{w}xf32>, tensor<{w}x{w}xf32>"""

PROGRAMS = {
    "forward": (FORWARD_TAIL, "tensor<1x{w}xf32>"),
    "gradient": (
        GRADIENT_TAIL,
        "tensor<1x{w}xf32>, tensor<{n}x{w}xf32>, tensor<{w}x{w}xf32>",
    ),
    "gradient (state, weights)": (STATE_TAIL, "tensor<1x{w}xf32>, tensor<{w}x{w}xf32>"),
}
"""The forward loop; its gradient with respect to the initial state, the
inputs and the weights; and without the inputs (whose share, one row an
iteration, is added onto an N-row running sum: O(N) an iteration)."""


def program(n: int, kind: str) -> str:
    tail, results = PROGRAMS[kind]
    w = WIDTH
    return PROGRAM.format(
        n=n, w=w, results=results.format(n=n, w=w), tail=tail.format(n=n, w=w)
    )


def seconds(call: Callable[[], object], clock: Callable[[], float]) -> float:
    started = clock()
    call()
    return clock() - started


def numpy_loops(
    h0: np.ndarray, xs: np.ndarray, w: np.ndarray
) -> tuple[Callable[[], np.ndarray], Callable[[], list[np.ndarray]]]:
    """The forward loop and the gradient (forward keeping the states, then
    backward) written by hand in float32 NumPy."""

    def forward() -> np.ndarray:
        h = h0
        for k in range(len(xs)):
            h = np.tanh(h @ w + xs[k : k + 1])
        return h

    def gradient() -> list[np.ndarray]:
        hs = [h0]
        for k in range(len(xs)):
            hs.append(np.tanh(hs[-1] @ w + xs[k : k + 1]))
        g = hs[-1] + hs[-1]
        gx, gw, wt = np.zeros_like(xs), np.zeros_like(w), w.T
        for k in reversed(range(len(xs))):
            gs = g * (1 - hs[k + 1] * hs[k + 1])
            gx[k] = gs[0]
            gw += hs[k].T @ gs
            g = gs @ wt
        return [g, gx, gw]

    return forward, gradient


def iree_structure(n: int) -> None:
    from iree.compiler import compile_str

    from gradopt.runtime import iree

    for steps in (100, n):
        text = iree.lower(Program(program(steps, "gradient")).module)
        flags = list(iree.compile_flags(text))
        vmfb = compile_str(text, extra_args=flags)
        stream = compile_str(text, extra_args=[*flags, "--compile-to=stream"])
        main = stream.decode().split("util.func public @main", 1)[1]
        print(
            f"gradient of {steps:5} steps: {main.count('stream.cmd.dispatch')} "
            f"dispatch sites, {main.count('cf.cond_br')} conditional branches in "
            f"@main, {len(vmfb)} bytes of vmfb"
        )


def main() -> None:
    numbers = [a for a in sys.argv[1:] if not a.startswith("--")]
    n = int(numbers[0]) if numbers else 1000
    rounds = int(numbers[1]) if len(numbers) > 1 else 7
    clock = time.process_time if "--cpu" in sys.argv else time.perf_counter
    if "--iree" in sys.argv:
        iree_structure(n)
        return
    rng = np.random.default_rng(0)
    h0 = rng.uniform(-1, 1, (1, WIDTH)).astype(np.float32)
    xs = rng.uniform(-1, 1, (n, WIDTH)).astype(np.float32)
    w = (rng.uniform(-1, 1, (WIDTH, WIDTH)) / 4).astype(np.float32)
    args = [h0, xs, w]
    forward, gradient = numpy_loops(h0, xs, w)

    print(
        f"tanh RNN, {n} steps, {WIDTH} wide, median of {rounds} rounds, "
        f"{'CPU' if clock is time.process_time else 'wall'} time"
    )
    calls: dict[str, Callable[[], object]] = {}
    for name in PROGRAMS:
        started = time.perf_counter()
        prepared = Program(program(n, name))
        found = prepared.run(args=args).results
        print(f"{name:25} preparation {time.perf_counter() - started:6.3f} s")
        calls[name] = lambda p=prepared: p.run(args=args)
        if name == "gradient":
            for value, by_hand in zip(found, gradient(), strict=True):
                np.testing.assert_allclose(value, by_hand, rtol=1e-4, atol=1e-5)
    calls["NumPy forward"], calls["NumPy gradient"] = forward, gradient
    times: dict[str, list[float]] = {name: [] for name in calls}
    for _ in range(rounds):
        for name, call in calls.items():
            times[name].append(seconds(call, clock))
    median = {name: float(np.median(values)) for name, values in times.items()}
    for name, value in median.items():
        print(
            f"{name:25} call {value * 1e3:8.2f} ms   per iteration "
            f"{value / n * 1e6:6.1f} us"
        )
    for name in PROGRAMS:
        floor = median["NumPy forward" if name == "forward" else "NumPy gradient"]
        print(
            f"{name:25} overhead per iteration "
            f"{(median[name] - floor) / n * 1e6:6.1f} us   ratio to NumPy "
            f"{median[name] / floor:5.2f}"
        )


if __name__ == "__main__":
    main()
