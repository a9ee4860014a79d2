"""What `deterministic=True` (`GRADOPT_DETERMINISTIC=1`) costs, and that it
makes `dot`'s bits independent of the BLAS thread count (issue 16, item 11).

Usage: python bench/determinism.py [--repeats 31]

Parts, each run in a subprocess per thread count (OPENBLAS_NUM_THREADS=1 and
2, the machine's count), so that OpenBLAS starts with the count asked:

- bits: SHA-256 of the results of a 256x784 @ 784x512 and a 300x2000 @
  2000x3 `grad.dot`, and of the updated weights of the MLP step, with the
  switch off and on; with it on, both thread counts must print the same.
- time: medians of `Program.run` of the MLP training step of
  `bench/interpreter_speed.py` (batch 256, 784 -> 512 -> 10) with the switch
  off and on, alternating, in blocks of 8 calls.

Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys

import numpy as np
from interpreter_speed import mlp_data, mlp_program, side_by_side

from gradopt import Program
from gradopt.support import determinism

DOT = """func.func @main(%a: tensor<{m}x{k}xf32>, %b: tensor<{k}x{n}xf32>)
    -> tensor<{m}x{n}xf32> {{
  %c = grad.dot %a, %b : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32> to tensor<{m}x{n}xf32>
  func.return %c : tensor<{m}x{n}xf32>
}}
"""


def digest(arrays: list[np.ndarray]) -> str:
    return hashlib.sha256(b"".join(a.tobytes() for a in arrays)).hexdigest()[:16]


def child(repeats: int) -> None:
    """One thread count: the bits of every case, and the MLP step's times."""
    rng = np.random.default_rng(0)
    report: dict[str, object] = {"threads": determinism.blas_threads()}
    for m, k, n in [(256, 784, 512), (300, 2000, 3)]:
        program = Program(DOT.format(m=m, k=k, n=n))
        a = rng.standard_normal((m, k)).astype(np.float32)
        b = rng.standard_normal((k, n)).astype(np.float32)
        for mode in (False, True):
            result = program.run(args=[a, b], deterministic=mode)
            report[f"dot {m}x{k}x{n} {'on' if mode else 'off'}"] = digest(
                result.results
            )
    shapes = (256, 784, 512, 10)
    program = Program(mlp_program(*shapes))
    data = mlp_data(*shapes)
    for mode in (False, True):
        result = program.run(slots=data, deterministic=mode)
        report[f"mlp {'on' if mode else 'off'}"] = digest(result.results + result.slots)
    timings = side_by_side(
        {
            "off": lambda: program.run(slots=data, deterministic=False),
            "on": lambda: program.run(slots=data, deterministic=True),
        },
        repeats,
        block=8,
    )
    report["ms off"] = timings["off"].seconds * 1e3
    report["ms on"] = timings["on"].seconds * 1e3
    print(json.dumps(report))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeats", type=int, default=31)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        child(args.repeats)
        return
    reports = []
    for threads in (1, 2):
        env = {**os.environ, "OPENBLAS_NUM_THREADS": str(threads)}
        env.pop(determinism.VARIABLE, None)
        output = subprocess.run(
            [sys.executable, __file__, "--child", "--repeats", str(args.repeats)],
            env=env,
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        reports.append(json.loads(output))
    keys = [k for k in reports[0] if k not in ("threads", "ms off", "ms on")]
    print(f"{'case':<28} {'1 thread':>18} {'2 threads':>18}  same")
    for key in keys:
        one, two = reports[0][key], reports[1][key]
        print(f"{key:<28} {one:>18} {two:>18}  {'yes' if one == two else 'NO'}")
    print()
    print(f"{'MLP step, Program.run':<28} {'off ms':>8} {'on ms':>8} {'on/off':>7}")
    for threads, report in zip((1, 2), reports, strict=True):
        off, on = report["ms off"], report["ms on"]
        print(
            f"{f'OPENBLAS_NUM_THREADS={threads}':<28} {off:>8.2f} {on:>8.2f} "
            f"{on / off:>7.2f}"
        )


if __name__ == "__main__":
    main()
