"""Which ops lie between a loss and its targets: the post-order both walks use,
and the validity rules of SPEC §4 that the differentiation ops verify.

The check starts from the loss and only looks at what the loss depends on
through f32 values (plus memory edges and values captured by regions); among
those, only ops that a target's influence flows through need a rule, and only
computed targets are value-numbered against them (rule 6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import FileLineColLoc, StringAttr
from xdsl.dialects.func import CallOp
from xdsl.dialects.scf import ForOp, WhileOp
from xdsl.ir import Attribute, Block, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import ConstantLike, SymbolTable, is_side_effect_free

from gradopt.autodiff.registry import (
    Derivative,
    RegionDerivative,
    derivative_of,
    why_no_rule,
)
from gradopt.autodiff.upstream import is_dynamic, is_f32_value
from gradopt.dialect.differentiation import DifferentiationOp, JvpOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import LoadOp, ReduceOp, StoreOp
from gradopt.dialect.verifier import verification_memo

Inputs = Callable[[SSAValue], Sequence[SSAValue]]

Calls = tuple[tuple[Operation, Operation], ...]
"""The calls a check looks into, outermost first, each with its callee."""


def operands_of(value: SSAValue) -> Sequence[SSAValue]:
    """The SSA operands of the op defining `value` (none for a block argument)."""
    return value.op.operands if isinstance(value, OpResult) else ()


def has_joint_rule(op: Operation) -> bool:
    """Whether `op`'s results are differentiated together, by rules that read
    the values its regions capture as inputs (`scf.for`, `scf.if`, ...)."""
    derivative = derivative_of(op)
    return isinstance(derivative, RegionDerivative) and derivative.reverse is not None


def inputs_of(value: SSAValue) -> Sequence[SSAValue]:
    """What the walks take `value` to depend on: its op's operands, and the
    values captured by the regions of an op with a joint rule or with rules
    that take them (`Derivative.captures`)."""
    if not isinstance(value, OpResult):
        return ()
    op = value.op
    if op.regions and (has_joint_rule(op) or _takes_captured(op)):
        return [*op.operands, *captured(op)]
    if (
        isinstance(op, CallOp)
        and KEPT in op.attributes
        and (callee := callee_of(op)) is not None
    ):
        return _reached_arguments(op, callee, value.index)
    return op.operands


KEPT = "grad.kept"
"""A unit attribute on a call on a path that a reverse walk differentiates by
its functions rather than inlined (`unfold_on_path` sets it, its rule erases
the call, the walk's caller takes it off the calls left): the walk takes their
arguments in the order the inlined body reaches them (from the one result that
the walk's graph reaches, `has_inlining_bits`). On the op, not in a
module-level set: an expansion that fails partway leaves no stale entry, and
two expansions share nothing."""


def _reached_arguments(call: CallOp, callee: Operation, result: int) -> list[SSAValue]:
    """A call's arguments in the order in which the walk of its inlined body
    first reaches them from the call's `result` (SPEC §11: the walk meets the
    callee's shares as the inlined body would give them), those it never
    reaches left out."""
    body = callee.regions[0].blocks.first if callee.regions else None
    if body is None or body.last_op is None:
        return list(call.operands)
    order = post_order(body.last_op.operands[result], inputs_of)
    position: dict[SSAValue, int] = {a: k for k, a in enumerate(body.args)}
    return [call.operands[position[v]] for v in order if v in position]


def _takes_captured(op: Operation) -> bool:
    derivative = derivative_of(op)
    return isinstance(derivative, Derivative) and derivative.captures


def post_order(root: SSAValue, inputs: Inputs = operands_of) -> list[SSAValue]:
    """Depth first from `root`, inputs left to right, each value once, a value
    after its inputs (SPEC §5.2 step 1). Iterative: graphs can be deep."""
    order: list[SSAValue] = []
    seen = {root}
    stack = [(root, iter(inputs(root)))]
    while stack:
        value, pending = stack[-1]
        for input in pending:
            if input not in seen:
                seen.add(input)
                stack.append((input, iter(inputs(input))))
                break
        else:
            stack.pop()
            order.append(value)
    return order


def depends_on(
    order: Iterable[SSAValue], sources: set[SSAValue], inputs: Inputs
) -> set[SSAValue]:
    """The values of `order` (a post-order) that are sources or have an input
    that depends on one."""
    reached: set[SSAValue] = set()
    for value in order:
        if value in sources or any(i in reached for i in inputs(value)):
            reached.add(value)
    return reached


def _cuts_path(op: Operation) -> bool:
    """Whether no derivative flows through `op` (`grad.detach`, dead ends)."""
    derivative = derivative_of(op)
    return derivative is not None and not derivative.passes


def differentiable_inputs(value: SSAValue) -> Sequence[SSAValue]:
    """The f32 operands a gradient could flow through to `value` (SSA only)."""
    if not is_f32_value(value.type) or not isinstance(value, OpResult):
        return ()
    if _cuts_path(value.op):
        return ()
    return [o for o in inputs_of(value) if is_f32_value(o.type)]


def captured(op: Operation) -> list[SSAValue]:
    """The values that ops inside `op`'s regions read but that are defined
    outside them, in order of first use."""
    inner = [o for region in op.regions for o in region.walk()]
    defined: set[SSAValue] = {
        a for region in op.regions for b in region.blocks for a in b.args
    }
    for o in inner:
        defined.update(o.results)
        defined.update(a for r in o.regions for b in r.blocks for a in b.args)
    return list(dict.fromkeys(v for o in inner for v in o.operands if v not in defined))


def _function_of(op: Operation) -> Operation:
    while (parent := op.parent_op()) is not None and parent.parent_op() is not None:
        op = parent
    return op


def _in_one_loop(a: Operation, b: Operation) -> bool:
    """Whether a loop holds both ops: then each can follow the other (SPEC
    §11: a load observes a store of the same iteration or a later one)."""
    loops = set()
    op: Operation | None = a
    while (op := op.parent_op()) is not None:
        if isinstance(op, ForOp | WhileOp):
            loops.add(op)
    op = b
    while (op := op.parent_op()) is not None:
        if op in loops:
            return True
    return False


class _Dependence:
    """What a value depends on for validity: f32 operands, values captured by
    regions, and memory edges (a store into a slot reaches the later loads of
    that slot in the same function)."""

    def __init__(self, local: set[SSAValue] | None = None) -> None:
        self._local = local
        """If given, the values to look through (the others are leaves)."""
        self._program_order: dict[Operation, dict[Operation, int]] = {}
        self._inputs: dict[SSAValue, Sequence[SSAValue]] = {}
        self.stores: dict[SSAValue, StoreOp] = {}

    def _position(self, op: Operation) -> int:
        function = _function_of(op)
        if function not in self._program_order:
            self._program_order[function] = {
                o: i for i, o in enumerate(function.walk())
            }
        return self._program_order[function][op]

    def earlier_stores(self, load: LoadOp) -> list[StoreOp]:
        stores = [
            use.operation
            for use in load.slot.uses
            if isinstance(use.operation, StoreOp) and use.index == 1
        ]
        if not stores:
            return []
        position = self._position(load)
        return [
            s
            for s in stores
            if _function_of(s) is _function_of(load)
            and (self._position(s) < position or _in_one_loop(s, load))
        ]

    def later_stores(
        self, slot: SSAValue, start: Operation, end: Operation
    ) -> list[StoreOp]:
        """The stores into `slot` at or after `start` in its function, and
        before `end` if `end` is in that function too."""
        function = _function_of(start)
        first = self._position(start)
        last = self._position(end) if _function_of(end) is function else None
        return [
            use.operation
            for use in slot.uses
            if isinstance(use.operation, StoreOp)
            and use.index == 1
            and _function_of(use.operation) is function
            and first <= self._position(use.operation)
            and (last is None or self._position(use.operation) < last)
        ]

    def __call__(self, value: SSAValue) -> Sequence[SSAValue]:
        if (known := self._inputs.get(value)) is None:
            known = self._inputs[value] = self._compute(value)
        return known

    def _compute(self, value: SSAValue) -> Sequence[SSAValue]:
        if not is_f32_value(value.type) or not isinstance(value, OpResult):
            return ()
        if self._local is not None and value not in self._local:
            return ()
        op = value.op
        if _cuts_path(op):
            return ()
        inputs = list(op.operands)
        if op.regions:
            inputs += captured(op)
        if isinstance(op, LoadOp):
            for store in self.earlier_stores(op):
                self.stores.setdefault(store.value, store)
                inputs.append(store.value)
        return [i for i in inputs if is_f32_value(i.type)]


def _body_inputs(loop: ForOp) -> Inputs:
    """All SSA inputs of values computed inside `loop`'s body."""
    inside = set(loop.body.walk())

    def inputs(value: SSAValue) -> Sequence[SSAValue]:
        if not isinstance(value, OpResult) or value.op not in inside:
            return ()
        return [*value.op.operands, *(captured(value.op) if value.op.regions else ())]

    return inputs


def _loop_dependence(op: Operation, roots: Sequence[SSAValue]) -> ForOp | None:
    """The innermost `scf.for` around `op` whose induction variable or iteration
    arguments one of `roots` depends on."""
    loop = op.parent_op()
    while loop is not None:
        if isinstance(loop, ForOp):
            body, inputs = loop.body.block, _body_inputs(loop)
            for root in roots:
                if any(
                    isinstance(v, BlockArgument) and v.block is body
                    for v in post_order(root, inputs)
                ):
                    return loop
        loop = loop.parent_op()
    return None


def check_differentiable(
    op: DifferentiationOp,
    loss: SSAValue,
    targets: Sequence[SSAValue],
    extra_roots: Sequence[SSAValue] = (),
) -> None:
    """SPEC §4 rules 2-5 for `op`: targets are non-literal f32 tensors, nothing
    depends on an open loop range, and every op on the path has a rule."""
    for i, target in enumerate(targets):
        if not is_f32_value(target.type):
            raise OpError(
                op, f"target must be an f32 tensor, got {target.type} (target {i})"
            )
        if isinstance(target, OpResult) and target.op.has_trait(ConstantLike):
            raise OpError(
                op,
                "cannot differentiate with respect to a literal (target "
                f"{i} is defined by '{target.op.name}')",
                [(target.op, "the literal is here")],
            )
    if op.control_flow is None and (
        loop := _loop_dependence(op, [loss, *targets, *extra_roots])
    ):
        raise OpError(
            op,
            "depends on an open loop range (the induction variable or iteration "
            "arguments of an enclosing 'scf.for')",
            [(loop, "the loop is here")],
        )
    _check_path(op, loss, targets)


class ValueNumbering:
    """Value numbers as `cse` run to a fixed point would give them: two values
    get one number when their ops have the same name, properties, attributes
    and result types, the same result index, and operands of equal numbers
    (SPEC §4 rule 6). Only side-effect-free ops without regions are merged by
    `cse` here; any other value is a number of its own.

    Each value is numbered once, however many losses and targets ask, so one
    verification of a module hash-conses each graph once."""

    def __init__(self) -> None:
        self._numbers: dict[SSAValue, int] = {}
        self._keys: dict[tuple[object, ...], int] = {}

    def __call__(self, value: SSAValue) -> int:
        if (known := self._numbers.get(value)) is not None:
            return known
        for v in post_order(value, self._unnumbered_operands):
            if v not in self._numbers:
                self._numbers[v] = self._number(v)
        return self._numbers[value]

    def _unnumbered_operands(self, value: SSAValue) -> Sequence[SSAValue]:
        if not (isinstance(value, OpResult) and mergeable(value.op)):
            return ()
        return [o for o in value.op.operands if o not in self._numbers]

    def _number(self, value: SSAValue) -> int:
        operands = value.op.operands if isinstance(value, OpResult) else ()
        if not (isinstance(value, OpResult) and mergeable(value.op)) or any(
            o not in self._numbers for o in operands
        ):  # an operand still unnumbered lies on a cycle: invalid IR, left to
            # the dominance check; the value is a number of its own
            return self._keys.setdefault(("unique", value), len(self._keys))
        op = value.op
        key = (
            op.name,
            _sorted_items(op.properties),
            _sorted_items(op.attributes),
            op.result_types,
            tuple(self._numbers[o] for o in op.operands),
            value.index,
        )
        return self._keys.setdefault(key, len(self._keys))


def _sorted_items(attributes: dict[str, Attribute]) -> tuple[object, ...]:
    return tuple((name, attributes[name]) for name in sorted(attributes))


def mergeable(op: Operation) -> bool:
    """Whether `cse` may merge `op` with an equal op: it has no side effect and
    no region (an op with regions is left alone by this numbering)."""
    return not op.regions and is_side_effect_free(op)


class _Shared:
    """What one verification of a module computes once for all its
    differentiation ops: the losses whose paths are checked, the value
    numbering, and each loss's values by number."""

    def __init__(self) -> None:
        self.checked: set[SSAValue] = set()
        self.numbering = ValueNumbering()


def _check_path(
    op: DifferentiationOp, loss: SSAValue, targets: Sequence[SSAValue]
) -> None:
    shared = verification_memo(_Shared)
    if shared is None:
        return _check_graph(op, loss, targets, ValueNumbering())
    checked, numbering = shared.checked, shared.numbering
    if loss in checked:
        return
    users = {u.operation for u in loss.uses if u.index == 0}
    together = [
        t
        for user in users
        if isinstance(user, DifferentiationOp)
        for t in user.differentiated
    ]
    try:
        _check_graph(op, loss, together, numbering)
    except OpError:
        _check_graph(op, loss, targets, numbering)
        return
    checked.add(loss)


def _check_graph(
    op: DifferentiationOp,
    loss: SSAValue,
    targets: Sequence[SSAValue],
    numbering: ValueNumbering,
) -> None:
    """Rules 5 and 6 for `targets` of `op`, in one walk of the loss's graph."""
    inputs = _Dependence()
    order = post_order(loss, inputs)
    _find_rule_less_op(op, order, inputs, targets)
    _find_twin(op, order, targets, numbering)


def _find_rule_less_op(
    op: DifferentiationOp,
    order: Sequence[SSAValue],
    inputs: _Dependence,
    targets: Sequence[SSAValue],
    calls: Calls = (),
) -> None:
    """Raise an error on `op` if an op without a rule lies between `targets`
    and the loss (`order`: the post-order of what it depends on), inside the
    calls and regions on that path too (`calls`: the calls being looked
    into, outermost first)."""
    reached = depends_on(order, set(targets), inputs)
    for value in order:
        if value in reached and is_dynamic(value.type):
            notes = (
                [(value.op, "it is made here")] if isinstance(value, OpResult) else []
            )
            raise OpError(
                op,
                f"dynamic shapes are not supported: {value.type} lies on the path "
                "from the target to the loss",
                notes,
            )
        if not isinstance(value, OpResult) or not any(
            i in reached for i in inputs(value)
        ):
            continue
        node = value.op
        if isinstance(node, DifferentiationOp):
            continue
        derivative = derivative_of(node)
        if isinstance(derivative, RegionDerivative):
            if op.control_flow is None:
                raise no_rule_error(op, node, why=OPT_IN)
            if derivative.check is not None:
                derivative.check(node)
            _check_inside(op, node, reached, calls)
            if not isinstance(node, CallOp):
                _check_replayable(op, node, inputs)
            continue
        if derivative is not None:
            if derivative.refuses is not None and (
                why := derivative.refuses(node, isinstance(op, JvpOp))
            ):
                raise OpError(op, why, [(node, f"'{node.name}' is here")])
            inside = [
                v for v in inputs(value) if v in reached and v not in node.operands
            ]
            if inside and not derivative.captures:
                raise _read_inside_error(op, node, inside[0])
            continue
        stores = []
        if isinstance(node, LoadOp):
            stores = [
                inputs.stores[v]
                for v in inputs(value)
                if v in reached and v in inputs.stores
            ]
        raise no_rule_error(op, node, stores)


def _read_inside_error(op: Operation, node: Operation, value: SSAValue) -> OpError:
    """`node` has a rule for its operands, but an op in its region reads
    `value`, which lies on the path: that share would be lost (a gather by
    `tensor.extract` inside a `linalg.generic` body, say)."""
    reader = next(u.operation for u in value.uses if node.is_ancestor(u.operation))
    name = display_name(node)
    return OpError(
        op,
        f"'{name}' reads a value on the path from the target to the loss inside "
        f"its region ('{reader.name}'), and only its operands are differentiated",
        [(node, f"'{name}' is here"), (reader, "the value is read here")],
    )


def _find_twin(
    op: DifferentiationOp,
    order: Sequence[SSAValue],
    targets: Sequence[SSAValue],
    numbering: ValueNumbering,
) -> None:
    """SPEC §4 rule 6: raise an error on `op` if a computed target has a twin
    (an equal value that `cse` would merge with it) that the loss depends on.
    Nothing is numbered unless some target is a computed value."""
    computed = [
        (i, t)
        for i, t in enumerate(targets)
        if isinstance(t, OpResult) and mergeable(t.op)
    ]
    if not computed:
        return
    wanted: dict[int, list[tuple[int, OpResult]]] = {}
    for i, t in computed:
        wanted.setdefault(numbering(t), []).append((i, t))
    for value in order:
        for index, target in wanted.get(numbering(value), ()):
            if target is value:
                continue
            assert isinstance(value, OpResult)
            raise OpError(
                op,
                f"target has a structurally equal twin {_at(value.op)}; cse would "
                f"merge them and change this gradient (target {index})",
                [(value.op, "the twin is here"), (target.op, "the target is here")],
            )


def _at(op: Operation) -> str:
    """Where `op` is, for a message: `at LINE:COL`, or its name and result."""
    if isinstance(op.location, FileLineColLoc):
        return f"at {op.location.line.data}:{op.location.column.data}"
    named = next((r.name_hint for r in op.results if r.name_hint), None)
    return f"at '{op.name}'" + (f" %{named}" if named else "")


def display_name(op: Operation) -> str:
    """The op's name as a diagnostic quotes it: with its kind where the kind
    decides whether it has a rule (`'grad.reduce mul'`)."""
    if isinstance(op, ReduceOp):
        return f"{op.name} {op.kind.data}"
    return op.name


OPT_IN = (
    "a differentiation op that says 'control_flow' differentiates through calls "
    "and structured control flow"
)


def no_rule_error(
    op: Operation,
    node: Operation,
    stores: Sequence[StoreOp] = (),
    why: str | None = None,
) -> OpError:
    """SPEC §4 rule 5: `node`, on a path of differentiation op `op`, has no
    derivative (`stores`: where path values reached a load through memory;
    `why`: the reason, if not the one its rules give)."""
    name = display_name(node)
    notes = [(node, f"'{name}' is here")]
    notes += [(s, "a value on the path is stored into the slot here") for s in stores]
    why = why or why_no_rule(node)
    return OpError(
        op,
        f"'{name}' lies on the path from the target to the loss and has no "
        "gradient rule" + (f": {why}" if why else ""),
        notes,
    )


def callee_of(call: Operation) -> Operation | None:
    """The function a `func.call` (or `util.call`) calls, if the module has it."""
    assert isinstance(call, CallOp)
    return SymbolTable.lookup_symbol(call, call.callee)


def _check_inside(
    op: DifferentiationOp,
    node: Operation,
    reached: set[SSAValue],
    calls: Calls,
) -> None:
    """SPEC §11: what a call or a region op on the path runs must itself be
    differentiable, from what the path reaches in it to what it yields."""
    if isinstance(node, CallOp):
        callee = callee_of(node)
        if callee is None or not callee.regions or not callee.regions[0].blocks:
            raise no_rule_error(
                op, node, why=f"@{node.callee.string_value()} has no body"
            )
        if len(callee.regions[0].block.args) != len(node.operands):
            raise no_rule_error(
                op, node, why=f"@{_symbol(callee)} takes another number of arguments"
            )
        callees = [c for _, c in calls]
        if callee in callees:
            start = callees.index(callee)
            names = " -> ".join(f"@{_symbol(c)}" for c in [*callees[start:], callee])
            cycle = [c for c, _ in calls[start + 1 :]] + [node]
            raise OpError(
                op,
                f"recursive call on the path from the target to the loss: {names}",
                [(c, "a call of the cycle is here") for c in cycle],
            )
        block = callee.regions[0].block
        sources = [
            a
            for a, v in zip(block.args, node.operands, strict=True)
            if v in reached and is_f32_value(a.type)
        ]
        _check_block(op, block, sources, (*calls, (node, callee)))
        return
    outer = [v for v in captured(node) if v in reached]
    for region in node.regions:
        for block in region.blocks:
            sources = [a for a in block.args if is_f32_value(a.type)] + outer
            _check_block(op, block, sources, calls)


def _check_replayable(
    op: DifferentiationOp, node: Operation, inputs: _Dependence
) -> None:
    """SPEC §11: the reverse of a loop or branch on the path runs its regions
    again (to count, record, recompute), so they may not write memory, nor
    read a slot that is written after the op starts (in it, or before `op`):
    the run again would see the write. This is also what rules out a
    `scf.while` condition that the reverse cannot evaluate again alike."""
    name = node.name
    for inner in node.walk():
        if isinstance(inner, StoreOp):
            raise OpError(
                op,
                f"'{name}' lies on the path from the target to the loss and writes "
                "memory: its reverse runs its regions again, which would write again",
                [(node, f"'{name}' is here"), (inner, "the memory is written here")],
            )
        if not isinstance(inner, LoadOp):
            continue
        for store in inputs.later_stores(inner.slot, node, op):
            reader, again = "it", "runs its regions again"
            if isinstance(node, WhileOp) and node.before_region.is_ancestor(inner):
                reader = "its condition"
                again = "counts the iterations by running the condition again"
            raise OpError(
                op,
                f"'{name}' lies on the path from the target to the loss and "
                f"{reader} reads a slot that is written after it starts: its "
                f"reverse {again}, after that write",
                [
                    (node, f"'{name}' is here"),
                    (inner, "the slot is read here"),
                    (store, "and written here"),
                ],
            )


def _symbol(function: Operation) -> str:
    name = function.properties.get("sym_name")
    return name.data if isinstance(name, StringAttr) else function.name


def _check_block(
    op: DifferentiationOp,
    block: Block,
    sources: Sequence[SSAValue],
    calls: Calls,
) -> None:
    """Rule 5 inside `block`, from `sources` to the operands of its terminator
    (values defined outside the block are leaves)."""
    terminator = block.last_op
    if terminator is None:
        return
    inputs = _Dependence({v for o in block.ops for v in o.results})
    roots = [v for v in terminator.operands if is_f32_value(v.type)]
    _find_rule_less_op(op, post_order_all(roots, inputs), inputs, sources, calls)


def post_order_all(
    roots: Sequence[SSAValue], inputs: Inputs = operands_of
) -> list[SSAValue]:
    """The post-order of several roots' graphs, in root order, each value once."""
    order: list[SSAValue] = []
    seen: set[SSAValue] = set()
    for root in roots:
        if root not in seen:
            part = post_order(root, lambda v: [i for i in inputs(v) if i not in seen])
            seen.update(part)
            order += part
    return order
