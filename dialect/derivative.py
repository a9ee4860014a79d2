"""How derivatives flow through an op: its `Derivative`, found by `derivative_of`.

An op of any dialect gets a derivative by `register_derivative(OpType, ...)`, in
the style of MLIR's external models: the op's own definition need not know
about differentiation, and gradopt's `grad` ops are registered the same way (in
`gradopt.dialect.rules`). The verifier (SPEC §4 rule 5) asks `derivative_of`
whether an op on a path has a rule; both walks ask it for the rule itself, and
know nothing else about ops.

A rule builds ops with an `Emitter` (`gradopt.dialect.emitter`): `e.mul(g, b)`
for a `grad` op, `e.insert(SomeOp(...))` for any other.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import TYPE_CHECKING

from xdsl.ir import Operation, SSAValue
from xdsl.irdl import IRDLOperation, traits_def
from xdsl.traits import Pure

if TYPE_CHECKING:
    from gradopt.dialect.emitter import Emitter

Share = Callable[[], SSAValue]
"""Builds the share that one operand receives (only called for operands on the
path, in operand order)."""

ReverseRule = Callable[["Emitter", Operation, SSAValue], Sequence[Share | None]]
"""Given the node's gradient g, a share builder per operand (None: no share)."""

Tangent = SSAValue | None
"""An operand's tangent, or None for an operand off the path."""

TangentRule = Callable[["Emitter", Operation, Sequence[Tangent]], SSAValue]
"""Given the operands' tangents, builds the node's tangent."""

Chain = Callable[["Emitter", Operation, SSAValue], SSAValue]
"""The linear map of an op of one operand whose reverse share and forward
tangent are the same expression: `chain(e, op, g)` is the share, and
`chain(e, op, t)` the tangent."""


class Flow(Enum):
    """How derivatives pass an op."""

    RULES = "rules"
    """By the op's reverse and tangent rules."""
    STOPS = "stops"
    """Not at all: the op cuts the path, its result does not depend on its
    operands for differentiation (`grad.detach`)."""
    DEAD_END = "dead end"
    """Not at all: the op's results carry no derivative, as i32 and i1 values
    never do (comparisons, integer ops) and literals have none to carry."""


@dataclass(frozen=True)
class Derivative:
    """The reverse rule (SPEC §5.3) and the tangent rule (§5.6) of an op,
    together: an op has both or, for `STOPS_GRADIENT` and `DEAD_END`, neither."""

    reverse: ReverseRule | None = None
    tangent: TangentRule | None = None
    flow: Flow = Flow.RULES

    def __post_init__(self) -> None:
        has_rules = self.reverse is not None and self.tangent is not None
        if has_rules != (self.flow is Flow.RULES) or (
            not has_rules and (self.reverse, self.tangent) != (None, None)
        ):
            raise ValueError("a Derivative has both rules, or none and a flow")

    @property
    def passes(self) -> bool:
        """Whether derivatives flow through the op (by its rules)."""
        return self.flow is Flow.RULES

    @staticmethod
    def chain(chain: Chain) -> Derivative:
        """The derivative of an op of one operand whose share and tangent are the
        same linear map of the incoming g or t (exp2, log2, sqrt, sin, recip,
        neg, casts, reverse): written once, both modes built from it."""

        def reverse(e: Emitter, op: Operation, g: SSAValue) -> Sequence[Share | None]:
            return (lambda: chain(e, op, g),)

        def tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
            (ta,) = t
            return chain(e, op, ta if ta is not None else e.zeros_like(op.operands[0]))

        return Derivative(reverse, tangent)


STOPS_GRADIENT = Derivative(flow=Flow.STOPS)
DEAD_END = Derivative(flow=Flow.DEAD_END)

DerivativeOf = Callable[[Operation], Derivative | None]
"""The derivative of one op, for op types whose rule depends on the op's
properties (`grad.reduce add` has one, `grad.reduce mul` none)."""

_REGISTERED: dict[type[Operation], DerivativeOf] = {}


def register_derivative(
    op_type: type[Operation], derivative: Derivative | DerivativeOf
) -> None:
    """Give every op of `op_type` (or of a subclass without a registration of
    its own) `derivative`, or the derivative that a function of the op gives
    (None: that op has no rule)."""
    if op_type in _REGISTERED:
        raise ValueError(f"{op_type.__name__} already has a derivative")
    if isinstance(derivative, Derivative):
        record = derivative
        _REGISTERED[op_type] = lambda _: record
    else:
        _REGISTERED[op_type] = derivative


def derivative_of(op: Operation) -> Derivative | None:
    """The derivative of `op`, or None if it has no rule: then a target's
    influence cannot pass it, and the verifier refuses it on a path."""
    for op_type in type(op).__mro__:
        if (found := _REGISTERED.get(op_type)) is not None:
            return found(op)
    return None


class DifferentiationOp(IRDLOperation, ABC):
    """`grad.gradient`, `grad.vjp` and `grad.jvp`: replaced by ordinary ops
    before anything runs. One on a path needs no derivative of its own: it is
    expanded first (SPEC §5.7)."""

    traits = traits_def(Pure())

    @property
    @abstractmethod
    def root(self) -> SSAValue:
        """The value it differentiates: the loss, or the jvp's output."""

    @property
    @abstractmethod
    def differentiated(self) -> Sequence[SSAValue]:
        """The values it differentiates with respect to (its targets)."""


def is_differentiated(value: SSAValue) -> bool:
    """Whether a differentiation op takes a derivative with respect to `value`:
    then `value` must stay a node of its own (SPEC §4 rule 3)."""
    return any(
        isinstance(use.operation, DifferentiationOp)
        and value in use.operation.differentiated
        for use in value.uses
    )
