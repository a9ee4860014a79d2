"""Per-op cost of the interpreter against a plain Python loop of NumPy calls.

Runs a chain of N scalar `grad.add`s (`tensor<f32>`) and the loop
`x = np.add(x, one)` N times, and prints the time per op of each and their
ratio: what the interpreter adds on top of the NumPy call itself.

    python bench/interpreter_overhead.py [N]

Recorded on the 2-core development machine (Python 3.11, NumPy 2.4), N = 10000,
best of 20 runs, three invocations:

    interpreter: 0.460 to 0.475 us/op
    plain loop:  0.338 to 0.341 us/op
    ratio:       1.36 to 1.39
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable

import numpy as np

from gradopt import Program


def chain(n: int) -> str:
    lines = [
        "func.func @main(%x0: tensor<f32>) -> tensor<f32> {",
        "  %one = grad.const 1.0 : tensor<f32>",
    ]
    lines += [f"  %x{i + 1} = grad.add %x{i}, %one : tensor<f32>" for i in range(n)]
    lines += [f"  func.return %x{n} : tensor<f32>", "}"]
    return "\n".join(lines)


def best(run: Callable[[], object], repeats: int = 20) -> float:
    """The fastest of `repeats` runs, in seconds: the least disturbed one."""
    times = []
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    n = int(sys.argv[1]) if len(sys.argv) > 1 else 10_000
    program = Program(chain(n))
    zero = np.zeros((), np.float32)
    one = np.ones((), np.float32)

    def plain() -> object:
        x = zero
        for _ in range(n):
            x = np.add(x, one)
        return x

    assert program.interpreter.call("main", [zero])[0] == plain() == n
    interpreted = best(lambda: program.interpreter.call("main", [zero]))
    looped = best(plain)
    print(f"{n} scalar adds")
    print(f"interpreter: {interpreted / n * 1e6:.3f} us/op")
    print(f"plain loop:  {looped / n * 1e6:.3f} us/op")
    print(f"ratio:       {interpreted / looped:.2f}")


if __name__ == "__main__":
    main()
