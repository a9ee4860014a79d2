"""Canonicalization patterns of the `grad` ops, applied by xDSL's `canonicalize`.

Every rewrite here is exact in IEEE float32: the rewritten program computes the
same bits as the original for every input, -0.0, NaN and infinities included.
Simplifications that are not (`x + 0.0 -> x` loses -0.0, `x * 0.0 -> 0.0` loses
NaN and infinities, `recip (recip x) -> x` rounds) are deliberately absent.
Constant folding is the ops' `fold` (`KernelOp.fold`), which `canonicalize` calls
before these patterns: it runs the ops' own kernels, so it computes exactly
what the interpreter would.
"""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import FloatAttr, IntegerAttr, TensorType
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect.differentiation import is_differentiated
from gradopt.dialect.ops import (
    BitcastOp,
    BroadcastOp,
    CastOp,
    ConstOp,
    MaxOp,
    MulOp,
    NegOp,
    PadOp,
    PermuteOp,
    ReshapeOp,
    ReverseOp,
    SliceOp,
    WhereOp,
)


def splat_of(value: SSAValue) -> float | int | None:
    """The scalar of a splat `grad.const`, or None."""
    op = value.owner
    if isinstance(op, ConstOp) and isinstance(op.value, FloatAttr | IntegerAttr):
        return op.value.value.data
    return None


def _replace_by(rewriter: PatternRewriter, op: Operation, value: SSAValue) -> None:
    rewriter.replace(op, (), (value,))


class MulByOne(RewritePattern):
    """`mul x 1 -> x`, either side: multiplying by one is exact."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter, /):
        for x, one in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            if splat_of(one) == 1:
                return _replace_by(rewriter, op, x)


class NegOfNeg(RewritePattern):
    """`neg (neg x) -> x`: negation only flips the sign bit (wraps for i32)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: NegOp, rewriter: PatternRewriter, /):
        if isinstance(inner := op.input.owner, NegOp):
            _replace_by(rewriter, op, inner.input)


class MaxOfSame(RewritePattern):
    """`max x x -> x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MaxOp, rewriter: PatternRewriter, /):
        if op.lhs is op.rhs:
            _replace_by(rewriter, op, op.lhs)


class WhereOfSplatCondition(RewritePattern):
    """`where true a b -> a`, `where false a b -> b`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhereOp, rewriter: PatternRewriter, /):
        if (condition := splat_of(op.condition)) is not None:
            _replace_by(rewriter, op, op.on_true if condition else op.on_false)


class WhereOfSameSides(RewritePattern):
    """`where c x x -> x`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhereOp, rewriter: PatternRewriter, /):
        if op.on_true is op.on_false:
            _replace_by(rewriter, op, op.on_true)


class WhereOfWhereSameCondition(RewritePattern):
    """`where c (where c a b) d -> where c a d` and
    `where c a (where c b d) -> where c a d`: the inner choice is decided."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: WhereOp, rewriter: PatternRewriter, /):
        c, a, b = op.condition, op.on_true, op.on_false
        if isinstance(inner := a.owner, WhereOp) and inner.condition is c:
            rewriter.replace(op, WhereOp(c, inner.on_true, b))
        elif isinstance(inner := b.owner, WhereOp) and inner.condition is c:
            rewriter.replace(op, WhereOp(c, a, inner.on_false))


