"""SPEC §3.1: the integer ops (`idiv`, `mod`, bitwise ops and shifts)."""

from __future__ import annotations

from abc import ABC
from typing import ClassVar

import numpy as np
from xdsl.dialects.builtin import (
    i1,
    i32,
)
from xdsl.irdl import (
    irdl_op_definition,
)

from gradopt.dialect.errors import OpError
from gradopt.dialect.kernels import Kernel, check_divisor, divide_toward_zero, wrap_i32
from gradopt.dialect.ops.elementwise import BinaryOp


class IntegerBinaryOp(BinaryOp, ABC):
    ELEMENTS: ClassVar = (i32,)


class IntegerArithmeticOp(IntegerBinaryOp, ABC):
    """`idiv`, `mod`, `shl`, `shr`: computed in int64 and wrapped, or checked,
    into a new array; not a ufunc that takes `out=`."""

    def out_operands(self) -> tuple[int, ...]:
        return ()


@irdl_op_definition
class IDivOp(IntegerArithmeticOp):
    name = "grad.idiv"

    def kernel(self) -> Kernel:
        def idiv(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            check_divisor(self, b)
            return wrap_i32(divide_toward_zero(a, b))

        return idiv


@irdl_op_definition
class ModOp(IntegerArithmeticOp):
    """Remainder with the sign of the dividend, as in C."""

    name = "grad.mod"

    def kernel(self) -> Kernel:
        def mod(a: np.ndarray, b: np.ndarray) -> np.ndarray:
            check_divisor(self, b)
            a64, b64 = np.asarray(a, np.int64), np.asarray(b, np.int64)
            return wrap_i32(a64 - b64 * divide_toward_zero(a64, b64))

        return mod


class BitwiseOp(IntegerBinaryOp, ABC):
    ELEMENTS: ClassVar = (i32, i1)


@irdl_op_definition
class AndOp(BitwiseOp):
    name = "grad.and"
    UFUNC: ClassVar = np.bitwise_and


@irdl_op_definition
class OrOp(BitwiseOp):
    name = "grad.or"
    UFUNC: ClassVar = np.bitwise_or


@irdl_op_definition
class XorOp(BitwiseOp):
    name = "grad.xor"
    UFUNC: ClassVar = np.bitwise_xor


class ShiftOp(IntegerArithmeticOp, ABC):
    def _checked(self, shift: np.ndarray) -> np.ndarray:
        if np.any((shift < 0) | (shift > 31)):
            raise OpError(self, "shift amount outside 0..31", at_run_time=True)
        return shift


@irdl_op_definition
class ShlOp(ShiftOp):
    name = "grad.shl"

    def kernel(self) -> Kernel:
        return lambda a, b: wrap_i32(
            np.left_shift(np.asarray(a, np.int64), self._checked(b))
        )


@irdl_op_definition
class ShrOp(ShiftOp):
    """Arithmetic shift right."""

    name = "grad.shr"

    def kernel(self) -> Kernel:
        return lambda a, b: np.right_shift(a, self._checked(b))
