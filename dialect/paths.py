"""Which ops lie between a loss and its targets: the post-order both walks use,
and the validity rules of SPEC §4 that the differentiation ops verify.

The check starts from the loss and only looks at what the loss depends on
through f32 values (plus memory edges and values captured by regions); among
those, only ops that a target's influence flows through need a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar

from xdsl.dialects.scf import ForOp
from xdsl.ir import BlockArgument, Operation, OpResult, SSAValue
from xdsl.traits import ConstantLike

from gradopt.dialect.derivative import DifferentiationOp, derivative_of
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import LoadOp, StoreOp
from gradopt.dialect.types import is_f32_tensor

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
    if not is_f32_tensor(value.type) or not isinstance(value, OpResult):
        return ()
    if _cuts_path(value.op):
        return ()
    return [o for o in value.op.operands if is_f32_tensor(o.type)]


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
        if not is_f32_tensor(value.type) or not isinstance(value, OpResult):
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
        return [i for i in inputs if is_f32_tensor(i.type)]


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
        if not is_f32_tensor(target.type):
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


_CHECKED_LOSSES: ContextVar[set[SSAValue] | None] = ContextVar(
    "gradopt_checked_losses", default=None
)


@contextmanager
def shared_path_checks() -> Iterator[None]:
    """Within this context (one verification of a module), the paths of all the
    differentiation ops of one loss are checked once, for all their targets
    together, rather than once per op: many gradient ops of a big loss cost one
    walk over it."""
    token = _CHECKED_LOSSES.set(set())
    try:
        yield
    finally:
        _CHECKED_LOSSES.reset(token)


def _check_path(
    op: DifferentiationOp, loss: SSAValue, targets: Sequence[SSAValue]
) -> None:
    checked = _CHECKED_LOSSES.get()
    if checked is None:
        return _find_rule_less_op(op, loss, targets)
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
        _find_rule_less_op(op, loss, together)
    except OpError:
        _find_rule_less_op(op, loss, targets)
        return
    checked.add(loss)


def _find_rule_less_op(
    op: DifferentiationOp, loss: SSAValue, targets: Sequence[SSAValue]
) -> None:
    """Raise an error on `op` if an op without a rule lies between `targets`
    and `loss`."""
    inputs = _Dependence()
    order = post_order(loss, inputs)
    reached = depends_on(order, set(targets), inputs)
    for value in order:
        if not isinstance(value, OpResult) or not any(
            i in reached for i in inputs(value)
        ):
            continue
        node = value.op
        if isinstance(node, DifferentiationOp) or derivative_of(node) is not None:
            continue
        stores = []
        if isinstance(node, LoadOp):
            stores = [
                inputs.stores[v]
                for v in inputs(value)
                if v in reached and v in inputs.stores
            ]
        raise no_rule_error(op, node, stores)


def no_rule_error(
    op: Operation, node: Operation, stores: Sequence[StoreOp] = ()
) -> OpError:
    """SPEC §4 rule 5: `node`, on a path of differentiation op `op`, has no
    derivative (`stores`: where path values reached a load through memory)."""
    notes = [(node, f"'{node.name}' is here")]
    notes += [(s, "a value on the path is stored into the slot here") for s in stores]
    return OpError(
        op,
        f"'{node.name}' lies on the path from the target to the loss and has no "
        "gradient rule",
        notes,
    )
