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
`deterministic=True`. OpenBLAS itself computes small products on the calling
thread; a program whose products are all that small (`openblas_splits`)
runs without the limit, which would change nothing.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import AbstractContextManager, nullcontext

from xdsl.dialects import arith
from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Operation

from gradopt.dialect.ops import DotOp
from gradopt.dialect.types import tensor_type
from gradopt.support.determinism import one_blas_thread_if_possible

ONE_THREAD_BELOW = 1 << 26
"""Multiply-adds (67 million) from which a product keeps BLAS's own threads:
above the largest product of the CNN step (8192x144 @ 144x32 and its
transposes, 38 million) and below the large MLP step's 256x784 @ 784x512
(103 million), which two threads speed up on an idle machine."""


def products(module: ModuleOp) -> Iterator[tuple[Operation, int | None]]:
    """Each of `module`'s products with its multiply-adds (None where its
    shape is not known): a `grad.dot`, or a `linalg` op that multiplies and
    reduces (a matmul, a convolution, a contraction generic), its iteration
    space."""
    for op in module.walk():
        if isinstance(op, DotOp):
            *batch, m, k = tensor_type(op.lhs).get_shape()
            n = tensor_type(op.rhs).get_shape()[-1]
            yield op, math.prod(batch) * m * k * n
        elif isinstance(op, LinalgStructuredOperation) and _multiplies(op):
            try:
                yield op, math.prod(op.get_static_loop_ranges())
            except (NotImplementedError, ValueError, IndexError):
                yield op, None  # a dynamic shape


def product_sizes(module: ModuleOp) -> Iterator[int]:
    """The multiply-adds of each of `module`'s products whose shape is
    known (`products`)."""
    return (size for _, size in products(module) if size is not None)


def largest_product(module: ModuleOp) -> int:
    """The multiply-adds of `module`'s largest product (0 if it has none)."""
    return max(product_sizes(module), default=0)


def _multiplies(op: LinalgStructuredOperation) -> bool:
    """Whether `op` reduces over a loop and multiplies in its body."""
    return IteratorTypeAttr.reduction() in op.get_iterator_types() and any(
        isinstance(inner, arith.MulfOp) for inner in op.body.walk()
    )


OPENBLAS_ONE_THREAD_PRODUCT = 1 << 18
"""The most multiply-adds of a matrix product (m x k @ k x n, m and n above 1:
`gemm`) that OpenBLAS computes on the calling thread whatever its thread
count: its `gemm` runs on one thread up to 65536 x GEMM_MULTITHREAD_THRESHOLD
(4 unless built otherwise) multiply-adds. Measured with NumPy's OpenBLAS
0.3.31 on 2 threads: 3000 products of 64x64 @ 64x64 gave its worker no CPU
time, 3000 of 64x128 @ 128x64 did."""

OPENBLAS_ONE_THREAD_VECTOR = 9216
"""The most elements of the matrix of a matrix-vector product (m or n 1: NumPy
calls `gemv`, or `dot` for both) that OpenBLAS computes on one thread:
`gemv` splits from 2304 x GEMM_MULTITHREAD_THRESHOLD elements on, `dot` from
10000 (on x86-64)."""


def openblas_splits(module: ModuleOp) -> bool:
    """Whether OpenBLAS may split a product of `module` between its threads: a
    `grad.dot` above the sizes it computes on one thread, or an upstream
    `linalg` op, whose contractions also call it (not counted here)."""
    for op in module.walk():
        if op.name.startswith("linalg."):
            return True
        if isinstance(op, DotOp):
            *_, m, k = tensor_type(op.lhs).get_shape()
            n = tensor_type(op.rhs).get_shape()[-1]
            if m == 1 or n == 1:
                if max(m, n) * k > OPENBLAS_ONE_THREAD_VECTOR:
                    return True
            elif m * k * n > OPENBLAS_ONE_THREAD_PRODUCT:
                return True
    return False


def blas_threads_for(largest: int) -> AbstractContextManager[None]:
    """The BLAS threads for a run whose largest product is of `largest`
    multiply-adds (see the module's docstring)."""
    if 0 < largest < ONE_THREAD_BELOW:
        return one_blas_thread_if_possible()
    return nullcontext()
