"""One derivative function per callee and pattern, for every call site
(SPEC §11), in the manner of Enzyme's split mode:

- `@F__aug_P`: F's body, returning F's results and then the tape, the values
  of F's body that its reverse reads;
- `@F__rev_P`: F's arguments, the gradients of the results that have one (P
  says which, `1` or `0` per result) and the tape, to each share that an f32
  argument receives in F's own walk, in the order they arrive (the attribute
  `grad.shares` names the argument of each), which the caller's walk adds;
- `@F__fwd_P_Q`: F's body, returning F's results and then the tape of
  `@F__tan_P_Q`: F's arguments, the tangents of the arguments that have one
  (P, per argument) and the tape, to the tangents of the results that the
  walk needs (Q, per result) and that carry one (`grad.tangents` names them).

The call of F becomes a call of `@F__aug_P` (`@F__fwd_P_Q`), and the walk
calls `@F__rev_P` (`@F__tan_P_Q`) where it reaches the call: the derivative
reads the tape and never runs F's body again. Calls in F's body are
differentiated the same way, so nested calls give nested functions. The
functions are found again by name (and the `grad.derivative` attribute that
marks them), so every site, loop and pass over the module shares them; a
pair that a later walk inlines goes once nothing calls it.

In a loop body, whose reverse and tangent are made once per loop, every call
is differentiated so. Outside loops a call must have the bits of inlining it
(`has_inlining_bits`), and is inlined where they are not provable:

- Forward mode keeps every call. The tangent of each op is a fixed
  expression of its operands and their tangents, with no accumulation
  order, and the pair runs F's body once, in the call's place, and the
  tangent ops on the values it computed: the same ops on the same values as
  inlined, so a gradient of the jvp walks the same graph once the pair is
  inlined. Only which values carry a tangent could differ: the path takes
  each result of a call to depend on every argument, so an argument may
  carry a tangent that the needed results do not read (the tangent
  function leaves it unused), and a result that no argument with a tangent
  reaches gets none (not zeros: `t + 0.0` is not `t` for -0.0, `0.0 * inf`
  is NaN), as does an op none of whose inputs has one. The same value
  passed twice, a result that is an argument (its tangent passes through),
  arguments computed from each other or from tangents: all are values
  whose tangents the walk has made before the call, exactly as inlined.
- Reverse mode keeps a call when the walk meets its shares in the inlined
  order (`_meets_shares_in_order`): the walk's graph reaches one result of
  the call, which is not an argument, and no argument on the path sends a
  share to another from within the call's inlined span. A call whose walk
  reaches several results is inlined: the walk may enter the inlined body
  at several places, between which the caller's shares to the arguments (or
  to a result the body also reads) arrive, and the rev function, which gets
  every result's gradient at once, could not interleave them. So is a call
  whose reached result is an argument (the result's shares would reach the
  argument summed, not one by one) or whose arguments send shares to each
  other (they would arrive amid the callee's shares). The calls in the
  branches of an `scf.if` are inlined too (forward mode keeps them).
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.paths import (
    callee_of,
    differentiable_inputs,
    inputs_of,
    post_order,
)
from gradopt.autodiff.registry import InOrder, Renamed, Share, Tangent
from gradopt.autodiff.upstream import is_f32_value
from gradopt.autodiff.walks import (
    backward_walk_from,
    forward_walk_from,
    unfold_on_path,
    unmark,
)

MARK = "grad.derivative"
"""The attribute that marks a derivative function, naming its kind."""
SHARES = "grad.shares"
"""The attribute of a reverse function: the argument each result is a share
of, in the order the shares arrive in the callee's walk."""
TANGENTS = "grad.tangents"
"""The attribute of a tangent function: the result of the callee each result
is the tangent of."""


def _pattern(flags: Sequence[bool]) -> str:
    return "".join("1" if f else "0" for f in flags)


def _find(module: ModuleOp, name: str) -> FuncOp | None:
    for op in module.ops:
        if isinstance(op, FuncOp) and op.sym_name.data == name:
            return op
    return None


def _ours(module: ModuleOp, name: str) -> tuple[str, FuncOp | None]:
    """`name`, or `name` with `_` appended until no function of the module
    that is not a derivative function has it; the derivative function of
    that name if there is one."""
    while (found := _find(module, name)) is not None and MARK not in found.attributes:
        name += "_"
    return name, found


