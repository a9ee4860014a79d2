"""Batching (`vmap`) as JAX does it, on the traced ops: a rule per primitive.

`vmap` traces the function once, on one example (the arguments without their
batched axis), into a block of its own; its differentiation ops are expanded
there (so `grad` inside `vmap` batches the derivative's ops); then `batch`
replays the block's ops into the enclosing trace, each by the batching rule
of its op type: an op none of whose operands is batched is copied as it is,
and the others become the same op on values whose dim 0 is the batch (an
unbatched operand of an op that mixes the two is broadcast along it first).
So the function runs once on the whole batch, never once per example, and
the result is ordinary `grad` ops, which an enclosing `grad` or `jit` sees
like any other.

`BATCHING_RULES` maps op types to rules, as the derivative registry maps them
to derivatives: an op without a rule is refused with its name.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from xdsl.dialects.builtin import (
    DenseArrayBase,
    IntegerAttr,
    ModuleOp,
    TensorType,
    i64,
)
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.dialects.scf import ConditionOp, YieldOp
from xdsl.ir import Attribute, Block, Operation, Region, SSAValue

from gradopt.autodiff.paths import captured
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.ops import (
    AddOp,
    BroadcastOp,
    ConcatOp,
    ConstOp,
    DotOp,
    ListOp,
    MulOp,
    PadOp,
    PermuteOp,
    ReduceOp,
    ReshapeOp,
    ReverseOp,
    SliceOp,
    UfuncOp,
    WhereOp,
)
from gradopt.dialect.ops.conversion import ConversionOp
from gradopt.dialect.ops.custom import CustomOp
from gradopt.dialect.ops.indexing import ArgsortOp, GatherOp, IotaOp, ScatterAddOp
from gradopt.dialect.types import tensor_type
from gradopt.frontend.trace import Functions, Trace, error

Batched = tuple[SSAValue, bool]
"""A value of the batched function and whether its dim 0 is the batch."""


class Batcher:
    """Replays ops into `trace` for a batch of `size`."""

    def __init__(self, trace: Trace, size: int) -> None:
        self.trace, self.size = trace, size

    def emit(self, op: Operation) -> list[SSAValue]:
        self.trace.emit(op)
        return list(op.results)

    def batched_type(self, type: Attribute) -> TensorType:
        assert isinstance(type, TensorType)
        return TensorType(type.get_element_type(), [self.size, *type.get_shape()])

    def lift(self, value: Batched) -> SSAValue:
        """`value` with the batch as dim 0: an unbatched one broadcast along it."""
        v, batched = value
        if batched:
            return v
        rank = tensor_type(v).get_num_dims()
        dims = range(1, rank + 1)
        return self.emit(BroadcastOp(v, dims, self.batched_type(v.type)))[0]

    def same_op(
        self,
        op: Operation,
        operands: Sequence[SSAValue],
        properties: dict[str, Attribute] | None = None,
    ) -> list[SSAValue]:
        """`op`'s kind on batched operands, its results batched, with
        `properties` replacing some of its own."""
        return self.emit(
            type(op).create(
                operands=list(operands),
                result_types=[self.batched_type(t) for t in op.result_types],
                properties={**op.properties, **(properties or {})},
                attributes=dict(op.attributes),
            )
        )


Rule = Callable[[Batcher, Operation, list[Batched]], list[SSAValue]]
"""Builds the batched results of an op, some of whose operands are batched."""


def _ints(values: Sequence[int]) -> DenseArrayBase:
    return DenseArrayBase.from_list(i64, list(values))


def _lifting(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """Elementwise ops, `where`: the same op on operands batched alike."""
    return b.same_op(op, [b.lift(o) for o in operands])


def _shifted(*names: str) -> Rule:
    """Ops of one operand whose listed dims move up by one (the batch is dim
    0): `reduce`'s axes, `reverse`'s dims."""

    def rule(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
        assert isinstance(op, ListOp)
        shifted: dict[str, Attribute] = {
            n: _ints([d + 1 for d in op.ints(n)]) for n in names
        }
        return b.same_op(op, [b.lift(o) for o in operands], shifted)

    return rule


def _prefixed(**first: int | None) -> Rule:
    """List ops whose lists gain an entry for the batch dim in front: the
    given value (None: the batch size, a slice's limit), the others shifted
    (`broadcast`'s dims, `permute`'s perm)."""

    def rule(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
        assert isinstance(op, ListOp)
        lists: dict[str, Attribute] = {}
        for name in op.LISTS:
            values = list(op.ints(name))
            if name in first:
                head = first[name]
                lists[name] = _ints([b.size if head is None else head, *values])
            else:
                lists[name] = _ints([0, *(v + 1 for v in values)])
        return b.same_op(op, [b.lift(o) for o in operands], lists)

    return rule


def _dim_shifted(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """Ops whose one listed dim moves up by one: `concat`, `argsort`."""
    assert isinstance(op, ListOp)
    dim = IntegerAttr(op.ints("dim")[0] + 1, i64)
    return b.same_op(op, [b.lift(o) for o in operands], {"dim": dim})


class _Rows:
    """An operand of a gather or scatter along `axis` with every example's
    rows stacked: the batch and the axis moved to the front and merged
    (`B * n` rows), and each example's indices offset by its first row, so
    that one op along dim 0 indexes every example's own rows. The rest of
    the dims keep their order; `unstack` undoes it."""

    def __init__(self, b: Batcher, value: SSAValue, axis: int) -> None:
        shape = tensor_type(value).get_shape()[1:]
        self.b, self.n = b, shape[axis]
        self.perm = [0, axis + 1, *(d + 1 for d in range(len(shape)) if d != axis)]
        moved = b.emit(PermuteOp(value, self.perm, _permuted(value, self.perm)))[0]
        self.moved = tensor_type(moved).get_shape()
        self.stacked = _fold(b, moved, [b.size * self.n, *self.moved[2:]])

    def offset(self, index: SSAValue) -> SSAValue:
        """`index` (batched) plus `n` times the example's number."""
        type = tensor_type(index)
        row = self.b.emit(IotaOp(0, type))[0]
        n = self.b.emit(ConstOp.splat(self.n, type))[0]
        first = self.b.emit(MulOp(row, n))[0]
        return self.b.emit(AddOp(index, first))[0]

    def unstack(self, value: SSAValue) -> SSAValue:
        split = _fold(self.b, value, self.moved)
        inverse = [self.perm.index(d) for d in range(len(self.perm))]
        return self.b.emit(PermuteOp(split, inverse, _permuted(split, inverse)))[0]


def _index_order(axis: int, index_rank: int, rest: int) -> list[int]:
    """From a gather along dim 0 of stacked rows, `[B, index dims, rest]`, to
    the batched gather's order `[B, rest before axis, index dims, rest after]`."""
    index = range(1, 1 + index_rank)
    before = range(1 + index_rank, 1 + index_rank + axis)
    after = range(1 + index_rank + axis, 1 + index_rank + rest)
    return [0, *before, *index, *after]


def _gather(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """With the same indices for every example, a gather along the next dim;
    with batched indices, one gather of every example's rows (`_Rows`)."""
    assert isinstance(op, GatherOp)
    source, (index, index_batched) = operands
    axis = op.axis_value
    if not index_batched:
        return b.same_op(op, [b.lift(source), index], _axis(axis + 1))
    rows = _Rows(b, b.lift(source), axis)
    gathered = b.emit(GatherOp(rows.stacked, rows.offset(index), 0))[0]
    rank, rest = tensor_type(index).get_num_dims() - 1, len(rows.moved) - 2
    order = _index_order(axis, rank, rest)
    return b.emit(PermuteOp(gathered, order, _permuted(gathered, order)))


def _scatter_add(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """As `_gather`: a scatter along the next dim, or one scatter into every
    example's rows; each example's positions keep their order, and no two
    examples share a row, so every example gets the bits it gets alone."""
    assert isinstance(op, ScatterAddOp)
    dest, (index, index_batched), updates = operands
    axis = op.axis_value
    if not index_batched:
        lifted = [b.lift(dest), index, b.lift(updates)]
        return b.same_op(op, lifted, _axis(axis + 1))
    rows = _Rows(b, b.lift(dest), axis)
    rank, rest = tensor_type(index).get_num_dims() - 1, len(rows.moved) - 2
    order = _index_order(axis, rank, rest)
    inverse = [order.index(d) for d in range(len(order))]
    u = b.lift(updates)
    u = b.emit(PermuteOp(u, inverse, _permuted(u, inverse)))[0]
    added = b.emit(ScatterAddOp(rows.stacked, rows.offset(index), u, 0))[0]
    return [rows.unstack(added)]


def _axis(axis: int) -> dict[str, Attribute]:
    return {"axis": IntegerAttr(axis, i64)}


def _reshape(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    return b.same_op(op, [b.lift(operands[0])])


def _fold(b: Batcher, value: SSAValue, shape: Sequence[int]) -> SSAValue:
    type = tensor_type(value)
    return b.emit(ReshapeOp(value, TensorType(type.get_element_type(), shape)))[0]


def _dot(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """A matrix product of a batch by one matrix is one product with the batch
    folded into the rows (or, on the right, into the columns); otherwise
    both operands are batched and the batch is a leading batch dim."""
    (a, a_batched), (c, c_batched) = operands
    a_shape, c_shape = tensor_type(a).get_shape(), tensor_type(c).get_shape()
    if a_batched and not c_batched and len(c_shape) == 2:
        _, m, k = a_shape
        product = b.emit(DotOp(_fold(b, a, [b.size * m, k]), c))[0]
        return [_fold(b, product, [b.size, m, c_shape[1]])]
    if c_batched and not a_batched and len(a_shape) == 2:
        _, k, n = c_shape
        columns = b.emit(PermuteOp(c, [1, 0, 2], _permuted(c, [1, 0, 2])))[0]
        product = b.emit(DotOp(a, _fold(b, columns, [k, b.size * n])))[0]
        split = _fold(b, product, [a_shape[0], b.size, n])
        return b.emit(PermuteOp(split, [1, 0, 2], _permuted(split, [1, 0, 2])))
    return b.same_op(op, [b.lift(o) for o in operands])


def _permuted(value: SSAValue, perm: Sequence[int]) -> TensorType:
    type = tensor_type(value)
    shape = type.get_shape()
    return TensorType(type.get_element_type(), [shape[p] for p in perm])


def _custom(b: Batcher, op: Operation, operands: list[Batched]) -> list[SSAValue]:
    """`grad.custom` of the batched versions of its functions (each made once
    per batch size), on batched operands."""
    assert isinstance(op, CustomOp)
    functions = b.trace.functions
    names: dict[str | None, str] = {}
    for mode in (None, "vjp", "jvp"):
        if (name := op.function(mode)) is not None:
            key = ("vmap", name, b.size)
            if key not in functions.known:  # named first: a rule may call f
                functions.known[key] = functions.fresh(f"{name}_batched")
                _batched_function(b, name, functions.known[key])
            names[mode] = functions.known[key]
    return b.emit(
        CustomOp(
            names[None],
            [b.lift(o) for o in operands],
            [b.batched_type(t) for t in op.result_types],
            vjp=names.get("vjp"),
            jvp=names.get("jvp"),
        )
    )


def expand_in_module(function: FuncOp, functions: Functions) -> None:
    """Expand the differentiation ops of `function`, which is not yet in a
    module, in a module of the trace's functions for that time (the rules of
    `grad.custom` look its functions up there)."""
    from gradopt.autodiff.walks import expand_in_program_order

    if not any(isinstance(o, DifferentiationOp) for o in function.walk()):
        return
    others = [f for f in functions.ops if f is not function]
    module = ModuleOp([])
    for f in [function, *others]:
        if f.parent is not None:
            f.detach()
        module.body.block.add_op(f)
    try:
        expand_in_program_order(function, lambda _: True)
    finally:
        for f in [function, *others]:
            f.detach()


def _batched_function(b: Batcher, name: str, batched: str) -> None:
    """The new function `batched` of the module: function `name` with every
    argument and result batched along dim 0."""
    functions = b.trace.functions
    callee = next(f for f in functions.ops if f.sym_name.data == name)
    expand_in_module(callee, functions)
    types = [b.batched_type(t) for t in callee.function_type.inputs]
    inner = Batcher(Trace(types, functions), b.size)
    block = callee.body.block
    terminator = block.last_op
    assert isinstance(terminator, ReturnOp)
    arguments = [(a, True) for a in inner.trace.block.args]
    results = batch(inner, block, arguments, terminator.operands)
    values = [inner.lift(r) for r in results]
    inner.trace.emit(ReturnOp(*values))
    signature = (types, [v.type for v in values])
    functions.ops.append(FuncOp(batched, signature, Region(inner.trace.block)))


BATCHING_RULES: dict[type[Operation], Rule] = {
    UfuncOp: _lifting,
    WhereOp: _lifting,
    ConversionOp: _lifting,
    ReduceOp: _shifted("axes"),
    ReverseOp: _shifted("dims"),
    BroadcastOp: _prefixed(),
    PermuteOp: _prefixed(),
    SliceOp: _prefixed(start=0, limit=None, stride=1),
    PadOp: _prefixed(low=0, high=0, interior=0),
    ConcatOp: _dim_shifted,
    ArgsortOp: _dim_shifted,
    GatherOp: _gather,
    ScatterAddOp: _scatter_add,
    ReshapeOp: _reshape,
    DotOp: _dot,
    CustomOp: _custom,
}
"""The batching rule of each op type (and of its subclasses)."""


Lookup = Callable[[SSAValue], Batched]
"""A value's batched value in the block being replayed."""

StructuredRule = Callable[[Batcher, Operation, list[Batched], Lookup], list[Batched]]
"""Builds the batched results of an op with regions, some of whose operands or
captured values (looked up) are batched."""

STRUCTURED_RULES: dict[type[Operation], StructuredRule] = {}
"""The batching rules of ops with regions (`batching_scf` provides them, and
`vectorize` loads it)."""


def rule_of(op: Operation) -> Rule | None:
    for op_type in type(op).__mro__:
        if (found := BATCHING_RULES.get(op_type)) is not None:
            return found
    return None


def batch(
    b: Batcher,
    block: Block,
    inputs: Sequence[Batched],
    outputs: Sequence[SSAValue],
    outer: Lookup | None = None,
) -> list[Batched]:
    """Replay `block` (whose arguments are `inputs`) into `b`'s trace: the
    batched values of `outputs`. `outer` gives the values defined outside
    `block` (by default, themselves, unbatched)."""
    values: dict[SSAValue, Batched] = dict(zip(block.args, inputs, strict=True))

    def get(v: SSAValue) -> Batched:
        if v in values:
            return values[v]
        return (v, False) if outer is None else outer(v)

    for op in block.ops:
        if isinstance(op, ReturnOp | YieldOp | ConditionOp):
            break
        operands = [get(v) for v in op.operands]
        inner = captured(op) if op.regions else []
        some = any(x for _, x in operands) or any(get(v)[1] for v in inner)
        if op.regions and some:
            if (structured := STRUCTURED_RULES.get(type(op))) is None:
                raise error(f"vmap: '{op.name}' has no batching rule")
            results = structured(b, op, operands, get)
        elif not some:
            mapping = {v: get(v)[0] for v in [*op.operands, *inner]}
            copy = op.clone(mapping)
            b.trace.block.add_op(copy)
            results = [(r, False) for r in copy.results]
        elif (rule := rule_of(op)) is not None:
            results = [(r, True) for r in rule(b, op, operands)]
        else:
            raise error(f"vmap: '{op.name}' has no batching rule")
        values.update(zip(op.results, results, strict=True))
    return [get(v) for v in outputs]
