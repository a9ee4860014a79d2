# ruff: noqa: E501 (MLIR text: one op a line, as MLIR prints it)
"""Speed of `linalg.generic` in the interpreter against hand-written NumPy
(SPEC §10.4: a generic of 10^6 elements within 3x of the NumPy expression).

Usage: python bench/linalg_interp.py [--repeats N] [--size N]

Three generics over a 1000x1000 f32 tensor (10^6 elements), each run through
the prepared plan (`Interpreter.call`, what `Program.run` calls after
checking and copying its inputs) and through `Program.run`, against the
NumPy expression a person would write for the same computation:

- chain: an elementwise body of five ops, `tanh(a * b + c) * 0.5 + a`, over
  three inputs, against `np.tanh(a * b + c) * np.float32(0.5) + a`;
- sum of squares: a reduction over the inner loop of `x * x` (the body's
  `e` computed on the whole iteration space, then one `np.add.reduce`),
  against `np.add.reduce(x * x, 1)`;
- row max: `maximumf` over the outer loop through a transposing map, the
  input reduced as it is, against `np.fmax.reduce(x, 0)` (`maxnumf` is NumPy's `fmax`).

Both sides alternate in one process (a disturbance hits both alike); the
medians and their ratio are printed, with the results compared bit for bit
where the two compute the same thing in the same order (the chain and the
max). Results: bench/RESULTS.md.
"""

from __future__ import annotations

import argparse
import platform
import statistics
import time
from collections.abc import Callable

import numpy as np

from gradopt import Program

_MAP = "affine_map<(d0, d1) -> (d0, d1)>"

CHAIN = f"""func.func @main(%a: tensor<NxNxf32>, %b: tensor<NxNxf32>, %c: tensor<NxNxf32>) -> tensor<NxNxf32> {{
  %half = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<NxNxf32>
  %r = linalg.generic {{indexing_maps = [{_MAP}, {_MAP}, {_MAP}, {_MAP}], iterator_types = ["parallel", "parallel"]}} ins(%a, %b, %c : tensor<NxNxf32>, tensor<NxNxf32>, tensor<NxNxf32>) outs(%e : tensor<NxNxf32>) {{
  ^bb0(%x: f32, %y: f32, %z: f32, %o: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %p, %z : f32
    %t = math.tanh %s : f32
    %h = arith.mulf %t, %half : f32
    %r = arith.addf %h, %x : f32
    linalg.yield %r : f32
  }} -> tensor<NxNxf32>
  func.return %r : tensor<NxNxf32>
}}"""

SQUARES = f"""func.func @main(%x: tensor<NxNxf32>) -> tensor<Nxf32> {{
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<Nxf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<Nxf32>) -> tensor<Nxf32>
  %r = linalg.generic {{indexing_maps = [{_MAP}, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]}} ins(%x : tensor<NxNxf32>) outs(%init : tensor<Nxf32>) {{
  ^bb0(%v: f32, %acc: f32):
    %q = arith.mulf %v, %v : f32
    %s = arith.addf %acc, %q : f32
    linalg.yield %s : f32
  }} -> tensor<Nxf32>
  func.return %r : tensor<Nxf32>
}}"""

COLUMN_MAX = """func.func @main(%x: tensor<NxNxf32>) -> tensor<Nxf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %e = tensor.empty() : tensor<Nxf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<Nxf32>) -> tensor<Nxf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1, d0)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<NxNxf32>) outs(%init : tensor<Nxf32>) {
  ^bb0(%v: f32, %acc: f32):
    %m = arith.maxnumf %acc, %v : f32
    linalg.yield %m : f32
  } -> tensor<Nxf32>
  func.return %r : tensor<Nxf32>
}"""


def timed(function: Callable[[], object]) -> float:
    start = time.perf_counter()
    function()
    return time.perf_counter() - start


def compare(
    name: str,
    text: str,
    inputs: list[np.ndarray],
    numpy: Callable[[], np.ndarray],
    repeats: int,
    same_bits: bool,
) -> None:
    program = Program(text, name)
    plan = program.interpreter
    interpreted = lambda: plan.call("main", inputs)  # noqa: E731
    through_run = lambda: program.run(args=inputs)  # noqa: E731
    found = np.asarray(interpreted()[0])
    expected = numpy()
    if same_bits:
        assert np.array_equal(found.view(np.uint32), expected.view(np.uint32)), name
    else:
        np.testing.assert_allclose(found, expected, rtol=1e-5)
    times: dict[str, list[float]] = {"plan": [], "run": [], "numpy": []}
    for _ in range(repeats):
        times["numpy"].append(timed(numpy))
        times["plan"].append(timed(interpreted))
        times["run"].append(timed(through_run))
    median = {side: statistics.median(values) for side, values in times.items()}
    print(
        f"| {name} | {median['numpy'] * 1e3:.2f} | {median['plan'] * 1e3:.2f} | "
        f"{median['plan'] / median['numpy']:.2f} | {median['run'] * 1e3:.2f} | "
        f"{median['run'] / median['numpy']:.2f} |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=21)
    parser.add_argument("--size", type=int, default=1000, help="N of the NxN inputs")
    options = parser.parse_args()
    n = options.size
    rng = np.random.default_rng(0)
    a, b, c = (rng.standard_normal((n, n)).astype(np.float32) for _ in range(3))
    half = np.float32(0.5)
    print(f"{platform.processor() or platform.machine()}, NumPy {np.__version__}")
    print(f"{n}x{n} f32, median of {options.repeats} runs (ms); ratio to NumPy\n")
    print("| generic | NumPy | plan | ratio | Program.run | ratio |")
    print("|---|---:|---:|---:|---:|---:|")

    def sized(text: str) -> str:
        return text.replace("NxN", f"{n}x{n}").replace("<Nx", f"<{n}x")

    compare(
        "chain of 5 elementwise ops",
        sized(CHAIN),
        [a, b, c],
        lambda: np.tanh(a * b + c) * half + a,
        options.repeats,
        same_bits=True,
    )
    compare(
        "sum of squares (reduction)",
        sized(SQUARES),
        [a],
        lambda: np.add.reduce(a * a, 1),
        options.repeats,
        same_bits=True,
    )
    compare(
        "max through a transposing map",
        sized(COLUMN_MAX),
        [a],
        lambda: np.fmax.reduce(a, 0),
        options.repeats,
        same_bits=True,
    )


if __name__ == "__main__":
    main()
