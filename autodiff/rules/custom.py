"""The derivative of `grad.custom` (SPEC §3.7): the user's functions, applied.

Reverse mode: the walk visits each result of the op on the path with its
gradient g, and the op's operands receive the results of one application of
`@f_vjp(operands..., cotangents...)` in which that result's cotangent is g and
every other result's is `+0.0` zeros (a vjp is linear in its cotangents, so the
shares of the results add up to the vjp of them all). Forward mode: one
application of `@f_jvp(operands..., tangents...)` per op and walk gives the
tangents of all its results, an operand off the path contributing zeros.

A function is applied by inlining its body at the walk's place (a copy of its
ops on the arguments), which gives the bits of `func.call` and leaves
ordinary ops with rules of their own, so that a derivative of the derivative
(a Hessian-vector product through `softplus`) needs no rule for calls.
Differentiation ops in the body (the transposed jvp of `custom_jvp`) are
expanded in the function before its body is copied.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, f32
from xdsl.dialects.func import FuncOp, ReturnOp
from xdsl.ir import Operation, OpResult, SSAValue
from xdsl.traits import SymbolTable

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import Derivative, Share, Tangent, register_derivative
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import ConstOp
from gradopt.dialect.ops.custom import CustomOp

_JVP_CALLS: weakref.WeakKeyDictionary[Emitter, dict[Operation, list[SSAValue]]] = (
    weakref.WeakKeyDictionary()
)
"""The tangents one forward walk has made for a custom op's results."""


def _refuses(op: Operation, forward: bool) -> str | None:
    assert isinstance(op, CustomOp)
    mode = "jvp" if forward else "vjp"
    if op.function(mode) is None:
        return (
            f"'grad.custom' has no {mode}: @{op.function()} lies on the path and "
            f"only its {'vjp' if forward else 'jvp'} is given"
        )
    return None


def _zeros(e: Emitter, value: SSAValue) -> SSAValue:
    """`+0.0` zeros (or integer zeros, false) of `value`'s type."""
    type = value.type
    assert isinstance(type, TensorType)
    if type.get_element_type() == f32:
        return e.zeros(type)
    return e.insert(ConstOp.splat(0, type))


def _apply(
    e: Emitter, op: CustomOp, mode: str, values: Sequence[SSAValue]
) -> list[SSAValue]:
    """The results of function `mode` of `op` on its operands and `values`,
    its body copied before the walk's anchor."""
    if (why := _refuses(op, mode == "jvp")) is not None:
        raise OpError(e.anchor, why, [(op, "'grad.custom' is here")])
    name = op.function(mode)
    assert name is not None
    # from the op being expanded: a custom op of a trace in progress (`vmap`'s)
    # may stand in a block that is in no module yet
    callee = SymbolTable.lookup_symbol(e.anchor, name)
    assert isinstance(callee, FuncOp)
    if any(isinstance(o, DifferentiationOp) for o in callee.walk()):
        from gradopt.autodiff.walks import expand_in_program_order  # walks use rules

        expand_in_program_order(callee, lambda _: True)
    block = callee.body.block
    mapping: dict[SSAValue, SSAValue] = dict(
        zip(block.args, [*op.arguments, *values], strict=True)
    )
    for inner in block.ops:
        if isinstance(inner, ReturnOp):
            return [mapping.get(v, v) for v in inner.operands]
        copy = inner.clone(mapping)
        copy.location = e.location
        e.block.insert_op_before(copy, e.anchor)
    raise OpError(op, f"@{name} has no func.return")


def _result_index(e: Emitter, op: CustomOp) -> int:
    """Which result of `op` the walk calls the rule for."""
    assert isinstance(e.result, OpResult) and e.result.op is op
    return e.result.index


def _reverse(e: Emitter, op: Operation, g: SSAValue) -> Sequence[Share | None]:
    assert isinstance(op, CustomOp)
    index = _result_index(e, op)
    made: list[list[SSAValue]] = []

    def share(k: int) -> SSAValue:
        if not made:
            cotangents = [
                g if i == index else _zeros(e, r) for i, r in enumerate(op.results)
            ]
            made.append(_apply(e, op, "vjp", cotangents))
        return made[0][k]

    return [lambda k=k: share(k) for k in range(len(op.operands))]


def _tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, CustomOp)
    calls = _JVP_CALLS.setdefault(e, {})
    if op not in calls:
        tangents = [
            ta if ta is not None else _zeros(e, a)
            for ta, a in zip(t, op.arguments, strict=True)
        ]
        calls[op] = _apply(e, op, "jvp", tangents)
    return calls[op][_result_index(e, op)]


register_derivative(CustomOp, Derivative(_reverse, _tangent, refuses=_refuses))
