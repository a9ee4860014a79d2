"""The derivative of `func.call` (and of `util.call`, which derives from it):
under `control_flow` a call on the path is differentiated by one set of
derivative functions per callee and pattern, in a loop always, outside loops
where they keep the bits of inlining the call first; elsewhere the call is
unfolded, its callee's body cloned in its place
(`gradopt.autodiff.derivative_functions`; SPEC §11)."""

from __future__ import annotations

from xdsl.dialects.func import CallOp
from xdsl.ir import Operation, SSAValue
from xdsl.rewriter import Rewriter

from gradopt.autodiff.derivative_functions import (
    call_reverse,
    call_tangent,
    erase_if_unused,
    has_inlining_bits,
)
from gradopt.autodiff.paths import callee_of
from gradopt.autodiff.registry import RegionDerivative, register_derivative


def inline_call(op: Operation) -> None:
    """Replace the call `op` by a copy of its callee's body (the verifier has
    checked that the callee has one and that no call cycle lies on the path)."""
    callee = callee_of(op)
    assert callee is not None
    body = callee.regions[0].block
    values: dict[SSAValue, SSAValue] = dict(zip(body.args, op.operands, strict=True))
    terminator = body.last_op
    assert terminator is not None
    for inner in body.ops:
        if inner is terminator:
            break
        copy = inner.clone(value_mapper=values)
        Rewriter.insert_op(copy, _before(op))
    results = [values.get(v, v) for v in terminator.operands]
    for old, new in zip(op.results, results, strict=True):
        old.replace_all_uses_with(new)
    op.detach()
    op.erase()
    erase_if_unused(callee)


def _before(op: Operation):
    from xdsl.rewriter import InsertPoint

    return InsertPoint.before(op)


register_derivative(
    CallOp,
    RegionDerivative(
        call_reverse, call_tangent, unfold=inline_call, kept=has_inlining_bits
    ),
)
