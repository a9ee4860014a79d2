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

from xdsl.dialects.builtin import ModuleOp, UnitAttr
from xdsl.dialects.func import FuncOp
from xdsl.ir import Block, Operation, OpResult, SSAValue

from gradopt.autodiff.emitter import ConstantPool, Emitter
from gradopt.autodiff.paths import (
    KEPT,
    Inputs,
    depends_on,
    differentiable_inputs,
    has_joint_rule,
    inputs_of,
    no_rule_error,
    post_order_all,
)
from gradopt.autodiff.registry import (
    Derivative,
    InOrder,
    RegionDerivative,
    Renamed,
    ReverseRule,
    Tangent,
    TangentRule,
    derivative_of,
)
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
    if not isinstance(derivative, Derivative) or derivative.reverse is None:
        raise no_rule_error(e.anchor, node)
    return derivative.reverse


def _tangent_rule(e: Emitter, node: Operation) -> TangentRule:
    derivative = derivative_of(node)
    if not isinstance(derivative, Derivative) or derivative.tangent is None:
        raise no_rule_error(e.anchor, node)
    return derivative.tangent


def _joint_rules(e: Emitter, node: Operation) -> RegionDerivative:
    derivative = derivative_of(node)
    if not isinstance(derivative, RegionDerivative) or derivative.reverse is None:
        raise no_rule_error(e.anchor, node)
    return derivative


Within = Callable[[SSAValue], bool] | None
"""Which values a walk may look through: the others are leaves (a walk over
a region's block treats the values it captures so). None: every value."""


def _restricted(inputs: Inputs, within: Within) -> Inputs:
    if within is None:
        return inputs
    return lambda value: inputs(value) if within(value) else ()


def path_between(
    root: SSAValue, sources: Sequence[SSAValue]
) -> tuple[list[SSAValue], set[SSAValue]]:
    """The post-order of `root`'s graph, and its values on the path (SPEC §5.1):
    they depend on `sources` and `root` depends on them, through f32 values."""
    return paths_between([root], sources)


def paths_between(
    roots: Sequence[SSAValue], sources: Sequence[SSAValue], within: Within = None
) -> tuple[list[SSAValue], set[SSAValue]]:
    """`path_between` for several roots, their graphs in root order (each
    value's differentiable inputs worked out once)."""
    order = post_order_all(roots, _restricted(inputs_of, within))
    f32_inputs = _restricted(differentiable_inputs, within)
    inputs = {value: f32_inputs(value) for value in order}
    reached = depends_on(order, set(sources), inputs.__getitem__)
    needed = set(roots)
    for value in reversed(order):
        if value in needed:
            needed.update(inputs[value])
    return order, reached & needed


def unfold_on_path(
    roots: Callable[[], Sequence[SSAValue]],
    sources: Callable[[], Sequence[SSAValue]],
    within: Within = None,
    reverse: bool = False,
    forward: bool = False,
) -> list[Operation]:
    """Replace every op on the path that stands for other ops (a call, by its
    callee's body) by them, until none is left (SPEC §11: calls outside loops
    have the bits of inlining); for the walk of one mode (`reverse` or
    `forward`), an op that its rules give those bits as well
    (`RegionDerivative.keeps`) stays. `roots` and `sources` are read again
    after each round, as replacing an op replaces its results. Returns the
    ops that stay for the reverse, marked `KEPT` for the walk: the caller
    takes the mark off (`unmark`) once the walk is done. A value outside
    `within` is a leaf of the walk, as is the op that makes it: a call there
    (whose result a region reads) is the enclosing walk's to unfold or keep."""
    kept: list[Operation] = []
    while True:
        order, path = paths_between(roots(), sources(), within)
        reached = set(order)
        unfolding: dict[Operation, RegionDerivative] = {}
        for value in order:
            if (
                value in path
                and isinstance(value, OpResult)
                and (within is None or within(value))
            ):
                derivative = derivative_of(value.op)
                if (
                    not isinstance(derivative, RegionDerivative)
                    or not derivative.unfold
                ):
                    continue
                if reverse and derivative.keeps(value.op, reached, path, False):
                    value.op.attributes[KEPT] = UnitAttr()
                    kept.append(value.op)
                elif forward and derivative.keeps(value.op, reached, path, True):
                    continue
                else:
                    unfolding[value.op] = derivative
        if not unfolding:
            return kept
        for op, derivative in unfolding.items():
            assert derivative.unfold is not None
            derivative.unfold(op)


def unmark(kept: Sequence[Operation]) -> None:
    """Take the `KEPT` mark off the ops `unfold_on_path` left (those whose
    rule did not replace them): it holds for one walk only."""
    for op in kept:
        op.attributes.pop(KEPT, None)


def backward_walk(
    e: Emitter,
    loss: SSAValue,
    seed: Callable[[], SSAValue],
    targets: Sequence[SSAValue],
) -> dict[SSAValue, SSAValue]:
    """The gradient of every value on the path from `targets` to `loss`, by one
    backward walk seeded with `seed` (SPEC §5.2)."""
    return backward_walk_from(e, [(loss, seed)], targets)


