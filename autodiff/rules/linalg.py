"""The derivatives of `linalg` on tensors (SPEC §10.2): `linalg.fill`, and
every structured op (`linalg.generic` and the named ops, read through their
indexing maps and body as their generic form) by the body-adjoint
construction.

The share to operand x_k of a structured op is ONE new `linalg.generic`
over the same iteration space: it reads the op's operands through their maps
and each result's gradient g_j through the result's map (those its body
reads: `Emitter.generic` leaves the others out), rebuilds the body,
walks it backward (the scalar `arith`/`math` rules, `backward_walk`) from
each result seeded with the element of g_j, and writes the element share of
x_k through x_k's map: the dims of that map are parallel, the others are
reductions that add each iteration's share onto a `+0.0` start. The tangent
is one generic too, walking the body forward from the operands' tangents.

A reduction result must be `addf acc e` (the init receives g_j, e the
broadcast g_j) or a max/min of `acc` and `e` (g_j to the positions, the init
among them, equal to the result, split evenly among ties as `grad.reduce max`
does); anything else reading the accumulator has no rule. Inputs on a path
must be read through projected permutations (constant 0 results allowed).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cache
from itertools import product

from xdsl.dialects import arith, scf, tensor
from xdsl.dialects.builtin import Float32Type, IndexType, TensorType, f32, i64
from xdsl.dialects.linalg.abstract_ops import LinalgStructuredOperation
from xdsl.dialects.linalg.attrs import IteratorType
from xdsl.dialects.linalg.ops import BroadcastOp, FillOp, ReduceOp, YieldOp
from xdsl.ir import Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.ir.affine import (
    AffineBinaryOpExpr,
    AffineBinaryOpKind,
    AffineConstantExpr,
    AffineDimExpr,
    AffineExpr,
    AffineMap,
)

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.paths import captured, post_order
from gradopt.autodiff.registry import (
    Derivative,
    Tangent,
    derivative_of,
    register_derivative,
)
from gradopt.autodiff.upstream import is_f32_value
from gradopt.autodiff.walks import backward_walk, forward_walk
from gradopt.dialect.upstream.linalg import MapOp
from gradopt.dialect.upstream.tensor import ExpandShapeOp

INDEX = IndexType()

EXTREMA: dict[type[Operation], str] = {
    arith.MaximumfOp: "ogt",
    arith.MaxnumfOp: "ogt",
    arith.MinimumfOp: "olt",
    arith.MinnumfOp: "olt",
}


@dataclass(frozen=True)
class _Form:
    """How result j comes out of the body: `parallel` (y_j itself), `add`
    (`addf acc e`), `extremum` (max/min of acc and e), `init` (acc), or
    `dead` (a result that carries no gradient, as an argmax's index)."""

    kind: str
    value: SSAValue


def _reads(value: SSAValue, argument: BlockArgument) -> bool:
    block = argument.block

    def inputs(v: SSAValue) -> Sequence[SSAValue]:
        if isinstance(v, OpResult) and v.op.parent_block() is block:
            return v.op.operands
        return ()

    return argument in post_order(value, inputs)


def _forms(s: _View) -> list[_Form] | str:
    """Each result's form, or why the body has no rule."""
    block = s.block
    terminator = block.last_op
    assert terminator is not None
    reduces = IteratorType.REDUCTION in s.iterators
    forms: list[_Form] = []
    for j, y in enumerate(terminator.operands):
        if not reduces:
            forms.append(_Form("parallel", y))
            continue
        acc = block.args[len(s.inputs) + j]
        if not is_f32_value(s.results[j].type):  # an argmax's index: no gradient
            forms.append(_Form("dead", y))
            continue
        if y is acc:
            forms.append(_Form("init", y))
            continue
        owner = y.owner
        kind = (
            "add"
            if isinstance(owner, arith.AddfOp)
            else "extremum"
            if type(owner) in EXTREMA
            else None
        )
        if kind is not None and isinstance(owner, Operation):
            lhs, rhs = owner.operands
            e = rhs if lhs is acc else lhs if rhs is acc else None
            if e is not None and not _reads(e, acc):
                forms.append(_Form(kind, e))
                continue
        return (
            f"reduction result {j} is not 'arith.addf' or a max/min of the "
            "accumulator and a value that does not read it"
        )
    return forms


def _is_projection(map: AffineMap) -> bool:
    """A projected permutation, constant 0 results allowed."""
    dims = [r.position for r in map.results if isinstance(r, AffineDimExpr)]
    constants = all(
        isinstance(r, AffineDimExpr)
        or (isinstance(r, AffineConstantExpr) and r.value == 0)
        for r in map.results
    )
    return constants and len(set(dims)) == len(dims)


@dataclass(frozen=True)
class _View:
    """A structured op as its generic form: operands, maps, iterators, body."""

    inputs: Sequence[SSAValue]
    outputs: Sequence[SSAValue]
    results: Sequence[SSAValue]
    maps: Sequence[AffineMap]
    iterators: Sequence[IteratorType]
    block: Block

    @property
    def operands(self) -> list[SSAValue]:
        return [*self.inputs, *self.outputs]


def _view(op: Operation) -> _View:
    """`op` (a structured op; `linalg.reduce`, `linalg.broadcast` or
    `linalg.map`, which are not xDSL structured ops) as its generic form (a
    map's body takes no init element, or takes it last: the rebuilt body
    reads the operands' elements in order, inputs first)."""
    if isinstance(op, LinalgStructuredOperation):
        return _View(
            op.inputs,
            op.outputs,
            op.results,
            [m.data for m in op.get_indexing_maps()],
            [i.data for i in op.get_iterator_types()],
            op.body.block,
        )
    if isinstance(op, MapOp):
        rank = len(_shape(op.init))
        return _View(
            op.inputs,
            [op.init],
            op.results,
            [AffineMap.identity(rank)] * (len(op.inputs) + 1),
            [IteratorType.PARALLEL] * rank,
            op.mapper.block,
        )
    assert isinstance(op, ReduceOp | BroadcastOp)
    dims = set(op.dimensions.get_values())
    identity = AffineMap.identity(
        len(_shape(op.input if isinstance(op, ReduceOp) else op.init))
    )
    rank = identity.num_dims
    projection = AffineMap(
        rank, 0, tuple(AffineDimExpr(d) for d in range(rank) if d not in dims)
    )
    if isinstance(op, ReduceOp):
        maps, block = [identity, projection], op.region.block
        reduced = dims
    else:
        maps, block, reduced = (
            [projection, identity],
            Block(arg_types=[f32, f32]),
            set(),
        )
        block.add_op(YieldOp(block.args[0]))
    iterators = [
        IteratorType.REDUCTION if d in reduced else IteratorType.PARALLEL
        for d in range(rank)
    ]
    return _View([op.input], [op.init], op.results, maps, iterators, block)


def _shape(value: SSAValue) -> tuple[int, ...]:
    type = value.type
    return tuple(type.get_shape()) if isinstance(type, TensorType) else ()


def _linear(expr: AffineExpr) -> tuple[dict[int, int], int] | None:
    """`expr` as (coefficient per dim, constant), or None if not linear."""
    if isinstance(expr, AffineDimExpr):
        return {expr.position: 1}, 0
    if isinstance(expr, AffineConstantExpr):
        return {}, expr.value
    if isinstance(expr, AffineBinaryOpExpr):
        lhs, rhs = _linear(expr.lhs), _linear(expr.rhs)
        if lhs is None or rhs is None:
            return None
        if expr.kind == AffineBinaryOpKind.Add:
            merged = dict(lhs[0])
            for d, c in rhs[0].items():
                merged[d] = merged.get(d, 0) + c
            return merged, lhs[1] + rhs[1]
        if expr.kind == AffineBinaryOpKind.Mul and not rhs[0]:
            return {d: c * rhs[1] for d, c in lhs[0].items()}, lhs[1] * rhs[1]
    return None


def _window_dims(s: _View, map: AffineMap) -> list[int]:
    """The reduction dims that a window map adds to a parallel dim."""
    dims: list[int] = []
    for result in map.results:
        linear = _linear(result)
        if linear is not None and len(linear[0]) > 1:
            dims += [d for d in linear[0] if s.iterators[d] == IteratorType.REDUCTION]
    return sorted(dims)


def _is_window(s: _View, map: AffineMap) -> bool:
    """Each result a dim, a constant, or one parallel dim plus reduction dims
    with positive coefficients (`d1 * 2 + d4`); no dim in two results."""
    seen: list[int] = []
    for result in map.results:
        linear = _linear(result)
        if linear is None or any(c <= 0 for c in linear[0].values()):
            return False
        dims = list(linear[0])
        parallel = [d for d in dims if s.iterators[d] == IteratorType.PARALLEL]
        if len(dims) > 1 and len(parallel) != 1:
            return False
        seen += dims
    return len(set(seen)) == len(seen)


def _ranges(s: _View) -> list[int]:
    """Each loop's range, from an operand that a map reads along it."""
    ranges: dict[int, int] = {}
    for map, x in zip(s.maps, s.operands, strict=True):
        for result, size in zip(map.results, _shape(x), strict=False):
            if isinstance(result, AffineDimExpr):
                ranges.setdefault(result.position, size)
    return [ranges[d] for d in range(len(s.iterators))]


def _substituted(s: _View, fixed: dict[int, int]) -> _View:
    """`s` with the loops in `fixed` removed, their values put in the maps."""
    kept = [d for d in range(len(s.iterators)) if d not in fixed]
    renumbered = {d: i for i, d in enumerate(kept)}

    def rebuild(expr: AffineExpr) -> AffineExpr:
        linear = _linear(expr)
        assert linear is not None
        coefficients, constant = linear
        constant += sum(c * fixed[d] for d, c in coefficients.items() if d in fixed)
        terms = [
            AffineDimExpr(renumbered[d]) * c if c != 1 else AffineDimExpr(renumbered[d])
            for d, c in coefficients.items()
            if d not in fixed
        ]
        if not terms:
            return AffineConstantExpr(constant)
        result = terms[0]
        for term in terms[1:]:
            result = result + term
        return result + constant if constant else result

    maps = [
        AffineMap(len(kept), 0, tuple(rebuild(r) for r in m.results)) for m in s.maps
    ]
    iterators = [s.iterators[d] for d in kept]
    return _View(s.inputs, s.outputs, s.results, maps, iterators, s.block)


def _geometry(
    map: AffineMap, ranges: Sequence[int]
) -> tuple[list[int], list[int], list[int], list[AffineExpr]]:
    """Where a map of results `c * d + k` (or `k`) reads: the offsets, sizes
    and strides of that strided slice, and the map reading the slice."""
    offsets, sizes, strides, results = [], [], [], []
    for result in map.results:
        linear = _linear(result)
        assert linear is not None
        coefficients, constant = linear
        offsets.append(constant)
        if coefficients:
            ((d, c),) = coefficients.items()
            strides.append(c)
            sizes.append(ranges[d])
            results.append(AffineDimExpr(d))
        else:
            strides.append(1)
            sizes.append(1)
            results.append(AffineConstantExpr(0))
    return offsets, sizes, strides, results


def _sliced(e: Emitter, s: _View, ranges: Sequence[int]) -> _View:
    """`s` with each input read through a strided or offset map replaced by
    that strided slice of it, read through a projection: every map a
    projection, so each loop's range is read off an operand exactly."""
    inputs, maps = list(s.inputs), list(s.maps)
    for k, (x, map) in enumerate(zip(s.inputs, s.maps, strict=False)):
        exact = all(
            not isinstance(r, AffineDimExpr) or ranges[r.position] == size
            for r, size in zip(map.results, _shape(x), strict=True)
        )
        if not isinstance(x.type, TensorType) or (_is_projection(map) and exact):
            continue
        offsets, sizes, strides, results = _geometry(map, ranges)
        type = TensorType(f32, sizes)
        inputs[k] = e.static_slice(x, None, offsets, sizes, strides, type)
        maps[k] = AffineMap(map.num_dims, 0, tuple(results))
    return _View(inputs, s.outputs, s.results, maps, s.iterators, s.block)


def _no_rule(op: Operation) -> str | None:
    """Why the op has no rule, or None."""
    s = _view(op)
    if not s.results:
        return "only linalg on tensors is differentiated"
    for k, (map, x) in enumerate(zip(s.maps, s.operands, strict=True)):
        window = k < len(s.inputs) and _is_window(s, map)
        if isinstance(x.type, TensorType) and not (_is_projection(map) or window):
            return (
                f"operand {k} is read through {map}, neither a projected "
                "permutation nor a window"
            )
    for value in captured(op):
        if not (isinstance(value.type, TensorType) and is_f32_value(value.type)):
            continue
        for use in value.uses:
            reader = use.operation
            if op.is_ancestor(reader) and not (
                isinstance(reader, tensor.ExtractOp) and use.index == 0
            ):
                return (
                    f"its body reads a tensor from outside by '{reader.name}' "
                    "(only 'tensor.extract' is differentiated)"
                )
    forms = _forms(s)
    if isinstance(forms, str):
        return forms
    return _body_without_rule(s.block)


def _body_without_rule(block: Block) -> str | None:
    """Why the body cannot be walked: an op of it that reads an `f32` value
    the operands' elements flow into and has no derivative, or None."""
    reached: set[SSAValue] = {a for a in block.args if is_f32_value(a.type)}
    for inner in block.ops:
        if inner is block.last_op or not reached.intersection(inner.operands):
            continue
        if derivative_of(inner) is None:
            return f"its body holds '{inner.name}', which has no gradient rule"
        reached.update(inner.results)
    return None


def _reads_outside(op: Operation) -> bool:
    """Whether the body reads an f32 value from outside the op: then its
    rules take the values its regions capture too (`Derivative.captures`)."""
    return any(is_f32_value(v.type) for v in captured(op))


@dataclass
class _Written:
    """Where a share is written: the map of its output, its type, and how to
    make the operand's value from it (constant-0 dims restored, a scalar
    extracted)."""

    map: AffineMap
    type: TensorType
    finish: Callable[[Emitter, SSAValue], SSAValue]


def _written(map: AffineMap, operand: SSAValue) -> _Written:
    """The output of a share to `operand` read through `map`: its dims, with
    constant-0 results (size-1 dims) dropped and restored afterwards."""
    type = operand.type
    shape = type.get_shape() if isinstance(type, TensorType) else ()
    kept = [i for i, r in enumerate(map.results) if isinstance(r, AffineDimExpr)]
    reduced = AffineMap(map.num_dims, 0, tuple(map.results[i] for i in kept))
    out = TensorType(f32, [shape[i] for i in kept])
    if not isinstance(type, TensorType):
        return _Written(reduced, out, lambda e, v: e.extract(v, []))
    if len(kept) == len(shape):
        return _Written(reduced, out, lambda e, v: v)
    groups: list[list[int]] = [[] for _ in kept] if kept else []
    for i in range(len(shape)):
        position = sum(1 for p in kept if p <= i) - 1
        if groups:
            groups[max(position, 0)].append(i)

    def finish(e: Emitter, v: SSAValue) -> SSAValue:
        from xdsl.dialects.builtin import ArrayAttr, IntegerAttr, i64

        from gradopt.autodiff.upstream import static_array

        reassociation = ArrayAttr(
            [ArrayAttr([IntegerAttr(i, i64) for i in g]) for g in groups]
        )
        return e.insert(
            ExpandShapeOp.build(
                operands=[v, []],
                result_types=[type],
                properties={
                    "reassociation": reassociation,
                    "static_output_shape": static_array(shape),
                },
            )
        )

    return _Written(reduced, out, finish)


class _Body:
    """The op's body rebuilt inside a new generic whose first block arguments
    are the op's operands' scalars."""

    def __init__(self, s: _View, e: Emitter, args: Sequence[SSAValue]):
        block = s.block
        self.mapping: dict[SSAValue, SSAValue] = dict(
            zip(block.args, args[: len(block.args)], strict=True)
        )
        for old in block.ops:
            if old is block.last_op:
                break
            if not old.results:  # a `cf.assert`: the op itself checks it
                continue
            new = e.insert(old.clone(self.mapping)).owner
            assert isinstance(new, Operation)
            self.mapping.update(zip(old.results, new.results, strict=True))

    def __getitem__(self, value: SSAValue) -> SSAValue:
        return self.mapping.get(value, value)


def _iterators(map: AffineMap) -> list[IteratorType]:
    used = {r.position for r in map.results if isinstance(r, AffineDimExpr)}
    return [
        IteratorType.PARALLEL if d in used else IteratorType.REDUCTION
        for d in range(map.num_dims)
    ]


def _sum(e: Emitter, terms: Sequence[SSAValue], like: SSAValue) -> SSAValue:
    if not terms:
        return e.fzeros(like)
    total = terms[0]
    for term in terms[1:]:
        total = e.addf(total, term)
    return total


def _extremum_scales(e: Emitter, s: _View, j: int, form: _Form) -> SSAValue:
    """`1 / count` per result element of a max/min reduction: the number of
    positions (the init among them) equal to the result."""
    maps, n = s.maps, len(s.operands)
    init, u = s.outputs[j], s.results[j]
    start = e.select(e.cmpf("oeq", init, u), 1.0, 0.0)

    def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        value = _Body(s, b, args)[form.value]
        hit = b.select(b.cmpf("oeq", value, args[n]), 1.0, 0.0)
        return [b.addf(args[n + 1], hit)]

    out = maps[len(s.inputs) + j]
    (count,) = e.generic(
        [*s.operands, u], [start], [*maps, out, out], _iterators(out), body
    )
    return e.divf(1.0, count)


Target = Callable[["_Body", Sequence[BlockArgument]], SSAValue]
"""The value of the rebuilt body whose element share a generic computes: an
operand's block argument, an outer value the body reads, an extract's result."""


def _seeded(
    b: Emitter, s: _View, form: _Form, args: Sequence[BlockArgument]
) -> tuple[_Body, SSAValue, SSAValue]:
    """The body rebuilt in a share's generic, the value result j comes from,
    and its element gradient (`args` after the operands: g_j, and for a
    max/min reduction 1/count and the result)."""
    n = len(s.operands)
    rebuilt = _Body(s, b, args)
    root, seed = rebuilt[form.value], args[n]
    if form.kind == "extremum":
        hit = b.cmpf("oeq", root, args[n + 2])
        seed = b.mulf(b.select(hit, args[n], 0.0), args[n + 1])
    return rebuilt, root, seed


def _body_share(
    e: Emitter,
    s: _View,
    form: _Form,
    j: int,
    target: Target,
    extra: Sequence[SSAValue],
    written: AffineMap,
    out: TensorType,
) -> SSAValue:
    """The generic that walks the rebuilt body backward from result j's
    element gradient (`extra`: g_j, and for a max/min reduction 1/count and
    the result) to `target`, writing through `written`."""
    out_map = s.maps[len(s.inputs) + j]
    full = len(written.results) == written.num_dims

    def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        rebuilt, root, seed = _seeded(b, s, form, args)
        goal = target(rebuilt, args)
        share = backward_walk(b, root, lambda: seed, [goal]).get(goal)
        if share is None:
            share = b.fzeros(goal)
        return [share] if full else [b.addf(args[-1], share)]

    (share,) = e.generic(
        [*s.operands, *extra],
        [e.fconst(0.0, out)],
        [*s.maps, *[out_map] * len(extra), written],
        _iterators(written),
        body,
    )
    return share


def _gathered_share(
    e: Emitter, s: _View, form: _Form, j: int, extra: Sequence[SSAValue], t: SSAValue
) -> SSAValue:
    """The share to a tensor `t` on the path that the body reads by
    `tensor.extract` at computed indices (a gather): per extract, one generic
    over the iteration space gives each iteration's element gradient and
    indices, and a loop nest adds the elements into `+0.0` zeros of t's type
    at those indices, iterations in row-major order."""
    ranges = _ranges(s)
    rank = len(ranges)
    out_map = s.maps[len(s.inputs) + j]
    total = e.fzeros(t)
    for read in [o for o in s.block.walk() if isinstance(o, tensor.ExtractOp)]:
        if read.tensor is not t:
            continue

        def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
            rebuilt, root, seed = _seeded(b, s, form, args)
            goal = rebuilt[read.result]  # noqa: B023 (called before the next read)
            share = backward_walk(b, root, lambda: seed, [goal]).get(goal)
            at = [
                b.insert(arith.IndexCastOp(rebuilt[i], i64))
                for i in read.indices  # noqa: B023
            ]
            return [share if share is not None else b.fzeros(goal), *at]

        outputs = [
            e.empty(TensorType(f32, ranges)),
            *(e.empty(TensorType(i64, ranges)) for _ in read.indices),
        ]
        identity = AffineMap.identity(rank)
        values, *where = e.generic(
            [*s.operands, *extra],
            outputs,
            [*s.maps, *[out_map] * len(extra), *[identity] * len(outputs)],
            [IteratorType.PARALLEL] * rank,
            body,
        )
        total = _scattered(e, total, values, where, ranges, [])
    return total


def _scattered(
    e: Emitter,
    into: SSAValue,
    values: SSAValue,
    where: Sequence[SSAValue],
    ranges: Sequence[int],
    positions: Sequence[SSAValue],
) -> SSAValue:
    """`into` with `values[p]` added at `where[.][p]` for every position p of
    `ranges` in row-major order, one `scf.for` per dim (`positions`: the
    outer loops' induction variables)."""
    if len(positions) == len(ranges):
        at = [
            e.insert(
                arith.IndexCastOp(e.insert(tensor.ExtractOp(w, positions, i64)), INDEX)
            )
            for w in where
        ]
        added = e.addf(e.extract(into, at), e.extract(values, positions))
        return e.insert_element(added, into, at)
    block = Block(arg_types=[INDEX, into.type])
    placeholder = scf.YieldOp()
    block.add_op(placeholder)
    position, running = block.args
    inner = _scattered(
        e.at(placeholder), running, values, where, ranges, [*positions, position]
    )
    block.insert_op_before(scf.YieldOp(inner), placeholder)
    block.erase_op(placeholder)
    start, end, step = (e.index(v) for v in (0, ranges[len(positions)], 1))
    return e.insert(scf.ForOp(start, end, step, [into], block))


def _window_share(
    e: Emitter, s: _View, form: _Form, j: int, k: int, extra: Sequence[SSAValue]
) -> SSAValue:
    """The share to an input read through a window map (`d1 * 2 + d4`): for
    each position of the window (fixed at expansion time, never per element
    at run time), the body's share over the other dims, added at its strided
    place of a `+0.0` start by `extract_slice`, `addf`, `insert_slice`."""
    x = s.operands[k]
    assert isinstance(x.type, TensorType)
    ranges = _ranges(s)
    window = _window_dims(s, s.maps[k])
    total = e.fzeros(x)
    for position in product(*(range(ranges[d]) for d in window)):
        sub = _substituted(s, dict(zip(window, position, strict=True)))
        placed = sub.maps[k]
        sub_ranges = [ranges[d] for d in range(len(ranges)) if d not in window]
        offsets, sizes, strides, results = _geometry(placed, sub_ranges)
        kept = [r for r in results if isinstance(r, AffineDimExpr)]
        written = AffineMap(len(sub_ranges), 0, tuple(kept))
        out = TensorType(f32, [sub_ranges[r.position] for r in kept])
        sliced = sub.inputs
        sub = _sliced(e, sub, sub_ranges)
        share = _body_share(
            e, sub, form, j, lambda _, args: args[k], extra, written, out
        )
        for value, was in zip(sub.inputs, sliced, strict=True):
            if value is not was and isinstance(value, OpResult) and not value.uses:
                value.op.detach()  # a slice that the share does not read
                value.op.erase()
        old = e.static_slice(total, None, offsets, sizes, strides, out)
        total = e.static_slice(
            e.addf(old, share), total, offsets, sizes, strides, x.type
        )
    return total


def _structured(e: Emitter, op: Operation, g: SSAValue):
    assert isinstance(e.result, OpResult)
    j, s = e.result.index, _view(op)
    forms = _forms(s)
    assert not isinstance(forms, str)
    form, maps, n = forms[j], s.maps, len(s.operands)
    scale = cache(lambda: _extremum_scales(e, s, j, form))

    extra = cache(
        lambda: [g, scale(), s.results[j]] if form.kind == "extremum" else [g]
    )

    def through_body(k: int) -> SSAValue:
        if not _is_projection(maps[k]):
            return _window_share(e, s, form, j, k, extra())
        written = _written(maps[k], s.operands[k])
        share = _body_share(
            e, s, form, j, lambda _, args: args[k], extra(), written.map, written.type
        )
        return written.finish(e, share)

    def to_outer(value: SSAValue) -> SSAValue:
        if isinstance(value.type, TensorType):
            return _gathered_share(e, s, form, j, extra(), value)
        written = _written(AffineMap(len(s.iterators), 0, ()), value)
        share = _body_share(
            e, s, form, j, lambda _, __: value, extra(), written.map, written.type
        )
        return written.finish(e, share)

    def to_init(k: int) -> SSAValue:
        if form.kind in ("add", "init"):
            return g
        init = s.operands[k]
        hit = e.cmpf("oeq", init, s.results[j])
        return e.mulf(e.select(hit, g, 0.0), scale())

    shares: list[Callable[[], SSAValue] | None] = []
    for k in range(n):
        if k >= len(s.inputs) and k - len(s.inputs) != j:
            shares.append(None)
        elif k >= len(s.inputs) and form.kind != "parallel":
            shares.append(lambda k=k: to_init(k))
        elif form.kind == "init":
            shares.append(None)
        else:
            shares.append(lambda k=k: through_body(k))
    if _reads_outside(op):
        shares += [
            None
            if form.kind == "init" or not is_f32_value(v.type)
            else (lambda v=v: to_outer(v))
            for v in captured(op)
        ]
    return shares


def _t_structured(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    """One generic: the body's tangent from the operands' tangents."""
    assert isinstance(e.result, OpResult)
    j, s = e.result.index, _view(op)
    forms = _forms(s)
    assert not isinstance(forms, str)
    form, maps, n = forms[j], s.maps, len(s.operands)
    init_k = len(s.inputs) + j
    moving = [k for k in range(len(s.inputs)) if t[k] is not None]
    if form.kind == "parallel":
        moving += [init_k] if t[init_k] is not None else []
    out_map, init, u = maps[init_k], s.outputs[j], s.results[j]
    t_init = t[init_k]
    if form.kind == "parallel" or t_init is None:
        start = e.fzeros(init)
    elif form.kind == "extremum":
        start = e.select(e.cmpf("oeq", init, u), t_init, 0.0)
    else:
        start = t_init
    extremum = form.kind == "extremum"

    def body(b: Emitter, args: Sequence[BlockArgument]) -> list[SSAValue]:
        rebuilt = _Body(s, b, args)
        root = rebuilt[form.value]
        terms = [
            forward_walk(b, root, args[k], args[n + i]) for i, k in enumerate(moving)
        ] + [forward_walk(b, root, v, tv) for v, tv in outer]
        total = _sum(b, terms, root)
        if extremum:
            hit = b.cmpf("oeq", root, args[n + len(moving)])
            total = b.select(hit, total, 0.0)
        return [total] if form.kind == "parallel" else [b.addf(args[-1], total)]

    reads = captured(op) if _reads_outside(op) else []  # t holds their tangents
    outer = [(v, tv) for v, tv in zip(reads, t[n:], strict=True) if tv is not None]
    tangents: list[SSAValue] = [tk for k in moving if (tk := t[k]) is not None]
    extra = [u] if extremum else []
    (tangent,) = e.generic(
        [*s.operands, *tangents, *extra],
        [start],
        [*maps, *(maps[k] for k in moving), *[out_map] * len(extra), out_map],
        s.iterators,
        body,
    )
    if extremum:
        return e.mulf(tangent, _extremum_scales(e, s, j, form))
    return tangent


STRUCTURED = Derivative(_structured, _t_structured)
GATHERING = Derivative(_structured, _t_structured, captures=True)


def _structured_derivative(op: Operation) -> Derivative | None:
    if _no_rule(op) is not None:
        return None
    return GATHERING if _reads_outside(op) else STRUCTURED


def _fill(e: Emitter, op: Operation, g: SSAValue):
    return (lambda: e.sum_elements(g), None)


def _t_fill(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, FillOp)
    value = t[0] if t[0] is not None else e.fconst(0.0, Float32Type())
    return e.insert(FillOp((value,), (op.outputs[0],), (op.res[0].type,)))


for _op_type in (LinalgStructuredOperation, ReduceOp, BroadcastOp, MapOp):
    register_derivative(_op_type, _structured_derivative, _no_rule)
register_derivative(FillOp, Derivative(_fill, _t_fill))
