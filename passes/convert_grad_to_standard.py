"""`convert-grad-to-standard`: lower every `grad` op to upstream MLIR dialects.

The result is ordinary MLIR on tensors (`arith`, `math`, `linalg`, `tensor`,
`func`, `scf`), which upstream tools such as `mlir-opt` and IREE compile, with
the meaning SPEC §6 gives each op:

- The slots are turned into tensors first (the `slots-to-tensors` pass):
  each memref argument becomes a tensor argument plus a result with its
  final contents.
- Elementwise arithmetic is the `arith` or `math` op of the same name on
  whole tensors (`shr` is the arithmetic `shrsi`, `recip` is `1.0 / a`, i32
  `neg` is `0 - a`).
- The rest of the elementwise ops become a `linalg.generic` over their shape
  whose body holds scalar ops, since xDSL's `arith.cmpf`, `arith.cmpi`,
  `arith.select` and conversion ops take scalars only:
  - comparisons are `olt`, `oeq` and `une` (`!=` holds for NaN, as in NumPy),
    `slt`, `eq` and `ne` for integers; `where` is `arith.select`;
  - f32 `max` is NumPy's `maximum`, `a` if it is NaN or greater, else `b`: NaN
    propagates as with `arith.maximumf`, and two zeros give `b` where
    `arith.maximumf` would give +0.0, so the result is bit-exact;
  - `idiv` and `mod` are `divsi` and `remsi` (rounding toward zero, as C) with
    the divisor made 1 where it is 0 or where the quotient overflows
    (INT_MIN / -1): the CPU traps on both, which would kill the process;
  - a cast from f32 to i32 is `fptosi` of the value with NaN made 0 and
    clamped into range, and 2^31 - 1 for values at or above 2^31, since
    `fptosi` alone is undefined out of range; to i1 is `!= 0`, from i1
    `uitofp` or `extui`, from i32 to f32 `sitofp`.
- `reduce` is a `linalg.reduce` into a `linalg.fill`ed init holding the
  identity of its kind: -0.0 for an f32 sum (so that a sum of -0.0 stays
  -0.0, as NumPy's), -inf or INT_MIN for `max`, 1 for `mul`.
- `broadcast` is a `linalg.broadcast`, after a `tensor.collapse_shape` that
  drops the input dims of size 1 that expand; `permute` is a
  `linalg.transpose`; `reshape` is a `tensor.collapse_shape`, an
  `tensor.expand_shape`, or both through the flat shape; `const` is an
  `arith.constant`.
- `dot` is a `linalg.matmul` into a zero-filled init; batched, a
  `linalg.generic` with `linalg.batch_matmul`'s maps and body (`acc + a * b`)
  over any number of batch dims, as xDSL has no `linalg.batch_matmul`; with
  inner size 0 it is the zero-filled init alone (IREE 3.13 crashes on a
  matmul over nothing).
- The ops that move data, exact like the interpreter's:
  - `slice` is a `tensor.extract_slice` with the strides; one with no
    elements is a `tensor.empty` (MLIR rejects a slice whose offset is the
    dim's size, even of zero elements);
  - `pad` is a `tensor.insert_slice` with strides `interior + 1` into a
    `linalg.fill`ed tensor (`tensor.pad` has no interior padding), or that
    tensor alone for an operand with no elements;
  - `reverse` is a `linalg.generic` whose body reads the operand with
    `tensor.extract` at `size - 1 - i` in the flipped dims (IREE 3.13 fails
    to compile a generic that reads through the map `d -> size - 1 - d`);
  - `concat` is a `tensor.concat`.
- `custom` is the `func.call` of its function (SPEC §3.7).
- `detach`, and a `cast` or `bitcast` to the same type, are their operand.

Run-time errors of the interpreter have no counterpart: a zero divisor, a
shift outside 0..31 and an out-of-range slot index give unspecified values.

Each op has one pattern in `PATTERNS`, which lowers it for every element
type it takes.

The differentiation ops must have been expanded (`expand-gradient`); any op
left unexpanded, or that this pass cannot lower, is a located error naming it.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import prod
from typing import cast

from xdsl.builder import Builder
from xdsl.context import Context
from xdsl.dialects import arith, func, math, tensor
from xdsl.dialects.builtin import (
    AffineMapAttr,
    ArrayAttr,
    BytesAttr,
    DenseArrayBase,
    DenseIntOrFPElementsAttr,
    Float32Type,
    FloatAttr,
    IndexType,
    IntegerAttr,
    IntegerType,
    ModuleOp,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.dialects.linalg import ops as linalg
from xdsl.dialects.linalg.attrs import IteratorTypeAttr
from xdsl.ir import Attribute, BlockArgument, Operation, SSAValue
from xdsl.ir.affine import AffineExpr, AffineMap
from xdsl.passes import ModulePass
from xdsl.pattern_rewriter import (
    GreedyRewritePatternApplier,
    PatternRewriter,
    PatternRewriteWalker,
    RewritePattern,
    op_type_rewrite_pattern,
)

from gradopt.dialect import ops as grad
from gradopt.dialect.differentiation import DifferentiationOp
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops.custom import CustomOp
from gradopt.dialect.types import I32_MAX, I32_MIN, is_i1, tensor_type
from gradopt.passes.slots_to_tensors import convert_slots

_F32_BELOW_2_31 = 2147483520.0
"""The largest f32 below 2^31: the clamp bound that `fptosi` converts exactly."""


def _element(value: SSAValue) -> Attribute:
    return tensor_type(value).get_element_type()


def scalar(value: float | int | bool, element: Attribute) -> arith.ConstantOp:
    """An `arith.constant` of one f32 or i32 scalar."""
    if element == f32:
        return arith.ConstantOp(FloatAttr(float(value), f32))
    assert element == i32
    return arith.ConstantOp(IntegerAttr(int(value), i32))


def splat_attr(value: float | int | bool, type: TensorType) -> DenseIntOrFPElementsAttr:
    """A dense attribute of `type` with every element `value`, stored as the
    one element: O(1) in the shape, printed as MLIR's splat `dense<v>`.

    xDSL's `from_list` repeats a splat's bytes over the whole shape, and its
    printer then unpacks every element into a Python float to find that they
    are equal: a 64 MB splat peaked at 1.4 GB and a 40 GB one could not be
    lowered at all. An attribute holding one element for many is xDSL's splat
    form: it prints as `dense<v> : type`, which MLIR and IREE read as the
    splat it is (xDSL's own parser would repeat it again)."""
    element = cast(Float32Type | IntegerType, type.get_element_type())
    data = [float(value)] if element == f32 else [int(value)]
    scalar_type = TensorType(element, [])
    one = DenseIntOrFPElementsAttr.from_list(scalar_type, data)  # pyright: ignore[reportCallIssue, reportArgumentType]
    return DenseIntOrFPElementsAttr(
        cast(TensorType[Float32Type | IntegerType], type), one.data
    )


def splat(value: float | int | bool, type: TensorType) -> arith.ConstantOp:
    """An `arith.constant` of `type` with every element `value`."""
    return arith.ConstantOp(splat_attr(value, type))


def _as_splat(value: DenseIntOrFPElementsAttr) -> DenseIntOrFPElementsAttr:
    """`value` in the splat form if all its elements have the same bits (as a
    dense literal `dense<1.0>` of the source is, which xDSL's parser
    expanded), else `value` itself; compared as raw bits without making a
    Python object per element."""
    size = value.get_element_type().compile_time_size
    data = value.data.data
    if len(data) <= size:
        return value
    first = data[:size]
    step = size * 4096
    for start in range(0, len(data), step):
        chunk = data[start : start + step]
        if chunk != first * (len(chunk) // size):
            return value
    return DenseIntOrFPElementsAttr(value.type, BytesAttr(first))


def filled(value: float | int, type: TensorType) -> list[Operation]:
    """`tensor.empty` of `type` filled with `value`: the init of a reduction
    or a matmul (the last op's result)."""
    empty = tensor.EmptyOp((), type)
    fill_value = scalar(value, type.get_element_type())
    return [empty, fill_value, linalg.FillOp((fill_value.result,), (empty.tensor,))]


ScalarBody = Callable[[Sequence[BlockArgument]], SSAValue]
"""Builds, with the implicit builder, the scalar ops of an elementwise body from
the operands' scalars; returns the result."""


def elementwise(
    operands: Sequence[SSAValue], type: TensorType, body: ScalarBody
) -> list[Operation]:
    """A `linalg.generic` mapping `body` over operands and a result of one shape
    (the last op's result)."""
    empty = tensor.EmptyOp((), type)
    rank = type.get_num_dims()
    identity = AffineMapAttr(AffineMap.identity(rank))
    element_types = [_element(v) for v in operands]

    @Builder.implicit_region([*element_types, type.get_element_type()])
    def region(args: tuple[BlockArgument, ...]) -> None:
        linalg.YieldOp(body(args[:-1]))

    generic = linalg.GenericOp(
        operands,
        [empty.tensor],
        region,
        [identity] * (len(operands) + 1),
        [IteratorTypeAttr.parallel()] * rank,
        [type],
    )
    return [empty, generic]


# --- elementwise ------------------------------------------------------------

Lowered = Callable[..., Operation]
"""An `arith` or `math` op class, built from the operands of a `grad` op."""


@dataclass(frozen=True)
class LowerToOne(RewritePattern):
    """A `grad` op that is one `arith` or `math` op on whole tensors:
    `grad.add %a, %b : T` -> `arith.addf %a, %b : T` for f32 (`float_op`),
    `arith.addi` for i32 and i1 (`integer_op`). An element type the op does
    not take has None."""

    op: type[Operation]
    float_op: Lowered | None = None
    integer_op: Lowered | None = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, self.op):
            return
        is_float = _element(op.operands[0]) == f32
        lowered = self.float_op if is_float else self.integer_op
        assert lowered is not None, "the op's verifier admits no such type"
        rewriter.replace(op, lowered(*op.operands))


class LowerNeg(RewritePattern):
    """`grad.neg` -> `arith.negf` for f32, `arith.subi 0, %a` for i32 (arith
    has no integer negation)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.NegOp, rewriter: PatternRewriter, /):
        if _element(op.input) == f32:
            rewriter.replace(op, arith.NegfOp(op.input))
            return
        zero = splat(0, tensor_type(op.input))
        rewriter.replace(op, [zero, arith.SubiOp(zero, op.input)])


class LowerRecip(RewritePattern):
    """`grad.recip %a` -> `arith.divf 1.0, %a`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.RecipOp, rewriter: PatternRewriter, /):
        one = splat(1.0, tensor_type(op.input))
        rewriter.replace(op, [one, arith.DivfOp(one, op.input)])


