"""A gather's gradient in the interpreter: the scatter-add loop nest run as a
loop against one `np.add.at` (issue 21; SPEC §10.2, §10.4).

Usage: python bench/gather_gradient.py [--repeats N]

For a table of R x 64 and N indices (drawn with repeats), the gradient of
`sum(table[idx] * w)` with respect to the table: `jax.jit` of the loss,
IREE's input conversion (`--compile-to=input`: the gather is a
`linalg.generic` reading the table by `tensor.extract`), the gradient
appended by `gradopt.differentiate_module`, and the whole program run by
`Program.run`: with the scatter-add nest run as a loop
(`interpreter.scatter_loop.ENABLED = False`, as before) and as one
`np.add.at`, each bit-compared with `np.add.at(zeros, idx, w)` written by
hand, which the last column times. Needs the `jax` and `iree` extras.
Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

import gradopt
from gradopt import Program
from gradopt.interpreter import scatter_loop

SIZES = [(1000, 512), (10000, 4096)]
WIDTH = 64


def loss(table, idx, w):  # traced by JAX
    import jax.numpy as jnp

    return jnp.sum(table[idx] * w)


def program(args: list[np.ndarray]) -> Program:
    """The loss lowered by JAX and IREE's input conversion, with its gradient
    with respect to the table appended."""
    import jax
    from iree.compiler.tools import compile_str

    stablehlo = jax.jit(loss).lower(*args).as_text()
    output = compile_str(
        stablehlo, input_type="stablehlo", extra_args=["--compile-to=input"]
    )
    text = output.decode() if isinstance(output, bytes) else str(output)
    return Program(gradopt.differentiate_module(text, loss=0, wrt=0))


def median_seconds(run: Callable[[], object], repeats: int) -> float:
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def measure(rows: int, count: int, repeats: int) -> tuple[float, float, float]:
    """The program's run as a loop, with `np.add.at`, and `np.add.at` by hand,
    in seconds (the loop once: it takes minutes)."""
    rng = np.random.default_rng(0)
    table = rng.normal(size=(rows, WIDTH)).astype(np.float32)
    idx = rng.integers(0, rows // 4, count).astype(np.int32)  # many repeats
    w = rng.normal(size=(count, WIDTH)).astype(np.float32)
    args = [table, idx, w]
    expected = np.zeros_like(table)
    np.add.at(expected, idx, w)
    seconds = []
    for enabled in (False, True):
        scatter_loop.ENABLED = enabled
        compiled = program(args)  # planned with the switch as it is now
        _, grad = compiled.run(args=args).results
        assert grad.tobytes() == expected.tobytes(), "not np.add.at's bits"
        seconds.append(
            median_seconds(
                lambda: compiled.run(args=args),  # noqa: B023 (called at once)
                repeats if enabled else 1,
            )
        )

    def by_hand() -> None:
        out = np.zeros_like(table)
        np.add.at(out, idx, w)

    return seconds[0], seconds[1], median_seconds(by_hand, repeats)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=5)
    options = parser.parse_args(argv)
    print(f"numpy {np.__version__}, {platform.processor() or platform.machine()}")
    print(
        f"{'table':>10} {'indices':>8} {'loop s':>9} {'add.at s':>9} "
        f"{'speed-up':>9} {'by hand s':>10}"
    )
    for rows, count in SIZES:
        loop, vectorized, hand = measure(rows, count, options.repeats)
        print(
            f"{f'{rows}x{WIDTH}':>10} {count:>8} {loop:>9.3f} {vectorized:>9.4f} "
            f"{loop / vectorized:>8.0f}x {hand:>10.4f}"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
