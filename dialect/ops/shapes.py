"""SPEC §3.2: reductions, `broadcast`, `reshape`, `permute` and `dot`."""

from __future__ import annotations

import math
from abc import ABC
from collections.abc import Sequence
from enum import Enum
from itertools import pairwise
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    DenseArrayBase,
    StringAttr,
    TensorType,
    f32,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    prop_def,
    result_def,
    traits_def,
)
from xdsl.parser import Parser
from xdsl.printer import Printer
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.kernels import Kernel, contiguous, maximum_reduce
from gradopt.dialect.ops.base import (
    GradCanonicalization,
    KernelOp,
    ListOp,
    RetypeOp,
    axes_text,
    shape_of,
)
from gradopt.dialect.types import I32_MIN, check_tensor, dtype_of, int_list, tensor_type


class ReduceKind(Enum):
    """A reduction of `grad.reduce`: its keyword, its NumPy ufunc, and its
    identity for f32 and for i32 (the init of a reduction, as the lowering
    builds it: -0.0 for an f32 sum, so that a sum of -0.0 stays -0.0)."""

    ADD = ("add", np.add, -0.0, 0)
    MAX = ("max", np.maximum, float("-inf"), I32_MIN)
    MUL = ("mul", np.multiply, 1.0, 1)

    def __init__(
        self, keyword: str, ufunc: np.ufunc, f32_identity: float, i32_identity: int
    ):
        self.keyword = keyword
        self.ufunc = ufunc
        self.f32_identity = f32_identity
        self.i32_identity = i32_identity

    def identity(self, element: Attribute) -> float | int:
        return self.f32_identity if element == f32 else self.i32_identity

    @classmethod
    def named(cls, keyword: str) -> ReduceKind | None:
        return next((kind for kind in cls if kind.keyword == keyword), None)


@irdl_op_definition
class ReduceOp(ListOp):
    """`%r = grad.reduce add %a [0] : tensor<5x3xf32> to tensor<3xf32>`."""

    name = "grad.reduce"
    kind = prop_def(StringAttr)
    axes = prop_def(int_list("axes"))
    input = operand_def(TensorType)
    result = result_def(TensorType)
    LISTS: ClassVar = ("axes",)

    def __init__(
        self, kind: str, input: SSAValue, axes: Sequence[int], type: TensorType
    ):
        super().__init__(
            operands=[input],
            result_types=[type],
            properties={
                "kind": StringAttr(kind),
                "axes": DenseArrayBase.from_list(i64, axes),
            },
        )

    @property
    def reduce_kind(self) -> ReduceKind:
        kind = ReduceKind.named(self.kind.data)
        assert kind is not None, "verified"
        return kind

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type, (f32, i32))
        if ReduceKind.named(self.kind.data) is None:
            raise VerifyException(
                f"kind must be add, max or mul, got '{self.kind.data}'"
            )
        axes, rank = self.ints("axes"), source.get_num_dims()
        if not axes:
            raise VerifyException("axes must not be empty")
        if any(not 0 <= a < rank for a in axes):
            raise VerifyException(
                f"axes must be in range [0, {rank}), got {axes_text(axes)}"
            )
        if list(axes) != sorted(set(axes)):
            raise VerifyException(
                f"axes must be sorted and unique, got {axes_text(axes)}"
            )
        expected = TensorType(
            source.get_element_type(),
            [d for i, d in enumerate(source.get_shape()) if i not in axes],
        )
        if self.result.type != expected:
            raise VerifyException(
                f"result must be {expected} (the input without the reduced axes), "
                f"got {self.result.type}"
            )

    @classmethod
    def parse_prefix(cls, parser: Parser) -> dict[str, Attribute]:
        kind = parser.parse_identifier(" (reduction kind: add, max or mul)")
        return {"kind": StringAttr(kind)}

    def print_prefix(self, printer: Printer) -> None:
        printer.print_string(f" {self.kind.data} ")

    def kernel(self) -> Kernel:
        ufunc, axes = self.reduce_kind.ufunc, tuple(self.ints("axes"))
        dtype = dtype_of(tensor_type(self.input).get_element_type())
        if ufunc is np.maximum:
            return lambda a: maximum_reduce(np.ascontiguousarray(a, dtype), axes)
        return lambda a: ufunc.reduce(contiguous(a), axes, dtype)

    def fresh_result(self) -> bool:
        return True


class ShapeOp(ListOp, ABC):
    """`%r = grad.<op> %a [ints] : T1 to T2`, for broadcast and permute."""

    input = operand_def(TensorType)
    result = result_def(TensorType)

    def __init__(self, input: SSAValue, values: Sequence[int], type: TensorType):
        super().__init__(
            operands=[input],
            result_types=[type],
            properties={self.LISTS[0]: DenseArrayBase.from_list(i64, values)},
        )

    def types(self) -> tuple[TensorType, TensorType]:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_element_type() != target.get_element_type():
            raise VerifyException(
                f"result element type must be {source.get_element_type()}, got "
                f"{target.get_element_type()}"
            )
        return source, target


