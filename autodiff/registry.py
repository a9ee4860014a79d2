"""How derivatives flow through an op: its `Derivative`, found by `derivative_of`.

An op of any dialect gets a derivative by `register_derivative(OpType, ...)`, in
the style of MLIR's external models: the op's own definition need not know
about differentiation, and gradopt's `grad` ops are registered the same way (in
`gradopt.autodiff.rules.grad`). The verifier (SPEC §4 rule 5) asks `derivative_of`
whether an op on a path has a rule; both walks ask it for the rule itself, and
know nothing else about ops.

A rule builds ops with an `Emitter` (`gradopt.autodiff.emitter`): `e.mul(g, b)`
for a `grad` op, `e.insert(SomeOp(...))` for any other.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Sequence
from dataclasses import dataclass
from enum import Enum
from importlib import import_module
from importlib.util import find_spec
from typing import TYPE_CHECKING

from xdsl.ir import Attribute, Operation, SSAValue

from gradopt.autodiff.upstream import is_f32_value

if TYPE_CHECKING:
    from gradopt.autodiff.emitter import Emitter

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
    refuses: Callable[[Operation, bool], str | None] | None = None
    """Why a given op has no rule in one mode (forward: True), if it lacks
    one (a `grad.custom` without its vjp or jvp function); None: it has both."""
    captures: bool = False
    """Whether the rules also take the values the op's regions read from
    outside (after its operands, in order of first use: a gather inside a
    `linalg.generic` body); otherwise such a value on the path is an error."""

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

    @staticmethod
    def linear(
        transpose: ReverseRule,
        tangent_properties: Callable[[Operation], dict[str, Attribute]] | None = None,
    ) -> Derivative:
        """The derivative of an op that is linear in its operands (JAX's
        `deflinear`): only its transpose, the reverse rule, is written; the
        tangent is the same op applied to the operands' tangents (`+0.0` zeros
        for an f32 operand off the path, index operands as they are), with
        the op's properties, or those that `tangent_properties` gives (a pad's
        value must be 0.0 to be linear)."""

        def tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
            operands = [
                ta if ta is not None else e.zeros_like(a) if is_f32_value(a.type) else a
                for ta, a in zip(t, op.operands, strict=True)
            ]
            properties = (
                dict(op.properties)
                if tangent_properties is None
                else tangent_properties(op)
            )
            return e.insert(
                type(op).create(
                    operands=operands,
                    result_types=op.result_types,
                    properties=properties,
                )
            )

        return Derivative(transpose, tangent)

    @staticmethod
    def of_shares(reverse: ReverseRule) -> Derivative:
        """The derivative of an upstream op whose shares are linear in g (SPEC
        §10.2): the tangent is the sum, by `arith.addf` in operand order, of
        each operand's share built from that operand's tangent in place of g,
        which is the directional derivative."""

        def tangent(e: Emitter, op: Operation, t: Sequence[Tangent]) -> SSAValue:
            terms = [
                share()
                for k, tk in enumerate(t)
                if tk is not None and (share := reverse(e, op, tk)[k]) is not None
            ]
            if not terms:
                return e.zeros_like(op.results[0])
            total = terms[0]
            for term in terms[1:]:
                total = e.addf(total, term)
            return total

        return Derivative(reverse, tangent)


class InOrder(list[tuple[SSAValue, Share]]):
    """What a joint reverse rule may give instead of a share per input: the
    shares of its inputs one by one, in the order they arrive (a derivative
    function's shares to its arguments, which the walk adds one by one as
    the inlined body would)."""


class Renamed(list["Tangent"]):
    """What a joint tangent rule that replaced its op by another gives: the
    tangent of each result, and in `results` the values that stand for the
    op's results now (a call replaced by one that also returns a tape)."""

    def __init__(self, tangents: Sequence[Tangent], results: Sequence[SSAValue]):
        super().__init__(tangents)
        self.results = list(results)


JointReverseRule = Callable[
    ["Emitter", Operation, Sequence[SSAValue | None]], Sequence[Share | None] | InOrder
]
"""Given the gradient of every result (None: none reached it), a share builder
per input: the operands, then the values the op's regions capture (or the
shares `InOrder`)."""

JointTangentRule = Callable[
    ["Emitter", Operation, Sequence[Tangent]], Sequence[Tangent]
]
"""Given a tangent per input (operands, then captured values), the tangent of
every result (None for a result that carries none)."""