@dataclass(frozen=True)
class LowerCompare(RewritePattern):
    """`grad.cmplt %a, %b` -> `linalg.generic` of `arith.cmpf olt` for f32
    (`float_predicate`), `arith.cmpi slt` for i32 and i1, and the like."""

    op: type[grad.CmpLtOp | grad.CmpEqOp | grad.CmpNeOp]
    float_predicate: str
    integer_predicate: str

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, self.op):
            return
        is_float = _element(op.operands[0]) == f32

        def compare(args: Sequence[BlockArgument]) -> SSAValue:
            a, b = args
            if is_float:
                return arith.CmpfOp(a, b, self.float_predicate).result
            return arith.CmpiOp(a, b, self.integer_predicate).result

        type = tensor_type(op.results[0])
        rewriter.replace(op, elementwise(op.operands, type, compare))


class LowerWhere(RewritePattern):
    """`grad.where %c, %a, %b` -> `linalg.generic` of `arith.select`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.WhereOp, rewriter: PatternRewriter, /):
        def select(args: Sequence[BlockArgument]) -> SSAValue:
            return arith.SelectOp(*args).result

        rewriter.replace(op, elementwise(op.operands, tensor_type(op.result), select))


def _maximum(args: Sequence[BlockArgument]) -> SSAValue:
    """NumPy's `maximum` of two f32 scalars: `a` if it is NaN or greater, else
    `b`. Unlike `arith.maximumf` (IEEE 754-2019 `maximum`, where -0.0 < +0.0)
    it gives `b` for two zeros, as NumPy does, so the result is bit-exact."""
    a, b = args
    greater = arith.SelectOp(arith.CmpfOp(a, b, "ogt"), a, b)
    return arith.SelectOp(arith.CmpfOp(a, a, "uno"), a, greater).result


class LowerMax(RewritePattern):
    """`grad.max` -> `linalg.generic` of NumPy's `maximum` for f32 (a NaN
    operand gives NaN), `arith.maxsi` for i32."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.MaxOp, rewriter: PatternRewriter, /):
        if _element(op.lhs) == f32:
            type = tensor_type(op.result)
            rewriter.replace(op, elementwise(op.operands, type, _maximum))
        else:
            rewriter.replace(op, arith.MaxSIOp(op.lhs, op.rhs))


