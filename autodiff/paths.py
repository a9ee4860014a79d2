"""Which ops lie between a loss and its targets: the post-order both walks use,
and the validity rules of SPEC §4 that the differentiation ops verify.

The check starts from the loss and only looks at what the loss depends on
through f32 values (plus memory edges and values captured by regions); among
those, only ops that a target's influence flows through need a rule, and only
computed targets are value-numbered against them (rule 6).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from xdsl.dialects.builtin import FileLineColLoc
from xdsl.dialects.scf import ForOp
from xdsl.ir import Attribute, BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import ConstantLike, is_side_effect_free

from gradopt.autodiff.registry import derivative_of, why_no_rule
from gradopt.autodiff.upstream import is_dynamic, is_f32_value
from gradopt.dialect.differentiation import DifferentiationOp, JvpOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import LoadOp, ReduceOp, StoreOp
from gradopt.dialect.verifier import verification_memo

Inputs = Callable[[SSAValue], Sequence[SSAValue]]


def operands_of(value: SSAValue) -> Sequence[SSAValue]:
    """The SSA operands of the op defining `value` (none for a block argument)."""
    return value.op.operands if isinstance(value, OpResult) else ()


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
    return [o for o in value.op.operands if is_f32_value(o.type)]


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


class _Dependence:
    """What a value depends on for validity: f32 operands, values captured by
    regions, and memory edges (a store into a slot reaches the later loads of
    that slot in the same function)."""

    def __init__(self) -> None:
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
            if _function_of(s) is _function_of(load) and self._position(s) < position
        ]

    def __call__(self, value: SSAValue) -> Sequence[SSAValue]:
        if (known := self._inputs.get(value)) is None:
            known = self._inputs[value] = self._compute(value)
        return known

    def _compute(self, value: SSAValue) -> Sequence[SSAValue]:
        if not is_f32_value(value.type) or not isinstance(value, OpResult):
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
    if (loop := _loop_dependence(op, [loss, *targets, *extra_roots])) is not None:
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
) -> None:
    """Raise an error on `op` if an op without a rule lies between `targets`
    and the loss (`order`: the post-order of what it depends on)."""
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
        if (derivative := derivative_of(node)) is not None:
            if derivative.refuses is not None and (
                why := derivative.refuses(node, isinstance(op, JvpOp))
            ):
                raise OpError(op, why, [(node, f"'{node.name}' is here")])
            inside = [
                v for v in inputs(value) if v in reached and v not in node.operands
            ]
            if inside:
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


def no_rule_error(
    op: Operation, node: Operation, stores: Sequence[StoreOp] = ()
) -> OpError:
    """SPEC §4 rule 5: `node`, on a path of differentiation op `op`, has no
    derivative (`stores`: where path values reached a load through memory)."""
    name = display_name(node)
    notes = [(node, f"'{name}' is here")]
    notes += [(s, "a value on the path is stored into the slot here") for s in stores]
    return OpError(
        op,
        f"'{name}' lies on the path from the target to the loss and has no "
        "gradient rule" + (f": {why}" if (why := why_no_rule(node)) else ""),
        notes,
    )
