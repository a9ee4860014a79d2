# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""A tanh RNN of N steps, 16 wide, written in IR as one `scf.for` (issue 22):
the gradient of the final state's squared norm with respect to the initial
state, the weights and the inputs, by `grad.gradient ... control_flow` (a
recording loop and a reverse loop, SPEC §11), run by the NumPy interpreter.
Prints the preparation time (parse, verify, expand, plan, first run), the
steady-state time of a call (median of 5), per iteration, beside the forward
loop alone and a hand-written NumPy loop of the same forward steps.

    python bench/loop_rnn.py [N]
"""

from __future__ import annotations

import sys
import time

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


def program(n: int, gradient: bool) -> str:
    w = WIDTH
    results = (
        f"tensor<1x{w}xf32>, tensor<{n}x{w}xf32>, tensor<{w}x{w}xf32>"
        if gradient
        else f"tensor<1x{w}xf32>"
    )
    tail = (GRADIENT_TAIL if gradient else FORWARD_TAIL).format(n=n, w=w)
    return PROGRAM.format(n=n, w=w, results=results, tail=tail)


def median_seconds(call: object, rounds: int = 5) -> float:
    assert callable(call)
    times = []
    for _ in range(rounds):
        started = time.perf_counter()
        call()
        times.append(time.perf_counter() - started)
    return float(np.median(times))


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 1000
    rng = np.random.default_rng(0)
    h0 = rng.uniform(-1, 1, (1, WIDTH)).astype(np.float32)
    xs = rng.uniform(-1, 1, (n, WIDTH)).astype(np.float32)
    w = (rng.uniform(-1, 1, (WIDTH, WIDTH)) / 4).astype(np.float32)
    args = [h0, xs, w]

    def numpy_forward() -> np.ndarray:
        h = h0
        for k in range(n):
            h = np.tanh(h @ w + xs[k : k + 1])
        return h

    print(f"tanh RNN, {n} steps, {WIDTH} wide")
    for name, gradient in (("forward", False), ("gradient", True)):
        started = time.perf_counter()
        prepared = Program(program(n, gradient))
        prepared.run(args=args)
        preparation = time.perf_counter() - started
        steady = median_seconds(lambda p=prepared: p.run(args=args))
        print(
            f"{name:9} preparation {preparation:6.3f} s   call {steady * 1e3:8.2f} ms"
            f"   per iteration {steady / n * 1e6:6.1f} us"
        )
    hand = median_seconds(numpy_forward)
    print(
        f"{'NumPy':9} forward loop by hand     call {hand * 1e3:8.2f} ms"
        f"   per iteration {hand / n * 1e6:6.1f} us"
    )


if __name__ == "__main__":
    main()