def _divide(
    divide: type[arith.DivSIOp | arith.RemSIOp],
) -> ScalarBody:
    """`divide` of two i32 scalars with the divisor made 1 where it is 0 or
    where the quotient overflows (INT_MIN / -1), either of which would trap
    on the CPU: then `idiv` gives the dividend (INT_MIN wrapped, as NumPy) and
    `mod` 0; a zero divisor is a run-time error in the interpreter only."""

    def body(args: Sequence[BlockArgument]) -> SSAValue:
        a, b = args
        zero = arith.CmpiOp(b, scalar(0, i32), "eq")
        minimum = arith.CmpiOp(a, scalar(I32_MIN, i32), "eq")
        minus_one = arith.CmpiOp(b, scalar(-1, i32), "eq")
        overflow = arith.AndIOp(minimum, minus_one)
        unsafe = arith.OrIOp(zero, overflow)
        divisor = arith.SelectOp(unsafe, scalar(1, i32), b)
        return divide(a, divisor).result

    return body


@dataclass(frozen=True)
class LowerDivision(RewritePattern):
    """`grad.idiv` and `grad.mod` -> `linalg.generic` of `arith.divsi` and
    `arith.remsi` (`divide`: rounding toward zero, as C) with a guarded
    divisor."""

    op: type[grad.IDivOp | grad.ModOp]
    divide: type[arith.DivSIOp | arith.RemSIOp]

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if isinstance(op, self.op):
            type = tensor_type(op.results[0])
            rewriter.replace(op, elementwise(op.operands, type, _divide(self.divide)))


