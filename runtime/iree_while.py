"""A rewrite of lowered programs with an `scf.while` before IREE compiles
them: every loop starts from copies of its initial tensors, each statically
shaped copy behind an optimization barrier, and the program's structured
control flow becomes branches between blocks (`cf`). Same ops, same order,
same bits.

IREE 3.13 (iree-base-compiler 3.13.0rc20261016) fails on such programs in
three ways. Two were met by GradBench's `particle` (`bench/gradbench/RESULTS.md`), a
`while` whose body's branch yields constant flags (`True` to go on, `False`
to stop) and whose carried vectors start as constants:

- a structured `scf.while` that IREE keeps until its stream conversion does
  not compile ("'scf.while' op along control flow edge from Operation
  scf.condition to Region #1: region branch point has 2 operands, but region
  successor needs 4 inputs": the condition's operands are not expanded into
  a resource and its size);
- one that IREE turns into blocks itself compiles, but when a loop's carried
  values start as constants (which IREE packs into one constant buffer), the
  call fails: "indirect buffer reference slot 0 is out range of the declared
  binding capacity of the command buffer 0" (`hal.command_buffer.copy_buffer`
  of a null buffer), raised as `IndexError`.

Lowering the control flow to blocks here avoids the first, and starting each
loop from a copy that IREE cannot fold back into the constant (`iree_branches`'
copy) avoids the second. Every initial tensor is copied, not only the
`arith.constant`s: IREE sees constants through other ops (a gradient's
reverse loop starts from zeros that an `scf.execute_region` yields, and
failed the same way), and a dynamically sized one too (revolve's snapshots
when the trip count is known at run time only failed the same way); but
not a `tensor.empty`, whose copy would read uninitialized memory (IREE
warned of it on the terminal). A copy is one small dispatch per value and
loop.

The third is in IREE's VM and failed the same way, "indirect buffer
reference slot 0 is out range" (issue 22: periodic checkpointing of an
`scf.while`, or of an `scf.for` whose default period ⌈√N⌉ a `while`
computes at run time; a plain `while` that carries a second tensor from a
constant, under a gradient). IREE packs the tensors that one of its
execution regions makes into one buffer, so a branch into a loop passes the
same buffer for several carried values: every such branch met passed a
`tensor.empty` (a checkpointing or recording loop's stacks), which IREE
allocates beside the copies made before the loop. The VM's register
allocator may give the first of those block arguments the buffer's own
register, and it moves the buffer out of that register for the last one
(annotated bytecode of such a branch):

    vm.br ^bb9(..., %buf, ..., %buf, ..., %buf, ...)
        operand_registers = [..., "r2", ..., "r2", ..., "R2", ...]
        block_registers   = [..., "r2", ..., "r7", ..., "r10", ...]
        remap_registers   = [["r2->r7", "R2->r10", ...]]

so the first argument arrives as a null buffer, which a copy in the loop
reads. In a loop that starts from a `tensor.empty` and other tensors, an
`util.optimization_barrier` on each statically shaped start makes it a
buffer of its own, which the branch passes once. A barrier of a dynamically
shaped tensor does not compile ("'tensor.dim' op unexpected during shape
cleanup"), so the `tensor.empty` stacks of one loop may still share a
buffer; every failing branch met had a copied start among them. IREE waits
for each barred start before the loop begins, so other loops go without
(bench/RESULTS.md measures both). Only programs with
an `scf.while` are rewritten: IREE runs `scf.for` loops and `scf.if`
branches well as they are, and the loop unrolling of `iree_loops` needs
them structured.
"""

from __future__ import annotations

from xdsl.context import Context
from xdsl.dialects import scf, tensor
from xdsl.dialects.builtin import ModuleOp, TensorType
from xdsl.dialects.cf import BranchOp, ConditionalBranchOp
from xdsl.ir import Block, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)
from xdsl.rewriter import BlockInsertPoint, InsertPoint
from xdsl.transforms.convert_scf_to_cf import ConvertScfToCf

from gradopt.runtime.iree_branches import OptimizationBarrierOp, _copy


class WhileLowering(RewritePattern):
    """`scf.while` as blocks: the condition's block, entered with the
    initial values and from the end of the body, branches to the body or on
    with the values `scf.condition` forwards (MLIR's own lowering)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, loop: scf.WhileOp, rewriter: PatternRewriter):
        entry = loop.parent_block()
        parent = entry.parent_region() if entry is not None else None
        if entry is None or parent is None:
            return
        after = entry.split_before(loop)
        continuation = after
        if loop.results:
            continuation = Block(arg_types=loop.result_types)
            parent.insert_block_before(continuation, after)
            rewriter.insert(BranchOp(after), InsertPoint.at_end(continuation))
        before_first = loop.before_region.first_block
        before_last = loop.before_region.last_block
        body_first = loop.after_region.first_block
        body_last = loop.after_region.last_block
        assert before_first and before_last and body_first and body_last
        condition = before_last.last_op
        yielded = body_last.last_op
        assert isinstance(condition, scf.ConditionOp)
        assert isinstance(yielded, scf.YieldOp)
        rewriter.replace(
            condition,
            ConditionalBranchOp(
                condition.condition,
                body_first,
                condition.args,
                continuation,
                condition.args,
            ),
        )
        rewriter.replace(yielded, BranchOp(before_first, *yielded.operands))
        rewriter.inline_region(
            loop.before_region, BlockInsertPoint.before(continuation)
        )
        rewriter.inline_region(loop.after_region, BlockInsertPoint.before(continuation))
        rewriter.insert(
            BranchOp(before_first, *loop.arguments), InsertPoint.at_end(entry)
        )
        rewriter.replace(loop, [], continuation.args)


def _copy_starts(module: ModuleOp) -> None:
    """Start every loop of `module` from copies of its initial tensors
    (but a `tensor.empty`); a loop that starts from a `tensor.empty` and
    other tensors, from each statically shaped copy behind a barrier."""
    for loop in [op for op in module.walk() if isinstance(op, scf.WhileOp | scf.ForOp)]:
        block = loop.parent_block()
        assert block is not None
        starts = loop.arguments if isinstance(loop, scf.WhileOp) else loop.iter_args
        tensors = [v for v in starts if isinstance(v.type, TensorType)]
        shared = len(tensors) > 1 and any(
            isinstance(v.owner, tensor.EmptyOp) for v in tensors
        )
        copied: list[SSAValue] = []
        for value in starts:
            type = value.type
            if (
                isinstance(type, TensorType)
                and not isinstance(value.owner, tensor.EmptyOp)
                and (ops := _copy(value, type))
            ):
                if shared and type.has_static_shape():
                    ops.append(OptimizationBarrierOp(ops[-1].results[0]))
                block.insert_ops_before(ops, loop)
                value = ops[-1].results[0]
            copied.append(value)
        bounds = [] if isinstance(loop, scf.WhileOp) else [loop.lb, loop.ub, loop.step]
        loop.operands = [*bounds, *copied]


def lower_while_loops(module: ModuleOp) -> bool:
    """Rewrite, in place, a `module` that has an `scf.while` (see above);
    returns whether it had one."""
    if not any(isinstance(op, scf.WhileOp) for op in module.walk()):
        return False
    _copy_starts(module)
    PatternRewriteWalker(WhileLowering()).rewrite_module(module)
    ConvertScfToCf().apply(Context(), module)
    return True
