"""The value types of the `grad` dialect (SPEC §2) and their NumPy dtypes."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import TypeGuard

import numpy as np
from typing_extensions import TypeVar
from xdsl.dialects.builtin import (
    DenseArrayBase,
    Float32Type,
    IntegerAttr,
    IntegerType,
    MemRefType,
    TensorType,
    f32,
    i1,
    i32,
    i64,
)
from xdsl.ir import Attribute, SSAValue
from xdsl.irdl import AttrConstraint, IntConstraint, VerificationContext
from xdsl.utils.exceptions import VerifyException

ELEMENT_TYPES: tuple[Attribute, ...] = (f32, i32, i1)

_DTYPES: dict[Attribute, type[np.generic]] = {
    f32: np.float32,
    i32: np.int32,
    i1: np.bool_,
    i64: np.int64,
}


def dtype_of(element: Attribute) -> type[np.generic]:
    """The NumPy dtype that holds values of `element` (f32, i32 or i1; i64
    too, the indices and labels that a torch program takes)."""
    return _DTYPES[element]


Value = TensorType | Float32Type | IntegerType
"""What an entry function takes or gives besides slots: a tensor, or a scalar
(`f32`, `i32`, `i1`: SSA values of upstream programs, SPEC §10.1)."""


def is_value_type(type: Attribute) -> TypeGuard[Value]:
    return isinstance(type, TensorType) or type in ELEMENT_TYPES


def layout_of(
    type: TensorType | MemRefType | Attribute,
) -> tuple[Attribute, tuple[int, ...]]:
    """The element type and shape of values of `type`: a tensor's or memref's,
    or a scalar type itself with the shape `()`."""
    if isinstance(type, TensorType | MemRefType):
        return type.get_element_type(), tuple(type.get_shape())
    return type, ()


def is_f32_tensor(type: Attribute) -> bool:
    return isinstance(type, TensorType) and isinstance(
        type.get_element_type(), Float32Type
    )


I32_MIN, I32_MAX = -(2**31), 2**31 - 1
"""The range of i32, where integer literals, arguments and casts must land."""


def fits_i32(value: int) -> bool:
    return I32_MIN <= value <= I32_MAX


def is_i1(element: Attribute) -> bool:
    return isinstance(element, IntegerType) and element.width.data == 1


def describe(elements: tuple[Attribute, ...]) -> str:
    """`f32`, `f32 or i32`, `f32, i32 or i1`."""
    names = [str(e) for e in elements]
    return " or ".join([", ".join(names[:-1]), names[-1]] if names[1:] else names)


def is_static_tensor(type: Attribute) -> TypeGuard[TensorType]:
    return isinstance(type, TensorType) and all(d >= 0 for d in type.get_shape())


def is_tensor_of(
    type: Attribute, elements: tuple[Attribute, ...] = ELEMENT_TYPES
) -> TypeGuard[TensorType]:
    """Whether `type` is a statically shaped tensor of one of `elements`."""
    return is_static_tensor(type) and type.get_element_type() in elements


def check_tensor(
    what: str, type: Attribute, elements: tuple[Attribute, ...] = ELEMENT_TYPES
) -> TensorType:
    """The statically shaped tensor `type`, or a verifier error naming `what`."""
    if not is_static_tensor(type):
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


@dataclass(frozen=True)
class Named(AttrConstraint):
    """`constraint` for the property `name`: any other value (an `array<f32:
    ...>` where `array<i64: ...>` is due, say) is refused with a message that
    names the property and what it must be."""

    name: str
    constraint: AttrConstraint
    expected: str

    def verify(self, attr: Attribute, constraint_context: VerificationContext) -> None:
        if not self.constraint.verifies(attr):
            raise VerifyException(f"{self.name} must be {self.expected}, got {attr}")

    def get_bases(self) -> set[type[Attribute]] | None:
        return self.constraint.get_bases()

    def mapping_type_vars(
        self, type_var_mapping: Mapping[TypeVar, AttrConstraint | IntConstraint]
    ) -> Named:
        return self


def int_list(name: str) -> Named:
    """An `array<i64: ...>` property."""
    return Named(name, DenseArrayBase.constr(i64), "an array<i64: ...>")


def int_scalar(name: str) -> Named:
    """An `i64` integer property."""
    return Named(name, IntegerAttr.constr(i64), "an i64 integer")