def _to_i32(value: SSAValue) -> SSAValue:
    """f32 -> i32 rounding toward zero, saturating, NaN -> 0 (scalar ops)."""
    is_nan = arith.CmpfOp(value, value, "uno")
    zero = scalar(0.0, f32)
    number = arith.SelectOp(is_nan, zero, value)
    low = arith.MaximumfOp(number, scalar(float(I32_MIN), f32))
    clamped = arith.MinimumfOp(low, scalar(_F32_BELOW_2_31, f32))
    converted = arith.FPToSIOp(clamped, i32)
    too_big = arith.CmpfOp(value, scalar(2.0**31, f32), "oge")
    return arith.SelectOp(too_big, scalar(I32_MAX, i32), converted).result


def _convert(value: SSAValue, source: Attribute, target: Attribute) -> SSAValue:
    """One scalar converted as `grad.cast` converts it (source != target)."""
    if is_i1(target):
        if source == f32:
            return arith.CmpfOp(value, scalar(0.0, f32), "une").result
        return arith.CmpiOp(value, scalar(0, source), "ne").result
    if is_i1(source):
        if target == f32:
            return arith.UIToFPOp(value, f32).result
        return arith.ExtUIOp(value, i32).result
    if target == f32:
        return arith.SIToFPOp(value, f32).result
    return _to_i32(value)


Lowering = Callable[[Operation], "Operation | Sequence[Operation]"]
"""The upstream ops that compute a `grad` op (the last one's results replace it)."""