def _clone_body(
    callee: FuncOp, block: Block, arguments: Sequence[SSAValue], anchor: Operation
) -> list[SSAValue]:
    """Clone `callee`'s body before `anchor` in `block`, its arguments mapped
    to `arguments`; the values it returns."""
    body = callee.body.block
    values: dict[SSAValue, SSAValue] = dict(zip(body.args, arguments, strict=True))
    terminator = body.last_op
    assert terminator is not None
    for op in body.ops:
        if op is terminator:
            break
        block.insert_op_before(op.clone(value_mapper=values), anchor)
    return [values.get(v, v) for v in terminator.operands]


def _add(module: ModuleOp, after: FuncOp, function: FuncOp, kind: str) -> FuncOp:
    function.attributes[MARK] = StringAttr(kind)
    function.sym_visibility = StringAttr("private")
    module.body.block.insert_op_after(function, after)
    return function


def _module_of(op: Operation) -> ModuleOp:
    while not isinstance(op, ModuleOp):
        parent = op.parent_op()
        assert parent is not None
        op = parent
    return op


Kind = tuple[str, str]
"""A derivative function's name part and its `grad.derivative` mark."""


def _begin(
    callee: FuncOp, kinds: tuple[Kind, Kind], code: str, extra: Sequence[Attribute]
) -> tuple[FuncOp, FuncOp, bool]:
    """The primal and derivative functions `@F__<part>_<code>` of `kinds`,
    and whether they were made before. Otherwise they are begun, in the
    module from the start (the calls in the body look their callees up): the
    primal's block holds a copy of F's body before a return of its results,
    the derivative's takes F's arguments and `extra`, and holds a return to
    emit before; `_close` completes them."""
    name = callee.sym_name.data
    module = _module_of(callee)
    (first, first_kind), (second, second_kind) = kinds
    primal_name, primal = _ours(module, f"{name}__{first}_{code}")
    derivative_name, derivative = _ours(module, f"{name}__{second}_{code}")
    if primal is not None and derivative is not None:
        return primal, derivative, True
    inputs = list(callee.function_type.inputs.data)
    source = Block(arg_types=inputs)
    held = ReturnOp()
    source.add_op(held)
    target = Block(arg_types=[*inputs, *extra])
    placeholder = ReturnOp()
    placeholder.location = callee.location
    target.add_op(placeholder)
    primal = FuncOp(primal_name, ([], []), Region(source))
    derivative = FuncOp(derivative_name, ([], []), Region(target))
    _add(module, callee, primal, first_kind)
    _add(module, primal, derivative, second_kind)
    held.operands = _clone_body(callee, source, source.args, held)
    return primal, derivative, False


def _close(primal: FuncOp, derivative: FuncOp, returned: Sequence[SSAValue]) -> None:
    """Complete a pair that `_begin` began once the walk has emitted the
    derivative's ops: the values of the primal's block that they read (the
    tape) become the derivative's arguments after those it has, and the
    primal returns them after F's results; the derivative returns
    `returned`."""
    source, target = primal.body.block, derivative.body.block
    held, placeholder = source.last_op, target.last_op
    assert isinstance(held, ReturnOp) and isinstance(placeholder, ReturnOp)
    tape = _tape(source, target, returned)
    moved: dict[SSAValue, SSAValue] = dict(
        zip(source.args, target.args[: len(source.args)], strict=True)
    )
    taped = [v for v in tape if v not in moved]
    moved.update((v, target.insert_arg(v.type, len(target.args))) for v in taped)
    for old, new in moved.items():
        _redirect(old, target, new)
    results = list(held.operands)  # the walk replaced the calls in the body
    held.detach()
    held.erase()
    source.add_op(ReturnOp(*results, *taped))
    placeholder.detach()
    placeholder.erase()
    target.add_op(ReturnOp(*(moved.get(v, v) for v in returned)))
    primal.function_type = FunctionType.from_lists(
        source.arg_types, [v.type for v in (*results, *taped)]
    )
    derivative.function_type = FunctionType.from_lists(
        target.arg_types, [v.type for v in returned]
    )


