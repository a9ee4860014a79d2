"""`gather-windows`: a `grad.concat` of the windows of one tensor (the im2col
of a convolution or a pool) becomes one `linalg.generic` that gathers them.

A convolution written with data-movement ops (`bench/models.py`,
`examples/conv2d.mlir`, `gradopt.nn.conv2d`, the pools) takes one strided
`grad.slice` of its (padded) input per kernel position and joins them with
`grad.concat`, possibly after a `grad.reshape` that gives each slice a unit
dim to be joined along. Lowered op by op, IREE turns this into one strided
copy per kernel position and, for the layout the following matrix product
wants, a transpose of the whole patch matrix: 10 dispatches, the transpose
alone a sixth of the CNN step of `bench/ahead_of_jax.py` (bench/RESULTS.md).

The pass matches a concat whose operands are slices of one source that
differ only in their starts, the starts forming a full row-major grid
(`base + m * dilation` in each window dim, `m` over `0..count`), with equal
strides and shapes. It replaces the concat by a `linalg.generic` copying
`source[base + p * stride + m * dilation]` into a tensor with the window
counts as dims of their own at the concat's axis, reshaped to the concat's
type: the same elements in the same places. IREE fuses that gather with the
transposes that follow into one dispatch. Anything else is left as it was.

It runs in the lowering for IREE only (`gradopt.runtime.iree.lower`), after
the expansion, so the interpreter and the gradients keep the ops (and bits)
they have: the gradient of the concat is still its slices, the slices' pads.

Why a gather and not `linalg.conv_2d_*`: on this machine IREE 3.13 runs a
named convolution of the CNN step 1.2-3x slower than the matrix product of
the same multiply-adds with its microkernels, and a convolution whose
window is the whole image (the kernel's gradient) 10x slower
(bench/RESULTS.md, "Issue 25: ahead of JAX where compiled").
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from math import prod

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import tensor
from xdsl.dialects.builtin import AffineMapAttr, ModuleOp, StringAttr, TensorType
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect import ops as grad
from gradopt.dialect.types import tensor_type

GATHERED = "gather-windows"
"""The `doc` of the generics this pass makes, by which IREE's flags are chosen
(`gradopt.runtime.iree.compile_flags`)."""


@dataclass(frozen=True)
class Windows:
    """The windows a concat joins: `source[base + p * stride + m * dilation]`
    for each position p of a slice and each window m (dims of `counts`, one
    per dim in `dims`, row-major in the concat's operand order)."""

    source: SSAValue
    base: tuple[int, ...]
    stride: tuple[int, ...]
    shape: tuple[int, ...]
    dims: tuple[int, ...]
    counts: tuple[int, ...]
    dilations: tuple[int, ...]


def _slice_of(value: SSAValue, axis: int) -> tuple[grad.SliceOp, bool] | None:
    """The slice that `value` is, or is a reshape of that only inserts a unit
    dim at `axis`, and whether it is that reshape."""
    owner = value.owner
    inserted = isinstance(owner, grad.ReshapeOp)
    if isinstance(owner, grad.ReshapeOp):
        before = tensor_type(owner.input).get_shape()
        after = tensor_type(owner.result).get_shape()
        if after != (*before[:axis], 1, *before[axis:]):
            return None
        owner = owner.input.owner
    if not isinstance(owner, grad.SliceOp):
        return None
    return owner, inserted


Grid = tuple[tuple[int, ...], tuple[int, ...], tuple[int, ...], tuple[int, ...]]
"""The base, window dims, counts and dilations of `Windows`."""


def _grid(starts: list[tuple[int, ...]]) -> Grid | None:
    """The grid of `starts`, if they are the row-major grid
    `base + m * dilation` over the dims they differ in."""
    rank = len(starts[0])
    base = tuple(min(start[d] for start in starts) for d in range(rank))
    dims = tuple(d for d in range(rank) if any(s[d] != base[d] for s in starts))
    values = [sorted({start[d] for start in starts}) for d in dims]
    counts = tuple(len(v) for v in values)
    dilations = tuple(v[1] - v[0] for v in values)
    grid = [list(base) for _ in range(prod(counts))]
    for point, m in zip(grid, itertools.product(*map(range, counts)), strict=True):
        for k, d in enumerate(dims):
            point[d] += m[k] * dilations[k]
    if not dims or [tuple(point) for point in grid] != starts:
        return None
    return base, dims, counts, dilations


def windows(op: grad.ConcatOp) -> Windows | None:
    """What `op` joins, if it is the windows of one tensor (see the module)."""
    found = [_slice_of(value, op.axis) for value in op.inputs]
    if any(f is None for f in found):
        return None
    pairs = [f for f in found if f is not None]
    slices = [s for s, _ in pairs]
    first = slices[0]
    if len({inserted for _, inserted in pairs}) != 1 or any(
        s.input != first.input
        or s.result.type != first.result.type
        or s.ints("stride") != first.ints("stride")
        for s in slices
    ):
        return None
    grid = _grid([tuple(s.ints("start")) for s in slices])
    if grid is None:
        return None
    base, dims, counts, dilations = grid
    stride = tuple(first.ints("stride"))
    shape = tensor_type(first.result).get_shape()
    return Windows(first.input, base, stride, shape, dims, counts, dilations)


def gather(w: Windows, axis: int) -> list[Operation]:
    """The `linalg.generic` copying the windows `w` into a tensor of the
    slices' shape with the window counts inserted at `axis` (the last op's
    result)."""
    rank, count = len(w.shape), len(w.dims)
    shape = (*w.shape[:axis], *w.counts, *w.shape[axis:])
    element = tensor_type(w.source).get_element_type()
    type = TensorType(element, shape)

    def position(d: int) -> AffineExpr:
        return AffineExpr.dimension(d if d < axis else d + count)

    reads = []
    for d in range(rank):
        expr = position(d) * w.stride[d] + w.base[d]
        if d in w.dims:
            k = w.dims.index(d)
            expr = expr + AffineExpr.dimension(axis + k) * w.dilations[k]
        reads.append(expr)
    empty = tensor.EmptyOp((), type)

    @Builder.implicit_region([element, element])
    def region(args: tuple[BlockArgument, ...]) -> None:
        linalg.YieldOp(args[0])

    generic = linalg.GenericOp(
        [w.source],
        [empty.tensor],
        region,
        [
            AffineMapAttr(AffineMap(len(shape), 0, tuple(reads))),
            AffineMapAttr(AffineMap.identity(len(shape))),
        ],
        [IteratorTypeAttr.parallel()] * len(shape),
        [type],
        doc=StringAttr(GATHERED),
    )
    return [empty, generic]


class GatherWindows(RewritePattern):
    """A concat of windows -> the gather of `gather`, reshaped to its type;
    the slices (and unit-dim reshapes) left unused are erased."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ConcatOp, rewriter: PatternRewriter, /):
        found = windows(op)
        if found is None:
            return
        operands = [value.owner for value in op.inputs]
        ops = gather(found, op.axis)
        reshape = grad.ReshapeOp(ops[-1].results[0], tensor_type(op.result))
        rewriter.replace(op, [*ops, reshape])
        for owner in operands:
            if not isinstance(owner, Operation) or owner.results[0].uses:
                continue
            sliced = owner.operands[0].owner
            rewriter.erase(owner)
            unit = isinstance(owner, grad.ReshapeOp)
            if unit and isinstance(sliced, grad.SliceOp) and not sliced.result.uses:
                rewriter.erase(sliced)


@dataclass(frozen=True)
class GatherWindowsPass(ModulePass):
    """Each `grad.concat` of the windows of one tensor -> one gathering
    `linalg.generic` (see the module)."""

    name = "gather-windows"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        PatternRewriteWalker(GatherWindows(), apply_recursively=False).rewrite_module(
            op
        )