class MulOfMaskedByConstant(RewritePattern):
    """`mul (where c y 0.0) k -> where c (mul y k) (0.0 * k)` for a finite
    splat constant k (either side): where c is false the product is the
    constant 0.0 * k, exactly. With a non-constant k the zero side would be
    `0.0 * k`, which is NaN for an infinite k, so nothing is done."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: MulOp, rewriter: PatternRewriter, /):
        for masked, k in ((op.lhs, op.rhs), (op.rhs, op.lhs)):
            where, scale = masked.owner, splat_of(k)
            if (
                isinstance(where, WhereOp)
                and isinstance(scale, float)
                and np.isfinite(scale)
                and splat_of(where.on_false) == 0.0
            ):
                zero = np.float32(splat_of(where.on_false)) * np.float32(scale)
                assert isinstance(op.result.type, TensorType)
                product = MulOp(where.on_true, k)
                constant = ConstOp.splat(float(zero), op.result.type)
                rewriter.replace(
                    op,
                    [
                        product,
                        constant,
                        WhereOp(where.condition, product.result, constant.result),
                    ],
                )
                return


class IdentityShape(RewritePattern):
    """A reshape, permute, broadcast, cast, bitcast, slice or pad to its own
    operand's type (with the identity permutation for permute) is its operand:
    a slice of the whole operand, or a pad by nothing."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(
            op,
            ReshapeOp | PermuteOp | BroadcastOp | CastOp | BitcastOp | SliceOp | PadOp,
        ):
            return
        (operand,) = op.operands[:1]
        if operand.type != op.results[0].type:
            return
        if isinstance(op, PermuteOp | BroadcastOp):
            (values,) = (op.ints(name) for name in op.LISTS)
            if list(values) != list(range(len(values))):
                return
        _replace_by(rewriter, op, operand)


class ReshapeOfReshape(RewritePattern):
    """`reshape (reshape x) -> reshape x`: row-major order is kept throughout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /):
        if isinstance(inner := op.input.owner, ReshapeOp):
            assert isinstance(op.result.type, TensorType)
            rewriter.replace(op, ReshapeOp(inner.input, op.result.type))


class ReverseOfReverse(RewritePattern):
    """`reverse (reverse x d) d -> x`: flipping twice moves every element back."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReverseOp, rewriter: PatternRewriter, /):
        inner = op.input.owner
        if isinstance(inner, ReverseOp) and inner.ints("dims") == op.ints("dims"):
            _replace_by(rewriter, op, inner.input)


class PermuteOfPermute(RewritePattern):
    """`permute (permute x p) q -> permute x r` with r[i] = p[q[i]]."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PermuteOp, rewriter: PatternRewriter, /):
        if isinstance(inner := op.input.owner, PermuteOp):
            p, q = inner.ints("perm"), op.ints("perm")
            assert isinstance(op.result.type, TensorType)
            rewriter.replace(
                op, PermuteOp(inner.input, [p[i] for i in q], op.result.type)
            )


class KeepDifferentiatedValues(RewritePattern):
    """Applies `patterns` except to an op that reads or defines a value that a
    differentiation op takes a derivative with respect to: replacing that value
    (`x` for `mul x 1.0`, a literal when folding), or bypassing it
    (`neg (neg a) -> x` when `a = neg x` is the target), would change or cut
    the node the derivative is taken at."""

    def __init__(self, *patterns: RewritePattern):
        self.patterns = patterns

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if any(is_differentiated(v) for v in (*op.results, *op.operands)):
            return
        for pattern in self.patterns:
            pattern.match_and_rewrite(op, rewriter)
            if rewriter.has_done_action:
                return


_IDENTITY = IdentityShape()
PATTERNS: dict[type[Operation], RewritePattern] = {
    MulOp: KeepDifferentiatedValues(MulByOne(), MulOfMaskedByConstant()),
    NegOp: KeepDifferentiatedValues(NegOfNeg()),
    MaxOp: KeepDifferentiatedValues(MaxOfSame()),
    WhereOp: KeepDifferentiatedValues(
        WhereOfSplatCondition(),
        WhereOfSameSides(),
        WhereOfWhereSameCondition(),
    ),
    ReshapeOp: KeepDifferentiatedValues(_IDENTITY, ReshapeOfReshape()),
    PermuteOp: KeepDifferentiatedValues(_IDENTITY, PermuteOfPermute()),
    BroadcastOp: KeepDifferentiatedValues(_IDENTITY),
    CastOp: KeepDifferentiatedValues(_IDENTITY),
    BitcastOp: KeepDifferentiatedValues(_IDENTITY),
    SliceOp: KeepDifferentiatedValues(_IDENTITY),
    PadOp: KeepDifferentiatedValues(_IDENTITY),
    ReverseOp: KeepDifferentiatedValues(ReverseOfReverse()),
}


def patterns_for(op_type: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns rooted at ops of `op_type`."""
    return (PATTERNS[op_type],) if op_type in PATTERNS else ()
