"""The two walks of SPEC §5: backward (reverse mode) and forward (`grad.jvp`),
and the expansion of differentiation ops through them.

The walks know no op: the rules of `gradopt.dialect.rules` build every share
and tangent, and `differentiable_inputs` says which operands a derivative can
flow through.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from typing import TypeAlias

from xdsl.ir import Operation, OpResult, SSAValue

from gradopt.diagnostics import OpError
from gradopt.dialect.emitter import ConstantPool, Emitter
from gradopt.dialect.ops import GradientOp, JvpOp, VjpOp, is_differentiated
from gradopt.dialect.paths import depends_on, differentiable_inputs, post_order
from gradopt.dialect.rules import reverse_rule, tangent_rule
from gradopt.dialect.types import tensor_type

ReverseOp: TypeAlias = GradientOp | VjpOp


def _no_rule(op: Operation, node: Operation) -> OpError:
    return OpError(
        op,
        f"'{node.name}' lies on the path from the target to the loss and has no "
        "gradient rule",
        [(node, f"'{node.name}' is here")],
    )


def path_between(
    root: SSAValue, sources: Sequence[SSAValue]
) -> tuple[list[SSAValue], set[SSAValue]]:
    """The post-order of `root`'s graph, and its values on the path (SPEC §5.1):
    they depend on `sources` and `root` depends on them, through f32 values."""
    order = post_order(root)
    reached = depends_on(order, set(sources), differentiable_inputs)
    needed = {root}
    for value in reversed(order):
        if value in needed:
            needed.update(differentiable_inputs(value))
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
            g = e.add(g, share)
        gradients[value] = g
        if not any(i in path for i in differentiable_inputs(value)):
            continue
        assert isinstance(value, OpResult)
        rule = reverse_rule(value.op)
        if rule is None:
            raise _no_rule(e.anchor, value.op)
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
        rule = tangent_rule(value.op)
        if rule is None:
            raise _no_rule(e.anchor, value.op)
        tangents[value] = rule(
            e, value.op, [tangents.get(o) for o in value.op.operands]
        )
    return tangents[output] if output in tangents else e.zeros(tensor_type(output))


def _replace(e: Emitter, op: Operation, values: Sequence[SSAValue]) -> None:
    """Replace `op`'s results by `values`. A result that another op differentiates
    with respect to gets a node of its own: its value may be shared (a literal,
    the seed, another result), and differentiating w.r.t. a shared value would
    mix in every other use of it (SPEC §4 rule 3)."""
    for old, new in zip(op.results, values, strict=True):
        old.replace_all_uses_with(e.identity(new) if is_differentiated(old) else new)
    op.detach()
    op.erase()


def expand_reverse(ops: Sequence[ReverseOp], constants: ConstantPool) -> None:
    """Expand reverse-mode ops of one loss and one seed in one block, in program
    order, by one walk whose new ops go before the first of them."""
    first = ops[0]
    e = Emitter(first, constants)
    seed = (lambda: first.cotangent) if isinstance(first, VjpOp) else e.one
    gradients = backward_walk(
        e, first.loss, seed, [t for op in ops for t in op.targets]
    )
    results = [
        [
            gradients[t] if t in gradients else e.zeros(tensor_type(t))
            for t in op.targets
        ]
        for op in ops
    ]
    for op, values in zip(ops, results, strict=True):
        _replace(e, op, values)


def expand_jvp(op: JvpOp, constants: ConstantPool) -> None:
    e = Emitter(op, constants)
    _replace(e, op, [forward_walk(e, op.output, op.target, op.tangent)])
