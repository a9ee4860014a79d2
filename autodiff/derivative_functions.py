"""One derivative function per callee and pattern, for every call site
(SPEC §11), in the manner of Enzyme's split mode:

- `@F__aug_P`: F's body, returning F's results and then the tape, the values
  of F's body that its reverse reads;
- `@F__rev_P`: F's arguments, the gradients of the results that have one (P
  says which, `1` or `0` per result) and the tape, to each share that an f32
  argument receives in F's own walk, in the order they arrive (the attribute
  `grad.shares` names the argument of each), which the caller's walk adds;
- `@F__tan_P_Q`: F's arguments and the tangents of the arguments that have
  one (P, per argument), to the tangents of the results that the walk needs
  (Q, per result) and that carry one (`grad.tangents` names them): the part
  of F's body that the tangents read, run again, then the tangents.

The call of F becomes a call of `@F__aug_P` and the walk calls `@F__rev_P`
where it reaches the call; forward mode leaves the call and calls
`@F__tan_P_Q`. Calls in F's body are differentiated the same way, so nested
calls give nested functions. The functions are found again by name (and the
`grad.derivative` attribute that marks them), so every site, loop and pass
over the module shares them.

In a loop body, whose reverse and tangent are made once per loop, every call
is differentiated so. Outside loops a call must have the bits of inlining it
(`has_inlining_bits`), and is inlined where they are not provable:

- Forward mode keeps every call whose callee `_reruns_alike`, as the tangent
  of each op is a fixed expression of its operands and their tangents, with
  no accumulation order: the function has the operands' bits, and it gives a
  tangent to exactly the values that the inlined walk gives one. The path
  takes each result of a call to depend on every argument, so an argument may
  carry a tangent that the needed results do not read (the function leaves
  it unused), and a result that no argument with a tangent reaches gets
  none (not zeros: `t + 0.0` is not `t` for -0.0, `0.0 * inf` is NaN), as
  does an op none of whose inputs has one. The same value
  passed twice, a result that is an argument (its tangent passes through),
  arguments computed from each other or from tangents: all are values whose
  tangents the walk has already made, exactly as inlined. A callee that reads
  or writes memory (a load run again could see a later store) or holds an
  unexpanded differentiation op is inlined.
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
  other (they would arrive amid the callee's shares).
"""

from __future__ import annotations

from collections.abc import Container, Sequence

from xdsl.dialects.builtin import (
    ArrayAttr,
    FunctionType,
    IntegerAttr,
    MemRefType,
    ModuleOp,
    StringAttr,
    i64,
)
from xdsl.dialects.func import CallOp, FuncOp, ReturnOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, Region, SSAValue
from xdsl.rewriter import InsertPoint, Rewriter
from xdsl.traits import MemoryEffect, RecursiveMemoryEffect

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.paths import (
    callee_of,
    differentiable_inputs,
    inputs_of,
    post_order,
)
from gradopt.autodiff.registry import InOrder, Share, Tangent
from gradopt.autodiff.upstream import is_f32_value
from gradopt.autodiff.walks import (
    backward_walk_from,
    forward_walk_from,
    unfold_on_path,
    unmark,
)
from gradopt.dialect.differentiation import DifferentiationOp

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


def _split(
    callee: FuncOp, wanted: Sequence[bool], constants: Emitter
) -> tuple[FuncOp, FuncOp]:
    """`@F__aug_P` and `@F__rev_P` for the results `wanted` (made once)."""
    name = callee.sym_name.data
    module = _module_of(callee)
    code = _pattern(wanted)
    aug_name, aug = _ours(module, f"{name}__aug_{code}")
    rev_name, rev = _ours(module, f"{name}__rev_{code}")
    if aug is not None and rev is not None:
        return aug, rev
    inputs = list(callee.function_type.inputs.data)
    outputs = list(callee.function_type.outputs.data)
    gradients = [t for t, w in zip(outputs, wanted, strict=True) if w]
    primal = Block(arg_types=inputs)
    held = ReturnOp()
    primal.add_op(held)
    reverse = Block(arg_types=[*inputs, *gradients])
    placeholder = ReturnOp()
    placeholder.location = callee.location
    reverse.add_op(placeholder)
    # in the module from the start: the calls in the body look their callees up
    aug = _add(module, callee, FuncOp(aug_name, ([], []), Region(primal)), "augmented")
    rev = _add(module, aug, FuncOp(rev_name, ([], []), Region(reverse)), "reverse")
    held.operands = _clone_body(callee, primal, primal.args, held)
    sources = [a for a in primal.args if is_f32_value(a.type)]
    kept = unfold_on_path(lambda: held.operands, lambda: sources, reverse=True)
    results = list(held.operands)
    e = constants.at(placeholder)
    seeds = [
        (r, _given(g))
        for r, g in zip(
            [r for r, w in zip(results, wanted, strict=True) if w],
            reverse.args[len(inputs) :],
            strict=True,
        )
    ]
    arrivals: list[tuple[SSAValue, SSAValue]] = []
    try:
        backward_walk_from(e, seeds, sources, arrivals=arrivals)
    finally:
        unmark(kept)
    shares = [share for _, share in arrivals]
    tape = _tape(primal, reverse, shares)
    moved: dict[SSAValue, SSAValue] = dict(
        zip(primal.args, reverse.args[: len(inputs)], strict=True)
    )
    taped = [v for v in tape if v not in moved]
    moved.update((v, reverse.insert_arg(v.type, len(reverse.args))) for v in taped)
    for old, new in moved.items():
        _redirect(old, reverse, new)
    results = list(held.operands)  # the walk replaced the calls in the body
    held.detach()
    held.erase()
    primal.add_op(ReturnOp(*results, *taped))
    placeholder.detach()
    placeholder.erase()
    reverse.add_op(ReturnOp(*(moved.get(v, v) for v in shares)))
    aug.function_type = FunctionType.from_lists(
        inputs, [*outputs, *(v.type for v in taped)]
    )
    rev.function_type = FunctionType.from_lists(
        reverse.arg_types, [s.type for s in shares]
    )
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
    if forward:
        return all(_reruns_alike(inner, {callee}) for inner in callee.body.block.ops)
    return _meets_shares_in_order(op, callee, reached, path)


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


