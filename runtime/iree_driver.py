"""Which IREE runtime driver runs a program: the calling thread alone
(`local-sync`) for a small program, IREE's worker threads (`local-task`) for
a large one.

Handing a call to `local-task`'s workers and waiting for them (on a thread
of its own, `gradopt.runtime.iree_caller`) costs a tenth of a millisecond
and more, more than a small program computes in. Measured through
`Program.run` on 2 cores (bench/RESULTS.md, means): one matrix product of
4.2 million multiply-adds took 0.14 ms on `local-sync` and 0.25 ms on
`local-task`, one of 8.4 million 0.21 and 0.49 ms, one of 16.8 million
0.41 and 0.38 ms, one of 33.6 million 0.71 and 0.54 ms; the attention step
(products of 101 million multiply-adds together, none over 8.4 million),
the CNN step (142 million) and the large MLP step (209 million) ran faster
on the workers, the small MLP step (0.3 million) on the calling thread. An
elementwise program of 1 million elements took 0.22 and 0.32 ms, of 4.2
million 1.92 and 1.02 ms. So a program runs on the workers if its products
together make at least `SYNC_BELOW` multiply-adds or its largest value has
at least `VALUES_SYNC_BELOW` elements.
"""

from __future__ import annotations

import math

from xdsl.dialects.builtin import ModuleOp, ShapedType
from xdsl.dialects.linalg.ops import MatmulOp
from xdsl.ir import Operation

from gradopt.dialect.ops import DotOp
from gradopt.dialect.types import tensor_type
from gradopt.runtime.threads import product_sizes, products

SYNC_BELOW = 1 << 24
"""The multiply-adds of all products together (16.8 million) from which a
program runs on IREE's worker threads: where one product measured alike on
both drivers."""

VALUES_SYNC_BELOW = 1 << 22
"""The elements of the largest value (4.2 million) from which a program runs
on IREE's worker threads, whatever its products: an elementwise program of
that size took half as long on the workers."""


UNTILED_BELOW = 1 << 22
"""The multiply-adds (4.2 million) under which a plain matrix product of a
program on the calling thread runs faster without IREE's tiled layouts
(`products_untiled`)."""


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
    """`local-sync` for a program whose products together are under
    `SYNC_BELOW` multiply-adds and whose values are under
    `VALUES_SYNC_BELOW` elements, else `local-task`."""
    small = (
        sum(product_sizes(module)) < SYNC_BELOW
        and largest_value(module) < VALUES_SYNC_BELOW
    )
    return "local-sync" if small else "local-task"


def products_untiled(module: ModuleOp) -> bool:
    """Whether `module` is compiled without IREE's tiled layouts because its
    products run faster so: it runs on the calling thread (`driver_for`) and
    has products, each a plain matrix product (no batch dims) of under
    `UNTILED_BELOW` multiply-adds. On one thread, packing operands into the
    tiled layout costs more than it saves for such a product: small MLP
    steps took 0.80-0.96x the time untiled, one of 6.4 million multiply-adds
    1.03x; batched products (small attention steps) up to 1.71x
    (`bench/small_tiling.py`)."""
    found = list(products(module))
    return (
        bool(found)
        and all(
            _plain(op) and size is not None and size < UNTILED_BELOW
            for op, size in found
        )
        and driver_for(module) == "local-sync"
    )


def _plain(op: Operation) -> bool:
    """Whether the product `op` multiplies two matrices."""
    if isinstance(op, DotOp):
        return len(tensor_type(op.lhs).get_shape()) == 2
    return isinstance(op, MatmulOp)