def _split(
    callee: FuncOp, wanted: Sequence[bool], constants: Emitter
) -> tuple[FuncOp, FuncOp]:
    """`@F__aug_P` and `@F__rev_P` for the results `wanted` (made once)."""
    outputs = list(callee.function_type.outputs.data)
    gradients = [t for t, w in zip(outputs, wanted, strict=True) if w]
    aug, rev, found = _begin(
        callee, (("aug", "augmented"), ("rev", "reverse")), _pattern(wanted), gradients
    )
    if found:
        return aug, rev
    primal, reverse = aug.body.block, rev.body.block
    held, placeholder = primal.last_op, reverse.last_op
    assert held is not None and placeholder is not None
    sources = [a for a in primal.args if is_f32_value(a.type)]
    kept = unfold_on_path(lambda: held.operands, lambda: sources, reverse=True)
    results = list(held.operands)
    seeds = [
        (r, _given(g))
        for r, g in zip(
            [r for r, w in zip(results, wanted, strict=True) if w],
            reverse.args[len(primal.args) :],
            strict=True,
        )
    ]
    arrivals: list[tuple[SSAValue, SSAValue]] = []
    try:
        backward_walk_from(constants.at(placeholder), seeds, sources, arrivals=arrivals)
    finally:
        unmark(kept)
    _close(aug, rev, [share for _, share in arrivals])
    positions = [primal.args.index(a) for a, _ in arrivals]
    rev.attributes[SHARES] = ArrayAttr(IntegerAttr(k, i64) for k in positions)
    return aug, rev


def _given(value: SSAValue) -> Share:
    return lambda: value


def _inside(op: Operation, block: Block) -> bool:
    while op.parent is not None:
        if op.parent is block:
            return True
        parent = op.parent_op()
        if parent is None:
            return False
        op = parent
    return False


def _tape(
    primal: Block, reverse: Block, returned: Sequence[SSAValue]
) -> list[SSAValue]:
    """The values of `primal` (its arguments, its ops' results) that the ops
    of `reverse` read or it returns, in order of first use."""
    made: set[SSAValue] = set(primal.args)
    for op in primal.ops:
        made.update(op.results)
    read = [v for op in reverse.walk() for v in op.operands if v in made]
    read += [v for v in returned if v in made]
    return list(dict.fromkeys(read))


def _redirect(value: SSAValue, block: Block, replacement: SSAValue) -> None:
    """Make the ops in `block` (at any depth) read `replacement` for `value`."""
    for use in list(value.uses):
        if _inside(use.operation, block):
            use.operation.operands[use.index] = replacement


def has_inlining_bits(
    op: Operation,
    reached: Container[SSAValue],
    path: Container[SSAValue],
    forward: bool,
) -> bool:
    """Whether the call `op` outside loops, differentiated by its functions
    (in forward mode if `forward`), has the bits of inlining it, given the
    values that the walk's graph `reached` and those on its `path`.
    Otherwise the call is inlined."""
    assert isinstance(op, CallOp)
    callee = callee_of(op)
    if not isinstance(callee, FuncOp):
        return False
    return forward or _meets_shares_in_order(op, callee, reached, path)


def _meets_shares_in_order(
    op: CallOp,
    callee: FuncOp,
    reached: Container[SSAValue],
    path: Container[SSAValue],
) -> bool:
    """Whether the walk meets the shares of the call's reverse function in the
    inlined order (SPEC §5.2). The walk's graph must reach one result of the
    call only (it enters the inlined body through it alone, so the body's own
    walk order is the inlined one and that result gets shares from outside
    only), not one of the callee's arguments (its shares would reach the
    argument summed), and no argument may send a share to another from
    within the call's inlined span: the walk would add it between the
    callee's shares, which arrive at the call's place at once."""
    results = [r for r in op.results if r in reached]
    terminator = callee.body.block.last_op
    if (
        len(results) != 1
        or terminator is None
        or isinstance(terminator.operands[results[0].index], BlockArgument)
    ):
        return False
    active = {a for a in op.arguments if a in path}
    return not any(
        value in path and active.intersection(differentiable_inputs(value))
        for argument in active
        for value in post_order(argument, inputs_of)
    )


def _replace_call(op: CallOp, function: FuncOp) -> CallOp:
    """Replace the call `op` by a call of `function` on the same arguments,
    which returns `op`'s results and then a tape."""
    augmented = CallOp(
        function.sym_name.data, op.arguments, function.function_type.outputs.data
    )
    augmented.location = op.location
    Rewriter.insert_op(augmented, InsertPoint.before(op))
    for old, new in zip(op.results, augmented.results, strict=False):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()
    return augmented


def call_reverse(
    e: Emitter, op: Operation, gradients: Sequence[SSAValue | None]
) -> Sequence[Share | None] | InOrder:
    """Replace the call of F by one of `@F__aug_P` (F's results and its
    tape) and call `@F__rev_P` from the walk: a share per f32 argument."""
    assert isinstance(op, CallOp)
    callee = callee_of(op)
    assert isinstance(callee, FuncOp)
    aug, rev = _split(callee, [g is not None for g in gradients], e)
    arguments, count = list(op.arguments), len(op.results)
    augmented = _replace_call(op, aug)
    given = [g for g in gradients if g is not None]
    reverse = CallOp(
        rev.sym_name.data,
        [*arguments, *given, *augmented.results[count:]],
        rev.function_type.outputs.data,
    )
    e.insert(reverse)
    positions = rev.attributes[SHARES]
    assert isinstance(positions, ArrayAttr)
    return InOrder(
        (arguments[k.value.data], _given(share))
        for k, share in zip(positions.data, reverse.results, strict=True)
        if isinstance(k, IntegerAttr)
    )