Keeps = Callable[[Operation, Container[SSAValue], Container[SSAValue], bool], bool]
"""Given an op, the values that the walk's graph reaches, those on its path,
and the mode (forward: True), whether the op's rules have the bits of
unfolding it."""


@dataclass(frozen=True)
class RegionDerivative:
    """The derivative of a call or of an op with regions (`scf.for`, `scf.if`,
    `scf.while`), which only a differentiation op that says `control_flow`
    passes (SPEC §11).

    Either the op stands for other ops and `unfold` replaces it by them before
    the walk sees it (a call by its callee's body: the bits of inlining), or
    its results are differentiated together by `reverse` and `tangent`, which
    emit regions (or functions) of their own; the values its regions capture
    are then its inputs beside its operands. A call has both: it is unfolded
    where it must have the bits of inlining, and differentiated by derivative
    functions inside loops (SPEC §11)."""

    reverse: JointReverseRule | None = None
    tangent: JointTangentRule | None = None
    unfold: Callable[[Operation], None] | None = None
    check: Callable[[Operation], None] | None = None
    """Raises an `OpError` if the op's own settings (a loop's checkpointing
    attributes) cannot be differentiated; the verifier calls it on the path."""
    kept: Keeps | None = None
    """Whether the rules of an op that unfolds give it the bits of unfolding
    it, so that it may stay (a call: SPEC §11)."""

    def keeps(
        self,
        op: Operation,
        reached: Container[SSAValue],
        path: Container[SSAValue],
        forward: bool,
    ) -> bool:
        return self.kept is not None and self.kept(op, reached, path, forward)

    def __post_init__(self) -> None:
        if (self.reverse is None) != (self.tangent is None) or (
            self.unfold is None and self.reverse is None
        ):
            raise ValueError("a RegionDerivative has both rules, or unfolds")

    @property
    def passes(self) -> bool:
        return True


STOPS_GRADIENT = Derivative(flow=Flow.STOPS)
DEAD_END = Derivative(flow=Flow.DEAD_END)

AnyDerivative = Derivative | RegionDerivative

DerivativeOf = Callable[[Operation], AnyDerivative | None]
"""The derivative of one op, for op types whose rule depends on the op's
properties (`grad.reduce add` has one, `grad.reduce mul` none)."""

_REGISTERED: dict[type[Operation], DerivativeOf] = {}


_REASONS: dict[type[Operation], Callable[[Operation], str | None]] = {}


def register_derivative(
    op_type: type[Operation],
    derivative: AnyDerivative | DerivativeOf,
    reason: Callable[[Operation], str | None] | None = None,
) -> None:
    """Give every op of `op_type` (or of a subclass without a registration of
    its own) `derivative`, or the derivative that a function of the op gives
    (None: that op has no rule, and `reason` says why, for the diagnostic)."""
    if op_type in _REGISTERED:
        raise ValueError(f"{op_type.__name__} already has a derivative")
    if reason is not None:
        _REASONS[op_type] = reason
    if isinstance(derivative, Derivative | RegionDerivative):
        record = derivative
        _REGISTERED[op_type] = lambda _: record
    else:
        _REGISTERED[op_type] = derivative


_RULE_MODULES_TRIED: set[str] = set()


def _load_rules(dialect: str) -> None:
    """Import `gradopt.autodiff.rules.<dialect>`, where the derivatives of that
    dialect's ops are registered, the first time an op of it is asked about:
    rules load with the ops that need them, not at `import gradopt`."""
    _RULE_MODULES_TRIED.add(dialect)
    module = f"{__package__}.rules.{dialect}"
    if find_spec(module) is not None:
        import_module(module)


def derivative_of(op: Operation) -> AnyDerivative | None:
    """The derivative of `op`, or None if it has no rule: then a target's
    influence cannot pass it, and the verifier refuses it on a path."""
    if (dialect := op.name.partition(".")[0]) not in _RULE_MODULES_TRIED:
        _load_rules(dialect)
    for op_type in type(op).__mro__:
        if (found := _REGISTERED.get(op_type)) is not None:
            return found(op)
    return None


def why_no_rule(op: Operation) -> str | None:
    """Why `op`, which has no derivative, has none, if its rules say."""
    for op_type in type(op).__mro__:
        if (reason := _REASONS.get(op_type)) is not None:
            return reason(op)
    return None