@dataclass(frozen=True)
class LowerOrForward(RewritePattern):
    """A `grad` op of one operand that is its operand when its result has the
    operand's type (a cast, bitcast, reshape or broadcast to the same type;
    `detach`, which only matters to differentiation, always), and otherwise
    the ops that `lower` builds."""

    op: type[Operation]
    lower: Lowering | None = None

    def match_and_rewrite(self, op: Operation, rewriter: PatternRewriter, /):
        if not isinstance(op, self.op):
            return
        if op.operands[0].type == op.results[0].type:
            rewriter.replace(op, (), (op.operands[0],))
        else:
            assert self.lower is not None, "the op always has its operand's type"
            rewriter.replace(op, self.lower(op))


def _cast(op: Operation) -> Sequence[Operation]:
    """`grad.cast` -> a `linalg.generic` of the scalar conversion."""
    assert isinstance(op, grad.CastOp)
    source, target = op.conversion()

    def convert(args: Sequence[BlockArgument]) -> SSAValue:
        return _convert(args[0], source, target)

    return elementwise([op.input], tensor_type(op.result), convert)


def _bitcast(op: Operation) -> Operation:
    """`grad.bitcast` -> `arith.bitcast`."""
    assert isinstance(op, grad.BitcastOp)
    return arith.BitcastOp(op.input, op.result.type)


def _reshape(op: Operation) -> Sequence[Operation]:
    """`grad.reshape` -> `tensor.collapse_shape` and/or `tensor.expand_shape`."""
    assert isinstance(op, grad.ReshapeOp)
    return reshaped(op.input, tensor_type(op.result))


def _broadcast(op: Operation) -> Sequence[Operation]:
    """`grad.broadcast %a [dims]` -> `linalg.broadcast` adding the output dims
    not in `dims`, after collapsing away the input dims of size 1 that
    expand (linalg.broadcast only adds dims)."""
    assert isinstance(op, grad.BroadcastOp)
    source, target = tensor_type(op.input), tensor_type(op.result)
    kept = [
        (size, d)
        for size, d in zip(source.get_shape(), op.ints("dims"), strict=True)
        if size == target.get_shape()[d]
    ]
    new_ops: list[Operation] = []
    input = op.input
    if len(kept) < source.get_num_dims():
        narrow = TensorType(source.get_element_type(), [s for s, _ in kept])
        new_ops.append(collapse(op.input, narrow))
        input = new_ops[-1].results[0]
    mapped = {d for _, d in kept}
    added = [d for d in range(target.get_num_dims()) if d not in mapped]
    empty = tensor.EmptyOp((), target)
    broadcast = linalg.BroadcastOp(
        input, empty.tensor, DenseArrayBase.from_list(i64, added)
    )
    return [*new_ops, empty, broadcast]


class LowerConst(RewritePattern):
    """`grad.const` -> `arith.constant` of a dense tensor: a splat, O(1) in
    the shape, for a scalar literal or a dense one whose elements are equal."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ConstOp, rewriter: PatternRewriter, /):
        try:
            if isinstance(op.value, DenseIntOrFPElementsAttr):
                constant = arith.ConstantOp(_as_splat(op.value))
            else:
                constant = splat(op.value.value.data, tensor_type(op.result))
        except MemoryError:
            raise OpError(op, "has a value too large to lower: out of memory") from None
        rewriter.replace(op, constant)


# --- shapes -----------------------------------------------------------------

_REDUCE_OPS: dict[
    tuple[grad.ReduceKind, Attribute], Callable[[SSAValue, SSAValue], Operation]
] = {
    (grad.ReduceKind.ADD, f32): arith.AddfOp,
    (grad.ReduceKind.MUL, f32): arith.MulfOp,
    (grad.ReduceKind.MAX, f32): arith.MaximumfOp,
    (grad.ReduceKind.ADD, i32): arith.AddiOp,
    (grad.ReduceKind.MUL, i32): arith.MuliOp,
    (grad.ReduceKind.MAX, i32): arith.MaxSIOp,
}


class LowerReduce(RewritePattern):
    """`grad.reduce add %a [axes]` -> `linalg.reduce` over `axes` into a filled
    init."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ReduceOp, rewriter: PatternRewriter, /):
        kind, element = op.reduce_kind, _element(op.input)
        key = (kind, element)
        init = filled(kind.identity(element), tensor_type(op.result))
        combine = _REDUCE_OPS[key]

        @Builder.implicit_region([key[1], key[1]])
        def region(args: tuple[BlockArgument, ...]) -> None:
            linalg.YieldOp(combine(args[0], args[1]))

        reduce = linalg.ReduceOp(op.input, init[-1].results[0], op.axes, region)
        rewriter.replace(op, [*init, reduce])


