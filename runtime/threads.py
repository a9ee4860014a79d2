"""How many threads NumPy's BLAS runs a program with on the interpreter.

OpenBLAS splits every matrix product between as many threads as the machine
has cores, and its threads spin while they wait for each other. On a machine
where another process holds a core, that costs far more than it gains for
the products of moderate size that gradopt's programs are made of: measured
with `bench/blas_threads.py` on 2 cores with one of them held (bench/
RESULTS.md), the large CNN step took 4x and the attention step 11x as long
with OpenBLAS's two threads as with one. So a run whose largest product has
fewer than `ONE_THREAD_BELOW` multiply-adds runs BLAS on one thread (the
process-wide limit of `gradopt.support.determinism`, lifted when the last
such run ends); a program with a larger product keeps OpenBLAS's threads,
and one with no product is left alone. Runs on one thread give the bits of
`deterministic=True`.
"""

from __future__ import annotations

import math
from contextlib import AbstractContextManager, nullcontext

from xdsl.dialects.builtin import ModuleOp

from gradopt.dialect.ops import DotOp
from gradopt.dialect.types import tensor_type
from gradopt.support.determinism import one_blas_thread_if_possible

ONE_THREAD_BELOW = 1 << 26
"""Multiply-adds (67 million) from which a product keeps BLAS's own threads:
above the largest product of the CNN step (8192x144 @ 144x32 and its
transposes, 38 million) and below the large MLP step's 256x784 @ 784x512
(103 million), which two threads speed up on an idle machine."""


def largest_product(module: ModuleOp) -> int:
    """The multiply-adds of `module`'s largest `grad.dot` (0 if it has none)."""
    largest = 0
    for op in module.walk():
        if isinstance(op, DotOp):
            *batch, m, k = tensor_type(op.lhs).get_shape()
            n = tensor_type(op.rhs).get_shape()[-1]
            largest = max(largest, math.prod(batch) * m * k * n)
    return largest


def blas_threads_for(largest: int) -> AbstractContextManager[None]:
    """The BLAS threads for a run whose largest product is of `largest`
    multiply-adds (see the module's docstring)."""
    if 0 < largest < ONE_THREAD_BELOW:
        return one_blas_thread_if_possible()
    return nullcontext()
