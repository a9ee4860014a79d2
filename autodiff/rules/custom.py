"""The derivative of `grad.custom` (SPEC §3.7): the user's functions, called.

Reverse mode: the walk visits each result of the op on the path with its
gradient g, and the op's operands receive the results of one
`func.call @f_vjp(operands..., cotangents...)` in which that result's
cotangent is g and every other result's is `+0.0` zeros (a vjp is linear in
its cotangents, so the shares of the results add up to the vjp of them all).
Forward mode: one `func.call @f_jvp(operands..., tangents...)` per op gives
the tangents of all its results, an operand off the path contributing zeros.
"""

from __future__ import annotations

import weakref
from collections.abc import Sequence

from xdsl.dialects.builtin import TensorType, f32
from xdsl.dialects.func import CallOp
from xdsl.ir import Operation, SSAValue

from gradopt.autodiff.emitter import Emitter
from gradopt.autodiff.registry import Derivative, Share, Tangent, register_derivative
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import ConstOp
from gradopt.dialect.ops.custom import CustomOp

_JVP_CALLS: weakref.WeakKeyDictionary[Emitter, dict[Operation, CallOp]] = (
    weakref.WeakKeyDictionary()
)
"""The `@f_jvp` call already made for a custom op by one expansion."""


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


def _call(e: Emitter, op: CustomOp, mode: str, values: Sequence[SSAValue]) -> CallOp:
    if (why := _refuses(op, mode == "jvp")) is not None:
        raise OpError(e.anchor, why, [(op, "'grad.custom' is here")])
    name = op.function(mode)
    assert name is not None
    call = CallOp(name, [*op.arguments, *values], op.expected_type(mode).outputs.data)
    e.insert(call)
    return call


def _reverse(e: Emitter, op: Operation, g: SSAValue) -> Sequence[Share | None]:
    assert isinstance(op, CustomOp)
    index = list(op.results).index(e.result)
    made: list[CallOp] = []

    def share(k: int) -> SSAValue:
        if not made:
            cotangents = [
                g if i == index else _zeros(e, r) for i, r in enumerate(op.results)
            ]
            made.append(_call(e, op, "vjp", cotangents))
        return made[0].results[k]

    return [lambda k=k: share(k) for k in range(len(op.operands))]


def _tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
    assert isinstance(op, CustomOp)
    calls = _JVP_CALLS.setdefault(e, {})
    if op not in calls:
        tangents = [
            ta if ta is not None else _zeros(e, a)
            for ta, a in zip(t, op.arguments, strict=True)
        ]
        calls[op] = _call(e, op, "jvp", tangents)
    return calls[op].results[list(op.results).index(e.result)]


register_derivative(CustomOp, Derivative(_reverse, _tangent, refuses=_refuses))
