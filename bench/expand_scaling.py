"""Time parse, `expand-gradient` and print on 1k, 10k and 100k-op graphs.

Usage: python bench/expand_scaling.py [--sizes 1000,10000,100000] [--repeats 3]

The loss is a chain cycling through mul, add, max, sin, neg and broadcast/reduce
over tensor<4xf32>, so every rule kind is on the path. Reported: medians of the
repeats (seconds), the pass's time relative to parsing (target <= 1.0) and the
time per op, whose flatness across sizes shows the pass is linear.
"""

from __future__ import annotations

import argparse
import statistics
import time
from io import StringIO

from xdsl.printer import Printer

from gradopt.dialect.context import make_context
from gradopt.passes import ExpandGradientPass
from gradopt.support.diagnostics import parse_module

_STEPS = [
    "%v{i} = grad.mul %v{p}, %x : tensor<4xf32>",
    "%v{i} = grad.add %v{p}, %w : tensor<4xf32>",
    "%v{i} = grad.max %v{p}, %w : tensor<4xf32>",
    "%v{i} = grad.sin %v{p} : tensor<4xf32>",
    "%v{i} = grad.neg %v{p} : tensor<4xf32>",
]


def program(ops: int) -> str:
    lines = [
        "func.func @main(%x: tensor<4xf32>, %w: tensor<4xf32>) -> tensor<4xf32> {",
        "  %v0 = grad.mul %x, %w : tensor<4xf32>",
    ]
    for i in range(1, ops - 2):
        lines.append("  " + _STEPS[i % len(_STEPS)].format(i=i, p=i - 1))
    lines += [
        f"  %l = grad.reduce add %v{ops - 3} [0] : tensor<4xf32> to tensor<f32>",
        "  %g = grad.gradient %l wrt %x : tensor<f32>, tensor<4xf32>",
        "  func.return %g : tensor<4xf32>",
        "}",
    ]
    return "\n".join(lines)


def measure(text: str) -> tuple[float, float, float, int]:
    ctx = make_context()
    start = time.perf_counter()
    module = parse_module(ctx, text, "bench.mlir")
    parsed = time.perf_counter()
    ExpandGradientPass().apply(ctx, module)
    expanded = time.perf_counter()
    Printer(stream=StringIO()).print_op(module)
    printed = time.perf_counter()
    size = sum(1 for _ in module.walk())
    return parsed - start, expanded - parsed, printed - expanded, size


def main() -> None:
    arguments = argparse.ArgumentParser(description=__doc__)
    arguments.add_argument("--sizes", default="1000,10000,100000")
    arguments.add_argument("--repeats", type=int, default=3)
    args = arguments.parse_args()
    print(
        f"{'ops':>8} {'parse s':>9} {'expand s':>9} {'print s':>9} "
        f"{'expand/parse':>13} {'expand us/op':>13} {'ops after':>10}"
    )
    for ops in (int(s) for s in args.sizes.split(",")):
        text = program(ops)
        runs = [measure(text) for _ in range(args.repeats)]
        parse, expand, emit = (statistics.median(r[k] for r in runs) for k in range(3))
        print(
            f"{ops:>8} {parse:>9.3f} {expand:>9.3f} {emit:>9.3f} "
            f"{expand / parse:>13.2f} {expand / ops * 1e6:>13.1f} {runs[0][3]:>10}"
        )


if __name__ == "__main__":
    main()