def backward_walk_from(
    e: Emitter,
    seeds: Sequence[tuple[SSAValue, Callable[[], SSAValue]]],
    targets: Sequence[SSAValue],
    within: Within = None,
    arrivals: list[tuple[SSAValue, SSAValue]] | None = None,
) -> dict[SSAValue, SSAValue]:
    """`backward_walk` from several roots, each with its seed (a region's
    yielded values with their gradients); an op with a joint rule runs it once
    every result has its gradient, at the place of its first result (a rule
    that gives an input several shares gives them `InOrder`). With
    `arrivals`, every share that a target receives is also listed there, in
    the order of arrival (a derivative function returns them so)."""
    order, path = paths_between([v for v, _ in seeds], targets, within)
    f32_inputs = _restricted(differentiable_inputs, within)
    received: dict[SSAValue, list[SSAValue]] = defaultdict(list)
    listed = set(targets) if arrivals is not None else set()

    def send(value: SSAValue, share: SSAValue) -> None:
        received[value].append(share)
        if value in listed:
            assert arrivals is not None
            arrivals.append((value, share))

    for value, seed in seeds:
        if value in path:
            send(value, seed())
    joint = _first_results(order, within)
    joint_ops = set(joint.values())
    gradients: dict[SSAValue, SSAValue] = {}
    for value in reversed(order):
        shares = received.pop(value, None)
        if shares is not None and value not in listed:
            g = shares[0]
            for share in shares[1:]:
                g = e.accumulate(value, g, share)
            gradients[value] = g
            if (
                isinstance(value, OpResult)
                and value.op not in joint_ops
                and any(i in path for i in f32_inputs(value))
            ):
                rule = _reverse_rule(e, value.op)
                e.result = value
                e.path = path
                for operand, share in zip(
                    inputs_of(value), rule(e, value.op, g), strict=True
                ):
                    if share is not None and operand in path:
                        send(operand, share())
        if (node := joint.get(value)) is not None:
            outgoing = [gradients.get(r) for r in node.results]
            if any(g is not None for g in outgoing) and any(
                i in path for i in f32_inputs(value)
            ):
                rules = _joint_rules(e, node)
                assert rules.reverse is not None
                e.result = value
                inputs = inputs_of(value)  # a call's rule replaces the call
                e.path = path
                shares = rules.reverse(e, node, outgoing)
                pairs = (
                    shares
                    if isinstance(shares, InOrder)
                    else zip(inputs, shares, strict=True)
                )
                for input, share in pairs:
                    if share is not None and input in path:
                        send(input, share())
    return gradients


def _first_results(
    order: Sequence[SSAValue], within: Within
) -> dict[SSAValue, Operation]:
    """Each op with a joint rule, by its first result in `order`: once the
    backward walk reaches it, every result of the op has its gradient."""
    first: dict[SSAValue, Operation] = {}
    seen: set[Operation] = set()
    for value in order:
        if (
            isinstance(value, OpResult)
            and value.op not in seen
            and (within is None or within(value))
            and has_joint_rule(value.op)
        ):
            seen.add(value.op)
            first[value] = value.op
    return first


def forward_walk(
    e: Emitter, output: SSAValue, target: SSAValue, tangent: SSAValue
) -> SSAValue:
    """The tangent of `output` along `tangent` at `target` (SPEC §5.6)."""
    (result,) = forward_walk_from(e, [output], {target: tangent})
    return result if result is not None else e.zeros_like(output)


def forward_walk_from(
    e: Emitter,
    outputs: Sequence[SSAValue],
    sources: dict[SSAValue, SSAValue],
    within: Within = None,
) -> list[Tangent]:
    """The tangents of `outputs` given those of `sources` (None for an output
    off the path); an op with a joint rule gives all its results' tangents at
    once (`e.path` tells it which of them lie on the path), and may replace
    the op (`Renamed`: the outputs are looked up by the new values). A node
    none of whose inputs got a tangent gets none: a call's tangent function
    may give none to a result that the path takes to depend on its arguments
    (its body does not), as the inlined body would."""
    order, path = paths_between(outputs, list(sources), within)
    tangents: dict[SSAValue, SSAValue] = dict(sources)
    renamed: dict[SSAValue, SSAValue] = {}
    done: set[Operation] = set()
    for value in order:
        if value not in path or value in tangents:
            continue
        assert isinstance(value, OpResult)
        node = value.op
        e.result = value
        inputs = [tangents.get(i) for i in inputs_of(value)]
        if all(t is None for t in inputs):
            continue
        if has_joint_rule(node):
            if node in done:
                continue
            done.add(node)
            rules = _joint_rules(e, node)
            assert rules.tangent is not None
            e.path = path
            results = list(node.results)
            found = rules.tangent(e, node, inputs)
            if isinstance(found, Renamed):
                renamed.update(zip(results, found.results, strict=True))
                results = found.results
            for result, t in zip(results, found, strict=True):
                if t is not None:
                    tangents[result] = t
            continue
        tangents[value] = _tangent_rule(e, node)(e, node, inputs)
    return [tangents.get(renamed.get(o, o)) for o in outputs]


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
    kept: list[Operation] = []
    if any(op.control_flow is not None for op in ops):
        kept = unfold_on_path(
            lambda: [first.loss],
            lambda: [t for op in ops for t in op.targets],
            reverse=True,
        )
    e = Emitter(first, constants)
    loss = first.loss
    seed = (
        (lambda: first.cotangent) if isinstance(first, VjpOp) else lambda: e.seed(loss)
    )
    try:
        gradients = backward_walk(
            e, first.loss, seed, [t for op in ops for t in op.targets]
        )
    finally:
        unmark(kept)
    results = [
        [gradients[t] if t in gradients else e.zeros_like(t) for t in op.targets]
        for op in ops
    ]
    for op, values in zip(ops, results, strict=True):
        _replace(e, op, values)


def expand_jvp(op: JvpOp, constants: ConstantPool) -> None:
    if op.control_flow is not None:
        unfold_on_path(lambda: [op.output], lambda: [op.target], forward=True)
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
