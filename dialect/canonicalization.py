"""Canonicalization patterns of the `grad` ops, applied by xDSL's `canonicalize`.

Every rewrite here is exact in IEEE float32: the rewritten program computes the
same bits as the original for every input, -0.0, NaN and infinities included.
Simplifications that are not (`x + 0.0 -> x` loses -0.0, `x * 0.0 -> 0.0` loses
NaN and infinities, `recip (recip x) -> x` rounds) are deliberately absent.
Constant folding runs the ops' own kernels, so it computes exactly what the
interpreter would.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from xdsl.dialects.builtin import (
    DenseIntOrFPElementsAttr,
    FloatAttr,
    IntegerAttr,
    TensorType,
)
from xdsl.ir import Operation, SSAValue
from xdsl.pattern_rewriter import (
    PatternRewriter,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect.ops import (
    BitcastOp,
    BroadcastOp,
    CastOp,
    ConstOp,
    EvaluationError,
    GradOp,
    LoadOp,
    MaxOp,
    MulOp,
    NegOp,
    PermuteOp,
    ReshapeOp,
    StoreOp,
    WhereOp,
    is_differentiated,
)

FOLD_LIMIT = 1 << 20
"""Largest tensor (in elements) that constant folding materializes."""


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
    """A reshape, permute, broadcast, cast or bitcast to its own operand's type
    (with the identity permutation for permute) is its operand."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, ReshapeOp | PermuteOp | BroadcastOp | CastOp | BitcastOp):
            return
        (operand,) = op.operands[:1]
        if operand.type != op.results[0].type:
            return
        if isinstance(op, PermuteOp | BroadcastOp) and list(op.int_list()) != list(
            range(len(op.int_list()))
        ):
            return
        _replace_by(rewriter, op, operand)


class ReshapeOfReshape(RewritePattern):
    """`reshape (reshape x) -> reshape x`: row-major order is kept throughout."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: ReshapeOp, rewriter: PatternRewriter, /):
        if isinstance(inner := op.input.owner, ReshapeOp):
            assert isinstance(op.result.type, TensorType)
            rewriter.replace(op, ReshapeOp(inner.input, op.result.type))


class PermuteOfPermute(RewritePattern):
    """`permute (permute x p) q -> permute x r` with r[i] = p[q[i]]."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: PermuteOp, rewriter: PatternRewriter, /):
        if isinstance(inner := op.input.owner, PermuteOp):
            p, q = inner.int_list(), op.int_list()
            assert isinstance(op.result.type, TensorType)
            rewriter.replace(
                op, PermuteOp(inner.input, [p[i] for i in q], op.result.type)
            )


def constant_of(array: np.ndarray, type: TensorType) -> ConstOp:
    """A `grad.const` holding `array`: one scalar if every element has the same
    bits, dense data otherwise."""
    flat = np.ascontiguousarray(array).reshape(-1)
    bits = flat.view(np.int32) if flat.dtype == np.float32 else flat
    if flat.size and np.all(bits == bits[0]):
        return ConstOp.splat(flat[0].item(), type)
    dense = DenseIntOrFPElementsAttr.from_list(
        type,  # pyright: ignore[reportArgumentType, reportCallIssue]
        flat.tolist(),
    )
    return ConstOp(dense, type)


class FoldConstants(RewritePattern):
    """An op whose operands are all `grad.const` becomes a `grad.const`,
    computed by the op's kernel (the interpreter's semantics, in float32)."""

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if (
            not isinstance(op, GradOp)
            or isinstance(op, ConstOp | LoadOp | StoreOp)
            or not op.operands
            or not all(isinstance(o.owner, ConstOp) for o in op.operands)
        ):
            return
        types: Sequence[TensorType] = [*op.operand_types, op.results[0].type]  # type: ignore[list-item]
        if any(t.element_count() > FOLD_LIMIT for t in types):
            return
        arrays = [o.owner.array() for o in op.operands]  # type: ignore[union-attr]
        try:
            with np.errstate(all="ignore"):
                result = np.asarray(op.kernel()(*arrays))
        except EvaluationError:
            return
        rewriter.replace(op, constant_of(result, types[-1]))


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


_FOLD = FoldConstants()
_IDENTITY = IdentityShape()
PATTERNS: dict[type[Operation], RewritePattern] = {
    MulOp: KeepDifferentiatedValues(MulByOne(), MulOfMaskedByConstant(), _FOLD),
    NegOp: KeepDifferentiatedValues(NegOfNeg(), _FOLD),
    MaxOp: KeepDifferentiatedValues(MaxOfSame(), _FOLD),
    WhereOp: KeepDifferentiatedValues(
        WhereOfSplatCondition(),
        WhereOfSameSides(),
        WhereOfWhereSameCondition(),
        _FOLD,
    ),
    ReshapeOp: KeepDifferentiatedValues(_IDENTITY, ReshapeOfReshape(), _FOLD),
    PermuteOp: KeepDifferentiatedValues(_IDENTITY, PermuteOfPermute(), _FOLD),
    BroadcastOp: KeepDifferentiatedValues(_IDENTITY, _FOLD),
    CastOp: KeepDifferentiatedValues(_IDENTITY, _FOLD),
    BitcastOp: KeepDifferentiatedValues(_IDENTITY, _FOLD),
}
_FOLD_ONLY = KeepDifferentiatedValues(_FOLD)


def patterns_for(op_type: type[Operation]) -> tuple[RewritePattern, ...]:
    """The canonicalization patterns rooted at ops of `op_type`."""
    return (PATTERNS.get(op_type, _FOLD_ONLY),)