def _reassociation(
    groups: Sequence[Sequence[int]],
) -> ArrayAttr[ArrayAttr[IntegerAttr]]:
    return ArrayAttr(
        [ArrayAttr([IntegerAttr(i, i64) for i in group]) for group in groups]
    )


def _groups(long: Sequence[int], short: Sequence[int]) -> list[list[int]] | None:
    """How the dims of `long` group into those of `short` (each group a run of
    dims whose sizes multiply to one dim of `short`), or None if they do not."""
    if not short:
        return [] if all(size == 1 for size in long) else None
    groups: list[list[int]] = []
    position = 0
    for size in short:
        if position == len(long):
            return None
        group, product = [position], long[position]
        position += 1
        while product < size and position < len(long):
            group.append(position)
            product *= long[position]
            position += 1
        if product != size:
            return None
        groups.append(group)
    if any(size != 1 for size in long[position:]):
        return None
    groups[-1] += range(position, len(long))
    return groups


def collapse(value: SSAValue, type: TensorType) -> Operation:
    """`tensor.collapse_shape` of `value` to `type`, which its shape groups into."""
    groups = _groups(tensor_type(value).get_shape(), type.get_shape())
    assert groups is not None
    return tensor.CollapseShapeOp.create(
        operands=[value],
        result_types=[type],
        properties={"reassociation": _reassociation(groups)},
    )


def expand(value: SSAValue, type: TensorType) -> Operation:
    """`tensor.expand_shape` of `value` to `type`, whose shape groups into it."""
    groups = _groups(type.get_shape(), tensor_type(value).get_shape())
    assert groups is not None
    return tensor.ExpandShapeOp(
        value, [], _reassociation(groups), type.get_shape(), type
    )


def reshaped(value: SSAValue, type: TensorType) -> list[Operation]:
    """The ops giving `value` in `type` (same elements, row-major): one
    collapse or expand where the shapes group into one another, else a
    collapse to the flat shape and an expand from it."""
    source = tensor_type(value).get_shape()
    target = type.get_shape()
    if len(source) > len(target) and _groups(source, target) is not None:
        return [collapse(value, type)]
    if len(source) < len(target) and _groups(target, source) is not None:
        return [expand(value, type)]
    flat = TensorType(type.get_element_type(), [prod(target)])
    first = collapse(value, flat)
    return [first, expand(first.results[0], type)]