def _reruns_alike(op: Operation, checking: set[FuncOp]) -> bool:
    """Whether running `op` again gives the same results and does nothing
    else: neither it nor an op in its regions or in a function it calls reads
    or writes memory (it says so, or says nothing and touches a memref) or
    is an unexpanded differentiation op (`checking`: the functions whose
    check is under way, which a call cycle finds again)."""
    for inner in op.walk():
        if isinstance(inner, DifferentiationOp):
            return False
        if isinstance(inner, CallOp):
            callee = callee_of(inner)
            if not isinstance(callee, FuncOp):
                return False
            if callee not in checking:
                checking.add(callee)
                if not all(_reruns_alike(o, checking) for o in callee.body.block.ops):
                    return False
            continue
        own = [
            t
            for t in inner.get_traits_of_type(MemoryEffect)
            if not isinstance(t, RecursiveMemoryEffect)
        ]
        if (
            any(t.get_effects(inner) != set() for t in own)
            if own
            else any(
                isinstance(v.type, MemRefType)
                for v in (*inner.operands, *inner.results)
            )
        ):
            return False
    return True


def call_reverse(
    e: Emitter, op: Operation, gradients: Sequence[SSAValue | None]
) -> Sequence[Share | None] | InOrder:
    """Replace the call of F by one of `@F__aug_P` (F's results and its
    tape) and call `@F__rev_P` from the walk: a share per f32 argument."""
    assert isinstance(op, CallOp)
    callee = callee_of(op)
    assert isinstance(callee, FuncOp)
    wanted = [g is not None for g in gradients]
    aug, rev = _split(callee, wanted, e)
    outputs = aug.function_type.outputs.data
    augmented = CallOp(aug.sym_name.data, op.arguments, outputs)
    augmented.location = op.location
    Rewriter.insert_op(augmented, InsertPoint.before(op))
    count = len(op.results)
    for old, new in zip(op.results, augmented.results[:count], strict=True):
        old.replace_all_uses_with(new)
    arguments = list(op.arguments)
    op.detach()
    op.erase()
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
    """Call `@F__tan_P_Q` with the arguments and the tangents that are given:
    the tangents of those of F's results on the walk's path that carry one."""
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
    function = _tangent_function(callee, given, wanted, e)
    found: list[Tangent] = [None] * len(op.results)
    if function is None:
        return found
    call = CallOp(
        function.sym_name.data,
        [
            *op.arguments,
            *(t for t, g in zip(tangents, given, strict=True) if g and t is not None),
        ],
        function.function_type.outputs.data,
    )
    e.insert(call)
    carried = function.attributes[TANGENTS]
    assert isinstance(carried, ArrayAttr)
    for k, t in zip(carried.data, call.results, strict=True):
        if isinstance(k, IntegerAttr):
            found[k.value.data] = t
    return found


def _tangent_function(
    callee: FuncOp, given: Sequence[bool], wanted: Sequence[bool], constants: Emitter
) -> FuncOp | None:
    """`@F__tan_P_Q` for the arguments `given` a tangent and the results
    `wanted` (made once): F's body and the tangents of the wanted results
    that carry one, which the attribute `grad.tangents` names; the body's
    ops that no tangent reads and that `_reruns_alike` are left out. None
    if no wanted result carries a tangent."""
    module = _module_of(callee)
    code = f"{_pattern(given)}_{_pattern(wanted)}"
    name, found = _ours(module, f"{callee.sym_name.data}__tan_{code}")
    if found is not None:
        return found
    inputs: list[Attribute] = list(callee.function_type.inputs.data)
    block = Block(
        arg_types=[*inputs, *(t for t, g in zip(inputs, given, strict=True) if g)]
    )
    placeholder = ReturnOp()
    placeholder.location = callee.location
    block.add_op(placeholder)
    function = _add(module, callee, FuncOp(name, ([], []), Region(block)), "tangent")
    results = _clone_body(callee, block, block.args[: len(inputs)], placeholder)
    e = constants.at(placeholder)
    sources: dict[SSAValue, SSAValue] = dict(
        zip(
            [a for a, g in zip(block.args, given, strict=False) if g],
            block.args[len(inputs) :],
            strict=True,
        )
    )
    indices = [k for k, w in enumerate(wanted) if w]
    tangents = forward_walk_from(e, [results[k] for k in indices], sources)
    carried = [(k, t) for k, t in zip(indices, tangents, strict=True) if t is not None]
    if not carried:
        _erase(function)
        return None
    placeholder.detach()
    placeholder.erase()
    block.add_op(ReturnOp(*(t for _, t in carried)))
    for op in reversed(list(block.ops)[:-1]):
        if not any(r.uses for r in op.results) and _reruns_alike(op, set()):
            op.detach()
            op.erase()
    function.function_type = FunctionType.from_lists(
        block.arg_types, [t.type for _, t in carried]
    )
    function.attributes[TANGENTS] = ArrayAttr(IntegerAttr(k, i64) for k, _ in carried)
    return function


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
