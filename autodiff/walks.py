"""The two walks of SPEC §5: backward (reverse mode) and forward (`grad.jvp`),
and the expansion of differentiation ops through them, in program order.

The walks know no op: `derivative_of` gives the rules that build every share
and tangent, and `differentiable_inputs` says which operands a derivative can
flow through.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeAlias

from xdsl.dialects.builtin import ModuleOp
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, OpResult, SSAValue

from gradopt.autodiff.emitter import ConstantPool, Emitter
from gradopt.autodiff.paths import (
    depends_on,
    differentiable_inputs,
    no_rule_error,
    post_order,
)
from gradopt.autodiff.registry import ReverseRule, TangentRule, derivative_of
from gradopt.dialect.differentiation import (
    DifferentiationOp,
    GradientOp,
    JvpOp,
    VjpOp,
    is_differentiated,
)
from gradopt.support.collector import cyclic_gc_paused

ReverseModeOp: TypeAlias = GradientOp | VjpOp


def _reverse_rule(e: Emitter, node: Operation) -> ReverseRule:
    derivative = derivative_of(node)
    if derivative is None or derivative.reverse is None:
        raise no_rule_error(e.anchor, node)
    return derivative.reverse


def _tangent_rule(e: Emitter, node: Operation) -> TangentRule:
    derivative = derivative_of(node)
    if derivative is None or derivative.tangent is None:
        raise no_rule_error(e.anchor, node)
    return derivative.tangent


def path_between(
    root: SSAValue, sources: Sequence[SSAValue]
) -> tuple[list[SSAValue], set[SSAValue]]:
    """The post-order of `root`'s graph, and its values on the path (SPEC §5.1):
    they depend on `sources` and `root` depends on them, through f32 values."""
    order = post_order(root)
    inputs = {value: differentiable_inputs(value) for value in order}
    reached = depends_on(order, set(sources), inputs.__getitem__)
    needed = {root}
    for value in reversed(order):
        if value in needed:
            needed.update(inputs[value])
    return order, reached & needed


def backward_walk(
    e: Emitter,
    loss: SSAValue,
    seed: Callable[[], SSAValue],
    targets: Sequence[SSAValue],
) -> dict[SSAValue, SSAValue]:
    """The gradient of every value on the path from `targets` to `loss`, by one
    backward walk seeded with `seed` (SPEC §5.2)."""
    order, path = path_between(loss, targets)
    received: dict[SSAValue, list[SSAValue]] = defaultdict(list)
    if loss in path:
        received[loss].append(seed())
    gradients: dict[SSAValue, SSAValue] = {}
    for value in reversed(order):
        shares = received.pop(value, None)
        if shares is None:
            continue
        g = shares[0]
        for share in shares[1:]:
            g = e.accumulate(value, g, share)
        gradients[value] = g
        if not any(i in path for i in differentiable_inputs(value)):
            continue
        assert isinstance(value, OpResult)
        rule = _reverse_rule(e, value.op)
        e.result = value
        for operand, share in zip(value.op.operands, rule(e, value.op, g), strict=True):
            if share is not None and operand in path:
                received[operand].append(share())
    return gradients


def forward_walk(
    e: Emitter, output: SSAValue, target: SSAValue, tangent: SSAValue
) -> SSAValue:
    """The tangent of `output` along `tangent` at `target` (SPEC §5.6)."""
    order, path = path_between(output, [target])
    tangents: dict[SSAValue, SSAValue] = {target: tangent}
    for value in order:
        if value not in path or value in tangents:
            continue
        assert isinstance(value, OpResult)
        rule = _tangent_rule(e, value.op)
        e.result = value
        tangents[value] = rule(
            e, value.op, [tangents.get(o) for o in value.op.operands]
        )
    return tangents[output] if output in tangents else e.zeros_like(output)


def _replace(e: Emitter, op: Operation, values: Sequence[SSAValue]) -> None:
    """Replace `op`'s results by `values`. A result that another op differentiates
    with respect to gets a node of its own: its value may be shared (a literal,
    the seed, another result), and differentiating w.r.t. a shared value would
    mix in every other use of it (SPEC §4 rule 3)."""
    for old, new in zip(op.results, values, strict=True):
        old.replace_all_uses_with(e.identity(new) if is_differentiated(old) else new)
    op.detach()
    op.erase()


def expand_reverse(ops: Sequence[ReverseModeOp], constants: ConstantPool) -> None:
    """Expand reverse-mode ops of one loss and one seed in one block, in program
    order, by one walk whose new ops go before the first of them."""
    first = ops[0]
    e = Emitter(first, constants)
    loss = first.loss
    seed = (
        (lambda: first.cotangent) if isinstance(first, VjpOp) else lambda: e.seed(loss)
    )
    gradients = backward_walk(
        e, first.loss, seed, [t for op in ops for t in op.targets]
    )
    results = [
        [gradients[t] if t in gradients else e.zeros_like(t) for t in op.targets]
        for op in ops
    ]
    for op, values in zip(ops, results, strict=True):
        _replace(e, op, values)


def expand_jvp(op: JvpOp, constants: ConstantPool) -> None:
    e = Emitter(op, constants)
    _replace(e, op, [forward_walk(e, op.output, op.target, op.tangent)])


GroupKey = tuple[Block | None, SSAValue, SSAValue | None]


def group_key(op: ReverseModeOp) -> GroupKey:
    """Ops with equal keys share one walk: same block, loss and seed."""
    seed = op.cotangent if isinstance(op, VjpOp) else None
    return op.parent, op.loss, seed


def expand_in_program_order(
    module: ModuleOp | FuncOp, selected: Callable[[DifferentiationOp], bool]
) -> None:
    """Expand the `selected` differentiation ops of `module` in program order,
    each group of reverse-mode ops at the position of its first member."""
    with cyclic_gc_paused():
        _expand(module, selected)


def _expand(
    module: ModuleOp | FuncOp, selected: Callable[[DifferentiationOp], bool]
) -> None:
    groups: dict[GroupKey, list[ReverseModeOp]] = {}
    work: list[list[ReverseModeOp] | JvpOp] = []
    for node in module.walk():
        if not isinstance(node, DifferentiationOp) or not selected(node):
            continue
        if isinstance(node, JvpOp):
            work.append(node)
        else:
            assert isinstance(node, GradientOp | VjpOp)
            key = group_key(node)
            if key not in groups:
                groups[key] = []
                work.append(groups[key])
            groups[key].append(node)
    constants = ConstantPool()
    for item in work:
        # a rule may have expanded ops of a function it copies (grad.custom's)
        if isinstance(item, JvpOp):
            if item.parent is not None:
                expand_jvp(item, constants)
        elif remaining := [op for op in item if op.parent is not None]:
            expand_reverse(remaining, constants)