class LowerPermute(RewritePattern):
    """`grad.permute %a [perm]` -> `linalg.transpose` with the same permutation
    (output dim i is input dim perm[i] in both)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.PermuteOp, rewriter: PatternRewriter, /):
        empty = tensor.EmptyOp((), op.result.type)
        transpose = linalg.TransposeOp(op.input, empty.tensor, op.perm)
        rewriter.replace(op, [empty, transpose])


def _batch_matmul(lhs: SSAValue, rhs: SSAValue, init: SSAValue) -> Operation:
    """`linalg.generic` of `linalg.batch_matmul`'s maps and body (`init +
    lhs * rhs`) over any number of leading batch dims: xDSL has no
    `linalg.batch_matmul`, and this form also takes two or more batch dims."""
    batch = tensor_type(lhs).get_num_dims() - 2
    b = [AffineExpr.dimension(i) for i in range(batch)]
    m, n, k = (AffineExpr.dimension(batch + i) for i in range(3))
    maps = [(*b, m, k), (*b, k, n), (*b, m, n)]
    iterators = [IteratorTypeAttr.parallel()] * (batch + 2)
    element = _element(lhs)

    @Builder.implicit_region([element] * 3)
    def region(args: tuple[BlockArgument, ...]) -> None:
        a, b, acc = args
        linalg.YieldOp(arith.AddfOp(acc, arith.MulfOp(a, b)))

    return linalg.GenericOp(
        (lhs, rhs),
        (init,),
        region,
        [AffineMapAttr(AffineMap(batch + 3, 0, results)) for results in maps],
        [*iterators, IteratorTypeAttr.reduction()],
        [init.type],
    )


class LowerDot(RewritePattern):
    """`grad.dot` -> `linalg.matmul` into a zero-filled init; batched, the
    `linalg.generic` of a batch matmul into it. With inner size 0 the result
    is the init alone (IREE 3.13 crashes compiling a matmul over nothing)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.DotOp, rewriter: PatternRewriter, /):
        init = filled(0.0, tensor_type(op.result))
        out = init[-1].results[0]
        lhs = tensor_type(op.lhs)
        if lhs.get_shape()[-1] == 0:
            rewriter.replace(op, init)
            return
        if lhs.get_num_dims() == 2:
            product = linalg.MatmulOp((op.lhs, op.rhs), (out,))
        else:
            product = _batch_matmul(op.lhs, op.rhs, out)
        rewriter.replace(op, [*init, product])


# --- slicing ----------------------------------------------------------------


class LowerSlice(RewritePattern):
    """`grad.slice %a [start] [limit] [stride]` -> `tensor.extract_slice` at
    offsets `start` with strides `stride` and the result's sizes. An empty
    result holds no data: it is a `tensor.empty` (MLIR rejects a slice whose
    offset is the dim's size, even for zero elements, as `[4:4]` of 4)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.SliceOp, rewriter: PatternRewriter, /):
        type = tensor_type(op.result)
        if not prod(type.get_shape()):
            rewriter.replace(op, tensor.EmptyOp((), type))
            return
        starts = [start for start, _, _ in op.dims()]
        strides = [stride for _, _, stride in op.dims()]
        rewriter.replace(
            op,
            tensor.ExtractSliceOp(op.input, starts, type.get_shape(), strides, type),
        )


class LowerPad(RewritePattern):
    """`grad.pad` -> the operand `tensor.insert_slice`d, at offsets `low`
    with strides `interior + 1`, into a tensor `linalg.fill`ed with the pad
    value (`tensor.pad` has no interior padding). An empty operand inserts
    nothing: the result is the filled tensor."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.PadOp, rewriter: PatternRewriter, /):
        empty = tensor.EmptyOp((), op.result.type)
        value = arith.ConstantOp(op.literal)
        fill = linalg.FillOp((value.result,), (empty.tensor,))
        new_ops: list[Operation] = [empty, value, fill]
        shape = tensor_type(op.input).get_shape()
        if prod(shape):
            new_ops.append(
                tensor.InsertSliceOp.from_static_parameters(
                    op.input,
                    fill.results[0],
                    [low for low, _, _ in op.dims()],
                    shape,
                    [interior + 1 for _, _, interior in op.dims()],
                )
            )
        rewriter.replace(op, new_ops)


class LowerReverse(RewritePattern):
    """`grad.reverse %a [dims]` -> `linalg.generic` whose body reads, at the
    result's index i, `tensor.extract %a` at `size - 1 - i` in each flipped
    dim. (A generic reading `%a` through the map `d -> size - 1 - d` is valid
    MLIR too, but IREE 3.13 fails to compile it for most shapes.)"""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ReverseOp, rewriter: PatternRewriter, /):
        type = tensor_type(op.result)
        flipped = op.ints("dims")

        def read(args: Sequence[BlockArgument]) -> SSAValue:
            index: list[SSAValue] = []
            for d, size in enumerate(type.get_shape()):
                i = linalg.IndexOp(d).result
                if d in flipped:
                    last = arith.ConstantOp(IntegerAttr(size - 1, IndexType()))
                    i = arith.SubiOp(last, i).result
                index.append(i)
            return tensor.ExtractOp(op.input, index, _element(op.input)).result

        rewriter.replace(op, elementwise([], type, read))


class LowerConcat(RewritePattern):
    """`grad.concat %a, %b [d]` -> `tensor.concat dim(d) %a, %b`."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: grad.ConcatOp, rewriter: PatternRewriter, /):
        rewriter.replace(
            op, tensor.ConcatOp(op.inputs, op.axis, tensor_type(op.result))
        )


class LowerCustom(RewritePattern):
    """`grad.custom @f(%a) ...` -> `func.call @f(%a)`: its value (SPEC §3.7)."""

    @op_type_rewrite_pattern
    def match_and_rewrite(self, op: CustomOp, rewriter: PatternRewriter, /):
        rewriter.replace(op, func.CallOp(op.callee, op.arguments, op.res.types))


PATTERNS: tuple[RewritePattern, ...] = (
    LowerConst(),
    LowerToOne(grad.AddOp, arith.AddfOp, arith.AddiOp),
    LowerToOne(grad.MulOp, arith.MulfOp, arith.MuliOp),
    LowerMax(),
    LowerNeg(),
    LowerRecip(),
    LowerToOne(grad.Exp2Op, math.Exp2Op),
    LowerToOne(grad.Log2Op, math.Log2Op),
    LowerToOne(grad.SqrtOp, math.SqrtOp),
    LowerToOne(grad.SinOp, math.SinOp),
    LowerCompare(grad.CmpLtOp, "olt", "slt"),
    LowerCompare(grad.CmpEqOp, "oeq", "eq"),
    LowerCompare(grad.CmpNeOp, "une", "ne"),
    LowerWhere(),
    LowerDivision(grad.IDivOp, arith.DivSIOp),
    LowerDivision(grad.ModOp, arith.RemSIOp),
    LowerToOne(grad.AndOp, integer_op=arith.AndIOp),
    LowerToOne(grad.OrOp, integer_op=arith.OrIOp),
    LowerToOne(grad.XorOp, integer_op=arith.XOrIOp),
    LowerToOne(grad.ShlOp, integer_op=arith.ShLIOp),
    LowerToOne(grad.ShrOp, integer_op=arith.ShRSIOp),
    LowerOrForward(grad.CastOp, _cast),
    LowerOrForward(grad.BitcastOp, _bitcast),
    LowerOrForward(grad.DetachOp),
    LowerReduce(),
    LowerOrForward(grad.BroadcastOp, _broadcast),
    LowerPermute(),
    LowerOrForward(grad.ReshapeOp, _reshape),
    LowerDot(),
    LowerSlice(),
    LowerPad(),
    LowerReverse(),
    LowerConcat(),
    LowerCustom(),
)
"""One pattern per `grad` op (but `load` and `store`, which `slots-to-tensors`
removes first), each handling every element type of its op."""


def _check_expanded(module: ModuleOp) -> None:
    for op in module.walk():
        if isinstance(op, DifferentiationOp):
            raise OpError(
                op,
                "must be expanded before lowering: run expand-gradient before "
                "convert-grad-to-standard",
            )


def _check_lowered(module: ModuleOp) -> None:
    for op in module.walk():
        if op.dialect_name() == "grad":
            raise OpError(op, "has no lowering to upstream dialects")


@dataclass(frozen=True)
class ConvertGradToStandardPass(ModulePass):
    """Lower every `grad` op to `arith`, `math`, `linalg` and `tensor` on
    tensors, with the slots turned into arguments and results."""

    name = "convert-grad-to-standard"

    def apply(self, ctx: Context, op: ModuleOp) -> None:
        _check_expanded(op)
        from gradopt.passes.lower_indexing import INDEXING_PATTERNS

        convert_slots(op)
        PatternRewriteWalker(
            GreedyRewritePatternApplier([*PATTERNS, *INDEXING_PATTERNS]),
            apply_recursively=False,
        ).rewrite_module(op)
        _check_lowered(op)
