"""The CNN and attention steps of `bench/models.py` (large sizes) through the
interpreter with gradopt's default BLAS threads (`gradopt.runtime.threads`),
with OpenBLAS's own (as before that choice) and with one BLAS thread, while
another process holds one core (issue 25, item 5).

`--hog` (the default) starts a process that spins on one core for the whole
measurement, as another user's job would; the sides alternate call by call,
medians of `--rounds` calls; also printed, per entry, the matrix products
that the plan runs (m x k @ k x n), which a per-size thread choice would go by.

    python bench/blas_threads.py [--rounds 30] [--no-hog]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from collections.abc import Callable
from contextlib import nullcontext
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from models import (
    ATTENTION_SIZES,
    CONV2D_SIZES,
    attention_data,
    attention_program,
    conv2d_data,
    conv2d_program,
)
from small_step import interleaved

from gradopt import Program
from gradopt.dialect.ops import DotOp
from gradopt.dialect.types import tensor_type
from gradopt.runtime import program as program_module
from gradopt.support.determinism import blas_threads, single_threaded_blas


def products(program: Program) -> list[str]:
    """The shapes of the program's `grad.dot` ops, once each."""
    shapes = []
    for op in program.module.walk():
        if isinstance(op, DotOp):
            a, b = (tensor_type(v).get_shape() for v in op.operands)
            shapes.append(f"{'x'.join(map(str, a))} @ {'x'.join(map(str, b))}")
    return sorted(set(shapes))


def one_thread(run: Callable[[], object]) -> Callable[[], object]:
    def call() -> object:
        with single_threaded_blas():
            return run()

    return call


def openblas_threads(run: Callable[[], object]) -> Callable[[], object]:
    """`run` with gradopt's choice of threads turned off."""
    chosen = program_module.blas_threads_for

    def call() -> object:
        program_module.blas_threads_for = lambda largest: nullcontext()
        try:
            return run()
        finally:
            program_module.blas_threads_for = chosen

    return call


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--rounds", type=int, default=30)
    arguments.add_argument("--no-hog", action="store_true")
    args = arguments.parse_args()
    steps = {
        "conv2d": (conv2d_program(**CONV2D_SIZES["large"]), conv2d_data),
        "attention": (attention_program(**ATTENTION_SIZES["large"]), attention_data),
    }
    hog = None
    if not args.no_hog:
        hog = subprocess.Popen([sys.executable, "-c", "while True: pass"])
    try:
        print(f"OpenBLAS threads: {blas_threads()}; load {os.getloadavg()[0]:.1f}")
        for name, (text, make_data) in steps.items():
            program = Program(text)
            sizes = CONV2D_SIZES if name == "conv2d" else ATTENTION_SIZES
            data = make_data(**sizes["large"])
            default = lambda p=program, d=data: p.run(args=d)  # noqa: E731
            sides = {
                "gradopt default": default,
                "openblas threads": openblas_threads(default),
                "1 thread": one_thread(default),
            }
            medians = interleaved(sides, args.rounds)
            one = medians["1 thread"]
            print(f"{name}:")
            for side, took in medians.items():
                print(f"    {side:17} {took * 1e3:8.2f} ms {took / one:6.2f}")
            print(f"    products: {', '.join(products(program))}")
        print(f"load after: {os.getloadavg()[0]:.1f}")
    finally:
        if hog is not None:
            hog.kill()
            hog.wait()


if __name__ == "__main__":
    main()
