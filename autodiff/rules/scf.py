"""The derivatives of `scf.for` and `scf.if` under `control_flow` (SPEC §11).

Both are joint rules: they get the gradients of all the op's results at once,
and send shares to its operands and to the values its regions capture.

Reverse mode of a loop runs a recording copy of the forward loop that stores
each iteration's carried values in a cache indexed by the iteration number
(sized at run time when the trip count is known only then), then a reverse
loop over the iterations, last to first, that recomputes the iteration's body
from the cached values and walks it backward. The gradient of the carried
values passes from iteration k + 1 to k as `iter_args`; the shares of each
outer value the body reads are added onto a running value, last iteration
first (a left fold), which reaches the outer value as one share. Forward mode
carries the tangents as extra `iter_args`. A branch's derivative is a branch:
each side walks its own region.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from math import isqrt

from xdsl.dialects import arith
from xdsl.dialects.builtin import (
    DYNAMIC_INDEX,
    IndexType,
    IntegerAttr,
    IntegerType,
    StringAttr,
    TensorType,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.dialects.scf import (
    ConditionOp,
    ExecuteRegionOp,
    ForOp,
    IfOp,
    WhileOp,
    YieldOp,
)
from xdsl.dialects.tensor import (
    EmptyOp,
    ExtractOp,
    ExtractSliceOp,
    InsertOp,
    InsertSliceOp,
)
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue

from gradopt.autodiff.emitter import ConstantPool, Emitter
from gradopt.autodiff.paths import captured
from gradopt.autodiff.registry import (
    RegionDerivative,
    Share,
    Tangent,
    register_derivative,
)
from gradopt.autodiff.rules.tensor import _slice_like
from gradopt.autodiff.upstream import is_f32_value, splat
from gradopt.autodiff.walks import (
    backward_walk_from,
    forward_walk_from,
    group_key,
    unfold_on_path,
)
from gradopt.dialect.differentiation import DifferentiationOp, GradientOp, VjpOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.types import tensor_type

INDEX = IndexType()


class _Body:
    """A new block that receives a copy of a region's ops; `e` emits before
    its terminator, which `close` puts in place at the end."""

    def __init__(self, e: Emitter, arg_types: Sequence[Attribute]):
        self.block = Block(arg_types=arg_types)
        self._placeholder = YieldOp()
        self._placeholder.location = e.location
        self.block.add_op(self._placeholder)
        self.e = e.at(self._placeholder)

    def copy(
        self,
        source: Block,
        values: dict[SSAValue, SSAValue],
        sources: Sequence[SSAValue] = (),
        inline: bool = True,
        forward: bool = False,
    ) -> list[SSAValue]:
        """Copy `source`'s ops (its arguments mapped by `values`), unfold the
        calls on the path from `sources` unless in a loop (SPEC §11: calls
        outside loops have the bits of inlining; in a loop one derivative
        function per callee serves every iteration) or kept by a `forward`
        walk, and return the values its terminator yields."""
        terminator = source.last_op
        assert terminator is not None
        for op in source.ops:
            if op is terminator:
                break
            self.block.insert_op_before(
                op.clone(value_mapper=values), self._placeholder
            )
        self._placeholder.operands = [values.get(v, v) for v in terminator.operands]
        if inline:
            unfold_on_path(
                lambda: self._placeholder.operands,
                lambda: sources,
                self.within,
                forward=forward,
            )
        return list(self._placeholder.operands)

    def yielded(self) -> list[SSAValue]:
        """The values the copy yields (a walk may have replaced the calls
        that made them)."""
        return list(self._placeholder.operands)

    def within(self, value: SSAValue) -> bool:
        """Whether `value` is made in the block (the walk's inside)."""
        if isinstance(value, BlockArgument):
            return value.block is self.block
        return value.owner.parent is self.block

    def close(self, terminator: Operation) -> None:
        """Put `terminator` in place of the placeholder."""
        self._placeholder.detach()
        self._placeholder.erase()
        self.block.add_op(terminator)


def _int(e: Emitter, value: int, type: Attribute) -> SSAValue:
    assert isinstance(type, IntegerType | IndexType)
    return e.insert(arith.ConstantOp(IntegerAttr(value, type)))


def _to_index(e: Emitter, value: SSAValue) -> SSAValue:
    if isinstance(value.type, IndexType):
        return value
    return e.insert(arith.IndexCastOp(value, INDEX))


def _from_index(e: Emitter, value: SSAValue, type: Attribute) -> SSAValue:
    if isinstance(type, IndexType):
        return value
    return e.insert(arith.IndexCastOp(value, type))


def _constant(value: SSAValue) -> int | None:
    owner = value.owner
    if isinstance(owner, arith.ConstantOp) and isinstance(owner.value, IntegerAttr):
        return owner.value.value.data
    return None


def _trip_count(e: Emitter, op: ForOp) -> tuple[SSAValue, int | None]:
    """The loop's number of iterations as an `index` value, and as an int when
    the bounds are constants."""
    bounds = [_constant(v) for v in (op.lb, op.ub, op.step)]
    if all(b is not None for b in bounds):
        lower, upper, step = bounds
        assert lower is not None and upper is not None and step is not None
        count = max(0, -(-(upper - lower) // step)) if step > 0 else 0
        return _int(e, count, INDEX), count
    type = op.lb.type
    span = e.insert(arith.SubiOp(op.ub, op.lb))
    span = e.insert(arith.MaxSIOp(span, _int(e, 0, type)))
    count = e.insert(arith.CeilDivSIOp(span, op.step))
    return _to_index(e, count), None


def _cache_type(type: Attribute, count: int | None) -> TensorType:
    leading = DYNAMIC_INDEX if count is None else count
    if isinstance(type, TensorType):
        return TensorType(type.get_element_type(), [leading, *type.get_shape()])
    return TensorType(type, [leading])


def _store(e: Emitter, value: SSAValue, cache: SSAValue, k: SSAValue) -> SSAValue:
    """`cache` with `value` at position k of its leading dim."""
    type = value.type
    if not isinstance(type, TensorType):
        return e.insert(InsertOp(value, cache, [k]))
    shape = list(type.get_shape())
    return e.insert(
        InsertSliceOp.get(
            value,
            cache,
            static_sizes=[1, *shape],
            static_offsets=[DYNAMIC_INDEX] + [0] * len(shape),
            offsets=[k],
        )
    )


def _load(e: Emitter, cache: SSAValue, k: SSAValue, type: Attribute) -> SSAValue:
    """Position k of `cache`'s leading dim, of type `type`."""
    if not isinstance(type, TensorType):
        return e.insert(ExtractOp(cache, [k], type))
    shape = list(type.get_shape())
    return e.insert(
        ExtractSliceOp(
            cache, [k] + [0] * len(shape), [1, *shape], [1] * (len(shape) + 1), type
        )
    )


def _induction(e: Emitter, op: ForOp, k: SSAValue) -> SSAValue:
    """The induction variable of iteration k (an index) of `op`."""
    scaled = e.insert(arith.MuliOp(_from_index(e, k, op.lb.type), op.step))
    return e.insert(arith.AddiOp(op.lb, scaled))


Loop = ForOp | WhileOp


def _carries(op: Loop) -> Sequence[BlockArgument]:
    """What one iteration starts from: a for's iteration arguments, a while's
    `before` arguments."""
    if isinstance(op, ForOp):
        return op.body.block.args[1:]
    return op.before_region.block.args


def _inits(op: Loop) -> Sequence[SSAValue]:
    """What the first iteration starts from."""
    return op.iter_args if isinstance(op, ForOp) else op.arguments


Sources = Callable[[Sequence[SSAValue]], Sequence[SSAValue]]
"""The values on the path in a copied iteration, given its carried values."""


def _iterate(
    b: _Body,
    op: Loop,
    k: SSAValue,
    state: Callable[[], Sequence[SSAValue]],
    sources: Sources = lambda _: (),
) -> tuple[list[SSAValue], list[SSAValue]]:
    """Copy iteration k (an index from 0) of `op` into `b`, from the carried
    values `state` gives: those values, and the ones the iteration passes on
    (a while's `before` and `after` regions, its condition dropped: the trip
    count is known)."""
    if isinstance(op, ForOp):
        body = op.body.block
        iv = _induction(b.e, op, k)
        values = list(state())
        mapping: dict[SSAValue, SSAValue] = dict(
            zip(body.args, [iv, *values], strict=True)
        )
        return values, b.copy(body, mapping, sources(values), inline=False)
    before, after = op.before_region.block, op.after_region.block
    values = list(state())
    on_path = sources(values)
    _, *passed = b.copy(
        before, dict(zip(before.args, values, strict=True)), on_path, inline=False
    )
    mapping: dict[SSAValue, SSAValue] = dict(zip(after.args, passed, strict=True))
    return values, b.copy(after, mapping, on_path, inline=False)


def _kept(op: Loop) -> list[int]:
    """The positions of the carried values that the reverse needs: all but
    those an iteration only writes into, read once as the destination of a
    `tensor.insert_slice` or `tensor.insert` whose result it yields in the same
    place (as `gradopt.lax.scan` stacks its outputs). An insert's shares do
    not depend on its destination, so those are neither cached nor kept at
    checkpoints: a stacked output would cost its whole buffer per iteration.
    (A while keeps all: its carried values pass its `before` region.)"""
    if isinstance(op, WhileOp):
        return list(range(len(op.before_region.block.args)))
    body = op.body.block
    terminator = body.last_op
    assert terminator is not None
    written: set[int] = set()
    for j, arg in enumerate(body.args[1:]):
        if not arg.has_one_use() or not _static(arg.type):
            continue
        insert = next(iter(arg.uses)).operation
        if isinstance(insert, InsertSliceOp | InsertOp) and insert.dest is arg:
            result = insert.results[0]
            if result.has_one_use() and terminator.operands[j] is result:
                written.add(j)
    return [j for j in range(len(body.args) - 1) if j not in written]


def _static(type: Attribute) -> bool:
    return isinstance(type, TensorType) and all(d >= 0 for d in type.get_shape())


def _loaded(
    e: Emitter, op: Loop, caches: Sequence[SSAValue], k: SSAValue
) -> list[SSAValue]:
    """The carried values of iteration k from `caches` (one per `_kept`
    value); the others, which nothing reads, are `tensor.empty`."""
    carries = _carries(op)
    by_position = dict(zip(_kept(op), caches, strict=True))
    return [
        _load(e, by_position[j], k, c.type)
        if j in by_position
        else e.insert(EmptyOp([], c.type))
        for j, c in enumerate(carries)
    ]


def _replay(
    e: Emitter,
    op: Loop,
    start: SSAValue | None,
    count: SSAValue,
    inits: Sequence[SSAValue],
    cache: tuple[SSAValue, int | None] | None,
) -> ForOp:
    """A loop that runs iterations start .. start + count - 1 of `op` (start
    None: 0) from the carried values `inits`. With `cache` (a size, static or
    as a value), it also stores the carried values of the t-th iteration it
    runs at position t of a cache per carried value (its last results)."""
    carries = _carries(op)
    kept = _kept(op)
    empties: list[SSAValue] = []
    if cache is not None:
        size, static = cache
        empties = [
            e.insert(
                EmptyOp([] if static else [size], _cache_type(carries[j].type, static))
            )
            for j in kept
        ]
    replay = _Body(e, [INDEX, *(c.type for c in carries), *(v.type for v in empties)])
    loop = ForOp(
        _int(e, 0, INDEX), count, _int(e, 1, INDEX), [*inits, *empties], replay.block
    )
    e.insert(loop)
    t, *rest = replay.block.args
    state, cached = rest[: len(carries)], rest[len(carries) :]
    r = replay.e
    stored = [_store(r, state[j], c, t) for j, c in zip(kept, cached, strict=False)]
    k = t if start is None else r.insert(arith.AddiOp(start, t))
    _, following = _iterate(replay, op, k, lambda: state)
    replay.close(YieldOp(*following, *stored))
    return loop


def _outer(e: Emitter, op: Operation) -> list[SSAValue]:
    """The f32 values that `op`'s regions read from outside and that lie on
    the path of the walk calling its rule (`e.path`): only they get shares
    (a scan's xs that is not a target costs nothing an iteration)."""
    return [
        v
        for v in captured(op)
        if is_f32_value(v.type) and (e.path is None or v in e.path)
    ]


def _on_path(outer: Sequence[SSAValue]) -> Sources:
    """The carried f32 values of a copied iteration, then the `outer` values
    its body reads: where the reverse's walk stops."""
    return lambda values: [v for v in values if is_f32_value(v.type)] + [*outer]


def _reverse_steps(
    e: Emitter,
    op: Loop,
    caches: Sequence[SSAValue],
    start: SSAValue | None,
    count: SSAValue,
    initial: Sequence[SSAValue],
    outer: Sequence[SSAValue],
) -> ForOp:
    """A loop over iterations start + count - 1 down to start of `op`, whose
    carried values are at positions count - 1 .. 0 of `caches`: each recomputes
    its iteration and walks it backward, from the gradients of the f32 carried
    values (`initial`, first) and the running sums of the f32 outer values'
    shares (`initial`, after them), which it yields updated."""
    reverse = _Body(e, [INDEX, *(v.type for v in initial)])
    loop = ForOp(_int(e, 0, INDEX), count, _int(e, 1, INDEX), initial, reverse.block)
    e.insert(loop)
    step, *running = reverse.block.args
    r = reverse.e
    last = r.insert(arith.SubiOp(count, _int(r, 1, INDEX)))
    t = r.insert(arith.SubiOp(last, step))
    k = t if start is None else r.insert(arith.AddiOp(start, t))
    values, yielded = _iterate(
        reverse,
        op,
        k,
        lambda: _loaded(r, op, caches, t),
        _on_path(outer),
    )
    reverse.close(
        YieldOp(
            *_step_back(reverse, values, yielded, running, outer, isinstance(op, ForOp))
        )
    )
    return loop


def _step_back(
    reverse: _Body,
    values: Sequence[SSAValue],
    yielded: Sequence[SSAValue],
    running: Sequence[SSAValue],
    outer: Sequence[SSAValue],
    from_zeros: bool,
) -> list[SSAValue]:
    """Walk one copied iteration backward, from the gradients of the carried
    values it `yielded` (the first entries of `running`, one per f32 carried
    value) to the carried values it started from (`values`), add the shares
    of the f32 `outer` values onto their running sums (the rest of
    `running`), and return both. `from_zeros`: those sums started at +0.0
    (a for's do; a while's start from its exit's shares)."""
    differentiable = [j for j, v in enumerate(values) if is_f32_value(v.type)]
    r = reverse.e
    carried_in = running[: len(differentiable)]
    seeds = [
        (yielded[j], _given(g)) for j, g in zip(differentiable, carried_in, strict=True)
    ]
    sources = [*(values[j] for j in differentiable), *outer]
    found = backward_walk_from(r, seeds, sources, reverse.within)
    carried_out = [
        found[values[j]] if values[j] in found else r.zeros_like(values[j])
        for j in differentiable
    ]
    sums = [
        _add_share(r, v, total, found[v], from_zeros) if v in found else total
        for v, total in zip(outer, running[len(differentiable) :], strict=True)
    ]
    return [*carried_out, *sums]


def _add_share(
    e: Emitter, value: SSAValue, total: SSAValue, share: SSAValue, from_zeros: bool
) -> SSAValue:
    """`total + share` for `value`; if `total` started at +0.0 (`from_zeros`)
    and `share` is a slice inserted into zeros (the share
    of an `extract_slice` of `value`, as a scan reads its row of xs): the
    slice added onto `total`'s slice, put back in place, in O(slice) rather
    than two passes over `value` an iteration. The same bits: the running
    sums start at +0.0 and only add (x + y is -0.0 only if both are), so
    they hold no -0.0, and `t + 0.0` was `t` on the rest, NaN and inf too."""
    insert = share.owner
    if not (
        from_zeros
        and isinstance(insert, InsertSliceOp)
        and not share.uses
        and isinstance(zeros := insert.dest.owner, arith.ConstantOp)
        and isinstance(type := zeros.result.type, TensorType)
        and zeros.value == splat(0.0, type)
    ):
        return e.accumulate(value, total, share)
    source = insert.source
    slice = _slice_like(e, ExtractSliceOp, [total], insert, tensor_type(source))
    added = e.accumulate(value, slice, source)
    updated = _slice_like(e, InsertSliceOp, [added, total], insert, tensor_type(total))
    insert.detach()
    insert.erase()
    return updated


def _carried_shares(
    op: Operation,
    carries: Sequence[SSAValue],
    results: Sequence[SSAValue],
    outer: Sequence[SSAValue],
) -> list[Share | None]:
    """The shares of a loop's initial values and outer values from the final
    results of its reverse (the f32 carried values' gradients, then the sums
    of the `outer` values')."""
    differentiable = [j for j, c in enumerate(carries) if is_f32_value(c.type)]
    return [
        _given(results[differentiable.index(j)]) if j in differentiable else None
        for j in range(len(carries))
    ] + _outer_shares(op, outer, results[len(differentiable) :])


Start = Callable[[], Sequence[SSAValue]]
"""Builds the reverse's initial running values, once the forward part is in
place (a while's gradients pass its `before` region first)."""


def _loop_reverse(
    e: Emitter,
    op: Loop,
    count: SSAValue,
    static: int | None,
    start: Start,
    outer: Sequence[SSAValue],
    place: Emitter | None = None,
) -> Sequence[SSAValue]:
    """The reverse of `op`'s N = `count` iterations by its checkpointing
    policy (SPEC §11): the gradients of its f32 carried values at the first
    iteration, then the sums of its f32 outer values' shares. With `place`
    (at `op`), the loop that runs the forward for the reverse (the default
    cache's recording loop, periodic's checkpointing one) goes there and
    stands for `op`, whose results it computes by the same ops: the forward
    runs once."""
    policy = _checkpoint_policy(op)
    carries = _carries(op)
    if policy == "binomial":
        from gradopt.autodiff.rules.revolve import binomial_reverse

        return binomial_reverse(e, op, count, static, start, outer)
    if policy == "periodic":
        return _periodic_reverse(e, op, count, static, start, outer, place).results
    recorder = _replay(place or e, op, None, count, _inits(op), (count, static))
    _stand_for(op, recorder, place)
    initial = start()
    caches = recorder.results[len(carries) :]
    return _reverse_steps(e, op, caches, None, count, initial, outer).results


def _check_sizes(op: Loop, outer: Sequence[SSAValue]) -> None:
    """Refuse a loop whose reverse would cache or sum a tensor of a size known
    at run time only: the caches of a loop with a run-time trip count, which
    a gradient of a gradient meets in the first gradient's loops."""
    carries = _carries(op)
    sized = [("carries", carries[j]) for j in _kept(op)]
    for what, value in [*sized, *(("reads", v) for v in outer)]:
        if isinstance(value.type, TensorType) and not _static(value.type):
            raise OpError(
                op,
                f"{what} {value.type}, whose size is known at run time only, on "
                "the path: its reverse cannot take it (a gradient of a gradient "
                "through a loop whose trip count is known at run time only is "
                "not supported)",
            )


def _stand_for(op: Loop, loop: ForOp, place: Emitter | None) -> None:
    """With `place`, make `loop`'s first results, `op`'s by the same ops,
    stand for `op`'s."""
    if place is not None:
        for old, new in zip(op.results, loop.results, strict=False):
            old.replace_all_uses_with(new)


def _for_reverse(
    e: Emitter, op: Operation, gradients: Sequence[SSAValue | None]
) -> Sequence[Share | None]:
    assert isinstance(op, ForOp)
    carries = _carries(op)
    differentiable = [j for j, c in enumerate(carries) if is_f32_value(c.type)]
    outer = _outer(e, op)
    _check_sizes(op, outer)
    replaces = _read_by_this_walk_only(e, op) and not _has_branch(op)
    place = Emitter(op, ConstantPool()) if replaces else None
    count, static = _trip_count(place or e, op)
    initial = [
        g if (g := gradients[j]) is not None else e.zeros_like(op.results[j])
        for j in differentiable
    ] + [e.zeros_like(v) for v in outer]
    results = _loop_reverse(e, op, count, static, lambda: initial, outer, place)
    shares = [None, None, None, *_carried_shares(op, carries, results, outer)]
    if not any(r.uses for r in op.results):  # its recording loop replaced it
        op.detach()
        op.erase()
    return shares


def _read_by_this_walk_only(e: Emitter, op: ForOp) -> bool:
    """Whether no differentiation op but those of the walk that `e` serves
    (the group of its anchor) reads `op`'s results, directly or not (through
    the gradients of that walk too), and no caller does (through a return).
    Then the recording loop may replace `op`: it computes the same results
    by the same ops, and no other walk meets it in `op`'s place, where it
    would differentiate the caches too (a gradient of the gradient would
    then sum its shares in another order: other bits)."""
    anchor = e.anchor
    key = group_key(anchor) if isinstance(anchor, GradientOp | VjpOp) else None
    seen: set[Operation] = set()
    pending = list(op.results)
    while pending:
        for use in pending.pop().uses:
            user: Operation | None = use.operation
            while user is not None and user not in seen:
                seen.add(user)
                if isinstance(user, DifferentiationOp) and (
                    not isinstance(user, GradientOp | VjpOp) or group_key(user) != key
                ):
                    return False
                if isinstance(user, ReturnOp) and _called(user.parent_op()):
                    return False
                pending.extend(user.results)
                user = user.parent_op()
    return True


def _has_branch(op: ForOp) -> bool:
    """Whether `op`'s body has an `scf.if`. Such a loop keeps its own
    forward loop beside the recording one: IREE 3.13 frees an `scf.if`'s
    result that lives on, and a recording loop standing for the loop
    (its carried value both cached and yielded by a branch, and read after
    the loop) ran into a freed buffer (`tests/test_iree_loops.py`), even
    with `runtime/iree_branches`' copies."""
    return any(isinstance(inner, IfOp) for inner in op.body.walk())


def _called(function: Operation | None) -> bool:
    """Whether a call in the module calls `function` (a `func.func`)."""
    if not isinstance(function, FuncOp):
        return False
    name = function.sym_name.data
    return any(
        isinstance(op, CallOp) and op.callee.string_value() == name
        for op in function.get_toplevel_object().walk()
    )


CHECKPOINT = "grad.checkpoint"
PERIOD = "grad.period"
SNAPSHOTS = "grad.snapshots"


def _checkpoint_policy(op: Operation) -> str | None:
    """The loop's `grad.checkpoint` (SPEC §11), None for the default cache.
    A period or a number of snapshots that no policy uses is an error: the
    loop would cache every iteration while its author thinks otherwise."""
    policy = op.attributes.get(CHECKPOINT)
    if policy is None:
        for name in (PERIOD, SNAPSHOTS):
            if name in op.attributes:
                raise OpError(
                    op,
                    f"'{name}' applies to a loop with '{CHECKPOINT}' "
                    '("periodic" or "binomial"); without it every iteration is '
                    "cached",
                )
        return None
    if not isinstance(policy, StringAttr) or policy.data not in (
        "periodic",
        "binomial",
    ):
        raise OpError(
            op, f'\'{CHECKPOINT}\' must be "periodic" or "binomial", got {policy}'
        )
    for name in (PERIOD, SNAPSHOTS):
        value = op.attributes.get(name)
        if value is not None and not (
            isinstance(value, IntegerAttr) and value.value.data > 0
        ):
            raise OpError(op, f"'{name}' must be a positive integer, got {value}")
    if SNAPSHOTS in op.attributes and policy.data != "binomial":
        raise OpError(
            op, f"'{SNAPSHOTS}' applies to \"binomial\" checkpointing, not {policy}"
        )
    return policy.data


def _period(
    e: Emitter, op: Loop, count: SSAValue, static: int | None
) -> tuple[SSAValue, int | None]:
    """The loop's `grad.period`, or ⌈√N⌉ (by an integer loop when N is known
    at run time only). A period beyond a known N is N: one segment either
    way, and the segment's cache is sized by the period."""
    given = op.attributes.get(PERIOD)
    if isinstance(given, IntegerAttr):
        period = given.value.data
        if static is not None:
            period = max(1, min(period, static))
        return _int(e, period, INDEX), period
    if static is not None:
        period = isqrt(static - 1) + 1 if static > 1 else 1
        return _int(e, period, INDEX), period
    first, second = _Body(e, [INDEX]), _Body(e, [INDEX])
    search = WhileOp([_int(e, 1, INDEX)], [INDEX], [first.block], [second.block])
    e.insert(search)
    (p,) = first.block.args
    square = first.e.insert(arith.MuliOp(p, p))
    short = first.e.insert(arith.CmpiOp(square, count, "slt"))
    first.close(ConditionOp(short, p))
    (p,) = second.block.args
    second.close(YieldOp(second.e.insert(arith.AddiOp(p, _int(second.e, 1, INDEX)))))
    return search.results[0], None


def _segment(
    e: Emitter, s: SSAValue, period: SSAValue, count: SSAValue
) -> tuple[SSAValue, SSAValue]:
    """Where segment s starts, and how many iterations it has."""
    start = e.insert(arith.MuliOp(s, period))
    rest = e.insert(arith.SubiOp(count, start))
    return start, e.insert(arith.MinSIOp(period, rest))


def _periodic_reverse(
    e: Emitter,
    op: Loop,
    count: SSAValue,
    static: int | None,
    start: Start,
    outer: Sequence[SSAValue],
    place: Emitter | None = None,
) -> ForOp:
    """Periodic checkpointing: the forward loop keeps the carried values of
    every P-th iteration; the reverse runs over the segments, last first,
    recomputing each segment's carried values from its checkpoint into a
    cache of P, then reversing them exactly as the default cache does (the
    same ops on the same values: the same bits). With `place` (at `op`), the
    forward loop goes there and stands for `op`, as the default cache's
    recording loop does."""
    carries = _carries(op)
    here = place or e
    period, static_period = _period(here, op, count, static)
    segments = here.insert(arith.CeilDivSIOp(count, period))
    known = None
    if static is not None and static_period is not None:
        known = -(-static // static_period)
    kept = _kept(op)
    empties = [
        here.insert(
            EmptyOp([] if known else [segments], _cache_type(carries[j].type, known))
        )
        for j in kept
    ]
    forward = _Body(
        here, [INDEX, *(c.type for c in carries), *(v.type for v in empties)]
    )
    keeping = ForOp(
        _int(here, 0, INDEX),
        segments,
        _int(here, 1, INDEX),
        [*_inits(op), *empties],
        forward.block,
    )
    here.insert(keeping)
    s, *rest = forward.block.args
    state, cached = rest[: len(carries)], rest[len(carries) :]
    f = forward.e
    stored = [_store(f, state[j], c, s) for j, c in zip(kept, cached, strict=True)]
    first, length = _segment(f, s, period, count)
    inner = _replay(f, op, first, length, state, None)
    forward.close(YieldOp(*inner.results, *stored))
    _stand_for(op, keeping, place)
    checkpoints = keeping.results[len(carries) :]
    initial = start()

    back = _Body(e, [INDEX, *(v.type for v in initial)])
    loop = ForOp(_int(e, 0, INDEX), segments, _int(e, 1, INDEX), initial, back.block)
    e.insert(loop)
    j, *running = back.block.args
    b = back.e
    s = b.insert(arith.SubiOp(b.insert(arith.SubiOp(segments, _int(b, 1, INDEX))), j))
    first, length = _segment(b, s, period, count)
    values = _loaded(b, op, checkpoints, s)
    replayed = _replay(b, op, first, length, values, (period, static_period))
    steps = _reverse_steps(
        b, op, replayed.results[len(carries) :], first, length, running, outer
    )
    back.close(YieldOp(*steps.results))
    return loop


def _given(value: SSAValue) -> Share:
    return lambda: value


def _outer_shares(
    op: Operation, outer: Sequence[SSAValue], values: Sequence[SSAValue]
) -> list[Share | None]:
    """A share per captured value of `op`: its entry of `values` for the f32
    ones (`outer`), in `captured` order."""
    by_value = dict(zip(outer, values, strict=True))
    return [_given(by_value[v]) if v in by_value else None for v in captured(op)]


def _for_tangent(
    e: Emitter, op: Operation, tangents: Sequence[Tangent]
) -> Sequence[Tangent]:
    assert isinstance(op, ForOp)
    body = op.body.block
    carries = body.args[1:]
    differentiable = [j for j, c in enumerate(carries) if is_f32_value(c.type)]
    inputs = 3 + len(carries)
    outer = {
        v: t
        for v, t in zip(captured(op), tangents[inputs:], strict=True)
        if t is not None
    }
    initial = [
        t if (t := tangents[3 + j]) is not None else e.zeros_like(carries[j])
        for j in differentiable
    ]
    new = _Body(
        e,
        [
            op.lb.type,
            *(c.type for c in carries),
            *(carries[j].type for j in differentiable),
        ],
    )
    loop = ForOp(op.lb, op.ub, op.step, [*op.iter_args, *initial], new.block)
    e.insert(loop)
    iv, *rest = new.block.args
    state, carried = rest[: len(carries)], rest[len(carries) :]
    sources = dict(outer)
    sources.update((state[j], t) for j, t in zip(differentiable, carried, strict=True))
    yielded = new.copy(
        body, dict(zip(body.args, [iv, *state], strict=True)), [*sources], False
    )
    found = forward_walk_from(
        new.e, [yielded[j] for j in differentiable], sources, new.within
    )
    yielded = new.yielded()
    out = [
        t if t is not None else new.e.zeros_like(yielded[j])
        for j, t in zip(differentiable, found, strict=True)
    ]
    new.close(YieldOp(*yielded, *out))
    return [
        loop.results[len(carries) + differentiable.index(j)]
        if j in differentiable
        else None
        for j in range(len(carries))
    ]


def _branches(
    e: Emitter,
    op: IfOp,
    types: Sequence[Attribute],
    sources: Sequence[SSAValue],
    forward: bool = False,
) -> tuple[IfOp, list[tuple[_Body, list[SSAValue]]]]:
    """A new `scf.if` on `op`'s condition with results of `types`, inserted,
    each side holding a copy of `op`'s side (with the values it yields) for
    a walk of the mode `forward` says."""
    sides = [_Body(e, []), _Body(e, [])]
    branch = IfOp(op.cond, types, [sides[0].block], [sides[1].block])
    e.insert(branch)
    regions = (op.true_region, op.false_region)
    return branch, [
        (side, side.copy(region.block, {}, sources, forward=forward))
        for side, region in zip(sides, regions, strict=True)
    ]


def _if_reverse(
    e: Emitter, op: Operation, gradients: Sequence[SSAValue | None]
) -> Sequence[Share | None]:
    assert isinstance(op, IfOp)
    outer = [v for v in captured(op) if is_f32_value(v.type)]
    branch, sides = _branches(e, op, [v.type for v in outer], outer)
    for side, yielded in sides:
        _yield_gradients(side, yielded, gradients, outer)
    return [None, *_outer_shares(op, outer, branch.results)]


def _yield_gradients(
    body: _Body,
    yielded: Sequence[SSAValue],
    gradients: Sequence[SSAValue | None],
    sources: Sequence[SSAValue],
) -> None:
    """Walk `body` back from the values it `yielded`, with their `gradients`,
    and yield the gradients of `sources` (zeros for one that gets none)."""
    seeds = [
        (y, _given(g)) for y, g in zip(yielded, gradients, strict=True) if g is not None
    ]
    found = backward_walk_from(body.e, seeds, sources, body.within)
    body.close(
        YieldOp(*(found[v] if v in found else body.e.zeros_like(v) for v in sources))
    )


def _if_tangent(
    e: Emitter, op: Operation, tangents: Sequence[Tangent]
) -> Sequence[Tangent]:
    assert isinstance(op, IfOp)
    outer = {
        v: t for v, t in zip(captured(op), tangents[1:], strict=True) if t is not None
    }
    differentiable = [j for j, r in enumerate(op.results) if is_f32_value(r.type)]
    branch, sides = _branches(
        e, op, [op.results[j].type for j in differentiable], [*outer], forward=True
    )
    for side, yielded in sides:
        found = forward_walk_from(
            side.e, [yielded[j] for j in differentiable], outer, side.within
        )
        yielded = side.yielded()
        side.close(
            YieldOp(
                *(
                    t if t is not None else side.e.zeros_like(yielded[j])
                    for j, t in zip(differentiable, found, strict=True)
                )
            )
        )
    return [
        branch.results[differentiable.index(j)] if j in differentiable else None
        for j in range(len(op.results))
    ]


def _while_trip_count(e: Emitter, op: WhileOp) -> tuple[SSAValue, list[SSAValue]]:
    """How many times the loop runs its `after` region, and the carried values
    its `before` region gets last: a copy of the loop that also counts, its
    condition passing the carried values on beside the forwarded ones."""
    before, after = op.before_region.block, op.after_region.block
    forwarded = [v.type for v in op.results]
    carried = [c.type for c in before.args]
    first = _Body(e, [*carried, INDEX])
    second = _Body(e, [*forwarded, *carried, INDEX])
    counter = WhileOp(
        [*op.arguments, _int(e, 0, INDEX)],
        [*forwarded, *carried, INDEX],
        [first.block],
        [second.block],
    )
    e.insert(counter)
    *state, n = first.block.args
    condition, *values = first.copy(before, dict(zip(before.args, state, strict=True)))
    first.close(ConditionOp(condition, *values, *state, n))
    values, n = second.block.args[: len(forwarded)], second.block.args[-1]
    following = second.copy(after, dict(zip(after.args, values, strict=True)))
    second.close(
        YieldOp(*following, second.e.insert(arith.AddiOp(n, _int(second.e, 1, INDEX))))
    )
    last = counter.results[len(forwarded) : len(forwarded) + len(carried)]
    return counter.results[-1], list(last)


def _while_reverse(
    e: Emitter, op: Operation, gradients: Sequence[SSAValue | None]
) -> Sequence[Share | None]:
    """A counting copy of the loop finds its trip count N; the results'
    gradients go back through the `before` region at the last carried values,
    then through `after` and `before` of each iteration, last to first, as
    for an `scf.for` of N iterations (its checkpointing policy too)."""
    assert isinstance(op, WhileOp)
    before = op.before_region.block
    carries = before.args
    outer = _outer(e, op)
    _check_sizes(op, outer)
    count, last = _while_trip_count(e, op)
    differentiable = [j for j, c in enumerate(carries) if is_f32_value(c.type)]
    types = [*(carries[j].type for j in differentiable), *(v.type for v in outer)]

    def leave() -> Sequence[SSAValue]:
        exit = _Body(e, [])
        leaving = ExecuteRegionOp(types, Region(exit.block))
        e.insert(leaving)
        sources = [*(last[j] for j in differentiable), *outer]
        mapping: dict[SSAValue, SSAValue] = dict(zip(before.args, last, strict=True))
        _, *values = exit.copy(before, mapping, sources)
        _yield_gradients(exit, values, gradients, sources)
        return leaving.results

    results = _loop_reverse(e, op, count, None, leave, outer)
    return _carried_shares(op, carries, results, outer)


def _while_tangent(
    e: Emitter, op: Operation, tangents: Sequence[Tangent]
) -> Sequence[Tangent]:
    """The loop again, carrying the tangents of its f32 values beside them."""
    assert isinstance(op, WhileOp)
    before, after = op.before_region.block, op.after_region.block
    carries = before.args
    outer = {
        v: t
        for v, t in zip(captured(op), tangents[len(carries) :], strict=True)
        if t is not None
    }
    entering = [j for j, c in enumerate(carries) if is_f32_value(c.type)]
    leaving = [j for j, r in enumerate(op.results) if is_f32_value(r.type)]
    initial = [
        t if (t := tangents[j]) is not None else e.zeros_like(carries[j])
        for j in entering
    ]
    forwarded = [r.type for r in op.results]
    first = _Body(e, [*(c.type for c in carries), *(carries[j].type for j in entering)])
    second = _Body(e, [*forwarded, *(forwarded[j] for j in leaving)])
    loop = WhileOp(
        [*op.arguments, *initial],
        [*forwarded, *(forwarded[j] for j in leaving)],
        [first.block],
        [second.block],
    )
    e.insert(loop)

    def side(
        body: _Body, block: Block, given: Sequence[int], wanted: Sequence[int]
    ) -> tuple[list[SSAValue], list[SSAValue]]:
        args = body.block.args
        state, carried = args[: len(block.args)], args[len(block.args) :]
        sources = dict(outer)
        sources.update((state[j], t) for j, t in zip(given, carried, strict=True))
        mapping: dict[SSAValue, SSAValue] = dict(zip(block.args, state, strict=True))
        out = body.copy(block, mapping, [*sources], inline=False)
        values = out[1:] if block is before else out
        found = forward_walk_from(
            body.e, [values[j] for j in wanted], sources, body.within
        )
        out = body.yielded()
        values = out[1:] if block is before else out
        return out, [
            t if t is not None else body.e.zeros_like(values[j])
            for j, t in zip(wanted, found, strict=True)
        ]

    (condition, *values), found = side(first, before, entering, leaving)
    first.close(ConditionOp(condition, *values, *found))
    following, found = side(second, after, leaving, entering)
    second.close(YieldOp(*following, *found))
    return [
        loop.results[len(forwarded) + leaving.index(j)] if j in leaving else None
        for j in range(len(forwarded))
    ]


def _check_checkpointing(op: Operation) -> None:
    _checkpoint_policy(op)


register_derivative(
    ForOp, RegionDerivative(_for_reverse, _for_tangent, check=_check_checkpointing)
)
register_derivative(IfOp, RegionDerivative(_if_reverse, _if_tangent))
register_derivative(
    WhileOp,
    RegionDerivative(_while_reverse, _while_tangent, check=_check_checkpointing),
)
