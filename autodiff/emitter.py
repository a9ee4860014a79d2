"""Builds `grad` ops from values, as the gradient and tangent rules write them.

Result types are inferred, and a float operand such as the `0.5` in
`mul g 0.5` becomes a `grad.const` splat of the other operand's type. Each new
op is inserted before a fixed anchor, in the order the calls are made; constants
are created once per value and type and reused (SPEC §5.3: only constants are
reused, everything else is one new op per op named).
"""

from __future__ import annotations

import struct
from collections.abc import Callable, Container, Hashable, Sequence
from functools import lru_cache

from xdsl.dialects.builtin import LocationAttr, TensorType, f32, i1
from xdsl.ir import Attribute, Block, Operation, SSAValue

from gradopt.autodiff.upstream import UpstreamBuilder, float_type
from gradopt.dialect.errors import OpError
from gradopt.dialect.ops import (
    AddOp,
    BroadcastOp,
    CastOp,
    CmpEqOp,
    CmpLtOp,
    ConcatOp,
    ConstOp,
    DotOp,
    MulOp,
    NegOp,
    PadOp,
    PermuteOp,
    RecipOp,
    ReduceOp,
    ReshapeOp,
    ReverseOp,
    SinOp,
    SliceOp,
    WhereOp,
)
from gradopt.dialect.types import tensor_type

Operand = SSAValue | float


@lru_cache(maxsize=4096)
def interned_tensor(element: Attribute, shape: tuple[int, ...]) -> TensorType:
    """One `TensorType` per element and shape: building and verifying the same
    type anew for every op the rules create cost a sixth of the pass."""
    return TensorType(element, shape)


def _with_element(type: TensorType, element: Attribute) -> TensorType:
    return interned_tensor(element, type.get_shape())


class ConstantPool:
    """The constants created so far in one block, by family, value bits and
    type."""

    def __init__(self) -> None:
        self._by_block: dict[Block, dict[Hashable, SSAValue]] = {}

    def get(
        self, key: Hashable, build: Callable[[], Operation], emitter: Emitter
    ) -> SSAValue:
        constants = self._by_block.setdefault(emitter.block, {})
        if key not in constants:
            constants[key] = emitter.insert(build())
        return constants[key]


