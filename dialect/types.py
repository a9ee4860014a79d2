"""The value types of the `grad` dialect (SPEC §2) and their NumPy dtypes."""

from __future__ import annotations

import numpy as np
from xdsl.dialects.builtin import (
    Float32Type,
    IntegerType,
    MemRefType,
    TensorType,
    f32,
    i1,
    i32,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.utils.exceptions import VerifyException

ELEMENT_TYPES: tuple[Attribute, ...] = (f32, i32, i1)

_DTYPES: dict[Attribute, type[np.generic]] = {
    f32: np.float32,
    i32: np.int32,
    i1: np.bool_,
}


def dtype_of(element: Attribute) -> type[np.generic]:
    """The NumPy dtype that holds values of `element` (f32, i32 or i1)."""
    return _DTYPES[element]


def is_f32_tensor(type: Attribute) -> bool:
    return isinstance(type, TensorType) and isinstance(
        type.get_element_type(), Float32Type
    )


def is_i1(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.width.data == 1


def describe(elements: tuple[Attribute, ...]) -> str:
    """`f32`, `f32 or i32`, `f32, i32 or i1`."""
    names = [str(e) for e in elements]
    return " or ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)


def check_tensor(
    what: str, type: Attribute, elements: tuple[Attribute, ...] = ELEMENT_TYPES
) -> TensorType:
    """The statically shaped tensor `type`, or a verifier error naming `what`."""
    if not isinstance(type, TensorType) or any(d < 0 for d in type.get_shape()):
        raise VerifyException(
            f"{what} must be a statically shaped tensor of {describe(elements)}, "
            f"got {type}"
        )
    if type.get_element_type() not in elements:
        raise VerifyException(
            f"{what} must be a tensor of {describe(elements)}, got {type}"
        )
    return type


def check_slot(what: str, type: Attribute) -> MemRefType:
    if (
        not isinstance(type, MemRefType)
        or any(d < 0 for d in type.get_shape())
        or type.get_element_type() not in ELEMENT_TYPES
    ):
        raise VerifyException(
            f"{what} must be a statically shaped memref of "
            f"{describe(ELEMENT_TYPES)}, got {type}"
        )
    return type


def tensor_type(value: SSAValue) -> TensorType:
    """The type of a value known (verified) to be a tensor."""
    assert isinstance(value.type, TensorType)
    return value.type