@irdl_op_definition
class BroadcastOp(ShapeOp):
    """Like `stablehlo.broadcast_in_dim`: input dim i becomes output dim dims[i];
    an input dim of size 1 may expand."""

    name = "grad.broadcast"
    dims = prop_def(int_list("dims"))
    LISTS: ClassVar = ("dims",)

    def verify_(self) -> None:
        source, target = self.types()
        dims, rank = self.ints("dims"), target.get_num_dims()
        if len(dims) != source.get_num_dims():
            raise VerifyException(
                f"dims must have one entry per input dim ({source.get_num_dims()})"
                f", got {axes_text(dims)}"
            )
        if any(not 0 <= d < rank for d in dims):
            raise VerifyException(
                f"dims must be in range [0, {rank}), got {axes_text(dims)}"
            )
        if any(a >= b for a, b in pairwise(dims)):
            raise VerifyException(
                f"dims must be strictly increasing, got {axes_text(dims)}"
            )
        for i, (size, d) in enumerate(zip(source.get_shape(), dims, strict=True)):
            if size not in (1, target.get_shape()[d]):
                raise VerifyException(
                    f"input dim {i} of size {size} cannot broadcast to output dim "
                    f"{d} of size {target.get_shape()[d]}"
                )

    def kernel(self) -> Kernel:
        source, target = shape_of(self.input), shape_of(self.result)
        placed = [1] * len(target)
        for size, d in zip(source, self.ints("dims"), strict=True):
            placed[d] = size
        dtype = np.dtype(dtype_of(tensor_type(self.input).get_element_type()))
        c_strides = tuple(
            dtype.itemsize * math.prod(source[i + 1 :]) for i in range(len(source))
        )
        strides = [0] * len(target)
        for i, d in enumerate(self.ints("dims")):
            if source[i] == target[d]:
                strides[d] = c_strides[i]

        def broadcast(a: np.ndarray) -> np.ndarray:
            """A read-only view with stride 0 along the expanded dims: built
            directly on `a`'s memory (4x faster than `np.broadcast_to`) where
            `a` is C-ordered, as results of whole ops are, so that the view's
            strides are known when planning."""
            if a.strides == c_strides:
                try:
                    view = np.ndarray(target, dtype, a, 0, strides)
                except (TypeError, ValueError, BufferError):  # no buffer
                    pass
                else:
                    view.flags.writeable = False
                    return view
            return np.broadcast_to(a.reshape(placed), target)

        return broadcast


@irdl_op_definition
class PermuteOp(ShapeOp):
    """Output dim i is input dim perm[i]."""

    name = "grad.permute"
    perm = prop_def(int_list("perm"))
    LISTS: ClassVar = ("perm",)

    def verify_(self) -> None:
        source, target = self.types()
        perm = self.ints("perm")
        if sorted(perm) != list(range(source.get_num_dims())):
            raise VerifyException(
                f"perm must be a permutation of [0, {source.get_num_dims()}), got "
                f"{axes_text(perm)}"
            )
        expected = [source.get_shape()[p] for p in perm]
        if list(target.get_shape()) != expected:
            raise VerifyException(
                f"result shape must be {expected}, got {list(target.get_shape())}"
            )

    def kernel(self) -> Kernel:
        perm = self.ints("perm")
        return lambda a: a.transpose(perm)


@irdl_op_definition
class ReshapeOp(RetypeOp):
    """Same elements in row-major order, another shape."""

    name = "grad.reshape"

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_element_type() != target.get_element_type():
            raise VerifyException(
                f"result element type must be {source.get_element_type()}, got "
                f"{target.get_element_type()}"
            )
        if source.element_count() != target.element_count():
            raise VerifyException(
                f"result must have as many elements as the input "
                f"({source.element_count()}), got {target.element_count()}"
            )

    def kernel(self) -> Kernel:
        shape = shape_of(self.result)
        return lambda a: a.reshape(shape)


def swap_last(rank: int) -> list[int]:
    """The permutation that swaps the last two dims and keeps the batch dims."""
    return [*range(rank - 2), rank - 1, rank - 2]


@irdl_op_definition
class DotOp(KernelOp):
    """f32 matrix product, batched over equal leading dims:
    `tensor<BxMxKxf32>, tensor<BxKxNxf32>` to `tensor<BxMxNxf32>`."""

    name = "grad.dot"
    lhs = operand_def(TensorType)
    rhs = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = (
        "$lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `to` type($result)"
    )

    def __init__(self, lhs: SSAValue, rhs: SSAValue):
        (*batch, m, _), (*_, n) = shape_of(lhs), shape_of(rhs)
        result = TensorType(f32, [*batch, m, n])
        super().__init__(operands=[lhs, rhs], result_types=[result])

    def verify_(self) -> None:
        shapes = []
        for name, value in (("lhs", self.lhs), ("rhs", self.rhs)):
            type = check_tensor(name, value.type, (f32,))
            if type.get_num_dims() < 2:
                raise VerifyException(
                    f"{name} must be a tensor of rank at least 2, got {type}"
                )
            shapes.append(type.get_shape())
        (*batch, m, k), (*batch2, k2, n) = shapes
        if len(batch) != len(batch2):
            raise VerifyException(
                f"lhs and rhs must have the same rank, got {len(batch) + 2} and "
                f"{len(batch2) + 2}"
            )
        if batch != batch2:
            raise VerifyException(
                f"batch dims must agree: lhs has {batch}, rhs has {batch2}"
            )
        if k != k2:
            raise VerifyException(
                f"inner sizes must agree: lhs has {k} columns, rhs has {k2} rows"
            )
        expected = TensorType(f32, [*batch, m, n])
        if self.result.type != expected:
            raise VerifyException(f"result must be {expected}, got {self.result.type}")

    def kernel(self) -> Kernel:
        return lambda a, b, out=None: np.matmul(contiguous(a), contiguous(b), out=out)

    def fresh_result(self) -> bool:
        return True

    def takes_out(self) -> bool:
        return True