class Emitter(UpstreamBuilder):
    """Inserts new ops before `anchor`, giving them `anchor`'s location."""

    def __init__(self, anchor: Operation, constants: ConstantPool):
        assert anchor.parent is not None
        self.anchor = anchor
        self.block: Block = anchor.parent
        self.location: LocationAttr = anchor.location
        self.constants = constants
        self.result: SSAValue | None = None
        """The result whose rule a walk calls (for ops of several results)."""
        self.path: Container[SSAValue] | None = None
        """The values on the path of the walk that calls a rule (None: all):
        the rule need not build the shares of its other inputs."""

    def insert(self, op: Operation) -> SSAValue:
        op.location = self.location
        self.block.insert_op_before(op, self.anchor)
        return op.results[0]

    def _build(
        self, op_type: type[Operation], operands: Sequence[SSAValue], type: Attribute
    ) -> SSAValue:
        """Insert a new `op_type` op of one result and no properties, made
        without the IRDL builder, which checks each argument against the op's
        definition: the rules pass operands of the types the op needs (the
        module is verified after the pass), and those checks took a third of
        the pass's time."""
        op = op_type.create(
            operands=operands, result_types=(type,), location=self.location
        )
        self.block.insert_op_before(op, self.anchor)
        return op.results[0]

    def cached(self, key: Hashable, build: Callable[[], Operation]) -> SSAValue:
        return self.constants.get(key, build, self)

    def at(self, anchor: Operation) -> Emitter:
        return Emitter(anchor, self.constants)

    def const(self, value: float, type: TensorType) -> SSAValue:
        bits = struct.unpack("<I", struct.pack("<f", value))[0]
        return self.cached((bits, type), lambda: ConstOp.splat(value, type))

    def add(self, a: SSAValue, b: Operand) -> SSAValue:
        return self._build(AddOp, (a, self._float(b, tensor_type(a))), a.type)

    def mul(self, a: SSAValue, b: Operand) -> SSAValue:
        return self._build(MulOp, (a, self._float(b, tensor_type(a))), a.type)

    def neg(self, a: SSAValue) -> SSAValue:
        return self._build(NegOp, (a,), a.type)

    def recip(self, a: SSAValue) -> SSAValue:
        return self._build(RecipOp, (a,), a.type)

    def sin(self, a: SSAValue) -> SSAValue:
        return self._build(SinOp, (a,), a.type)

    def cmplt(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._build(CmpLtOp, (a, b), _with_element(tensor_type(a), i1))

    def cmpeq(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self._build(CmpEqOp, (a, b), _with_element(tensor_type(a), i1))

    def where(self, condition: SSAValue, a: Operand, b: Operand) -> SSAValue:
        """`where c a b`; literal sides are f32 splats of the condition's shape."""
        type = _with_element(tensor_type(condition), f32)
        on_true = self._float(a, type)
        return self._build(
            WhereOp, (condition, on_true, self._float(b, type)), on_true.type
        )

    def _float(self, operand: Operand, type: TensorType) -> SSAValue:
        return operand if isinstance(operand, SSAValue) else self.const(operand, type)

    def reduce_add(self, a: SSAValue, axes: Sequence[int]) -> SSAValue:
        type = tensor_type(a)
        shape = tuple(d for i, d in enumerate(type.get_shape()) if i not in axes)
        kept = interned_tensor(type.get_element_type(), shape)
        return self.insert(ReduceOp("add", a, axes, kept))

    def broadcast(self, a: SSAValue, dims: Sequence[int], type: TensorType) -> SSAValue:
        return self.insert(BroadcastOp(a, dims, type))

    def reshape(self, a: SSAValue, type: TensorType) -> SSAValue:
        return self.insert(ReshapeOp(a, type))

    def permute(self, a: SSAValue, perm: Sequence[int]) -> SSAValue:
        type = tensor_type(a)
        shape = tuple(type.get_shape()[p] for p in perm)
        return self.insert(
            PermuteOp(a, perm, interned_tensor(type.get_element_type(), shape))
        )

    def dot(self, a: SSAValue, b: SSAValue) -> SSAValue:
        return self.insert(DotOp(a, b))

    def slice(
        self,
        a: SSAValue,
        start: Sequence[int],
        limit: Sequence[int],
        stride: Sequence[int],
    ) -> SSAValue:
        return self.insert(SliceOp(a, start, limit, stride))

    def pad(
        self,
        a: SSAValue,
        low: Sequence[int],
        high: Sequence[int],
        interior: Sequence[int],
    ) -> SSAValue:
        """`pad a ... value 0.0`: the pad of a share or tangent is zeros."""
        return self.insert(PadOp(a, low, high, interior, 0.0))

    def reverse(self, a: SSAValue, dims: Sequence[int]) -> SSAValue:
        return self.insert(ReverseOp(a, dims))

    def concat(self, values: Sequence[SSAValue], dim: int) -> SSAValue:
        return self.insert(ConcatOp(values, dim))

    def identity(self, a: SSAValue) -> SSAValue:
        """A new value equal to `a` (a `grad.cast` to its own type)."""
        return self._build(CastOp, (a,), a.type)

    def zeros(self, type: TensorType) -> SSAValue:
        return self.const(0.0, type)

    def zeros_like(self, value: SSAValue) -> SSAValue:
        """Zeros of `value`'s type, of its family (SPEC §10.2). A size known
        at run time only (a cache of a loop with a run-time trip count, which
        a derivative of a gradient meets) has no literal: an error."""
        type = value.type
        if isinstance(type, TensorType) and not type.has_static_shape():
            raise OpError(
                self.anchor,
                f"needs zeros of {type}, whose size is known at run time only (a "
                "derivative of a gradient through a loop whose trip count is "
                "known at run time only is not supported)",
            )
        if self.adds_upstream(value):
            return self.fzeros(value)
        return self.zeros(tensor_type(value))

    def accumulate(self, value: SSAValue, g: SSAValue, share: SSAValue) -> SSAValue:
        """`g + share` for `value`'s gradient, in `value`'s family."""
        return self.addf(g, share) if self.adds_upstream(value) else self.add(g, share)

    def seed(self, loss: SSAValue) -> SSAValue:
        """1.0 of the loss's type: `arith.constant` for an upstream loss."""
        if self.adds_upstream(loss):
            return self.fconst(1.0, float_type(loss))
        return self.one()

    def one(self) -> SSAValue:
        return self.const(1.0, TensorType(f32, []))