def call_tangent(
    e: Emitter, op: Operation, tangents: Sequence[Tangent]
) -> Sequence[Tangent]:
    """Replace the call of F by one of `@F__fwd_P_Q` (F's results and the
    tape of its tangents) and call `@F__tan_P_Q` with the arguments, the
    tangents that are given and the tape: the tangents of those of F's
    results on the walk's path that carry one."""
    assert isinstance(op, CallOp)
    callee = callee_of(op)
    assert isinstance(callee, FuncOp)
    given = [
        t is not None and is_f32_value(a.type)
        for a, t in zip(op.arguments, tangents, strict=True)
    ]
    wanted = [
        is_f32_value(r.type) and (e.path is None or r in e.path) for r in op.results
    ]
    found: list[Tangent] = [None] * len(op.results)
    pair = _forward_split(callee, given, wanted, e)
    if pair is None:
        return found
    fwd, tan = pair
    arguments, count = list(op.arguments), len(op.results)
    augmented = _replace_call(op, fwd)
    call = CallOp(
        tan.sym_name.data,
        [
            *arguments,
            *(t for t, g in zip(tangents, given, strict=True) if g and t is not None),
            *augmented.results[count:],
        ],
        tan.function_type.outputs.data,
    )
    e.insert(call)
    carried = tan.attributes[TANGENTS]
    assert isinstance(carried, ArrayAttr)
    for k, t in zip(carried.data, call.results, strict=True):
        if isinstance(k, IntegerAttr):
            found[k.value.data] = t
    return Renamed(found, augmented.results[:count])


def _forward_split(
    callee: FuncOp, given: Sequence[bool], wanted: Sequence[bool], constants: Emitter
) -> tuple[FuncOp, FuncOp] | None:
    """`@F__fwd_P_Q` and `@F__tan_P_Q` for the arguments `given` a tangent and
    the results `wanted` (made once), the tangent function giving those of
    the wanted results that carry one (`grad.tangents` names them); None if
    none does."""
    inputs = list(callee.function_type.inputs.data)
    fwd, tan, found = _begin(
        callee,
        (("fwd", "forward"), ("tan", "tangent")),
        f"{_pattern(given)}_{_pattern(wanted)}",
        [t for t, g in zip(inputs, given, strict=True) if g],
    )
    if found:
        return fwd, tan
    primal, block = fwd.body.block, tan.body.block
    held, placeholder = primal.last_op, block.last_op
    assert held is not None and placeholder is not None
    sources: dict[SSAValue, SSAValue] = dict(
        zip(
            [a for a, g in zip(primal.args, given, strict=True) if g],
            block.args[len(inputs) :],
            strict=True,
        )
    )
    indices = [k for k, w in enumerate(wanted) if w]
    tangents = forward_walk_from(
        constants.at(placeholder), [held.operands[k] for k in indices], sources
    )
    carried = [(k, t) for k, t in zip(indices, tangents, strict=True) if t is not None]
    if not carried:
        _erase(tan)
        _erase(fwd)
        return None
    _close(fwd, tan, [t for _, t in carried])
    tan.attributes[TANGENTS] = ArrayAttr(IntegerAttr(k, i64) for k, _ in carried)
    return fwd, tan


def _erase(function: FuncOp) -> None:
    """Erase the derivative function `function`, then the derivative
    functions it called that nothing else calls."""
    module = _module_of(function)
    inner = {
        op.callee.string_value() for op in function.walk() if isinstance(op, CallOp)
    }
    function.detach()
    function.erase()
    called = {
        op.callee.string_value() for op in module.walk() if isinstance(op, CallOp)
    }
    for op in list(module.ops):
        if (
            isinstance(op, FuncOp)
            and MARK in op.attributes
            and op.sym_name.data in inner - called
        ):
            _erase(op)


def erase_if_unused(function: Operation) -> None:
    """Erase `function` if it is a derivative function that no call calls
    any more (a walk inlined its calls), and the derivative functions that
    only it called."""
    if not isinstance(function, FuncOp) or MARK not in function.attributes:
        return
    name = function.sym_name.data
    if not any(
        isinstance(op, CallOp) and op.callee.string_value() == name
        for op in _module_of(function).walk()
    ):
        _erase(function)
