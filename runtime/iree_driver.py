"""Which IREE runtime driver runs a program: the calling thread alone
(`local-sync`) for a small program, IREE's worker threads (`local-task`) for
a large one.

Handing a call to `local-task`'s workers and waiting for them costs tens of
microseconds, more than a small program computes in: measured with
`bench/ahead_of_jax.py` on 2 cores (bench/RESULTS.md), the small MLP step
(batch 64, 64 -> 32 -> 10; a largest product of 131 072 multiply-adds) took
0.049-0.055 ms on `local-sync` against 0.064-0.147 ms on `local-task`, while
the large CNN step (38 million) and the large MLP step (103 million) ran
faster on the workers. A program's size is the larger of
its largest product's multiply-adds and its largest value's elements (a
program of elementwise ops only is as large as its largest tensor).
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import ModuleOp, ShapedType

from gradopt.runtime.threads import largest_product

SYNC_BELOW = 1 << 22
"""The size (4 million) from which a program runs on IREE's worker threads:
above the small MLP step's 131 072, below the attention step's 8.4 million
multiply-adds, where the two drivers measured alike."""


def largest_value(module: ModuleOp) -> int:
    """The elements of `module`'s largest value of static shape (0 if it has
    none): op results and block arguments (a function's inputs)."""
    largest = 0
    for op in module.walk():
        arguments = (a for r in op.regions for b in r.blocks for a in b.args)
        for value in (*op.results, *arguments):
            if isinstance(type := value.type, ShapedType):
                shape = type.get_shape()
                if all(d >= 0 for d in shape):
                    largest = max(largest, math.prod(shape))
    return largest


def driver_for(module: ModuleOp) -> str:
    """`local-sync` for a program smaller than `SYNC_BELOW`, else `local-task`."""
    size = max(largest_product(module), largest_value(module))
    return "local-sync" if size < SYNC_BELOW else "local-task"
