"""`tensor.expand_shape` as MLIR and IREE print it for a scalar made a vector,
and `tensor.generate`, which xDSL 0.74 lacks.

xDSL 0.74's verifier refuses `tensor.expand_shape %x [] output_shape [1] :
tensor<f32> into tensor<1xf32>` (rank 0 to rank 1, an empty reassociation),
which MLIR accepts and IREE's input conversion prints for a scalar
accumulated into a vector (SPEC §10.5). This op replaces xDSL's in gradopt's
context only and differs from it in that case alone.
"""

from __future__ import annotations

from xdsl.dialects import tensor
from xdsl.dialects.builtin import (
    DenseArrayBase,
    IndexType,
    TensorType,
    i64,
)
from xdsl.dialects.utils.reshape_ops_utils import ContiguousArrayOfIntArray
from xdsl.ir import Attribute
from xdsl.irdl import (
    IRDLOperation,
    irdl_op_definition,
    operand_def,
    prop_def,
    region_def,
    result_def,
    var_operand_def,
)
from xdsl.utils.exceptions import VerifyException


@irdl_op_definition
class ExpandShapeOp(tensor.ExpandShapeOp):
    """xDSL's `tensor.expand_shape`, which also takes a rank-0 source into a
    result whose dims are all 1, with the empty reassociation `[]`."""

    name = "tensor.expand_shape"
    src = operand_def(TensorType)
    dynamic_output_shape = var_operand_def(IndexType)
    reassociation = prop_def(ContiguousArrayOfIntArray())
    static_output_shape = prop_def(DenseArrayBase.constr(i64))
    result = result_def(TensorType[Attribute])

    def verify_(self) -> None:
        source, result = self.src.type, self.result.type
        assert isinstance(source, TensorType) and isinstance(result, TensorType)
        if source.get_shape() or self.reassociation.data:
            return super().verify_()
        shape = result.get_shape()
        if tuple(self.static_output_shape.get_values()) != shape:
            raise VerifyException(
                f"output_shape {list(self.static_output_shape.get_values())} must be "
                f"the result's shape {list(shape)}"
            )
        if any(dim != 1 for dim in shape):
            raise VerifyException(
                f"a rank-0 source expands only to dims of size 1, got {result}"
            )


@irdl_op_definition
class GenerateOp(IRDLOperation):
    """`%t = tensor.generate { ^bb0(%i: index, %j: index): ... tensor.yield
    %v : f32 } : tensor<3x4xf32>`: element `[i, j]` is what the body yields
    for those indices (`%n` operands give the dynamic sizes)."""

    name = "tensor.generate"
    dynamic_extents = var_operand_def(IndexType)
    result = result_def(TensorType[Attribute])
    body = region_def("single_block")
    assembly_format = "$dynamic_extents $body attr-dict `:` type($result)"

    def verify_(self) -> None:
        type = self.result.type
        assert isinstance(type, TensorType)
        block = self.body.block
        if [a.type for a in block.args] != [IndexType()] * type.get_num_dims():
            raise VerifyException(
                f"the body must take one index per dim of {type}, got "
                f"({', '.join(str(a.type) for a in block.args)})"
            )
        dynamic = sum(d < 0 for d in type.get_shape())
        if len(self.dynamic_extents) != dynamic:
            raise VerifyException(
                f"{type} has {dynamic} dynamic dims, got "
                f"{len(self.dynamic_extents)} sizes"
            )
        terminator = block.last_op
        element = type.get_element_type()
        if not isinstance(terminator, tensor.YieldOp) or [
            v.type for v in terminator.operands
        ] != [element]:
            raise VerifyException(f"the body must yield one {element}")
