"""A rewrite of lowered programs before IREE compiles them: an innermost
`scf.for` whose body IREE's code generator can compile as it is goes to IREE
inside a `flow.dispatch.region`, and runs as one dispatch, natively.

IREE 3.13 runs a loop that it finds outside a dispatch on the host: every
iteration records and submits a command buffer of the body's dispatches
(about 1 us a dispatch) and copies each carried tensor that the body updates
in part (bench/RESULTS.md, the tanh RNN on IREE). Given the loop inside a
dispatch region, it compiles the whole loop into one function: the RNN's
gradient takes 0.62 ms a call instead of 7.2 (JAX: 0.69). What that takes,
found on that gradient:

- IREE must not distribute the dispatch over workgroups: its own strategy
  tiles the body of the sequential loop into an `scf.forall` over
  workgroups, each of which would run the loop on its part of the carried
  values while reading the others'. The op IREE picks as the dispatch's
  root (the last op with a reduction) carries a `compilation_info` with
  tile sizes 0 for each of its loops: no tiling, one workgroup. IREE
  refuses a second op with one ("multiple ops within dispatch trying to
  set the translation info") and drops it with an op it folds or fuses
  away, so the root has to be a named contraction (`ROOTS`); a loop without
  one is not wrapped. The pipeline is `DoubleTilingExpert` (`PIPELINE`),
  which vectorizes each untiled op whole, so the operands must be small
  (`VECTOR_ELEMENTS`);
- IREE's bufferization needs each tensor an `scf.for` yields to be
  equivalent to its iteration argument: it is written into the argument
  with `bufferization.materialize_in_destination`;
- a carried tensor starts as one written, inside the region, into a
  `tensor.empty()` (or as a new `tensor.empty()` if it started as one),
  which IREE then places in the dispatch's result binding: the loop updates
  a 1000x16 cache in place there, not in a copy on the dispatch's stack
  (IREE's limit is 32 KB a dispatch; the cache alone is 64 KB). Its size
  may be known at run time only (the region's result dims);
- IREE's `CollapseDimensionsPass` hoists out of the region every
  `tensor.expand_shape`/`collapse_shape` whose operand is a block argument
  (the loop's carried values), which then no longer dominates its use: each
  reshape in the loop becomes a `linalg.generic` that copies along the
  reshape's index map; a loop that carries a tensor with a unit dim, which
  IREE reshapes itself, is not wrapped.

A loop qualifies when it has no loop inside, holds only ops of `DIALECTS`,
has such a root, carries tensors only (a region's results are tensors),
yields each in place without conflicts (`_distinct_yields`), carries no
tensor with a unit dim, its `linalg` ops' operands and contractions are
small, and the tensors it makes inside have static shapes and add up to at
most `STACK_BYTES`. An
outer loop stays on the host around the regions of its inner loops (IREE
did not bufferize an inner loop that updates the outer loop's carried value
in place). Loops that do not qualify keep IREE's host-side loop and the
rewrites for it: `iree_loops` skips the dispatched ones; the rewrites of
`iree_branches`, `iree_elements`, `iree_inserts` and `iree_scalars` are
made before and kept inside a region, where they are not needed (they work
around IREE's host-side handling of loops and branches, and its VM) but
cost nothing that LLVM does not fold; a program with an `scf.while` is in
blocks (`iree_while`) and has no loop to wrap. Same ops, same order:
results may differ from the host-side loop's within rounding, where LLVM
compiles the fused body differently.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from math import prod
from typing import TypeGuard

from xdsl.builder import Builder
from xdsl.dialects import arith, bufferization, scf, tensor
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    AffineMapAttr,
    IndexType,
    IntAttr,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    TensorType,
    UnitAttr,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.abstract_ops import NamedOperation
from xdsl.dialects.linalg.attrs import IteratorType, IteratorTypeAttr
from xdsl.ir import (
    Attribute,
    Block,
    BlockArgument,
    Operation,
    ParametrizedAttribute,
    Region,
    SSAValue,
)
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.irdl import (
    AttrSizedOperandSegments,
    IRDLOperation,
    irdl_attr_definition,
    irdl_op_definition,
    region_def,
    result_def,
    traits_def,
    var_operand_def,
    var_result_def,
)
from xdsl.printer import Printer
from xdsl.traits import IsTerminator

PIPELINE = "DoubleTilingExpert"
"""IREE's CPU pipeline for a dispatched loop: with tile sizes 0 it vectorizes
each op whole (the RNN's gradient 0.57 ms a call; the `Default` pipeline,
scalar loops, 2.0 ms: bench/RESULTS.md)."""

VECTOR_ELEMENTS = 1024
"""The most elements an operand or result of a `linalg` op in a dispatched
loop may have: each becomes one vector. IREE refuses vectors of 16 KB ("One
or more operations with large vector sizes (16384 bytes) were found", the
64x64 weights of a 64-wide RNN), and with the `Default` pipeline such a
loop ran slower in its dispatch (13.8 ms a call) than on the host (12.2)."""

CONTRACTION_ELEMENTS = 4096
"""The product of a contraction's loop ranges in a dispatched loop must be
below this: IREE vectorizes the untiled contraction into one
`vector.contract` and refuses it from 16 KB on, though each operand is
small ("One or more operations with large vector sizes (16384 bytes)": a
4x32 by 32x32 or a 64x16 by 16x16 product; 3x32 by 32x32 compiles)."""

STACK_BYTES = 16 * 1024
"""The most bytes the tensors made inside a dispatched loop may hold: half
IREE's stack limit of a dispatch, the rest for the temporaries its
bufferization adds."""

DIALECTS = frozenset({"arith", "math", "tensor", "linalg", "scf", "bufferization"})
"""What IREE's CPU code generator compiles inside a dispatch; also
`util.optimization_barrier` (`iree_branches`), which it drops."""

ROOTS = frozenset(
    {
        "linalg.matmul",
        "linalg.matvec",
        "linalg.vecmat",
        "linalg.dot",
        "linalg.batch_matmul",
        "linalg.batch_matvec",
        "linalg.batch_vecmat",
    }
)
"""The contractions that can carry the dispatch's `compilation_info`: IREE
keeps them as they are, where it folds and fuses `linalg.generic`s (an
annotated copy that it folded away took the annotation with it)."""


@irdl_op_definition
class DispatchRegionOp(IRDLOperation):
    """IREE's `flow.dispatch.region`: its body becomes one dispatch. Only
    printed for IREE (in the generic form), never parsed or run by gradopt."""

    name = "flow.dispatch.region"
    result_dims = var_operand_def()
    workload = var_operand_def()
    outputs = var_result_def()
    body = region_def()
    workgroup_count = region_def()
    irdl_options = (AttrSizedOperandSegments(as_property=True),)


@irdl_op_definition
class ReturnOp(IRDLOperation):
    """IREE's `flow.return`, which ends a dispatch region's body."""

    name = "flow.return"
    values = var_operand_def()
    traits = traits_def(IsTerminator())


@irdl_op_definition
class StartOp(IRDLOperation):
    """The `tensor.empty` a carried tensor starts in, in a region, printed
    in the generic form with the unit attribute `START`: IREE's CSE replaced
    a plain one by an equal `tensor.empty` outside the region (the stack of
    periodic checkpointing's forward sweep when a segment is one step, of the
    type of the reverse sweep's carried gradient), the region's input, into
    which the start could not be written ("would write to read-only
    buffer")."""

    name = "tensor.empty"
    dynamic_sizes = var_operand_def(IndexType)
    tensor = result_def(TensorType)


START = "gradopt.start"
"""What tells a `StartOp` from any other `tensor.empty` for IREE's CSE."""


@irdl_attr_definition
class OneWorkgroupAttr(ParametrizedAttribute):
    """IREE's `#iree_codegen.compilation_info` that compiles a dispatch with
    the CPU's `pipeline` and tile sizes 0 for each of the root's `loops`: no
    tiling, one workgroup."""

    name = "iree_codegen.compilation_info"
    loops: IntAttr
    pipeline: StringAttr

    def __init__(self, loops: int, pipeline: str):
        super().__init__(IntAttr(loops), StringAttr(pipeline))

    def print_parameters(self, printer: Printer) -> None:
        zeros = ", ".join(["0"] * self.loops.data)
        printer.print_string(
            "<lowering_config = #iree_codegen.lowering_config<tile_sizes = "
            f"[[{zeros}]]>, translation_info = #iree_codegen.translation_info<"
            f"pipeline = #iree_cpu.pipeline<{self.pipeline.data}>>>"
        )


def dispatched(op: Operation) -> bool:
    """Whether `op` is inside a dispatch region."""
    parent = op.parent_op()
    while parent is not None:
        if isinstance(parent, DispatchRegionOp):
            return True
        parent = parent.parent_op()
    return False


def _static(type: Attribute) -> bool:
    return not isinstance(type, TensorType) or type.has_static_shape()


def _bytes(type: Attribute) -> int:
    """The bytes of a tensor of `type` (a byte an i1, as IREE stores it)."""
    assert isinstance(type, TensorType)
    element = type.get_element_type()
    width = getattr(element, "bitwidth", 32)
    return prod(type.get_shape()) * max(1, width // 8)


def _made(loop: scf.ForOp) -> int | None:
    """The bytes of the tensors the loop makes (its empties, into which its
    `linalg` ops write, and its reshapes, which become copies: carried
    tensors may have a size known at run time only, these may not), None
    if one has no static shape."""
    made = [
        op.results[0].type
        for op in loop.walk()
        if isinstance(
            op, tensor.EmptyOp | tensor.ExpandShapeOp | tensor.CollapseShapeOp
        )
    ]
    if not all(_static(type) for type in made):
        return None
    return sum(_bytes(type) for type in made if isinstance(type, TensorType))


def _reduces(op: Operation) -> TypeGuard[NamedOperation | linalg.GenericOp]:
    """Whether `op` is a named or generic `linalg` op with a reduction loop."""
    return isinstance(op, NamedOperation | linalg.GenericOp) and any(
        t.data == IteratorType.REDUCTION for t in op.get_iterator_types()
    )


def _root(loop: scf.ForOp) -> Operation | None:
    """The contraction that IREE picks as the root, if it is one of `ROOTS`:
    the last op of the loop with a reduction loop."""
    reductions = [
        op for op in loop.walk() if isinstance(op, linalg.ReduceOp) or _reduces(op)
    ]
    if reductions and reductions[-1].name in ROOTS:
        return reductions[-1]
    return None


def _vectorizable(loop: scf.ForOp) -> bool:
    """Whether every operand and result of a `linalg` op in the loop has a
    static shape and at most `VECTOR_ELEMENTS` elements, and each
    contraction's loop ranges multiply to less than `CONTRACTION_ELEMENTS`."""
    return all(
        not isinstance(type, TensorType)
        or (type.has_static_shape() and prod(type.get_shape()) <= VECTOR_ELEMENTS)
        for op in loop.walk()
        if op.dialect_name() == "linalg"
        for type in [*op.operand_types, *op.result_types]
    ) and all(_contraction_elements(op) < CONTRACTION_ELEMENTS for op in loop.walk())


def _contraction_elements(op: Operation) -> int:
    """The product of the loop ranges of `op` if it is a `linalg` op with a
    reduction loop (`CONTRACTION_ELEMENTS` if they cannot be inferred), else 0."""
    if not _reduces(op):
        return 0
    try:
        return prod(op.get_static_loop_ranges())
    except NotImplementedError:
        return CONTRACTION_ELEMENTS


def _unit_dims(type: Attribute) -> bool:
    """Whether `type` is a tensor of rank 2 or more with a dim of size 1:
    IREE reshapes such a carried value to drop the dim, and
    `CollapseDimensionsPass` hoists that reshape of a block argument out of
    the region too (a `tensor<1x3xf32>` state, its `tensor<?x1x3xf32>`
    cache)."""
    return (
        isinstance(type, TensorType)
        and type.get_num_dims() > 1
        and 1 in type.get_shape()
    )


def _kept_size(loop: scf.ForOp) -> bool:
    """Whether each carried tensor of run-time size is yielded as the
    iteration argument with slices or elements written into it: with its
    size, so that the region's result has the size of the start."""
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    for value, argument in zip(yielded.operands, body.args[1:], strict=True):
        if _static(argument.type):
            continue
        while value is not argument:
            owner = value.owner
            if not isinstance(owner, tensor.InsertSliceOp | tensor.InsertOp):
                return False
            value = owner.dest
    return True


def _distinct_yields(loop: scf.ForOp) -> bool:
    """Whether IREE can write each tensor the loop yields into its iteration
    argument, in order (`_yield_in_place`): no tensor is yielded twice, and
    an argument yielded in the place of another is one not yet overwritten
    (a later one) into one no longer read (not yielded itself), as in
    `a, b <- b, f(a, b)`; a swap `a, b <- b, a` is "cannot avoid RaW
    conflict"."""
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    arguments: list[SSAValue] = list(body.args[1:])
    values = list(yielded.operands)
    tensors = [value for value in values if isinstance(value.type, TensorType)]
    if len(set(tensors)) != len(tensors):
        return False
    for place, value in enumerate(values):
        if (
            value in arguments
            and value is not arguments[place]
            and (arguments.index(value) < place or arguments[place] in values)
        ):
            return False
    return True


def _qualifies(loop: scf.ForOp) -> bool:
    if not all(isinstance(type, TensorType) for type in loop.result_types):
        return False  # IREE: "only ranked tensor results are allowed"
    if any(_unit_dims(type) for type in loop.result_types) or not _kept_size(loop):
        return False
    if not _distinct_yields(loop):
        return False
    for op in loop.walk():
        if op.dialect_name() not in DIALECTS and op.name != "util.optimization_barrier":
            return False
    made = _made(loop)
    if made is None or made > STACK_BYTES or not _vectorizable(loop):
        return False
    return _root(loop) is not None


def _reshape_map(op: tensor.ExpandShapeOp | tensor.CollapseShapeOp) -> AffineMap:
    """The index of the reshape's operand as a function of its result's."""
    source, result = op.src.type, op.result.type
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    expand = isinstance(op, tensor.ExpandShapeOp)
    sizes = (result if expand else source).get_shape()
    dims = [AffineExpr.dimension(i) for i in range(result.get_num_dims())]
    exprs: list[AffineExpr] = []
    for position, group in enumerate(op.reassociation.data):
        members = [member.value.data for member in group]
        strides = [prod(sizes[k + 1 : members[-1] + 1]) for k in members]
        if expand:
            index = AffineExpr.constant(0)
            for k, stride in zip(members, strides, strict=True):
                index = index + dims[k] * stride
            exprs.append(index)
            continue
        outer = True
        for k, stride in zip(members, strides, strict=True):
            if sizes[k] == 1:
                exprs.append(AffineExpr.constant(0))
                continue
            index = dims[position]
            index = index // stride if stride != 1 else index
            exprs.append(index if outer else index % sizes[k])
            outer = False
    return AffineMap(len(dims), 0, tuple(exprs))


def _reshape_as_copy(op: tensor.ExpandShapeOp | tensor.CollapseShapeOp) -> None:
    """Replace `op` by a `linalg.generic` that reads its operand along
    `_reshape_map` (same elements, same order)."""
    source, result = op.src.type, op.result.type
    assert isinstance(source, TensorType) and isinstance(result, TensorType)
    empty = tensor.EmptyOp((), result)
    rank = result.get_num_dims()
    element_types = [source.get_element_type(), result.get_element_type()]

    @Builder.implicit_region(element_types)
    def region(args: tuple[BlockArgument, ...]) -> None:
        linalg.YieldOp(args[0])

    maps = [_reshape_map(op), AffineMap.identity(rank)]
    copy = linalg.GenericOp(
        [op.src],
        [empty.tensor],
        region,
        [AffineMapAttr(m) for m in maps],
        [IteratorTypeAttr.parallel()] * rank,
        [result],
    )
    block = op.parent_block()
    assert block is not None
    block.insert_ops_before([empty, copy], op)
    op.result.replace_all_uses_with(copy.results[0])
    block.erase_op(op)


def _sizes(value: SSAValue) -> list[Operation]:
    """The ops that read the run-time sizes of tensor `value` (before the
    region): pairs of an axis and the `tensor.dim` at it."""
    type = value.type
    assert isinstance(type, TensorType)
    ops: list[Operation] = []
    for axis, size in enumerate(type.get_shape()):
        if size == DYNAMIC_INDEX:
            at = arith.ConstantOp(IntegerAttr(axis, IndexType()))
            ops += [at, tensor.DimOp(value, at)]
    return ops


def _start(value: SSAValue, sizes: Sequence[SSAValue]) -> list[Operation]:
    """The ops that start a carried tensor inside the region (the last op's
    result): a new empty tensor (of run-time `sizes`) for an empty one, else
    `value` written into one."""
    type = value.type
    assert isinstance(type, TensorType)
    empty = StartOp.create(
        operands=list(sizes), result_types=[type], attributes={START: UnitAttr()}
    )
    if isinstance(value.owner, tensor.EmptyOp):
        return [empty]
    written = bufferization.MaterializeInDestinationOp.create(
        operands=[value, empty.tensor], result_types=[type]
    )
    return [empty, written]


def _yield_in_place(loop: scf.ForOp) -> None:
    """Write each tensor `loop` yields into its iteration argument."""
    body = loop.body.block
    yielded = body.last_op
    assert isinstance(yielded, scf.YieldOp)
    values: list[SSAValue] = []
    for value, argument in zip(yielded.operands, body.args[1:], strict=True):
        if isinstance(value.type, TensorType):
            written = bufferization.MaterializeInDestinationOp.create(
                operands=[value, argument], result_types=[value.type]
            )
            body.insert_op_before(written, yielded)
            value = written.results[0]
        values.append(value)
    yielded.operands = values


def _wrap(loop: scf.ForOp, root: Operation) -> None:
    parent = loop.parent_block()
    assert parent is not None
    body = Block()
    starts: list[SSAValue] = []
    dims: list[SSAValue] = []
    for value in loop.iter_args:
        if isinstance(value.type, TensorType):
            sizes = _sizes(value)
            parent.insert_ops_before(sizes, loop)
            ops = _start(value, [op.results[0] for op in sizes[1::2]])
            dims += [op.results[0] for op in sizes[1::2]]
            body.add_ops(ops)
            value = ops[-1].results[0]
        starts.append(value)
    region = DispatchRegionOp.build(
        operands=[dims, []],
        result_types=[list(loop.result_types)],
        regions=[Region(body), Region()],
    )
    parent.insert_op_before(region, loop)
    for old, new in zip(loop.results, region.results, strict=True):
        old.replace_all_uses_with(new)
    parent.detach_op(loop)
    loop.operands = [loop.lb, loop.ub, loop.step, *starts]
    body.add_ops([loop, ReturnOp.build(operands=[list(loop.results)])])
    _yield_in_place(loop)
    for op in list(loop.walk()):
        if isinstance(op, tensor.ExpandShapeOp | tensor.CollapseShapeOp):
            _reshape_as_copy(op)
    assert isinstance(root, NamedOperation)
    loops = len(root.get_iterator_types())
    root.attributes["compilation_info"] = OneWorkgroupAttr(loops, PIPELINE)


def _innermost(module: ModuleOp) -> Iterator[scf.ForOp]:
    """The loops with no loop inside."""
    for op in module.walk():
        if isinstance(op, scf.ForOp) and not any(
            isinstance(inner, scf.ForOp | scf.WhileOp) for inner in op.body.walk()
        ):
            yield op


def dispatch_loops(module: ModuleOp) -> int:
    """Wrap, in place, every innermost `scf.for` of `module` that qualifies
    in a dispatch region (see above); returns how many."""
    done = 0
    for loop in list(_innermost(module)):
        if _qualifies(loop) and (root := _root(loop)) is not None:
            _wrap(loop, root)
            done += 1
    return done
