"""SPEC §3.1: `cast` and `bitcast`."""

from __future__ import annotations

from abc import ABC

import numpy as np
from xdsl.dialects.builtin import (
    TensorType,
    f32,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import (
    irdl_op_definition,
    operand_def,
    result_def,
    traits_def,
)
from xdsl.traits import (
    Pure,
)
from xdsl.utils.exceptions import VerifyException

from gradopt.dialect.kernels import Kernel, cast_kernel
from gradopt.dialect.ops.base import GradCanonicalization, KernelOp
from gradopt.dialect.types import (
    check_tensor,
    dtype_of,
    tensor_type,
)


class ConversionOp(KernelOp, ABC):
    """`%r = grad.cast %a : tensor<5xf32> to tensor<5xi32>`: same shape."""

    input = operand_def(TensorType)
    result = result_def(TensorType)
    traits = traits_def(Pure(), GradCanonicalization())
    assembly_format = "$input attr-dict `:` type($input) `to` type($result)"

    def __init__(self, input: SSAValue, type: TensorType):
        super().__init__(operands=[input], result_types=[type])

    def verify_(self) -> None:
        source = check_tensor("input", self.input.type)
        target = check_tensor("result", self.result.type)
        if source.get_shape() != target.get_shape():
            raise VerifyException(
                f"result shape must equal the input shape {list(source.get_shape())}"
                f", got {list(target.get_shape())}"
            )

    def conversion(self) -> tuple[Attribute, Attribute]:
        return tensor_type(self.input).get_element_type(), tensor_type(
            self.result
        ).get_element_type()


@irdl_op_definition
class CastOp(ConversionOp):
    name = "grad.cast"

    def kernel(self) -> Kernel:
        return cast_kernel(*self.conversion())

    def fresh_result(self) -> bool:
        source, target = self.conversion()
        return source != target


@irdl_op_definition
class BitcastOp(ConversionOp):
    """Reinterprets the bits of f32 as i32 or back."""

    name = "grad.bitcast"

    def verify_(self) -> None:
        super().verify_()
        source, target = self.conversion()
        if source != target and {source, target} != {f32, i32}:
            raise VerifyException(
                f"bitcast must be between f32 and i32 or to the same type, got "
                f"{source} to {target}"
            )

    def kernel(self) -> Kernel:
        source, target = self.conversion()
        if source == target:
            return lambda a: a
        dtype = dtype_of(target)
        return lambda a: np.asarray(a).view(dtype)
